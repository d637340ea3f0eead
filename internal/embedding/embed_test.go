package embedding

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/metric"
)

const tol = 1e-6 // vectors travel as float32

func near(a, b float64) bool { return math.Abs(a-b) <= tol }

func nearAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

// The sbert case, by hand: paris=(1,0,0), "Paris, France"=(1,1,0), london=(0,1,0), rome=(1,2,2),
// roma=(2,1,2).
var (
	sbertPreds = []string{"paris", "london", "", "rome", "rome", "paris"}
	sbertRefs  = [][]string{
		{"Paris, France", "london"}, // max(1/√2, 0)
		{"Paris, France"},           // 1/√2
		{"paris"},                   // empty prediction: 0
		{"roma"},                    // 8/9
		{},                          // no reference: 0
		{"paris", ""},               // max(1, 0)
	}
	sbertWant = []float64{1 / math.Sqrt2, 1 / math.Sqrt2, 0, 8.0 / 9, 0, 1}
)

func TestSBERTProviders(t *testing.T) {
	for _, provider := range Providers() {
		t.Run(provider, func(t *testing.T) {
			f := newFake(t)
			srv := f.start()
			s := newScorer(t, Config{Provider: provider, Model: "m", BaseURL: baseFor(provider, srv.URL), Batch: 3})
			got, err := s.SBERT(context.Background(), sbertPreds, sbertRefs)
			if err != nil {
				t.Fatalf("SBERT = %v", err)
			}
			if !nearAll(got, sbertWant) {
				t.Errorf("SBERT(%q, %q) = %v, want %v", sbertPreds, sbertRefs, got, sbertWant)
			}
			// 5 distinct non-empty texts in batches of 3: requests of 3 and 2 texts.
			if got, want := f.sortedBatches(), []int{2, 3}; !slices.Equal(got, want) {
				t.Errorf("batch sizes = %v, want %v", got, want)
			}
			if st := s.Stats(); st.Requests != 2 || st.Texts != 5 || st.CacheHits != 0 {
				t.Errorf("Stats() = %+v, want 2 requests, 5 texts, 0 hits", st)
			}
		})
	}
}

