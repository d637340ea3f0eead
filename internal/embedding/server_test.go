package embedding

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/model"
)

// fakeServer speaks the OpenAI, Ollama and TEI embedding protocols on loopback, returning fixed
// vectors: sentence vectors from sentences, and for TEI's /tokenize and /embed_all one token per
// space-separated word (ids from vocab) between [CLS]=101 and [SEP]=102, whose vectors are zero.
// As a byte-level BPE tokenizer (RoBERTa's, GPT-2's) makes " a" another token than "a", the first
// word of an input that begins with a space is looked up as "Ġ" and the word.
type fakeServer struct {
	t         *testing.T
	sentences map[string][]float32
	words     map[string][]float32
	vocab     map[string]int

	mu       sync.Mutex
	requests map[string]int // by path
	batches  []int          // input count of each embedding request
	fail     []int          // statuses to answer first, one per request
	bodies   []string       // raw request bodies

	// hold, when set, sees each embedding request's inputs before it is answered, and may block;
	// a status it returns other than 0 is the request's answer.
	hold func(inputs []string) (status int)
}

const clsID, sepID = 101, 102

func newFake(t *testing.T) *fakeServer {
	return &fakeServer{
		t: t,
		sentences: map[string][]float32{
			"paris":         {1, 0, 0},
			"Paris, France": {1, 1, 0},
			"london":        {0, 1, 0},
			"rome":          {1, 2, 2},
			"roma":          {2, 1, 2},
			"zero":          {0, 0, 0},
		},
		words: map[string][]float32{
			"a": {1, 0}, "b": {0, 1}, "c": {1, 1}, "d": {0, -1}, "z": {0, 0},
			"Ġa": {1, 1}, "Ġb": {-1, 1},
		},
		vocab:    map[string]int{"a": 1, "b": 2, "c": 3, "d": 4, "z": 5, "Ġa": 6, "Ġb": 7},
		requests: map[string]int{},
	}
}

func (f *fakeServer) start() *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	f.t.Cleanup(srv.Close)
	return srv
}

func (f *fakeServer) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[path]
}

func (f *fakeServer) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.requests {
		n += c
	}
	return n
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests[r.URL.Path]++
	f.bodies = append(f.bodies, string(body))
	var status int
	if len(f.fail) > 0 {
		status, f.fail = f.fail[0], f.fail[1:]
	}
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want a JSON POST", http.StatusMethodNotAllowed)
		return
	}
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":"injected %d"}`, status)
		return
	}
	var req struct {
		Model            string   `json:"model"`
		Input            []string `json:"input"`
		Inputs           []string `json:"inputs"`
		AddSpecialTokens *bool    `json:"add_special_tokens"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	if f.hold != nil {
		if status := f.hold(append(req.Input, req.Inputs...)); status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":"injected %d"}`, status)
			return
		}
	}
	var reply any
	var err error
	switch r.URL.Path {
	case "/v1/embeddings":
		reply, err = f.openAI(req.Model, req.Input)
	case "/api/embed":
		reply, err = f.ollama(req.Model, req.Input)
	case "/embed":
		reply, err = f.sentenceVectors(req.Inputs)
	case "/tokenize":
		if req.AddSpecialTokens == nil || !*req.AddSpecialTokens {
			err = fmt.Errorf("test wants add_special_tokens true")
		}
		reply = f.tokenize(req.Inputs)
	case "/embed_all":
		reply, err = f.embedAll(req.Inputs)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprintf(w, `{"error":%q,"error_type":"validation"}`, err.Error())
		return
	}
	if r.URL.Path != "/tokenize" {
		f.mu.Lock()
		f.batches = append(f.batches, max(len(req.Input), len(req.Inputs)))
		f.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}

func (f *fakeServer) sentenceVectors(in []string) ([][]float32, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("`inputs` cannot be empty")
	}
	out := make([][]float32, len(in))
	for i, s := range in {
		v, ok := f.sentences[s]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", s)
		}
		out[i] = v
	}
	return out, nil
}

// openAI answers with the data in reverse order: clients must place them by "index".
func (f *fakeServer) openAI(model string, in []string) (any, error) {
	if model == "" {
		return nil, fmt.Errorf("model missing")
	}
	vecs, err := f.sentenceVectors(in)
	if err != nil {
		return nil, err
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		data[len(vecs)-1-i] = item{"embedding", i, v}
	}
	return map[string]any{"object": "list", "data": data, "model": model,
		"usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3}}, nil
}

func (f *fakeServer) ollama(model string, in []string) (any, error) {
	if model == "" {
		return nil, fmt.Errorf("model is required")
	}
	vecs, err := f.sentenceVectors(in)
	if err != nil {
		return nil, err
	}
	return map[string]any{"model": model, "embeddings": vecs, "total_duration": 1, "prompt_eval_count": 3}, nil
}

type fakeToken struct {
	ID      int    `json:"id"`
	Text    string `json:"text"`
	Special bool   `json:"special"`
	Start   *int   `json:"start"`
	Stop    *int   `json:"stop"`
}

func (f *fakeServer) tokenize(in []string) [][]fakeToken {
	out := make([][]fakeToken, len(in))
	for i, s := range in {
		toks := []fakeToken{{ID: clsID, Text: "[CLS]", Special: true}}
		for _, w := range fakeWords(s) {
			toks = append(toks, fakeToken{ID: f.vocab[w], Text: w})
		}
		out[i] = append(toks, fakeToken{ID: sepID, Text: "[SEP]", Special: true})
	}
	return out
}

func (f *fakeServer) embedAll(in []string) ([][][]float32, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("`inputs` cannot be empty")
	}
	out := make([][][]float32, len(in))
	for i, s := range in {
		if s == "" {
			return nil, fmt.Errorf("`inputs` cannot be empty")
		}
		toks := [][]float32{{0, 0}}
		for _, w := range fakeWords(s) {
			v, ok := f.words[w]
			if !ok {
				return nil, fmt.Errorf("no vector for word %q", w)
			}
			toks = append(toks, v)
		}
		out[i] = append(toks, []float32{0, 0})
	}
	return out, nil
}

// fakeWords are the fake tokenizer's words of s: its space-separated words, the first one marked
// with "Ġ" when s begins with a space.
func fakeWords(s string) []string {
	words := strings.Fields(s)
	if len(words) > 0 && strings.HasPrefix(s, " ") {
		words[0] = "Ġ" + words[0]
	}
	return words
}

func (f *fakeServer) sortedBatches() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := slices.Clone(f.batches)
	slices.Sort(b)
	return b
}

// fastClient retries like production but without sleeping.
func fastClient() *http.Client {
	return model.NewTransport(model.TransportConfig{
		MaxRetries: 3,
		Timeout:    10 * time.Second,
		Sleep:      func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	}).Client()
}

// baseFor returns the base URL a provider is configured with against srv.
func baseFor(provider, url string) string {
	if provider == OpenAI {
		return url + "/v1"
	}
	return url
}

func newScorer(t *testing.T, cfg Config) *Scorer {
	t.Helper()
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = fastClient()
	}
	s, err := NewScorer(cfg)
	if err != nil {
		t.Fatalf("NewScorer(%+v) = %v", cfg, err)
	}
	return s
}
