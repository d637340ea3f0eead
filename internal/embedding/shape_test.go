package embedding

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// teiTokenized is /tokenize's reply for two texts of one word each.
const teiTokenized = `[[{"id":101,"text":"[CLS]","special":true},{"id":1,"text":"a","special":false},{"id":102,"text":"[SEP]","special":true}],` +
	`[{"id":101,"text":"[CLS]","special":true},{"id":2,"text":"b","special":false},{"id":102,"text":"[SEP]","special":true}]]`

// teiTokenVectors is /embed_all's reply for them.
const teiTokenVectors = `[[[1,0],[0.6,0.8],[0,1]],[[1,0],[0,1],[0,1]]]`

// oddServer answers path with body, and TEI's other token endpoint as it should; it counts the
// requests to path.
func oddServer(t *testing.T, path, body string, calls *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case path:
			calls.Add(1)
			fmt.Fprint(w, body)
		case "/tokenize":
			fmt.Fprint(w, teiTokenized)
		case "/embed_all":
			fmt.Fprint(w, teiTokenVectors)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// embedOnce calls the metric that asks path: bertscore for TEI's token endpoints, else sbert.
func embedOnce(s *Scorer, path string) error {
	if path == "/tokenize" || path == "/embed_all" {
		_, err := s.BERTScore(context.Background(), []string{"a"}, [][]string{{"b"}}, BERTOptions{})
		return err
	}
	_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	return err
}

// TestEmbedShapeFaults: a 200 reply that is JSON but not the endpoint's reply (an array, a string,
// a number, null, an object with none of its members; for TEI, an object, or an array of other
// than arrays) is retried as malformed JSON is, and then fails naming what came, with the hint
// of a base URL or a provider that is not the server's, as a chat call's does. It failed at once,
// quoting Go types (`cannot unmarshal array into Go value of type embed.openAIResponse`), with a
// hint that JSON was no JSON, or, for null, {} and {"detail": …}, as `0 embeddings for 2 inputs`.
// $URL is the base URL.
func TestEmbedShapeFaults(t *testing.T) {
	const (
		// $URL ends in /v1 already, so the hint does not say that an OpenAI-compatible one does.
		openAIHint = "; check that $URL is the API's base URL and that its server speaks --embed-provider openai's API"
		ollamaHint = "; check that $URL is the API's base URL (Ollama's own API is at the server's root, without /v1; its /v1 is --embed-provider openai's) and that its server speaks --embed-provider ollama's API"
		teiHint    = "; check that $URL is the API's base URL and that its server speaks --embed-provider tei's API"
	)
	for _, tt := range []struct {
		provider, path, body, want string
	}{
		{OpenAI, "/embeddings", `[]`, `embed $URL/embeddings: reply with status 200 is no embedding list: a JSON array ("[]") (after 4 attempts)` + openAIHint},
		{OpenAI, "/embeddings", `"Service Unavailable"`, `embed $URL/embeddings: reply with status 200 is no embedding list: a JSON string ("\"Service Unavailable\"") (after 4 attempts)` + openAIHint},
		{OpenAI, "/embeddings", `42`, `embed $URL/embeddings: reply with status 200 is no embedding list: a JSON number ("42") (after 4 attempts)` + openAIHint},
		{OpenAI, "/embeddings", `null`, `embed $URL/embeddings: reply with status 200 is no embedding list: JSON null ("null") (after 4 attempts)` + openAIHint},
		{OpenAI, "/embeddings", `{}`, `embed $URL/embeddings: reply with status 200 is no embedding list: an empty JSON object ("{}") (after 4 attempts)` + openAIHint},
		{OpenAI, "/embeddings", `{"detail":"Not Found"}`, `embed $URL/embeddings: reply with status 200 is no embedding list: a JSON object with none of the reply's members ("{\"detail\":\"Not Found\"}") (after 4 attempts)` + openAIHint},
		{OpenAI, "/embeddings", `[[0.6,0.8],[0,1]]`, `embed $URL/embeddings: reply with status 200 is no embedding list: a JSON array ("[[0.6,0.8],[0,1]]") (after 4 attempts)` + openAIHint},
		{Ollama, "/api/embed", `[]`, `embed $URL/api/embed: reply with status 200 is no embed reply: a JSON array ("[]") (after 4 attempts)` + ollamaHint},
		{Ollama, "/api/embed", `true`, `embed $URL/api/embed: reply with status 200 is no embed reply: a JSON boolean ("true") (after 4 attempts)` + ollamaHint},
		{Ollama, "/api/embed", `null`, `embed $URL/api/embed: reply with status 200 is no embed reply: JSON null ("null") (after 4 attempts)` + ollamaHint},
		{Ollama, "/api/embed", `{}`, `embed $URL/api/embed: reply with status 200 is no embed reply: an empty JSON object ("{}") (after 4 attempts)` + ollamaHint},
		{Ollama, "/api/embed", `{"detail":"Not Found"}`, `embed $URL/api/embed: reply with status 200 is no embed reply: a JSON object with none of the reply's members ("{\"detail\":\"Not Found\"}") (after 4 attempts)` + ollamaHint},
		{TEI, "/embed", `"x"`, `embed $URL/embed: reply with status 200 is no list of embeddings: a JSON string ("\"x\"") (after 4 attempts)` + teiHint},
		{TEI, "/embed", `null`, `embed $URL/embed: reply with status 200 is no list of embeddings: JSON null ("null") (after 4 attempts)` + teiHint},
		{TEI, "/embed", `{}`, `embed $URL/embed: reply with status 200 is no list of embeddings: an empty JSON object ("{}") (after 4 attempts)` + teiHint},
		{TEI, "/embed", `{"detail":"Not Found"}`, `embed $URL/embed: reply with status 200 is no list of embeddings: a JSON object ("{\"detail\":\"Not Found\"}") (after 4 attempts)` + teiHint},
		{TEI, "/embed", `[0.6,0.8]`, `embed $URL/embed: reply with status 200 is no list of embeddings: a JSON array holding a JSON number ("[0.6,0.8]") (after 4 attempts)` + teiHint},
		{TEI, "/tokenize", `{"detail":"Not Found"}`, `embed $URL/tokenize: reply with status 200 is no list of tokenizations: a JSON object ("{\"detail\":\"Not Found\"}") (after 4 attempts)` + teiHint},
		{TEI, "/embed_all", `null`, `embed $URL/embed_all: reply with status 200 is no list of token embeddings: JSON null ("null") (after 4 attempts)` + teiHint},
		{TEI, "/embed_all", `42`, `embed $URL/embed_all: reply with status 200 is no list of token embeddings: a JSON number ("42") (after 4 attempts)` + teiHint},
	} {
		checkOddReply(t, tt.provider, tt.path, tt.body, tt.want, 4, "1 + 3 retries, as malformed JSON")
	}
}

// TestEmbedShapeFaultThenAnswer: a reply of another shape is retried, and the answer that follows
// is scored.
func TestEmbedShapeFaultThenAnswer(t *testing.T) {
	for _, p := range Providers() {
		t.Run(p, func(t *testing.T) {
			f := newFake(t)
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, `{"detail":"warming up"}`)
					return
				}
				f.serve(w, r)
			}))
			t.Cleanup(srv.Close)
			s := newScorer(t, Config{Provider: p, Model: "m", BaseURL: baseFor(p, srv.URL)})
			got, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
			if err != nil || !near(got[0], 8.0/9) || calls.Load() != 2 {
				t.Errorf("SBERT = %v, %v after %d requests; want 8/9 after 2", got, err, calls.Load())
			}
		})
	}
}