func TestSBERTWireFormat(t *testing.T) {
	tests := []struct {
		provider, path, body string
	}{
		{OpenAI, "/v1/embeddings", `{"model":"m","input":["paris","roma"]}`},
		{Ollama, "/api/embed", `{"model":"m","input":["paris","roma"]}`},
		{TEI, "/embed", `{"inputs":["paris","roma"],"truncate":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			f := newFake(t)
			srv := f.start()
			s := newScorer(t, Config{Provider: tt.provider, Model: "m", BaseURL: baseFor(tt.provider, srv.URL) + "/", APIKey: "sk-test"})
			if _, err := s.SBERT(context.Background(), []string{"paris"}, [][]string{{"roma"}}); err != nil {
				t.Fatal(err)
			}
			if f.count(tt.path) != 1 || len(f.bodies) != 1 || f.bodies[0] != tt.body {
				t.Errorf("requests %v bodies %q, want one to %s with %s", f.requests, f.bodies, tt.path, tt.body)
			}
		})
	}
}

func TestSBERTBatchesDistinctTexts(t *testing.T) {
	f := newFake(t)
	srv := f.start()
	s := newScorer(t, Config{Provider: Ollama, Model: "m", BaseURL: srv.URL, Batch: 2, Parallel: 3})
	preds := []string{"paris", "paris", "london", "rome", "roma", "paris"}
	refs := [][]string{{"london"}, {"paris"}, {"london"}, {"roma"}, {"rome"}, {"Paris, France"}}
	got, err := s.SBERT(context.Background(), preds, refs)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 1, 8.0 / 9, 8.0 / 9, 1 / math.Sqrt2}
	if !nearAll(got, want) {
		t.Errorf("SBERT = %v, want %v", got, want)
	}
	// 5 distinct texts, 2 a request: requests of 1, 2 and 2.
	if got, want := f.sortedBatches(), []int{1, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("batch sizes = %v, want %v", got, want)
	}
}

func TestSBERTCacheRerun(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	cfg := Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Cache: c, Batch: 4}
	first, err := newScorer(t, cfg).SBERT(context.Background(), sbertPreds, sbertRefs)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.total()
	if calls != 2 {
		t.Errorf("first run made %d calls, want 2", calls)
	}
	// A fresh Scorer over the same cache: no HTTP call at all, the same scores.
	s := newScorer(t, cfg)
	second, err := s.SBERT(context.Background(), sbertPreds, sbertRefs)
	if err != nil {
		t.Fatal(err)
	}
	if f.total() != calls {
		t.Errorf("rerun made %d HTTP calls, want 0", f.total()-calls)
	}
	if !slices.Equal(first, second) {
		t.Errorf("rerun SBERT = %v, first run %v", second, first)
	}
	if st := s.Stats(); st.Requests != 0 || st.CacheHits != 5 {
		t.Errorf("rerun Stats() = %+v, want 0 requests and 5 hits", st)
	}
	// Another model is another key: everything is fetched again.
	cfg.Model = "m2"
	if _, err := newScorer(t, cfg).SBERT(context.Background(), sbertPreds, sbertRefs); err != nil {
		t.Fatal(err)
	}
	if f.total() != 2*calls {
		t.Errorf("other model made %d calls, want %d", f.total()-calls, calls)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	for _, status := range []int{500, 503, 429} {
		f := newFake(t)
		f.fail = []int{status}
		srv := f.start()
		s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL})
		got, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
		if err != nil {
			t.Fatalf("after a %d: SBERT = %v, want a retried success", status, err)
		}
		if !near(got[0], 8.0/9) || f.count("/embed") != 2 {
			t.Errorf("after a %d: SBERT = %v with %d requests, want 8/9 with 2", status, got, f.count("/embed"))
		}
	}
}

func TestPersistentFailureIsAnError(t *testing.T) {
	f := newFake(t)
	f.fail = []int{503, 503, 503, 503, 503}
	srv := f.start()
	s := newScorer(t, Config{Provider: Ollama, Model: "m", BaseURL: srv.URL})
	got, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	// The attempts are counted as a model call's are (model.CallError), after the server's words.
	want := "embed " + srv.URL + `/api/embed: 503 Service Unavailable: {"error":"injected 503"} (after 4 attempts)`
	if err == nil || err.Error() != want {
		t.Errorf("SBERT after 4 503s = %v, %v; want error %q", got, err, want)
	}
	if n := f.count("/api/embed"); n != 4 {
		t.Errorf("%d attempts, want 4 (1 + 3 retries)", n)
	}
}

// TestTimeoutCountsAttempts: attempts that time out end in the latest one's error with the count
// in the model calls' words, not in the transport's own "after 2 attempts: ..." before it, and
// the hint names --embed-timeout, which the client's words do not.
func TestTimeoutCountsAttempts(t *testing.T) {
	release := make(chan struct{}) // the server sees no hang-up of a request whose body it has not read
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // first: Close waits for the handlers
	for retries, suffix := range map[int]string{0: "", 1: " (after 2 attempts)"} {
		client := model.NewTransport(model.TransportConfig{MaxRetries: retries, Timeout: 20 * time.Millisecond,
			Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}).Client()
		s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL, HTTPClient: client})
		_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
		want := "embed " + srv.URL + "/embed: context deadline exceeded" + suffix +
			"; every attempt stops at --embed-timeout 20ms, and the last reached it: a slow server, or a long prompt or reply, can need longer (0: no limit)"
		if err == nil || err.Error() != want {
			t.Errorf("SBERT with %d retries against a server that never answers = %v, want %q", retries, err, want)
		}
	}
}

// TestClientErrorIsAnError: a 400 for a request of one text is that text's error (see
// TestSBERTTextOverContext for a request of several), quoting the status and the server's
// message, never a score, and not retried.
func TestClientErrorIsAnError(t *testing.T) {
	f := newFake(t)
	f.fail = []int{400}
	srv := f.start()
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", APIKey: "sk-secret-key"})
	got, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{}})
	if err == nil {
		t.Fatalf("SBERT after a 400 = %v, nil error; want an error, not a score", got)
	}
	if _, ok := errors.AsType[*RefusedError](err); !ok || len(got) != 1 || !math.IsNaN(got[0]) ||
		!strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "injected 400") {
		t.Errorf("SBERT after a 400 = %v, %v; want a NaN score and a *RefusedError quoting the status and message", got, err)
	}
	if strings.Contains(err.Error(), "sk-secret-key") {
		t.Errorf("error %q leaks the API key", err)
	}
	if f.count("/v1/embeddings") != 1 {
		t.Errorf("a 400 was retried: %d requests", f.count("/v1/embeddings"))
	}
}

// TestSBERTErrors: a text the server refuses (422), and a zero vector for a text sent, whether
// every vector of the call is zero or one among others (a failing server), are errors, never a
// silent 0.
func TestSBERTErrors(t *testing.T) {
	for _, tt := range []struct{ pred, ref, want string }{
		{"nowhere", "paris", "422"},
		{"zero", "zero", `zero vector (no direction to compare) for "zero"`},
		{"paris", "zero", `zero vector (no direction to compare) for "zero"`},
	} {
		f := newFake(t)
		srv := f.start()
		s := newScorer(t, Config{Provider: Ollama, Model: "m", BaseURL: srv.URL})
		if _, err := s.SBERT(context.Background(), []string{tt.pred}, [][]string{{tt.ref}}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("SBERT(%q, %q) = %v, want an error with %q", tt.pred, tt.ref, err, tt.want)
		}
	}
}

// TestZeroVectorNotCached: a zero vector is refused before it is stored, so once the server is
// fixed a rerun over the same cache asks for that text again (the good text of the batch, paid
// for, is served from the cache); and an entry an earlier version stored is asked for again.
func TestZeroVectorNotCached(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	cfg := Config{Provider: Ollama, Model: "m", BaseURL: srv.URL, Cache: c}
	if _, err := newScorer(t, cfg).SBERT(context.Background(), []string{"paris"}, [][]string{{"zero"}}); err == nil {
		t.Fatal("SBERT against a zero vector = nil error")
	}
	if n, _ := c.Len(context.Background()); n != 1 {
		t.Errorf("%d entries cached, want 1 (paris's; not the zero vector)", n)
	}
	f.sentences["zero"] = []float32{1, 1, 0}
	s := newScorer(t, cfg)
	got, err := s.SBERT(context.Background(), []string{"paris"}, [][]string{{"zero"}})
	if err != nil || !nearAll(got, []float64{1 / math.Sqrt2}) {
		t.Errorf("rerun SBERT = %v, %v, want [1/√2]", got, err)
	}
	if st := s.Stats(); st.Texts != 1 || st.CacheHits != 1 {
		t.Errorf("rerun Stats() = %+v, want 1 text asked and 1 from the cache", st)
	}

	// An entry stored by an earlier version that cached zero vectors.
	key, err := cache.Key(vectorNamespace, cacheKey{Ollama, srv.URL, "m", "london", false})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(context.Background(), key, encodeVector([]float32{0, 0, 0})); err != nil {
		t.Fatal(err)
	}
	s = newScorer(t, cfg)
	got, err = s.SBERT(context.Background(), []string{"london"}, [][]string{{"paris"}})
	if err != nil || !nearAll(got, []float64{0}) || s.Stats().Texts != 1 {
		t.Errorf("SBERT over a cached zero vector = %v, %v, %+v, want [0] with london asked again", got, err, s.Stats())
	}
}

// TestMixedDimensionsNotCached: a reply whose embeddings differ in dimension is refused before
// any of it is stored, so once the server is fixed a rerun over the same cache asks for that
// batch again, where the vectors of the first reply stayed cached and failed every rerun.
func TestMixedDimensionsNotCached(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	cfg := Config{Provider: Ollama, Model: "m", BaseURL: srv.URL, Cache: c}
	f.sentences["odd"] = []float32{1, 1}
	_, err := newScorer(t, cfg).SBERT(context.Background(), []string{"paris"}, [][]string{{"odd"}})
	if err == nil || !strings.Contains(err.Error(), "embeddings of dimensions 2 and 3 in one reply") {
		t.Fatalf("SBERT against a 2-d vector among 3-d ones = %v, want the reply refused", err)
	}
	if n, _ := c.Len(context.Background()); n != 0 {
		t.Errorf("%d entries cached from the refused reply, want 0", n)
	}
	f.sentences["odd"] = []float32{1, 1, 0}
	s := newScorer(t, cfg)
	got, err := s.SBERT(context.Background(), []string{"paris"}, [][]string{{"odd"}})
	if err != nil || !nearAll(got, []float64{1 / math.Sqrt2}) {
		t.Errorf("rerun SBERT = %v, %v, want [1/√2]", got, err)
	}
	if st := s.Stats(); st.Texts != 2 || st.CacheHits != 0 {
		t.Errorf("rerun Stats() = %+v, want both texts asked again", st)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		cfg     Config
		metrics []string
		want    string // substring of the error; "" for none
	}{
		{Config{}, []string{SBERT}, "--embed-provider"},
		{Config{}, nil, "--embed-model and --embed-base-url"},
		{Config{Provider: "cohere", Model: "m"}, nil, `--embed-provider "cohere"`},
		{Config{Provider: Ollama}, nil, "--embed-model"},
		{Config{Provider: TEI, Model: "m"}, nil, "--embed-base-url"},
		{Config{Provider: Ollama, Model: "m"}, []string{SBERT}, ""},
		{Config{Provider: Ollama, Model: "m"}, []string{SBERT, BERTScore}, "--embed-provider tei"},
		{Config{Provider: TEI, Model: "m", BaseURL: "http://127.0.0.1:1"}, []string{BERTScore}, ""},
		{Config{Provider: TEI, Model: "m", BaseURL: "http://x", Batch: -1}, nil, "--embed-batch"},
		{Config{Provider: TEI, Model: "m", BaseURL: "http://x", Batch: 0}, nil, ""},
		// OpenAI's own endpoint needs a key; a compatible server given by its base URL may not.
		{Config{Provider: OpenAI, Model: "m"}, nil, "no API key for openai's endpoint"},
		{Config{Provider: OpenAI, Model: "m", APIKey: "sk-x"}, []string{SBERT}, ""},
		{Config{Provider: OpenAI, Model: "m", BaseURL: "http://127.0.0.1:1/v1"}, []string{SBERT}, ""},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate(tt.metrics...)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Config%+v.Validate(%q) = %v, want nil", tt.cfg, tt.metrics, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Config%+v.Validate(%q) = %v, want an error with %q", tt.cfg, tt.metrics, err, tt.want)
		}
	}
	if err := (Config{}).Validate(); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("Config{}.Validate() = %v, want ErrNotConfigured", err)
	}
	if _, err := NewScorer(Config{}); err == nil {
		t.Error("NewScorer(Config{}) = nil error, want the configuration error")
	}
}

func TestBERTScoreNeedsTEI(t *testing.T) {
	f := newFake(t)
	srv := f.start()
	s := newScorer(t, Config{Provider: Ollama, Model: "m", BaseURL: srv.URL})
	if _, err := s.BERTScore(context.Background(), []string{"a"}, [][]string{{"a"}}, BERTOptions{}); err == nil || !strings.Contains(err.Error(), "tei") {
		t.Errorf("BERTScore over Ollama = %v, want an error naming tei", err)
	}
	if f.total() != 0 {
		t.Errorf("BERTScore over Ollama made %d calls", f.total())
	}
}

// The BERTScore case by hand. Token vectors: a=(1,0), b=(0,1), c=(1,1), d=(0,-1); [CLS] and [SEP]
// are zero vectors (cosine 0 with everything) of weight 0. s = 1/√2.
//
// "a b" vs "a c d": P = (1 + s)/2 (a→a, b→c); R = (1 + s + 0)/3 (a→a, c→a or b, d→[CLS]/a at 0).
// "a b" vs "b":     P = (0 + 1)/2;            R = 1.
func TestBERTScore(t *testing.T) {
	s := 1 / math.Sqrt2
	f1 := func(p, r float64) float64 { return 2 * p * r / (p + r) }
	p1, r1 := (1+s)/2, (1+s)/3
	p2, r2 := 0.5, 1.0
	preds := []string{"a b", "a b", "", "a b"}
	refs := [][]string{{"a c d", "b"}, {"a c d"}, {"a"}, {}}
	want := []metric.PRF{
		{Precision: max(p1, p2), Recall: max(r1, r2), F1: max(f1(p1, r1), f1(p2, r2))}, // best of each column
		{Precision: p1, Recall: r1, F1: f1(p1, r1)},
		{}, // empty candidate
		{}, // no reference
	}

	f := newFake(t)
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL, Batch: 2})
	got, err := sc.BERTScore(context.Background(), preds, refs, BERTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPRF(t, "BERTScore", got, want)
	// Distinct non-empty texts "a b", "a c d", "b", "a": two batches of 2, each a /tokenize and an
	// /embed_all.
	if f.count("/tokenize") != 2 || f.count("/embed_all") != 2 || !slices.Equal(f.sortedBatches(), []int{2, 2}) {
		t.Errorf("requests %v batches %v, want 2 /tokenize and 2 /embed_all of 2 texts", f.requests, f.sortedBatches())
	}

	// Rescaled with baseline 0.5 for P, R and F: (x-0.5)/0.5; the empty candidate goes to -1.
	b := metric.Baseline{Precision: 0.5, Recall: 0.5, F1: 0.5}
	got, err = sc.BERTScore(context.Background(), preds, refs, BERTOptions{Baseline: &b})
	if err != nil {
		t.Fatal(err)
	}
	resc := make([]metric.PRF, len(want))
	for i, w := range want {
		resc[i] = metric.PRF{Precision: 2*w.Precision - 1, Recall: 2*w.Recall - 1, F1: 2*w.F1 - 1}
	}
	checkPRF(t, "BERTScore rescaled", got, resc)
}

// TestBERTScoreZeroText: a text all of whose token vectors are zero ("z" between the fixture's
// zero [CLS] and [SEP]) is a failing server's reply, an error; one zero token among others ("a z")
// is matched with cosine 0: P = (1 + 0)/2 against "a", R = 1.
func TestBERTScoreZeroText(t *testing.T) {
	f := newFake(t)
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL})
	got, err := sc.BERTScore(context.Background(), []string{"a z"}, [][]string{{"a"}}, BERTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPRF(t, "BERTScore", got, []metric.PRF{{Precision: 0.5, Recall: 1, F1: 2.0 / 3}})
	_, err = sc.BERTScore(context.Background(), []string{"a b"}, [][]string{{"z"}}, BERTOptions{})
	if want := `zero vector (no direction to compare) for "z"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("BERTScore against \"z\" = %v, want an error with %q", err, want)
	}
}

// TestBERTScoreStrips: bert_score strips every sentence (Python's str.strip) before tokenizing,
// so a trailing newline is no token for a byte-level tokenizer and a text of whitespace only is
// an empty sentence. Only the stripped texts go to the server, each once.
func TestBERTScoreStrips(t *testing.T) {
	s := 1 / math.Sqrt2
	p, r := (1+s)/2, (1+s)/3
	prf := metric.PRF{Precision: p, Recall: r, F1: 2 * p * r / (p + r)}
	f := newFake(t)
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL})
	got, err := sc.BERTScore(context.Background(), []string{"a b", " a b\n", "\t \u3000\x1f"},
		[][]string{{"a c d"}, {"\u2003a c d "}, {"a"}}, BERTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPRF(t, "BERTScore", got, []metric.PRF{prf, prf, {}})
	want := `{"inputs":["a b","a c d","a"],"add_special_tokens":true}`
	if len(f.bodies) != 2 || f.bodies[0] != want && f.bodies[1] != want {
		t.Errorf("request bodies %q, want a /tokenize of %s and an /embed_all of the same", f.bodies, want)
	}
	if _, err := sc.IDF(context.Background(), [][]string{{" a\n"}, {"a"}}); err != nil {
		t.Fatal(err)
	}
	if want := `{"inputs":["a"],"add_special_tokens":true}`; len(f.bodies) != 4 || f.bodies[2] != want && f.bodies[3] != want {
		t.Errorf("IDF made requests %q, want a /tokenize of %s and an /embed_all", f.bodies[2:], want)
	}
}

