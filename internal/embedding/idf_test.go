package embedding

import (
	"context"
	"encoding/json"
	"fmt"
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