// TestEmbedWrongContent: a reply of the endpoint's shape whose content is wrong (no vectors, a
// count of vectors other than of the texts sent, an empty vector, vectors of different lengths, a
// member of the wrong kind) fails at once, naming the endpoint and what is wrong, without Go
// types. /embed_all's empty token lists scored 0 without a word, as if the texts had nothing in
// common; a count error named the base URL without the endpoint; a member of the wrong kind quoted
// Go types.
func TestEmbedWrongContent(t *testing.T) {
	for _, tt := range []struct {
		provider, path, body, want string
	}{
		{OpenAI, "/embeddings", `{"object":"list","data":[]}`, `embed $URL/embeddings: 0 embeddings for 2 inputs`},
		{OpenAI, "/embeddings", `{"object":"list","data":[{"index":0,"embedding":[1,0]}]}`, `embed $URL/embeddings: 1 embedding for 2 inputs`},
		{OpenAI, "/embeddings", `{"object":"list","data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1]}]}`,
			`the server returned embeddings of dimensions 1 and 2 in one reply: a failing or misconfigured model?`},
		{OpenAI, "/embeddings", `{"object":"list","data":[{"index":-1,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]}`,
			`embed $URL/embeddings: reply index -1 out of range or repeated for 2 inputs`},
		{OpenAI, "/embeddings", `{"object":"list","data":[{"index":1,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]}`,
			`embed $URL/embeddings: reply index 1 out of range or repeated for 2 inputs`},
		{OpenAI, "/embeddings", `{"object":"list","data":"none"}`, `embed $URL/embeddings: decode reply: a JSON string at data where an array belongs`},
		{OpenAI, "/embeddings", `{"object":"list","data":[{"index":"0","embedding":[1,0]}]}`, `embed $URL/embeddings: decode reply: a JSON string at data.index where a number belongs`},
		{Ollama, "/api/embed", `{"model":"m","embeddings":[]}`, `embed $URL/api/embed: 0 embeddings for 2 inputs`},
		{Ollama, "/api/embed", `{"model":"m","embeddings":[[1,0],[0,1],[1,1]]}`, `embed $URL/api/embed: 3 embeddings for 2 inputs`},
		{Ollama, "/api/embed", `{"model":"m","embeddings":[[1,0],[]]}`, `embed $URL/api/embed: empty embedding for input 1`},
		{TEI, "/embed", `[]`, `embed $URL/embed: 0 embeddings for 2 inputs`},
		{TEI, "/embed", `[[1,0],[1]]`, `the server returned embeddings of dimensions 1 and 2 in one reply: a failing or misconfigured model?`},
		{TEI, "/embed_all", `[[],[]]`, `embed $URL/embed_all: no token embeddings for input 0`},
		{TEI, "/embed_all", `[[[1,0],[0.6,0.8],[0,1]],[]]`, `embed $URL/embed_all: no token embeddings for input 1`},
		{TEI, "/embed_all", `[[[1,0],[0.6,0.8],[0,1]]]`, `embed $URL/embed_all: 1 embedding for 2 inputs`},
		{TEI, "/tokenize", `[[{"id":1}],[1]]`, `embed $URL/tokenize: decode reply: a JSON number where an object belongs`},
		{TEI, "/tokenize", `[[{"id":1}]]`, `embed $URL/tokenize: 1 tokenization for 2 inputs`},
	} {
		checkOddReply(t, tt.provider, tt.path, tt.body, tt.want, 1, "a reply of the endpoint's shape is not retried")
	}
}

