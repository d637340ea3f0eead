package model

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/gemini"
)

// temperatureHint ends the error of a call refused for its temperature by a model that takes
// only 1.
const temperatureHint = "the model takes no temperature but its default, 1, and langchaingo sends one with every call (0 unless set): give --temperature 1 (qa-predict's EvaLearn judge: --judge-temperature 1)"

// okStreamChunk is a chunk of a streamed OpenAI chat completion.
const okStreamChunk = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`

// TestCallErrorHint: a call that fails as a first run's mistakes make it fail (no server at the
// base URL, a web page where the API should be, a refused key, an unknown model) says what to
// check after the provider's own words, in each provider's wire format; failures whose words say
// it all (a 400 with the server's reason) get no hint. $URL is the server's base URL.
func TestCallErrorHint(t *testing.T) {
	closed := clitest.ClosedURL(t)
	html := clitest.WebPage()
	for _, tc := range []struct {
		name, provider string
		reply          clitest.Reply // none: the closed port
		path           string
		want           string
	}{
		{"refused", "openai", clitest.Reply{}, "/v1",
			"openai m: network error: failed to reach API server (dial tcp $HOST: connect: connection refused) (after 2 attempts); nothing answers at $URL: is the server running, and is the base URL right?"},
		{"401", "openai", clitest.Reply{Status: 401, ContentType: "application/json", Body: `{"error":{"message":"Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`}, "/v1",
			"openai m: API returned unexpected status code: 401: Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys; the API key was refused: check OPENAI_API_KEY, or the file --api-key-file names"},
		{"401", "anthropic", clitest.Reply{Status: 401, ContentType: "application/json", Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}, "/v1",
			"anthropic m: API returned unexpected status code: 401: invalid x-api-key; the API key was refused: check ANTHROPIC_API_KEY, or the file --api-key-file names"},
		{"bad key", "googleai", clitest.Reply{Status: 400, ContentType: "application/json", Body: `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`}, "",
			"googleai m: googleapi: Error 400: API key not valid. Please pass a valid API key; the API key was refused: check GOOGLE_API_KEY or GEMINI_API_KEY, or the file --api-key-file names"},
		// The Gemini API's OpenAI-compatible endpoint refuses a key so, in a list.
		// The Gemini API's refusal lists its details (ErrorInfo, LocalizedMessage), which the
		// client words on lines of their own: the error keeps to the first, one line as any.
		{"bad key, details", "googleai", clitest.Reply{Status: 400, ContentType: "application/json", Body: geminiBadKey}, "",
			"googleai m: googleapi: Error 400: API key not valid. Please pass a valid API key; the API key was refused: check GOOGLE_API_KEY or GEMINI_API_KEY, or the file --api-key-file names"},
		{"bad key", "openai", clitest.Reply{Status: 400, ContentType: "application/json", Body: "[" + geminiBadKey + "]"}, "/v1beta/openai",
			"…; the API key was refused: check OPENAI_API_KEY, or the file --api-key-file names"},
		{"404 model", "openai", clitest.Reply{Status: 404, ContentType: "application/json", Body: `{"error":{"message":"The model ` + "`m`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}`}, "/v1",
			"openai m: API returned unexpected status code: 404: The model `m` does not exist or you do not have access to it; no such model or endpoint: check the model name, and that $URL is the API's base URL"},
		// A base URL that does not end in /v1 is reminded that an OpenAI-compatible one usually
		// does; one that ends so already is not told what it has.
		{"404 model no v1", "openai", clitest.Reply{Status: 404, ContentType: "application/json", Body: `{"object":"error","message":"The model ` + "`m`" + ` does not exist.","type":"NotFoundError","code":404}`}, "",
			"openai m: API returned unexpected status code: 404: The model `m` does not exist; no such model or endpoint: check the model name, and that $URL is the API's base URL (an OpenAI-compatible server's usually ends in /v1)"},
		{"html v1", "openai", html, "/v1",
			`openai m: invalid character '<' looking for beginning of value; the server answered text/html ("<!doctype html>"), not JSON: $URL is most likely not the API's base URL`},
		{"404 model", "ollama", clitest.Reply{Status: 404, ContentType: "application/json", Body: `{"error":"model \"m\" not found, try pulling it first"}`}, "",
			`ollama m: model "m" not found, try pulling it first; no such model or endpoint: check the model name, and that $URL is the API's base URL (Ollama's own API is at the server's root, without /v1; its /v1 is --provider openai's)`},
		{"404 text", "openai", clitest.Reply{Status: 404, ContentType: "text/plain; charset=utf-8", Body: "404 page not found\n"}, "",
			`openai m: API returned unexpected status code: 404; the server answered text/plain ("404 page not found"), not JSON: $URL is most likely not the API's base URL (an OpenAI-compatible server's usually ends in /v1)`},
		{"html", "openai", html, "",
			`openai m: invalid character '<' looking for beginning of value; the server answered text/html ("<!doctype html>"), not JSON: $URL is most likely not the API's base URL (an OpenAI-compatible server's usually ends in /v1)`},
		{"html", "anthropic", html, "/v1",
			`anthropic m: parse response: invalid character '<' looking for beginning of value; the server answered text/html ("<!doctype html>"), not JSON: $URL is most likely not the API's base URL (Anthropic's is https://api.anthropic.com/v1)`},
		// genai's words for the page depend on how it was asked ("invalid character '<'", "proto:
		// syntax error"): the hint after them is checked.
		{"html", "googleai", html, "",
			`…; the server answered text/html ("<!doctype html>"), not JSON: $URL is most likely not the API's base URL (the Gemini API's is the server's root, https://generativelanguage.googleapis.com, to which the client adds /v1beta)`},
		// A server or proxy that streams whatever the request says ("stream": false).
		{"streamed", "openai", clitest.Reply{Status: 200, ContentType: "text/event-stream", Body: "data: " + okStreamChunk + "\n\ndata: [DONE]\n\n"}, "/v1",
			"…; the server streamed its reply (text/event-stream) where the call asked for it whole: a server or proxy that streams whatever the request says; have it answer whole replies"},
		{"html 502", "openai", clitest.Reply{Status: 502, ContentType: "text/html", Body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n</html>\r\n"}, "/v1",
			`openai m: API returned unexpected status code: 502 (after 2 attempts); the server answered text/html ("<html>"), not JSON: a proxy or gateway in front of the API, whose server is most likely down or starting`},
		// A proxy's page for a status that only a server that took the call gives, and that is
		// retried: the base URL reached it, and is no more to blame than for a 502.
		{"html 429", "openai", clitest.Reply{Status: 429, ContentType: "text/html", Body: "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n</html>\r\n"}, "/v1",
			`openai m: API returned unexpected status code: 429 (after 2 attempts); the server answered text/html ("<html>"), not JSON: a proxy or gateway in front of the API, which turned the call away with HTTP 429 Too Many Requests`},
		{"html 429", "ollama", clitest.Reply{Status: 429, ContentType: "text/html", Body: "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n</html>\r\n"}, "",
			`ollama m: invalid character '<' looking for beginning of value (after 2 attempts); the server answered text/html ("<html>"), not JSON: a proxy or gateway in front of the API, which turned the call away with HTTP 429 Too Many Requests`},
		{"html 429", "anthropic", clitest.Reply{Status: 429, ContentType: "text/html", Body: "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n</html>\r\n"}, "/v1",
			`anthropic m: API returned unexpected status code: 429 (after 2 attempts); the server answered text/html ("<html>"), not JSON: a proxy or gateway in front of the API, which turned the call away with HTTP 429 Too Many Requests`},
		{"text 408", "googleai", clitest.Reply{Status: 408, ContentType: "text/plain", Body: "Request Timeout"}, "",
			`…; the server answered text/plain ("Request Timeout"), not JSON: a proxy or gateway in front of the API, which turned the call away with HTTP 408 Request Timeout`},
		{"400", "openai", clitest.Reply{Status: 400, ContentType: "application/json", Body: `{"error":{"message":"Invalid value for 'temperature': must be between 0 and 2.","type":"invalid_request_error"}}`}, "/v1",
			"openai m: API returned unexpected status code: 400: Invalid value for 'temperature': must be between 0 and 2."},
		{"400", "anthropic", clitest.Reply{Status: 400, ContentType: "application/json", Body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 8192"}}`}, "/v1",
			"anthropic m: API returned unexpected status code: 400: max_tokens: 100000 > 8192"},
		// A model that takes only its default temperature, which langchaingo does not know.
		{"400 temperature", "openai", clitest.Reply{Status: 400, ContentType: "application/json", Body: `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`}, "/v1",
			"openai m: API returned unexpected status code: 400: Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported; " + temperatureHint},
		{"400 temperature", "anthropic", clitest.Reply{Status: 400, ContentType: "application/json", Body: "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"`temperature` is deprecated for this model.\"}}"}, "/v1",
			"anthropic m: API returned unexpected status code: 400: `temperature` is deprecated for this model; " + temperatureHint},
		{"400 temperature thinking", "anthropic", clitest.Reply{Status: 400, ContentType: "application/json", Body: "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.\"}}"}, "/v1",
			"anthropic m: API returned unexpected status code: 400: `temperature` may only be set to 1 when thinking is enabled or in adaptive mode; " + temperatureHint},
		{"400 top_p", "anthropic", clitest.Reply{Status: 400, ContentType: "application/json", Body: "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"`temperature` and `top_p` cannot both be specified for this model. Please use only one.\"}}"}, "/v1",
			"anthropic m: API returned unexpected status code: 400: `temperature` and `top_p` cannot both be specified for this model. Please use only one."},
	} {
		t.Run(tc.provider+" "+tc.name, func(t *testing.T) {
			base := clitest.ReplyURL(t, tc.reply, closed)
			base += tc.path
			tr := NewTransport(TransportConfig{MaxRetries: 1, Backoff: time.Millisecond})
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: tc.provider, BaseURL: base, APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(context.Background(), testRequest(tc.provider, "m"))
			want := clitest.FailedCallWant(tc.want, base, closed)
			if tail, ok := strings.CutPrefix(want, "…"); ok && err != nil && strings.HasPrefix(err.Error(), tc.provider+" m: ") {
				want = err.Error()[:max(0, len(err.Error())-len(tail))] + tail
			}
			if err == nil || err.Error() != want {
				t.Errorf("Generate error =\n%v\nwant\n%s", err, want)
			}
		})
	}
}

// TestCallErrorHintProxy: a call sent through a proxy (HTTPS_PROXY, HTTP_PROXY) that cannot be
// reached is not said to find nothing at the base URL, whose server it never reached: the hint
// names the proxy.
func TestCallErrorHintProxy(t *testing.T) {
	closed := clitest.ClosedURL(t)
	proxy, err := url.Parse(closed)
	if err != nil {
		t.Fatal(err)
	}
	base := clitest.ReplyServer(t, clitest.Reply{Status: 200, ContentType: "application/json", Body: okStreamChunk}) + "/v1"
	tr := NewTransport(TransportConfig{MaxRetries: 1, Backoff: time.Millisecond, Base: &http.Transport{Proxy: http.ProxyURL(proxy)}})
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: base, APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), testRequest("openai", "m"))
	want := clitest.FailedCallWant("openai m: network error: failed to reach API server (proxyconnect tcp: dial tcp $HOST: connect: connection refused) (after 2 attempts); "+
		"the call goes through a proxy (HTTPS_PROXY or HTTP_PROXY) that could not be reached: is the proxy running, or should NO_PROXY name the base URL's host?", base, closed)
	if err == nil || err.Error() != want {
		t.Errorf("Generate error =\n%v\nwant\n%s", err, want)
	}
}

