package extractor

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/memo"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// rankPlain is BM25 as its definition reads: every sentence's score, from its own term counts,
// adding the query terms' parts in the query's order; what index.rank must return.
func rankPlain(sents []sentence, q []string) []int {
	const k1, b = 1.2, 0.75
	df := make(map[string]int)
	total := 0
	for _, s := range sents {
		total += len(s.tokens)
		seen := make(map[string]bool)
		for _, t := range s.tokens {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	if len(sents) == 0 {
		return nil
	}
	avg := float64(total) / float64(len(sents))
	n := float64(len(sents))
	scores := make([]float64, len(sents))
	var idx []int
	for i, s := range sents {
		tf := make(map[string]int)
		for _, t := range s.tokens {
			tf[t]++
		}
		for _, t := range q {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			scores[i] += idf * f * (k1 + 1) / (f + float64(k1*(1-b+b*float64(len(s.tokens))/avg)))
		}
		if scores[i] > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, c int) bool { return scores[idx[a]] > scores[idx[c]] })
	return idx
}

// sampleRecords are the shipped samples' records: HotpotQA's own contexts, LoCoMo's one
// conversation per many questions, CMRC 2018's Chinese.
func sampleRecords(t *testing.T) []*record.Record {
	recs := loadRecords(t, load.HotpotQA, "testdata/hotpotqa_train_sample200.jsonl")
	recs = append(recs, loadRecords(t, load.LoCoMo, "testdata/locomo2.json")...)
	return append(recs, loadRecords(t, load.CMRC2018, "../../testdata/cmrc2018/cmrc2018_dev_sample10.json")...)
}

// TestIndexRank: the index's ranking, from its postings, is the plain BM25 ranking, order and
// ties alike, for every question of the samples (and for each question's words in reverse, so
// that repeated and reordered query terms are covered).
func TestIndexRank(t *testing.T) {
	n := 0
	for _, r := range sampleRecords(t) {
		ix := newIndex(r.Context)
		q := queryTerms(r.Question)
		rev := slices.Clone(q)
		slices.Reverse(rev)
		for _, q := range [][]string{q, append(slices.Clone(q), q...), rev} {
			if got, want := ix.rank(q), rankPlain(ix.sents, q); !slices.Equal(got, want) {
				t.Fatalf("%s: rank(%q) = %v, want %v", r.ID, q, got, want)
			}
			n++
		}
	}
	if n < 1000 {
		t.Errorf("only %d rankings compared", n)
	}
}

// TestClientCache: a Client answers every record as Answer does, its records of one context
// sharing one index, whatever order the contexts come in, and keeps at most memo.DefaultCount
// of them.
func TestClientCache(t *testing.T) {
	recs := sampleRecords(t)
	c := &Client{}
	ask := func(r *record.Record) string {
		resp, err := c.Generate(context.Background(), model.Request{Question: r.Question, Context: r.Context})
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		return resp.Text
	}
	// In order, then every third record from the end: LoCoMo's contexts come back after others.
	order := slices.Clone(recs)
	for i := len(recs) - 1; i >= 0; i -= 3 {
		order = append(order, recs[i])
	}
	for _, r := range order {
		if got, want := ask(r), Answer(r.Question, r.Context); got != want {
			t.Errorf("%s: Generate = %q, Answer = %q", r.ID, got, want)
		}
	}
	if n := len(c.cache.Sizes()); n != memo.DefaultCount {
		t.Errorf("the cache keeps %d indexes, want %d", n, memo.DefaultCount)
	}
	// A context equal to one kept, in new strings, is found; one that differs is not taken for it.
	locomo := recs[200]
	same := slices.Clone(locomo.Context)
	for i := range same {
		same[i].Text = string([]byte(same[i].Text))
	}
	ix := c.index(locomo.Context)
	if c.index(same) != ix {
		t.Error("an equal context in new strings was indexed again")
	}
	other := slices.Clone(locomo.Context)
	other[0].Date += " "
	if c.index(other) == ix {
		t.Error("a context with another date took the index of the first")
	}
	// An index is kept by the memory it and its passages keep, which its size estimates: some
	// ten times the text of a LoCoMo conversation.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ix = newIndex(locomo.Context)
	runtime.GC()
	runtime.ReadMemStats(&after)
	text := 0
	for _, p := range locomo.Context {
		text += len(p.Title) + len(p.Date) + len(p.Text)
	}
	kept := int(after.HeapAlloc-before.HeapAlloc) + text
	if ratio := float64(ix.size) / float64(kept); ratio < 0.75 || ratio > 2 {
		t.Errorf("the index of %d bytes of text keeps %d bytes with them, estimated %d", text, kept, ix.size)
	}
	runtime.KeepAlive(ix)
	seed := maphash.MakeSeed()
	for _, tc := range []struct {
		a, b record.Passage
		same bool
	}{
		{record.Passage{Title: "t", Text: "x"}, record.Passage{Title: "t", Text: "x"}, true},
		{record.Passage{Title: "t", Text: "x"}, record.Passage{Title: "t", Text: "y"}, false},
		{record.Passage{Title: "t"}, record.Passage{Title: "u"}, false},
		{record.Passage{Date: "d"}, record.Passage{}, false},
		{record.Passage{Sentences: []string{"a", "b"}}, record.Passage{Sentences: []string{"ab"}}, false},
		{record.Passage{Sentences: []string{"a"}}, record.Passage{Text: "a"}, false},
	} {
		a, b := contextKey{tc.a}, contextKey{tc.b}
		if got := a.Equal(b); got != tc.same {
			t.Errorf("%+v.Equal(%+v) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if sa, sb := memo.Sum(seed, a), memo.Sum(seed, b); (sa == sb) != tc.same {
			t.Errorf("the sums of %+v and %+v are equal: %v, want %v", tc.a, tc.b, sa == sb, tc.same)
		}
	}
}

// TestClientConcurrent: a Client's Generate is safe to call from many goroutines at once (run
// with -race), and answers each as Answer does.
func TestClientConcurrent(t *testing.T) {
	recs := sampleRecords(t)
	c := &Client{}
	var wg sync.WaitGroup
	errs := make(chan error, len(recs))
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(recs); i += 8 {
				r := recs[i]
				resp, err := c.Generate(context.Background(), model.Request{Question: r.Question, Context: r.Context})
				if err == nil && resp.Text != Answer(r.Question, r.Context) {
					err = fmt.Errorf("%s: Generate = %q, want Answer's", r.ID, resp.Text)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkGenerate answers the shipped LoCoMo sample's questions (two conversations) with one
// Client, whose cache indexes each conversation once, and with Answer, which indexes it for each
// question, as every question was answered before the cache.
func BenchmarkGenerate(b *testing.B) {
	recs, err := load.ReadFile(load.LoCoMo, "testdata/locomo2.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		answer func(c *Client, r *record.Record)
	}{
		{"cached", func(c *Client, r *record.Record) {
			c.Generate(context.Background(), model.Request{Question: r.Question, Context: r.Context})
		}},
		{"uncached", func(_ *Client, r *record.Record) { Answer(r.Question, r.Context) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				c := &Client{}
				for _, r := range recs {
					tc.answer(c, r)
				}
				n += len(recs)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