// checkOddReply embeds once through provider's path against a server that answers every request
// with body, and checks the error (want, $URL standing for the base URL) and that the server got
// calls requests (why says why that many).
func checkOddReply(t *testing.T, provider, path, body, want string, calls int64, why string) {
	t.Helper()
	t.Run(provider+path+" "+body, func(t *testing.T) {
		var n atomic.Int64
		base := baseFor(provider, oddServer(t, baseFor(provider, "")+path, body, &n))
		s := newScorer(t, Config{Provider: provider, Model: "m", BaseURL: base})
		err := embedOnce(s, path)
		if want := strings.ReplaceAll(want, "$URL", base); err == nil || err.Error() != want {
			t.Errorf("error =\n%v\nwant\n%s", err, want)
		}
		if got := n.Load(); got != calls {
			t.Errorf("%d requests to %s, want %d (%s)", got, path, calls, why)
		}
	})
}

// TestNon2xxReplyIsAnError: a reply of a status other than 2xx is an error quoting it, even one
// that is not followed as a redirect and whose body is the endpoint's reply.
func TestNon2xxReplyIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMultipleChoices)
		fmt.Fprint(w, `[[1,0],[0,1]]`)
	}))
	t.Cleanup(srv.Close)
	s := newScorer(t, Config{Provider: TEI, Model: "m", BaseURL: srv.URL})
	got, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
	if want := "embed " + srv.URL + "/embed: 300 Multiple Choices: [[1,0],[0,1]]"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("SBERT against a 300 reply = %v, %v; want an error with %q", got, err, want)
	}
}