// idf over the references of the whole set: "a c d", "b", "a c d", "a" (M = 4). Document
// frequencies: [CLS] and [SEP] 4 (idf 0), a 3, c 2, d 2, b 1. idf = ln(5/(df+1)).
func TestBERTScoreIDF(t *testing.T) {
	preds := []string{"a b", "a b", "", "a b"}
	refs := [][]string{{"a c d", "b"}, {"a c d"}, {"a"}, {}}
	f := newFake(t)
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL})
	idf, err := sc.IDF(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	ia, ib, ic, id := math.Log(5.0/4), math.Log(5.0/2), math.Log(5.0/3), math.Log(5.0/3)
	for _, c := range []struct {
		tok  int
		want float64
	}{{clsID, 0}, {sepID, 0}, {1, ia}, {2, ib}, {3, ic}, {4, id}} {
		if got := idf.Weight(c.tok); !near(got, c.want) {
			t.Errorf("idf(%d) = %v, want %v", c.tok, got, c.want)
		}
	}
	s := 1 / math.Sqrt2
	f1 := func(p, r float64) float64 { return 2 * p * r / (p + r) }
	p1 := (ia*1 + ib*s) / (ia + ib)
	r1 := (ia*1 + ic*s + id*0) / (ia + ic + id)
	p2, r2 := (ia*0+ib*1)/(ia+ib), 1.0
	want := []metric.PRF{
		{Precision: max(p1, p2), Recall: max(r1, r2), F1: max(f1(p1, r1), f1(p2, r2))},
		{Precision: p1, Recall: r1, F1: f1(p1, r1)},
		{},
		{},
	}
	calls := f.total()
	got, err := sc.BERTScore(context.Background(), preds, refs, BERTOptions{IDF: idf})
	if err != nil {
		t.Fatal(err)
	}
	checkPRF(t, "BERTScore with idf", got, want)
	// Without a cache every call fetches its texts again: one /tokenize and one /embed_all.
	if extra := f.total() - calls; extra != 2 {
		t.Errorf("BERTScore made %d calls, want 2", extra)
	}
}

