package embedding

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/pkg/metric"
)

// literalServer answers each path with a fixed body, as the servers write them.
func literalServer(t *testing.T, bodies map[string]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body)) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestNullComponents: TEI (serde_json) and llama.cpp's server (nlohmann::json) write a NaN or
// infinite component as null. encoding/json would leave 0 there, so [null, 1] became (0, 1) and
// scored 0.8 against (0.6, 0.8), and [null, null] a zero vector scoring 0. Each is an error now;
// the same replies without the nulls score as before.
func TestNullComponents(t *testing.T) {
	tok := func(id int, special bool) string {
		b, _ := json.Marshal(map[string]any{"id": id, "text": "t", "special": special, "start": nil, "stop": nil})
		return string(b)
	}
	tokenized := "[[" + tok(101, true) + "," + tok(1, false) + "," + tok(102, true) + "],[" +
		tok(101, true) + "," + tok(2, false) + "," + tok(102, true) + "]]"
	tests := []struct {
		name, provider, path, good, bad string
	}{
		{"openai", OpenAI, "/v1/embeddings",
			`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]},{"object":"embedding","index":1,"embedding":[0,1]}],"model":"m"}`,
			`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]},{"object":"embedding","index":1,"embedding":[null,1]}],"model":"m"}`},
		{"ollama", Ollama, "/api/embed",
			`{"model":"m","embeddings":[[0.6,0.8],[0,1]]}`,
			`{"model":"m","embeddings":[[0.6,0.8],[null,null]]}`},
		{"tei", TEI, "/embed", `[[0.6,0.8],[0,1]]`, `[[0.6,0.8],[null,null]]`},
		{"tei tokens", TEI, "/embed_all",
			`[[[1,0],[0.6,0.8],[0,1]],[[1,0],[0,1],[0,1]]]`,
			`[[[1,0],[0.6,0.8],[0,1]],[[1,0],[null,1],[0,1]]]`},
	}
	for _, tt := range tests {
		for _, reply := range []string{tt.good, tt.bad} {
			url := literalServer(t, map[string]string{tt.path: reply, "/tokenize": tokenized})
			s := newScorer(t, Config{Provider: tt.provider, Model: "m", BaseURL: baseFor(tt.provider, url)})
			var got float64
			var err error
			if tt.path == "/embed_all" {
				var prf []metric.PRF
				prf, err = s.BERTScore(context.Background(), []string{"x"}, [][]string{{"y"}}, BERTOptions{})
				if err == nil {
					got = prf[0].Precision
				}
			} else {
				var vals []float64
				vals, err = s.SBERT(context.Background(), []string{"x"}, [][]string{{"y"}})
				if err == nil {
					got = vals[0]
				}
			}
			switch {
			case reply == tt.good && (err != nil || !near(got, 0.8)):
				t.Errorf("%s: score = %v, %v, want 0.8", tt.name, got, err)
			case reply == tt.bad && (err == nil || !strings.Contains(err.Error(), errNullComponent.Error())):
				t.Errorf("%s with a null: score = %v, %v, want an error naming the null", tt.name, got, err)
			}
		}
	}
}

func TestVectorUnmarshal(t *testing.T) {
	tests := []struct {
		in   string
		want []float32
		err  bool
	}{
		{`[1, 2.5e-1 ,-3]`, []float32{1, 0.25, -3}, false},
		{`[ ]`, []float32{}, false},
		{`null`, nil, false},
		{`[1e-50, -0]`, []float32{0, 0}, false},
		{`[1, null]`, nil, true},
		{`[1e39]`, nil, true},
		{`["1"]`, nil, true},
		{`[[1]]`, nil, true},
		{`{"a":1}`, nil, true},
	}
	for _, tt := range tests {
		var v vector
		err := json.Unmarshal([]byte(tt.in), &v)
		if (err != nil) != tt.err || !tt.err && !slices.Equal([]float32(v), tt.want) {
			t.Errorf("Unmarshal(%s) = %v, %v, want %v (error %v)", tt.in, v, err, tt.want, tt.err)
		}
	}
}

// TestErrorQuotesReplyStart: an error quotes the first 300 bytes of the server's reply, not all
// of a long one.
func TestErrorQuotesReplyStart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"` + strings.Repeat("x", 1000) + `"}`)) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL})
	_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	want := `401 Unauthorized: {"error":"` + strings.Repeat("x", 290) + ";"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("SBERT error = %v, want it to quote the reply's first 300 bytes", err)
	}
}

// TestClientErrorWithoutURL: a client other than model.Transport's fails a call with the
// *url.Error, whose URL the message names already: the message gives its cause alone.
func TestClientErrorWithoutURL(t *testing.T) {
	base := clitest.ClosedURL(t)
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: base, HTTPClient: &http.Client{}})
	_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	if want := "embed " + base + "/embed: dial tcp "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("SBERT error = %v, want it to begin %q", err, want)
	}
}

// TestErrorRedactsShortKey: a key of a few characters that the reply echoes is redacted too.
func TestErrorRedactsShortKey(t *testing.T) {
	const key = "k-1234"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"key ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + ` is not valid"}`)) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL, APIKey: key})
	_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), `key [redacted] is not valid`) {
		t.Errorf("SBERT error = %v, want the echoed key redacted", err)
	}
}