// TestCallErrorHintNoKey: a server that wants a key, called without one (openai at a base URL
// of its own needs none given), is not said to have refused a key: the hint says to give one.
func TestCallErrorHintNoKey(t *testing.T) {
	reply := clitest.Reply{Status: 401, ContentType: "application/json", Body: `{"error":{"message":"Unauthorized","type":"invalid_request_error"}}`}
	base := clitest.ReplyServer(t, reply) + "/v1"
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: base, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), testRequest("openai", "m"))
	want := "openai m: API returned unexpected status code: 401: Unauthorized; " +
		"the server wants an API key and none was given: set OPENAI_API_KEY, or give --api-key-file"
	if err == nil || err.Error() != want {
		t.Errorf("Generate error =\n%v\nwant\n%s", err, want)
	}
}

// TestReplyKind: a reply that is no JSON is named by its media type and the start of its first line.
func TestReplyKind(t *testing.T) {
	for _, tc := range []struct{ contentType, body, want string }{
		{"text/html; charset=utf-8", "<!DOCTYPE html>\n<html>", `text/html ("<!DOCTYPE html>")`},
		{"", "Bad Gateway", `text ("Bad Gateway")`},
		{"text/plain", strings.Repeat("é", 30), `text/plain ("` + strings.Repeat("é", 20) + `…")`}, // cut at a character
	} {
		if got := replyKind(tc.contentType, []byte(tc.body)); got != tc.want {
			t.Errorf("replyKind(%q, %q) = %s, want %s", tc.contentType, tc.body, got, tc.want)
		}
	}
}

