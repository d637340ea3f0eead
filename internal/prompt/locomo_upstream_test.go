package prompt_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// locomoUpstream is testdata/golden/locomo_cut.json: what LoCoMo's own get_gpt_answers and
// run_chatgpt send (scripts/locomo-requests.py, see testdata/README.md).
type locomoUpstream struct {
	Cut []struct {
		Records      string `json:"records"`
		Index        int    `json:"index"`
		AbstainFirst bool   `json:"abstain_first"`
		Limits       [2]int `json:"limits"`
		Whole        bool   `json:"whole"`
		Query        string `json:"query"`
	} `json:"cut"`
	Requests []struct {
		Records      string  `json:"records"`
		Index        int     `json:"index"`
		AbstainFirst bool    `json:"abstain_first"`
		Variant      string  `json:"variant"`
		Model        string  `json:"model"`
		Role         string  `json:"role"`
		MaxTokens    int     `json:"max_tokens"`
		Temperature  float64 `json:"temperature"`
		N            int     `json:"n"`
		Bytes        int     `json:"bytes"`
		SHA256       string  `json:"sha256"`
	} `json:"requests"`
}

// upstreamRecords are the record files the script read, by its labels: conv26 is qa-load's
// reading of the repository's conv-26 sample. They are read once for every test (some seconds
// under -race) and shared: a test must not change them.
func upstreamRecords(t testing.TB) map[string][]*record.Record {
	t.Helper()
	recs, err := readUpstreamRecords()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

var readUpstreamRecords = sync.OnceValues(func() (map[string][]*record.Record, error) {
	var conv26 bytes.Buffer
	if err := load.Run(context.Background(), []string{"qa-load", "../../testdata/locomo/locomo_conv26.json"}, nil, &conv26, io.Discard); err != nil {
		return nil, err
	}
	out := map[string][]*record.Record{}
	var err error
	if out["conv26"], err = readRecords(&conv26); err != nil {
		return nil, err
	}
	for label, file := range map[string]string{"golden": "testdata/golden/locomo_records.jsonl", "synthetic": "testdata/golden/locomo_cut_records.jsonl"} {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		out[label], err = readRecords(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return out, nil
})

func readRecords(r io.Reader) ([]*record.Record, error) {
	var recs []*record.Record
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec record.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, err
		}
		recs = append(recs, &rec)
	}
	return recs, sc.Err()
}

// readGolden reads the JSON golden file path into a T.
func readGolden[T any](t testing.TB, path string) T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// TestLoCoMoCutUpstream checks each query upstream sends for a range of MAX_LENGTH values at both
// ends of the range, and that one token less (more) than the range gives another query: every
// place where a turn just fits or just does not, on three synthetic conversations, and some on
// four sessions of conv-26.
func TestLoCoMoCutUpstream(t *testing.T) {
	u, recs := readGolden[locomoUpstream](t, "testdata/golden/locomo_cut.json"), upstreamRecords(t)
	if len(u.Cut) < 40 {
		t.Fatalf("%d cut cases, want the 55 the script writes", len(u.Cut))
	}
	for _, c := range u.Cut {
		rec := recs[c.Records][c.Index]
		lo, hi := c.Limits[0], c.Limits[1]
		for _, n := range []int{lo, hi} {
			got, cut, err := prompt.LoCoMoQA(rec, c.AbstainFirst, n)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.Query || cut == c.Whole {
				t.Errorf("LoCoMoQA(%s %s, %v, %d) = %q, cut %v; want %q, cut %v", c.Records, rec.ID, c.AbstainFirst, n, got, cut, c.Query, !c.Whole)
			}
		}
		if lo > 0 {
			if got, _, _ := prompt.LoCoMoQA(rec, c.AbstainFirst, lo-1); got == c.Query {
				t.Errorf("LoCoMoQA(%s %s, %v, %d) is the query of %d..%d, want less", c.Records, rec.ID, c.AbstainFirst, lo-1, lo, hi)
			}
		}
		if !c.Whole {
			if got, _, _ := prompt.LoCoMoQA(rec, c.AbstainFirst, hi+1); got == c.Query {
				t.Errorf("LoCoMoQA(%s %s, %v, %d) is the query of %d..%d, want more", c.Records, rec.ID, c.AbstainFirst, hi+1, lo, hi)
			}
		}
	}
}

// TestLoCoMoVariantUpstream checks the request of each of MAX_LENGTH's names against upstream's:
// the query (by its SHA-256: conv-26 whole is cut by the gpt-3.5 names and gpt-4), its role and
// the model called.
func TestLoCoMoVariantUpstream(t *testing.T) {
	u, recs := readGolden[locomoUpstream](t, "testdata/golden/locomo_cut.json"), upstreamRecords(t)
	for _, c := range u.Requests {
		rec := recs[c.Records][c.Index]
		v, ok := prompt.LoCoMoVariantNamed(c.Variant)
		if !ok {
			t.Errorf("LoCoMoVariantNamed(%q): unknown", c.Variant)
			continue
		}
		if v.Model != c.Model || v.Role != c.Role {
			t.Errorf("LoCoMoVariantNamed(%q) = model %q, role %q; want %q, %q", c.Variant, v.Model, v.Role, c.Model, c.Role)
		}
		if c.MaxTokens != 32 || c.Temperature != 0 || c.N != 1 {
			t.Errorf("%s: upstream sent max_tokens %d, temperature %v, n %d; qapipe sends 32, 0, 1", c.Variant, c.MaxTokens, c.Temperature, c.N)
		}
		got, _, err := prompt.LoCoMoQA(rec, c.AbstainFirst, v.MaxLength)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(got))
		if hex.EncodeToString(sum[:]) != c.SHA256 {
			t.Errorf("LoCoMoQA(%s %s, %v, %s's %d) = %d bytes ending %q, want upstream's %d bytes", c.Records, rec.ID, c.AbstainFirst, c.Variant, v.MaxLength, len(got), got[max(0, len(got)-300):], c.Bytes)
		}
	}
}
