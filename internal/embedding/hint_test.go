package embedding

import (
	"context"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestCallErrorHint: an embedding call that fails as a first run's mistakes make it fail (no
// server at the base URL, a web page where the API should be, a refused key, an unknown model)
// says what to check, as a model call does (model.Hint), in qa-score's --embed-* words. $URL is
// the base URL. The calls send no key unless key is set.
func TestCallErrorHint(t *testing.T) {
	closed := clitest.ClosedURL(t)
	html := clitest.WebPage()
	for _, tc := range []struct {
		name, provider string
		reply          clitest.Reply // none: the closed port
		key            string
		want           string
	}{
		{"refused", TEI, clitest.Reply{}, "",
			"embed $URL/embed: dial tcp $HOST: connect: connection refused (after 4 attempts); nothing answers at $URL: is the server running, and is the base URL right?"},
		{"html", OpenAI, html, "",
			`embed $URL/embeddings: decode reply: invalid character '<' looking for beginning of value; the server answered text/html ("<!doctype html>"), not JSON: $URL is most likely not the API's base URL (an OpenAI-compatible server's usually ends in /v1)`},
		{"404 text", Ollama, clitest.Reply{Status: 404, ContentType: "text/plain; charset=utf-8", Body: "404 page not found\n"}, "",
			`embed $URL/api/embed: 404 Not Found: 404 page not found; the server answered text/plain ("404 page not found"), not JSON: $URL is most likely not the API's base URL (Ollama's own API is at the server's root, without /v1; its /v1 is --embed-provider openai's)`},
		{"401", OpenAI, clitest.Reply{Status: 401, ContentType: "application/json", Body: `{"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}`}, "sk-wrong",
			`embed $URL/embeddings: 401 Unauthorized: {"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}; the API key was refused: check QA_EMBED_API_KEY or OPENAI_API_KEY, or the file --embed-api-key-file names`},
		// A server that wants a key, called without one: no key to check, but one to give.
		{"401 no key", TEI, clitest.Reply{Status: 401, ContentType: "application/json", Body: `{"error":"Unauthorized","error_type":"unauthorized"}`}, "",
			`embed $URL/embed: 401 Unauthorized: {"error":"Unauthorized","error_type":"unauthorized"}; the server wants an API key and none was given: set QA_EMBED_API_KEY, or give --embed-api-key-file`},
		{"404 model", Ollama, clitest.Reply{Status: 404, ContentType: "application/json", Body: `{"error":"model \"m\" not found, try pulling it first"}`}, "",
			`embed $URL/api/embed: 404 Not Found: {"error":"model \"m\" not found, try pulling it first"}; no such model or endpoint: check the model name, and that $URL is the API's base URL (Ollama's own API is at the server's root, without /v1; its /v1 is --embed-provider openai's)`},
		{"400", OpenAI, clitest.Reply{Status: 400, ContentType: "application/json", Body: `{"error":{"message":"bad input"}}`}, "",
			`embed $URL/embeddings: 400 Bad Request: {"error":{"message":"bad input"}}`},
	} {
		t.Run(tc.provider+" "+tc.name, func(t *testing.T) {
			base := clitest.ReplyURL(t, tc.reply, closed)
			s := newScorer(t, Config{Provider: tc.provider, Model: "m", BaseURL: base, APIKey: tc.key})
			_, err := s.SBERT(context.Background(), []string{"rome"}, [][]string{{"roma"}})
			want := clitest.FailedCallWant(tc.want, base, closed)
			if err == nil || err.Error() != want {
				t.Errorf("SBERT error =\n%v\nwant\n%s", err, want)
			}
		})
	}
}