// TestShownURL: a base URL in a message keeps no password and no query.
func TestShownURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"https://user:secret@host/v1?key=abc", "https://user:xxxxx@host/v1"},
	} {
		if got := shownURL(tc.in); got != tc.want {
			t.Errorf("shownURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestProviderHint: an unknown provider near a known one suggests it; a product's name suggests
// its provider, and a server that speaks OpenAI's API says how to reach it.
func TestProviderHint(t *testing.T) {
	judges := []string{"openai", "anthropic", "ollama", "googleai"}
	for _, tc := range []struct {
		name  string
		known []string
		want  string
	}{
		{"opnai", Providers, `; did you mean "openai"?`},
		{"claude", Providers, `; did you mean "anthropic"?`},
		{"Gemini", Providers, `; did you mean "googleai"?`},
		{"vllm", Providers, "; vllm speaks OpenAI's API: give --provider openai and its URL in --base-url"},
		{"llama.cpp", Providers, "; llama.cpp speaks OpenAI's API: give --provider openai and its URL in --base-url"},
		{"LM-Studio", judges, "; LM-Studio speaks OpenAI's API: give --provider openai and its URL in --base-url"},
		{"bm25", Providers, ""},
		{"vllm", []string{"anthropic"}, ""}, // openai is not among them
	} {
		if got := ProviderHint(tc.name, tc.known, "--base-url"); got != tc.want {
			t.Errorf("ProviderHint(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCallErrorHintTimeout: a call whose last attempt the per-attempt timeout ended says so, in
// every provider's client, as the client's own words ("context deadline exceeded") name no flag;
// one whose caller's deadline ended it, or whose last attempt got a reply, does not.
func TestCallErrorHintTimeout(t *testing.T) {
	const tail = "; every attempt stops at --timeout 150ms, and the last reached it: a slow server, or a long prompt or reply, can need longer (0: no limit)"
	for _, w := range wires {
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 5 { // the third call's second attempt: a reply, after a timed-out one
				rw.Header().Set("Content-Type", "application/json")
				rw.WriteHeader(http.StatusBadRequest)
				io.WriteString(rw, `{"error":{"message":"bad request","type":"invalid_request_error"}}`)
				return
			}
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second): // past every timeout below
			}
		}))
		t.Cleanup(srv.Close)
		for _, tc := range []struct {
			name     string
			timeout  time.Duration // the Transport's per attempt
			deadline time.Duration // the caller's, 0 for none
			retries  int
			hinted   bool
		}{
			{"per attempt", 150 * time.Millisecond, 0, 1, true},
			{"caller's deadline", 0, 150 * time.Millisecond, 0, false},
			{"reply after a timeout", 150 * time.Millisecond, 0, 1, false},
		} {
			tr := NewTransport(TransportConfig{Timeout: tc.timeout, MaxRetries: tc.retries, Backoff: time.Millisecond})
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			_, err = c.Generate(ctx, testRequest(w.provider, "m"))
			if err == nil {
				t.Fatalf("%s, %s: no error", w.provider, tc.name)
			}
			if got := strings.HasSuffix(err.Error(), tail); got != tc.hinted || strings.Count(err.Error(), "--timeout") != strings.Count(tail, "--timeout")*b2i(tc.hinted) {
				t.Errorf("%s, %s: error\n%v\nhinted %v, want %v", w.provider, tc.name, err, got, tc.hinted)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCallErrorHintRedactsKey: a reply that is no JSON and echoes the API key at its start is
// quoted in the hint without it; the hint's 40 bytes cut the key, which redacting the whole
// message afterwards could no longer find, so its first bytes were shown.
func TestCallErrorHintRedactsKey(t *testing.T) {
	const key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef"
	base := clitest.ReplyServer(t, clitest.Reply{Status: 401, ContentType: "text/plain", Body: "Invalid key " + key + "\n"}) + "/v1"
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: base, APIKey: key, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), testRequest("openai", "m"))
	if err == nil || strings.Contains(err.Error(), key[:12]) || !strings.Contains(err.Error(), `("Invalid key [redacted]")`) {
		t.Errorf("Generate error = %v; want the reply quoted without the key", err)
	}
}
