package embedding

import (
	"context"
	"encoding/json"
	"fmt"
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