func TestBERTScoreCacheRerun(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	cfg := Config{Provider: TEI, Model: "bert", BaseURL: srv.URL, Cache: c}
	preds, refs := []string{"a b", "c"}, [][]string{{"a c d", "b"}, {"d a"}}
	first, err := newScorer(t, cfg).BERTScore(context.Background(), preds, refs, BERTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	calls := f.total()
	s := newScorer(t, cfg)
	idf, err := s.IDF(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.BERTScore(context.Background(), preds, refs, BERTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BERTScore(context.Background(), preds, refs, BERTOptions{IDF: idf}); err != nil {
		t.Fatal(err)
	}
	if f.total() != calls {
		t.Errorf("rerun made %d HTTP calls, want 0", f.total()-calls)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("rerun BERTScore differs (-first +rerun):\n%s", diff)
	}
}

func TestAlignTruncated(t *testing.T) {
	toks := []teiToken{{101, true}, {1, false}, {2, false}, {3, false}, {102, true}}
	vecs := [][]float32{{1}, {2}, {3}}
	got, err := align(toks, vecs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{101, 1, 102}; !slices.Equal(got.ids, want) || !slices.Equal(got.special, []bool{true, false, true}) {
		t.Errorf("align truncated ids = %v %v, want %v with specials at the ends", got.ids, got.special, want)
	}
	if want := []teiToken{{101, true}, {1, false}, {2, false}, {3, false}, {102, true}}; !slices.Equal(toks, want) {
		t.Errorf("align changed the tokens it was given: %v, want %v", toks, want)
	}
	if got, err := align(toks, nil); err != nil || len(got.ids) != 0 {
		t.Errorf("align with no vectors = %v, %v, want no tokens", got.ids, err)
	}
	// A tokenizer that adds no closing special token: truncation keeps the first tokens.
	noClose := []teiToken{{101, true}, {1, false}, {2, false}, {3, false}}
	if got, err := align(noClose, vecs); err != nil || !slices.Equal(got.ids, []int{101, 1, 2}) {
		t.Errorf("align truncated without a closing special = %v, %v, want ids [101 1 2]", got.ids, err)
	}
	if _, err := align(toks[:2], vecs); err == nil {
		t.Error("align with fewer tokens than vectors = nil error")
	}
	if _, err := align(toks[:3], [][]float32{{1}, {2, 3}, {4}}); err == nil {
		t.Error("align with ragged vectors = nil error")
	}
}

func checkPRF(t *testing.T, name string, got, want []metric.PRF) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %d scores, want %d", name, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !near(g.Precision, w.Precision) || !near(g.Recall, w.Recall) || !near(g.F1, w.F1) {
			t.Errorf("%s[%d] = %+v, want %+v", name, i, g, w)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	f := newFake(t)
	srv := f.start()
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := s.SBERT(ctx, []string{"rome"}, [][]string{{"roma"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("SBERT on a cancelled context = %v, %v; want context.Canceled", got, err)
	}
}

// TestFinishingKeepsCallsInFlight: once the run is asked to finish, a request not yet made is
// refused, and the requests in flight still end and have their vectors stored, not cancelled with
// the refused one.
func TestFinishingKeepsCallsInFlight(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	arrived := make(chan string, 3)
	release := map[string]chan struct{}{"paris": make(chan struct{}), "london": make(chan struct{})}
	f.hold = func(in []string) int {
		arrived <- in[0]
		if ch := release[in[0]]; ch != nil {
			<-ch
		}
		return 0
	}
	srv := f.start()
	cfg := Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Cache: c, Batch: 1, Parallel: 2}
	s := newScorer(t, cfg)
	ctx, finish := interrupt.WithFinish(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.SBERT(ctx, []string{"paris", "london"}, [][]string{{"rome"}, {}})
		done <- err
	}()
	got := []string{<-arrived, <-arrived}
	slices.Sort(got)
	if !slices.Equal(got, []string{"london", "paris"}) {
		t.Fatalf("requests in flight: %v, want london and paris", got)
	}
	if n := finish(); n != 2 {
		t.Errorf("finish() = %d calls in flight, want 2", n)
	}
	close(release["london"]) // frees a slot: the request for rome is refused
	for s.Stats().NotSent < 1 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // room for a cancellation of paris, which must not come
	close(release["paris"])
	if err := <-done; !errors.Is(err, interrupt.ErrNotCalled) {
		t.Errorf("SBERT = %v, want interrupt.ErrNotCalled", err)
	}
	if in := f.total(); in != 2 {
		t.Errorf("server got %d requests, want 2 (rome's not made)", in)
	}
	if st := s.Stats(); st.Requests != 2 || st.Texts != 2 || st.NotSent != 1 {
		t.Errorf("Stats() = %+v, want 2 requests of 2 texts made and 1 not sent", st)
	}
	// Both answers were stored: a rerun asks for rome alone.
	rerun := newScorer(t, cfg)
	if _, err := rerun.SBERT(context.Background(), []string{"paris", "london"}, [][]string{{"rome"}, {}}); err != nil {
		t.Fatal(err)
	}
	if st := rerun.Stats(); st.CacheHits != 2 || st.Texts != 1 {
		t.Errorf("rerun Stats() = %+v, want 2 texts from the cache and 1 asked", st)
	}
}

// tempCache opens a cache file in the test's temporary folder, closed at its end.
func tempCache(t *testing.T) *cache.Cache {
	t.Helper()
	return tempCacheAt(t, filepath.Join(t.TempDir(), "cache.sqlite"))
}

// tempCacheAt opens the cache file at path, closed at the test's end.
func tempCacheAt(t *testing.T, path string) *cache.Cache {
	t.Helper()
	c, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestErrorRedactsKeyAtTheCut: a reply that echoes the API key where the quoted start of it
// ends (300 bytes) shows none of the key: it was redacted after the cut, which left the key's
// first bytes in stderr and in the records' score_errors.
func TestErrorRedactsKeyAtTheCut(t *testing.T) {
	const key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef"
	for _, pad := range []int{230, 250, 270} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"` + strings.Repeat("x", pad) + " key " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + ` is not valid"}`))
		}))
		s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", APIKey: key})
		_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
		srv.Close()
		if err == nil {
			t.Fatalf("pad %d: SBERT after a 401 = nil error", pad)
		}
		if strings.Contains(err.Error(), key[:12]) {
			t.Errorf("pad %d: error %q shows the start of the API key", pad, err)
		}
	}
}

// TestHintRedactsKey: a reply that is no JSON and echoes the API key is quoted in the hint
// (its first 40 bytes) without the key, whose first bytes the cut quote showed.
func TestHintRedactsKey(t *testing.T) {
	const key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte("Invalid key " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + "\n"))
	}))
	defer srv.Close()
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", APIKey: key})
	_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	if err == nil || strings.Contains(err.Error(), key[:12]) || !strings.Contains(err.Error(), `("Invalid key [redacted]")`) {
		t.Errorf("SBERT after a 401 = %v; want the reply quoted without the key", err)
	}
}

// TestCacheKeysEndpointAsNamed checks that the embedding cache keys a base URL as the endpoint it
// names, as the reply cache does: one written with its scheme and host in capitals, or with a
// trailing slash, is served the vectors stored under the same endpoint in lower case.
func TestCacheKeysEndpointAsNamed(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	cfg := Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Cache: c, Batch: 4}
	if _, err := newScorer(t, cfg).SBERT(context.Background(), sbertPreds, sbertRefs); err != nil {
		t.Fatal(err)
	}
	calls := f.total()
	for _, base := range []string{
		"HTTP://" + strings.TrimPrefix(srv.URL, "http://") + "/v1/",
		strings.ToUpper(srv.URL) + "/v1",
	} {
		cfg.BaseURL = base
		if _, err := newScorer(t, cfg).SBERT(context.Background(), sbertPreds, sbertRefs); err != nil {
			t.Fatal(err)
		}
		if f.total() != calls {
			t.Errorf("--embed-base-url %s made %d calls, want 0: the cache holds every text", base, f.total()-calls)
		}
		calls = f.total()
	}
}

// TestCountMismatch: as many reference lists as predictions, else an error naming both counts
// and no request.
func TestCountMismatch(t *testing.T) {
	f := newFake(t)
	srv := f.start()
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL})
	for _, tt := range []struct {
		preds []string
		refs  [][]string
		want  string
	}{
		{[]string{"a", "b"}, [][]string{{"a"}}, "2 predictions but 1 reference list"},
		{[]string{"a"}, [][]string{{"a"}, {"b"}}, "1 prediction but 2 reference lists"},
	} {
		if _, err := s.SBERT(context.Background(), tt.preds, tt.refs); err == nil || err.Error() != tt.want {
			t.Errorf("SBERT(%q, %q) = %v, want %q", tt.preds, tt.refs, err, tt.want)
		}
		if _, err := s.BERTScore(context.Background(), tt.preds, tt.refs, BERTOptions{}); err == nil || err.Error() != tt.want {
			t.Errorf("BERTScore(%q, %q) = %v, want %q", tt.preds, tt.refs, err, tt.want)
		}
	}
	if f.total() != 0 {
		t.Errorf("%d requests made for mismatched calls, want 0", f.total())
	}
}

// TestCallMixedDimensions: a call whose texts have embeddings of two dimensions, one from the
// cache and one from a server since switched to another model, fails naming both, rather than
// comparing vectors of different lengths.
func TestCallMixedDimensions(t *testing.T) {
	c := tempCache(t)
	f := newFake(t)
	srv := f.start()
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL, Cache: c})
	if _, err := s.SBERT(context.Background(), []string{"paris"}, [][]string{{}}); err != nil {
		t.Fatal(err)
	}
	f.sentences["london"] = []float32{0, 1}
	_, err := s.SBERT(context.Background(), []string{"paris"}, [][]string{{"london"}})
	if want := "embeddings of dimensions 2 and 3 in one call"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("SBERT over a cached 3-d vector and a fetched 2-d one = %v, want an error with %q", err, want)
	}
}
