package embedding

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/qapipe/qapipe/pkg/metric"
)

// TestBERTScorePrefixSpace: with PrefixSpace each stripped text goes to /tokenize and /embed_all
// with one space before it, as bert_score's sent_encode encodes it for a RoBERTa or GPT-2
// tokenizer (add_prefix_space=True), so that the first word is the space-prefixed token; a blank
// text is still not sent. The fake tokenizer makes the first word of " a b" "Ġa" = (1,1) and of
// " b a" "Ġb" = (-1,1), s = 1/√2:
//
//	"a b" vs "b a", as they are: [a b] vs [b a], P = R = F1 = 1.
//	with the space:              [Ġa b] vs [Ġb a]: Ġa's best is a (s), b's is Ġb (s): P = s;
//	                             Ġb's best is b (s), a's is Ġa (s): R = s; F1 = s.
func TestBERTScorePrefixSpace(t *testing.T) {
	s := 1 / math.Sqrt2
	preds, refs := []string{"a b", " a b\n", "  "}, [][]string{{"b a"}, {"\tb a "}, {"a"}}
	for _, tc := range []struct {
		prefix bool
		want   []metric.PRF
		bodies []string
	}{
		{false, []metric.PRF{{Precision: 1, Recall: 1, F1: 1}, {Precision: 1, Recall: 1, F1: 1}, {}},
			[]string{`{"inputs":["a b","b a","a"],"add_special_tokens":true}`, `{"inputs":["a b","b a","a"],"truncate":true}`}},
		{true, []metric.PRF{{Precision: s, Recall: s, F1: s}, {Precision: s, Recall: s, F1: s}, {}},
			[]string{`{"inputs":[" a b"," b a"," a"],"add_special_tokens":true}`, `{"inputs":[" a b"," b a"," a"],"truncate":true}`}},
	} {
		f := newFake(t)
		srv := f.start()
		sc := newScorer(t, Config{Provider: TEI, Model: "roberta", BaseURL: srv.URL, PrefixSpace: tc.prefix})
		got, err := sc.BERTScore(context.Background(), preds, refs, BERTOptions{})
		if err != nil {
			t.Fatalf("prefix %v: %v", tc.prefix, err)
		}
		checkPRF(t, "BERTScore", got, tc.want)
		if bodies := slices.Sorted(slices.Values(f.bodies)); !slices.Equal(bodies, tc.bodies) {
			t.Errorf("prefix %v: request bodies %q, want %q", tc.prefix, bodies, tc.bodies)
		}
	}
}

// TestPrefixSpaceCacheKeys: the vectors of one tokenization are never served for the other from
// a shared cache: each setting fetches its own once, and a rerun of either makes no call and
// scores as the first run of it did.
func TestPrefixSpaceCacheKeys(t *testing.T) {
	s := 1 / math.Sqrt2
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	preds, refs := []string{"a b"}, [][]string{{"b a"}}
	for i, tc := range []struct {
		prefix bool
		calls  int
		want   float64
	}{{false, 2, 1}, {true, 2, s}, {true, 0, s}, {false, 0, 1}} {
		before := f.total()
		sc := newScorer(t, Config{Provider: TEI, Model: "roberta", BaseURL: srv.URL, Cache: c, PrefixSpace: tc.prefix})
		got, err := sc.BERTScore(context.Background(), preds, refs, BERTOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkPRF(t, "BERTScore", got, []metric.PRF{{Precision: tc.want, Recall: tc.want, F1: tc.want}})
		if n := f.total() - before; n != tc.calls {
			t.Errorf("run %d (prefix %v) made %d calls, want %d", i+1, tc.prefix, n, tc.calls)
		}
	}
}

// TestPrefixSpaceSentenceKeys: PrefixSpace changes only BERTScore's tokenization: sbert's
// sentence vectors, cached without it, are found with it.
func TestPrefixSpaceSentenceKeys(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	for i, prefix := range []bool{false, true} {
		before := f.total()
		sc := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL, Cache: c, PrefixSpace: prefix})
		if _, err := sc.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}}); err != nil {
			t.Fatal(err)
		}
		if n, want := f.total()-before, 1-i; n != want {
			t.Errorf("run %d (prefix %v) made %d calls, want %d", i+1, prefix, n, want)
		}
	}
}

// TestIDFPrefixSpace: the idf table counts the token ids of the tokenization scored: with
// PrefixSpace "b a" is [Ġb a], so over that one reference (M = 1) Ġb and a weigh ln(2/2) = 0,
// and b, which it does not hold, ln(2/1).
func TestIDFPrefixSpace(t *testing.T) {
	f := newFake(t)
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "roberta", BaseURL: srv.URL, PrefixSpace: true})
	idf, err := sc.IDF(context.Background(), [][]string{{" b a\n"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		word string
		want float64
	}{{"Ġb", 0}, {"a", 0}, {"b", math.Log(2)}} {
		if got := idf.Weight(f.vocab[c.word]); !near(got, c.want) {
			t.Errorf("idf(%s) = %v, want %v", c.word, got, c.want)
		}
	}
}
