package embedding

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// TestOpenAIRequestLimit: OpenAI's /v1/embeddings refuses more than 2,048 inputs in a request,
// while --embed-batch goes up to 4,096: a larger batch goes out in requests of at most 2,048
// texts to openai, and in one request to the servers that take more.
func TestOpenAIRequestLimit(t *testing.T) {
	for _, tc := range []struct {
		provider, path string
		batch          int
		want           []int
	}{
		{OpenAI, "/v1/embeddings", 3000, []int{952, 2048}},
		{OpenAI, "/v1/embeddings", 2048, []int{952, 2048}},
		{OpenAI, "/v1/embeddings", 100, nil},
		{Ollama, "/api/embed", 3000, []int{3000}},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.provider, tc.batch), func(t *testing.T) {
			var mu sync.Mutex
			var sizes []int
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Input []string `json:"input"`
				}
				if r.URL.Path != tc.path || json.NewDecoder(r.Body).Decode(&req) != nil {
					http.Error(w, "bad request", http.StatusBadRequest)
					return
				}
				mu.Lock()
				sizes = append(sizes, len(req.Input))
				mu.Unlock()
				if tc.provider == OpenAI && len(req.Input) > 2048 {
					http.Error(w, `{"error":{"message":"'$.input' is invalid: at most 2048 items"}}`, http.StatusBadRequest)
					return
				}
				vecs := make([][]float32, len(req.Input))
				for i := range vecs {
					vecs[i] = []float32{1, float32(i)}
				}
				var reply any = map[string]any{"embeddings": vecs}
				if tc.provider == OpenAI {
					data := make([]map[string]any, len(vecs))
					for i, v := range vecs {
						data[i] = map[string]any{"index": i, "embedding": v}
					}
					reply = map[string]any{"data": data}
				}
				json.NewEncoder(w).Encode(reply) //nolint:errcheck
			}))
			t.Cleanup(srv.Close)
			base := srv.URL
			if tc.provider == OpenAI {
				base += "/v1"
			}
			sc := newScorer(t, Config{Provider: tc.provider, Model: "m", BaseURL: base, Batch: tc.batch, Parallel: 1})
			preds := make([]string, 3000)
			refs := make([][]string, len(preds))
			for i := range preds {
				preds[i] = fmt.Sprintf("text %d", i)
			}
			if _, err := sc.SBERT(context.Background(), preds, refs); err != nil {
				t.Fatalf("SBERT of %d texts with batch %d = %v", len(preds), tc.batch, err)
			}
			slices.Sort(sizes)
			if tc.want != nil && !slices.Equal(sizes, tc.want) {
				t.Errorf("request sizes = %v, want %v", sizes, tc.want)
			}
			if m := slices.Max(sizes); tc.provider == OpenAI && m > 2048 {
				t.Errorf("largest request = %d texts, want at most 2048", m)
			}
		})
	}
}
