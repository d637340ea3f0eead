package embedding

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestIDFBoundedMemory: IDF keeps the references' token ids, not their token embeddings. A TEI
// server of wide vectors measures the live heap at each request: the embeddings of the texts
// already fetched must have been let go, so that it stays far below what all of them would take.
func TestIDFBoundedMemory(t *testing.T) {
	const refs, dim = 300, 4096 // 3 tokens of 16 KiB each per reference: 14 MiB for all of them
	var mu sync.Mutex
	var base, peak uint64
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Inputs []string `json:"inputs"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		if h := live(); h > base {
			peak = max(peak, h-base)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteByte('[')
		for i, in := range req.Inputs {
			if i > 0 {
				b.WriteByte(',')
			}
			n := len(strings.Fields(in)) + 2
			if r.URL.Path == "/tokenize" {
				b.WriteString(`[{"id":101,"special":true}`)
				for j := 1; j < n-1; j++ {
					fmt.Fprintf(&b, `,{"id":%d,"special":false}`, j)
				}
				b.WriteString(`,{"id":102,"special":true}]`)
				continue
			}
			b.WriteByte('[')
			for j := range n {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString("[1" + strings.Repeat(",0.5", dim-1) + "]")
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
		w.Write([]byte(b.String())) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL, Batch: 4, Parallel: 1})
	lists := make([][]string, refs)
	for i := range lists {
		lists[i] = []string{fmt.Sprintf("word%d", i)}
	}
	base = live()
	idf, err := sc.IDF(context.Background(), lists)
	if err != nil {
		t.Fatal(err)
	}
	if idf.Docs() != refs {
		t.Errorf("IDF counted %d references, want %d", idf.Docs(), refs)
	}
	const all = refs * 3 * dim * 4
	if peak > all/4 {
		t.Errorf("IDF held %d KiB at a request, want well below the %d KiB of every reference's token embeddings", peak>>10, all>>10)
	}
}

// TestIDFEmptyAndRepeatedReferences: an empty reference is a document holding only the special
// tokens every text gets, and a reference repeated in a later round is counted again but not
// fetched again. References "a", "", "a" (M = 3), one a round: df [CLS] = df [SEP] = 3 (idf 0),
// df a = 2, idf ln(4/3).
func TestIDFEmptyAndRepeatedReferences(t *testing.T) {
	f := newFake(t)
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL, Batch: 1, Parallel: 1})
	idf, err := sc.IDF(context.Background(), [][]string{{"a", " "}, {"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if idf.Docs() != 3 {
		t.Errorf("IDF counted %d references, want 3", idf.Docs())
	}
	for _, c := range []struct {
		tok  int
		want float64
	}{{clsID, 0}, {sepID, 0}, {1, math.Log(4.0 / 3)}} {
		if got := idf.Weight(c.tok); !near(got, c.want) {
			t.Errorf("idf(%d) = %v, want %v", c.tok, got, c.want)
		}
	}
	if n := f.count("/embed_all"); n != 1 {
		t.Errorf("IDF made %d /embed_all requests, want 1 (\"a\" once)", n)
	}
}
