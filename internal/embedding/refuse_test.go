package embedding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// contextServer speaks OpenAI's /v1/embeddings and answers a request holding a text of more than
// limit words 400 with OpenAI's context-length message, as OpenAI does for one text over the
// model's context; every other text gets a vector. It records each request's inputs.
type contextServer struct {
	limit int
	mu    sync.Mutex
	sent  [][]string
}

func (c *contextServer) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openAIRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.sent = append(c.sent, req.Input)
		c.mu.Unlock()
		tokens := 0
		for _, in := range req.Input {
			if strings.TrimSpace(in) == "" {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":{"message":"'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.","type":"invalid_request_error","param":null,"code":null}}`)
				return
			}
			if n := len(strings.Fields(in)); n > c.limit {
				tokens = max(tokens, n)
			}
		}
		if tokens > 0 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"This model's maximum context length is %d tokens, however you requested %d tokens (%d in your prompt; 0 for the completion). Please reduce your prompt; or completion length.","type":"invalid_request_error","param":null,"code":null}}`, c.limit, tokens, tokens)
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": []float32{1, float32(len(in))}}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data}) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (c *contextServer) requests() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sent)
}

// TestSBERTTextOverContext: a text over the model's context is refused (400) in any request that
// holds it. Only the predictions it belongs to (as the prediction or as an answer) lose their
// score, each with the server's message and the text named; the others are scored.
func TestSBERTTextOverContext(t *testing.T) {
	long := strings.Repeat("word ", 20)
	preds := []string{"a", "b", long, "c", "d", "e"}
	refs := [][]string{{"a"}, {"x"}, {"a"}, {"c"}, {"y", long}, {"e"}}
	cs := &contextServer{limit: 10}
	srv := cs.start(t)
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 32})
	got, err := s.SBERT(context.Background(), preds, refs)
	re, ok := errors.AsType[*RefusedError](err)
	if !ok {
		t.Fatalf("SBERT = %v, want a *RefusedError", err)
	}
	if len(got) != len(preds) {
		t.Fatalf("SBERT gave %d scores, want %d", len(got), len(preds))
	}
	for i, g := range got {
		_, refused := re.Refused[i]
		if refused != (i == 2 || i == 4) {
			t.Errorf("prediction %d refused = %v", i, refused)
		}
		if refused != math.IsNaN(g) {
			t.Errorf("score %d = %v, refused %v", i, g, refused)
		}
	}
	for i, want := range map[int]string{2: `the prediction "word word`, 4: `answer 2 "word word`} {
		msg := fmt.Sprint(re.Refused[i])
		if !strings.Contains(msg, want) || !strings.Contains(msg, "maximum context length is 10 tokens") {
			t.Errorf("prediction %d's error = %q, want it to name %s and hold the server's message", i, msg, want)
		}
	}
	if !near(got[0], 1) || !near(got[3], 1) || !near(got[5], 1) {
		t.Errorf("scores = %v, want 1 for predictions 0, 3 and 5", got)
	}
	// The long text is sent alone once, and never again in a request of the others.
	alone := 0
	for _, r := range cs.requests() {
		if slices.Equal(r, []string{long}) {
			alone++
		}
	}
	if alone != 1 {
		t.Errorf("requests %q: the long text sent alone %d times, want 1", cs.requests(), alone)
	}
}

// TestSBERTRequestRefused: a server that refuses every request (400: a model that serves no
// embeddings) fails the whole call with its message, after a handful of requests, not one per text.
func TestSBERTRequestRefused(t *testing.T) {
	count := 0
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		count++
		mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"The model does not support Embeddings API","type":"BadRequestError"}}`)
	}))
	t.Cleanup(srv.Close)
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 32, Parallel: 1})
	preds := make([]string, 32)
	refs := make([][]string, len(preds))
	for i := range preds {
		preds[i] = fmt.Sprint("text ", i)
	}
	_, err := s.SBERT(context.Background(), preds, refs)
	if err == nil || !strings.Contains(err.Error(), "does not support Embeddings API") {
		t.Fatalf("SBERT = %v, want the server's message", err)
	}
	if _, ok := errors.AsType[*RefusedError](err); ok {
		t.Errorf("SBERT = %v, a *RefusedError; want the whole call failed", err)
	}
	if count > 4 {
		t.Errorf("%d requests for a batch of 32 the server refuses whole, want at most 4", count)
	}
}

