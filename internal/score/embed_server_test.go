package score

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
)

// Loopback embedding servers for the CLI tests, speaking the real request and response formats
// and returning fixed vectors, so that the expected scores can be worked out by hand.

// sentenceVectors are the OpenAI server's embeddings; any other text is answered with HTTP 400
// for the whole request (a batch containing it fails).
var sentenceVectors = map[string][]float32{
	"Paris":                {1, 0},
	"the capital is Paris": {3, 4},
	"London":               {0, 1},
	"Berlin":               {1, 1},
}

// tokenVectors are the TEI server's token embeddings; the tokenizer splits on spaces and wraps
// each text in [CLS] (id 101) and [SEP] (id 102). As a byte-level BPE tokenizer (RoBERTa's)
// makes " paris" another token than "paris", the first word of a text that begins with a space
// is "Ġ" and the word.
var tokenVectors = map[string][]float32{
	"[CLS]":  {1, 0, 0},
	"[SEP]":  {0, 0, 1},
	"paris":  {0, 1, 0},
	"rome":   {0, 3, 4},
	"berlin": {0, 0, 2},
	"Ġparis": {0, 4, 3},
	"Ġrome":  {0, 1, 0},
}

var tokenIDs = map[string]int{"[CLS]": 101, "[SEP]": 102, "paris": 1, "rome": 2, "berlin": 3, "Ġparis": 4, "Ġrome": 5}

// newOpenAIServer serves /v1/embeddings; hook, when not nil, sees every request first.
func newOpenAIServer(t *testing.T, hook func(*http.Request)) *httptest.Server {
	return newGatedServer(t, func(_ http.ResponseWriter, r *http.Request) bool {
		if hook != nil {
			hook(r)
		}
		return false
	})
}

// newGatedServer is newOpenAIServer behind gate, which sees every request first and answers it
// itself (an error status, say) when it returns true.
func newGatedServer(t *testing.T, gate func(http.ResponseWriter, *http.Request) bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate(w, r) {
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		type datum struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []datum
		for i := len(req.Input) - 1; i >= 0; i-- { // reply out of order: the client must use index
			v, ok := sentenceVectors[req.Input[i]]
			if !ok {
				http.Error(w, `{"error":{"message":"unknown input"}}`, http.StatusBadRequest)
				return
			}
			data = append(data, datum{"embedding", i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model}) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newTEIServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Inputs []string `json:"inputs"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		type token struct {
			ID      int    `json:"id"`
			Text    string `json:"text"`
			Special bool   `json:"special"`
			Start   *int   `json:"start"`
			Stop    *int   `json:"stop"`
		}
		var toks [][]token
		var vecs [][][]float32
		for _, in := range req.Inputs {
			words := append(append([]string{"[CLS]"}, strings.Fields(in)...), "[SEP]")
			if len(words) > 2 && strings.HasPrefix(in, " ") {
				words[1] = "Ġ" + words[1]
			}
			var ts []token
			var vs [][]float32
			for _, word := range words {
				v, ok := tokenVectors[word]
				if !ok {
					http.Error(w, "unknown token "+word, http.StatusUnprocessableEntity)
					return
				}
				ts = append(ts, token{ID: tokenIDs[word], Text: word, Special: strings.HasPrefix(word, "[")})
				vs = append(vs, v)
			}
			toks, vecs = append(toks, ts), append(vecs, vs)
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/tokenize":
			json.NewEncoder(w).Encode(toks) //nolint:errcheck
		case "/embed_all":
			json.NewEncoder(w).Encode(vecs) //nolint:errcheck
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// embedKey is the key the $KEY_URL server of the CLI tests wants in the Authorization header.
const embedKey = "sk-embed-FILE-key-7c1d"

// callServers are the CLI tests' servers for the embedding calls' flags, fresh for each case, as
// they count requests: $FLAKY_URL answers its first two requests 503 (Retry-After 0.01 s), then
// serves; $SLOW_URL serves each request after 300 ms; $KEY_URL answers 401 to a request without
// embedKey as its bearer token ($KEY_SERVER is its server, without the /v1).
func callServers(t *testing.T) map[string]string {
	var n atomic.Int64
	flaky := newGatedServer(t, func(w http.ResponseWriter, _ *http.Request) bool {
		if n.Add(1) > 2 {
			return false
		}
		w.Header().Set("Retry-After", "0.01")
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
		return true
	})
	slow := newGatedServer(t, func(_ http.ResponseWriter, r *http.Request) bool {
		select {
		case <-time.After(300 * time.Millisecond):
			return false
		case <-r.Context().Done():
			return true
		}
	})
	key := newGatedServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Authorization") == "Bearer "+embedKey {
			return false
		}
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
		return true
	})
	closed := clitest.ClosedURL(t) // nothing listens there: a wrong port
	return map[string]string{"$FLAKY_URL": flaky.URL + "/v1", "$SLOW_URL": slow.URL + "/v1", "$KEY_URL": key.URL + "/v1", "$KEY_SERVER": key.URL,
		"$CLOSED": closed, "$ADDR_CLOSED": strings.TrimPrefix(closed, "http://")}
}