// TestSBERTBlankText: a text of white space only is not sent (OpenAI refuses it); it counts as an
// empty text does, a zero vector, so it scores 0.
func TestSBERTBlankText(t *testing.T) {
	cs := &contextServer{limit: 10}
	srv := cs.start(t)
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1"})
	got, err := s.SBERT(context.Background(), []string{" \n", "a", "b"}, [][]string{{"a"}, {"\t"}, {"b", "  "}})
	if err != nil {
		t.Fatal(err)
	}
	if !nearAll(got, []float64{0, 0, 1}) {
		t.Errorf("SBERT = %v, want [0 0 1]", got)
	}
	if r := cs.requests(); len(r) != 1 || !slices.Equal(r[0], []string{"a", "b"}) {
		t.Errorf("requests %q, want one of [a b]", r)
	}
}

// TestRefusalSameMessage: a server whose refusal names no text (Ollama's "the input length
// exceeds the context length") refuses both halves of a batch with one message when both hold a
// refused text: as the first text is embedded alone, the texts are asked for apart all the same,
// and only the refused ones' predictions lose their score.
func TestRefusalSameMessage(t *testing.T) {
	f := newFake(t)
	f.hold = refusePrefix("long")
	f.sentences["long one"], f.sentences["long two"] = []float32{1, 1, 1}, []float32{1, 1, 1}
	srv := f.start()
	s := newScorer(t, Config{Provider: Ollama, Model: "m", BaseURL: srv.URL, Batch: 8})
	got, err := s.SBERT(context.Background(), []string{"paris", "long one", "london", "rome"},
		[][]string{{"paris"}, {"paris"}, {"london"}, {"roma", "long two"}})
	re, ok := errors.AsType[*RefusedError](err)
	if !ok || len(re.Refused) != 2 || re.Refused[1] == nil || re.Refused[3] == nil {
		t.Fatalf("SBERT = %v, %v; want predictions 1 and 3 refused", got, err)
	}
	if msg := re.Refused[3].Error(); !strings.HasPrefix(msg, `the server refused answer 2 "long two" on its own: embed `) ||
		!strings.Contains(msg, "injected 400") {
		t.Errorf("prediction 3's error = %q", msg)
	}
	if !near(got[0], 1) || !near(got[2], 1) || !math.IsNaN(got[1]) || !math.IsNaN(got[3]) {
		t.Errorf("SBERT = %v, want [1 NaN 1 NaN]", got)
	}
}

// TestBERTScoreBatchTooLarge: TEI refuses (413) a request of more texts than its
// --max-client-batch-size; the batch is asked for in halves, and every text is scored.
func TestBERTScoreBatchTooLarge(t *testing.T) {
	f := newFake(t)
	f.hold = func(in []string) int {
		if len(in) > 2 {
			return http.StatusRequestEntityTooLarge
		}
		return 0
	}
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL, Batch: 8})
	got, err := sc.BERTScore(context.Background(), []string{"a b", "a", "c"}, [][]string{{"a c d"}, {"b"}, {"c"}}, BERTOptions{})
	if err != nil {
		t.Fatalf("BERTScore = %v", err)
	}
	if len(got) != 3 || got[2].F1 < 0.999 || got[0].F1 <= 0 {
		t.Errorf("BERTScore = %v", got)
	}
}

// TestIDFRefusedReference: the idf table counts every reference, so one the server refuses on
// its own fails it, naming the reference.
func TestIDFRefusedReference(t *testing.T) {
	f := newFake(t)
	f.hold = refuseText("a c d")
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL})
	_, err := sc.IDF(context.Background(), [][]string{{"a c d", "b"}, {"a"}})
	if want := `idf: the server refused the answer "a c d" on its own: embed `; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("IDF = %v, want an error beginning %q", err, want)
	}
}

// refusePrefix is a fake's hold that refuses (400) a request holding a text that begins with
// prefix, as a server refuses a text over the model's context, and serves the others.
func refusePrefix(prefix string) func([]string) int {
	return func(in []string) int {
		for _, t := range in {
			if strings.HasPrefix(t, prefix) {
				return http.StatusBadRequest
			}
		}
		return 0
	}
}

// refuseText is a fake's hold that refuses (422, as TEI refuses a text over its limit) a request
// holding text, and serves the others.
func refuseText(text string) func([]string) int {
	return func(in []string) int {
		if slices.Contains(in, text) {
			return http.StatusUnprocessableEntity
		}
		return 0
	}
}
