package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/pkg/record"
)

const testKey = "sk-test-SECRET-0123456789"

// wire is one provider's real request path, auth header and reply body (with its usage block).
type wire struct {
	provider, path, authHeader, authValue, reply string
	usage                                        record.Usage
}

var wires = []wire{
	{"openai", "/v1/chat/completions", "Authorization", "Bearer " + testKey,
		`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`,
		record.Usage{InputTokens: 12, OutputTokens: 3}},
	{"anthropic", "/v1/messages", "X-Api-Key", testKey,
		`{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":4}}`,
		record.Usage{InputTokens: 20, OutputTokens: 4}},
	{"ollama", "/api/chat", "", "",
		`{"model":"llama3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"Paris"},"done":true,"total_duration":1,"prompt_eval_count":26,"eval_count":5}`,
		record.Usage{InputTokens: 26, OutputTokens: 5}},
	{"googleai", "/v1beta/models/gemini-2.0-flash:generateContent", "X-Goog-Api-Key", testKey,
		`{"candidates":[{"content":{"parts":[{"text":"Paris"}],"role":"model"},"finishReason":1,"index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":10}}`,
		record.Usage{InputTokens: 8, OutputTokens: 2}},
}

func (w wire) baseURL(srv string) string {
	switch w.provider {
	case "openai", "anthropic":
		return srv + "/v1"
	}
	return srv
}

func (w wire) contentType() string {
	if w.provider == "ollama" {
		return "application/x-ndjson"
	}
	return "application/json"
}

// wireServer serves w's reply, checking path and key, and records each request body.
func wireServer(t *testing.T, w wire, calls *atomic.Int64, bodies chan<- string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		if bodies != nil {
			select {
			case bodies <- string(b):
			default:
			}
		}
		reply := w.reply
		if w.provider == "googleai" && r.URL.Path == strings.Replace(w.path, ":generate", ":streamGenerate", 1) {
			reply = "[" + reply + "]" // the REST stream is a JSON array of responses
		} else if r.URL.Path != w.path {
			http.Error(rw, `{"error":{"message":"not found: `+r.URL.Path+`"}}`, http.StatusNotFound)
			return
		}
		if w.authHeader != "" && r.Header.Get(w.authHeader) != w.authValue {
			http.Error(rw, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		rw.Header().Set("Content-Type", w.contentType())
		io.WriteString(rw, reply)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// replyClient is a client of w's provider talking to a loopback server that answers every
// request with reply in w's wire format.
func replyClient(t *testing.T, w wire, reply string) Client {
	t.Helper()
	w.reply = reply
	var calls atomic.Int64
	srv := wireServer(t, w, &calls, nil)
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// retryingOpenAI is an openai client of the server at url (its /v1) that makes retries more
// attempts after a failed one, a millisecond apart.
func retryingOpenAI(t *testing.T, url string, retries int) Client {
	t.Helper()
	tr := NewTransport(TransportConfig{MaxRetries: retries, Backoff: time.Millisecond})
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: url + "/v1", APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wireModels names a model of each provider for the requests the wire tests send.
var wireModels = map[string]string{"openai": "gpt-4o-mini", "anthropic": "claude-3-5-haiku-20241022", "ollama": "llama3", "googleai": "gemini-2.0-flash"}

// sentBody sends req (testRequest's, changed by edit) to a loopback server speaking w and
// returns the request and the body the server received.
func sentBody(t *testing.T, w wire, edit func(*Request)) (Request, string) {
	t.Helper()
	var calls atomic.Int64
	bodies := make(chan string, 1)
	srv := wireServer(t, w, &calls, bodies)
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	req := testRequest(w.provider, wireModels[w.provider])
	edit(&req)
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatalf("%s: Generate: %v", w.provider, err)
	}
	return req, <-bodies
}

func testRequest(provider, model string) Request {
	temp := 0.0
	return Request{Provider: provider, Model: model, Temperature: &temp, MaxTokens: 16,
		Messages: []Message{{Role: "system", Content: "Answer briefly."}, {Role: "user", Content: "Capital of France?"}}}
}

func TestProvidersWireFormat(t *testing.T) {
	for _, w := range wires {
		t.Run(w.provider, func(t *testing.T) {
			var calls atomic.Int64
			bodies := make(chan string, 1)
			srv := wireServer(t, w, &calls, bodies)
			tr := NewTransport(TransportConfig{})
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), testRequest(w.provider, wireModels[w.provider]))
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if resp.Text != "Paris" || !reflect.DeepEqual(resp.Usage, w.usage) || resp.Attempts != 1 {
				t.Errorf("Generate = %+v, want text Paris, usage %+v, 1 attempt", resp, w.usage)
			}
			body := <-bodies
			if !strings.Contains(body, "Capital of France?") || !strings.Contains(body, "Answer briefly.") {
				t.Errorf("request body %s lacks the messages", body)
			}
			if w.provider != "googleai" && !strings.Contains(body, wireModels[w.provider]) {
				t.Errorf("request body %s lacks the model", body)
			}
			var js map[string]any
			if err := json.Unmarshal([]byte(body), &js); err != nil {
				t.Errorf("request body is not JSON: %v", err)
			}
		})
	}
}

// TestReasoningModel: OpenAI's reasoning models take no temperature but the default, so none is
// sent (langchaingo leaves it out for o1, o3 and gpt-5 names); a reply whose max_tokens all went
// on thinking is an error that says so.
func TestReasoningModel(t *testing.T) {
	w := wires[0]
	w.reply = `{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"o3-mini","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"length"}],"usage":{"prompt_tokens":12,"completion_tokens":16,"total_tokens":28,"completion_tokens_details":{"reasoning_tokens":16}}}`
	var calls atomic.Int64
	bodies := make(chan string, 1)
	srv := wireServer(t, w, &calls, bodies)
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), testRequest("openai", "o3-mini"))
	want := "openai o3-mini: empty reply (stop reason length: max_tokens 16 ran out before any text; a reasoning model's thinking counts in it)"
	if err == nil || err.Error() != want {
		t.Errorf("Generate = %v, want the error %q", err, want)
	}
	if resp.Usage.OutputTokens != 16 {
		t.Errorf("usage %+v, want the 16 output tokens paid for", resp.Usage)
	}
	<-bodies
	// Which names get no temperature is langchaingo's list (the README names it).
	for name, sent := range map[string]bool{"o3-mini": false, "o3": false, "o1-mini": false, "gpt-5-mini": false,
		"o1": true, "o4-mini": true, "gpt-4o": true} {
		c.Generate(context.Background(), testRequest("openai", name)) //nolint:errcheck // the reply is the empty one
		var body map[string]any
		if err := json.Unmarshal([]byte(<-bodies), &body); err != nil {
			t.Fatal(err)
		}
		if _, ok := body["temperature"]; ok != sent || body["model"] != name {
			t.Errorf("request %v: want model %s and a temperature %v", body, name, sent)
		}
	}
}

func TestUsageFromInfo(t *testing.T) {
	tests := []struct {
		name string
		info map[string]any
		want record.Usage
	}{
		{"openai", map[string]any{"PromptTokens": 10, "CompletionTokens": 2, "TotalTokens": 12}, record.Usage{InputTokens: 10, OutputTokens: 2}},
		{"anthropic", map[string]any{"InputTokens": 7, "OutputTokens": 3}, record.Usage{InputTokens: 7, OutputTokens: 3}},
		{"googleai int32", map[string]any{"input_tokens": int32(5), "output_tokens": int32(1), "PromptTokens": int32(0)}, record.Usage{InputTokens: 5, OutputTokens: 1}},
		{"float", map[string]any{"prompt_tokens": 4.0, "completion_tokens": 1.0}, record.Usage{InputTokens: 4, OutputTokens: 1}},
		{"none", map[string]any{"ThinkingContent": ""}, record.Usage{}},
		// The prompt tokens served from the provider's cache, at most the prompt's.
		{"openai cached", map[string]any{"PromptTokens": 2006, "CompletionTokens": 3, "TotalTokens": 2009, "PromptCachedTokens": 1920}, record.Usage{InputTokens: 2006, OutputTokens: 3, CachedInputTokens: 1920}},
		{"googleai cached", map[string]any{"input_tokens": int32(4100), "output_tokens": int32(2), "total_tokens": int32(4102), "PromptTokens": int32(4100), "CompletionTokens": int32(2), "TotalTokens": int32(4102), "CachedTokens": int32(4096), "CacheReadInputTokens": int32(4096)}, record.Usage{InputTokens: 4100, OutputTokens: 2, CachedInputTokens: 4096}},
		{"cached past the prompt", map[string]any{"PromptTokens": 10, "CompletionTokens": 2, "PromptCachedTokens": 64}, record.Usage{InputTokens: 10, OutputTokens: 2, CachedInputTokens: 10}},
		// Anthropic counts its cache apart from input_tokens, and qapipe asks for none.
		{"anthropic cache counts", map[string]any{"InputTokens": 7, "OutputTokens": 3, "CacheReadInputTokens": 0, "CacheCreationInputTokens": 0}, record.Usage{InputTokens: 7, OutputTokens: 3}},
		{"anthropic cache written and read", map[string]any{"InputTokens": 10, "OutputTokens": 30, "CacheReadInputTokens": 20000, "CacheCreationInputTokens": 3000},
			record.Usage{InputTokens: 23010, OutputTokens: 30, CachedInputTokens: 20000, CacheWriteInputTokens: 3000}},
		// Counts no call has, from a broken server: unknown (zero), not a negative cost.
		{"negative", map[string]any{"PromptTokens": -5, "CompletionTokens": 3, "TotalTokens": -2}, record.Usage{}},
		{"negative total", map[string]any{"PromptTokens": 5, "CompletionTokens": 3, "TotalTokens": -2}, record.Usage{}},
		{"at 2^40", map[string]any{"PromptTokens": 1 << 40, "CompletionTokens": 1}, record.Usage{InputTokens: 1 << 40, OutputTokens: 1}},
		{"past 2^40", map[string]any{"prompt_tokens": float64(1 << 41), "completion_tokens": 1.0}, record.Usage{}},
		{"NaN", map[string]any{"prompt_tokens": math.NaN(), "completion_tokens": 1.0}, record.Usage{}},
		{"int64 at its limit", map[string]any{"input_tokens": int64(math.MaxInt64), "output_tokens": int64(1)}, record.Usage{}},
		{"negative cached", map[string]any{"PromptTokens": 10, "CompletionTokens": 2, "PromptCachedTokens": -3}, record.Usage{InputTokens: 10, OutputTokens: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UsageFromInfo(tt.info); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("UsageFromInfo(%v) = %+v, want %+v", tt.info, got, tt.want)
			}
		})
	}
}

func TestTPMChargesRealUsage(t *testing.T) {
	w := wires[0] // openai: 12 input + 3 output tokens
	var calls atomic.Int64
	srv := wireServer(t, w, &calls, nil)
	var s sleeps
	tpm := NewLimiter(1000, s.sleep)
	fixed := tpm.now()
	tpm.now = func() time.Time { return fixed }
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: w.baseURL(srv.URL), APIKey: testKey,
		HTTPClient: NewTransport(TransportConfig{}).Client(), TPM: tpm})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini")); err != nil {
		t.Fatal(err)
	}
	if got := tpm.held(fixed); got != 15 {
		t.Errorf("TPM window after one call holds %v, want 15 (the estimate replaced by the real 12+3)", got)
	}
}

// TestTPMReservesSentMaxTokens: a call reserves its estimated input and the max_tokens it carries
// until its usage is known: langchaingo's 2048 to anthropic and googleai when the request sets
// none (Anthropic counts max_tokens against its output limit as a call starts), none to openai.
func TestTPMReservesSentMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		w         wire
		maxTokens int
		want      float64
	}{
		{wires[0], 0, 0},
		{wires[0], 16, 16},
		{wires[1], 0, 2048},
		{wires[1], 16, 16},
	} {
		var s sleeps
		tpm := NewLimiter(1e9, s.sleep)
		fixed := tpm.now()
		tpm.now = func() time.Time { return fixed }
		held := make(chan float64, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			held <- tpm.held(fixed)
			rw.Header().Set("Content-Type", "application/json")
			io.WriteString(rw, tc.w.reply)
		}))
		c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: tc.w.provider, BaseURL: tc.w.baseURL(srv.URL), APIKey: testKey,
			HTTPClient: NewTransport(TransportConfig{}).Client(), TPM: tpm})
		if err != nil {
			t.Fatal(err)
		}
		req := testRequest(tc.w.provider, wireModels[tc.w.provider])
		req.MaxTokens = tc.maxTokens
		if _, err := c.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if got, want := <-held, float64(EstimateTokens(req))+tc.want; got != want {
			t.Errorf("%s, max_tokens %d: %v tokens reserved during the call, want %v (the input's estimate and %v)", tc.w.provider, tc.maxTokens, got, want, tc.want)
		}
		srv.Close()
	}
}

// TestCallErrorCause: langchaingo words every network error "network error: failed to reach API
// server"; the call error adds what the last attempt's transport said, and only that attempt's.
func TestCallErrorCause(t *testing.T) {
	closed := clitest.ClosedURL(t)
	var first atomic.Bool
	flaky := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if !first.Swap(true) { // the first attempt's connection is dropped
			conn, _, _ := rw.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusBadRequest)
		io.WriteString(rw, `{"error":{"message":"bad request body","type":"invalid_request_error"}}`)
	}))
	defer flaky.Close()
	for _, tc := range []struct {
		name, url string
		want      []string
		not       string
	}{
		{"closed port", closed, []string{"failed to reach API server (", "connection refused"}, ""},
		{"dropped, then 400", flaky.URL, []string{"400", "bad request body"}, "EOF"},
	} {
		c := retryingOpenAI(t, tc.url, 1)
		_, err := c.Generate(context.Background(), testRequest("openai", "m"))
		if err == nil {
			t.Fatalf("%s: Generate succeeded", tc.name)
		}
		t.Run(tc.name, func(t *testing.T) { errorHas(t, err, tc.want...) })
		if tc.not != "" && strings.Contains(err.Error(), tc.not) {
			t.Errorf("%s: error %q names the earlier attempt's %q", tc.name, err, tc.not)
		}
	}
}

// TestReplyAccounting: what a reply used and how it stopped, as each provider reports it on the
// wire. Gemini's thinking models bill their thoughts as output but count them apart from the
// candidates (thoughtsTokenCount, and totalTokenCount holds them; a proxy may leave out the total); a streamed Gemini reply (testRequest has a system
// message, which genai sends to streamGenerateContent) counts by its last chunk, whose usage holds
// the running totals, and its first chunks may carry no candidates count at all; Gemini's cut
// reads the finishReason MAX_TOKENS;
// a usage block with a count missing (old Ollama leaves out prompt_eval_count for a cached prompt)
// is unknown, not zero.
func TestReplyAccounting(t *testing.T) {
	gemini := func(parts, finish, usage string) string {
		return `{"candidates":[{"content":{"parts":[` + parts + `],"role":"model"},"finishReason":"` + finish + `","index":0}],"usageMetadata":` + usage + `}`
	}
	tests := []struct {
		name    string
		w       wire
		reply   string
		usage   record.Usage
		noUsage bool
		cut     bool
		wantErr string
		// unstreamed: the request has no system message, so genai asks generateContent, whose
		// reply langchaingo reads through genai (which drops thoughtsTokenCount).
		unstreamed bool
	}{
		{name: "gemini thoughts", w: wires[3], reply: gemini(`{"text":"Paris"}`, "STOP", `{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":110,"thoughtsTokenCount":100}`),
			usage: record.Usage{InputTokens: 8, OutputTokens: 102}},
		{name: "gemini thoughts without a total", w: wires[3], reply: gemini(`{"text":"Paris"}`, "STOP", `{"promptTokenCount":1000,"candidatesTokenCount":50,"thoughtsTokenCount":500}`),
			usage: record.Usage{InputTokens: 1000, OutputTokens: 550}},
		{name: "gemini tool-use prompt", w: wires[3], reply: gemini(`{"text":"Paris"}`, "STOP", `{"promptTokenCount":100,"candidatesTokenCount":5,"toolUsePromptTokenCount":7,"totalTokenCount":112}`),
			usage: record.Usage{InputTokens: 107, OutputTokens: 5}},
		{name: "gemini tool-use prompt, unstreamed", w: wires[3], reply: gemini(`{"text":"Paris"}`, "STOP", `{"promptTokenCount":100,"candidatesTokenCount":5,"toolUsePromptTokenCount":7,"totalTokenCount":112}`),
			usage: record.Usage{InputTokens: 107, OutputTokens: 5}, unstreamed: true},
		{name: "gemini thoughts without a total, unstreamed", w: wires[3], reply: gemini(`{"text":"Paris"}`, "STOP", `{"promptTokenCount":1000,"candidatesTokenCount":50,"thoughtsTokenCount":500}`),
			usage: record.Usage{InputTokens: 1000, OutputTokens: 550}, unstreamed: true},
		// A usage whose total holds thoughts that no count of its own gives (a proxy that drops
		// thoughtsTokenCount, or an OpenAI-compatible server that leaves them out of
		// completion_tokens): the rest of the total is output, which they are billed as.
		{name: "gemini thoughts in the total alone", w: wires[3], reply: gemini(`{"text":"Paris"}`, "STOP", `{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":110}`),
			usage: record.Usage{InputTokens: 8, OutputTokens: 102}},
		{name: "openai thoughts in the total alone", w: wires[0], reply: `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":40}}`,
			usage: record.Usage{InputTokens: 12, OutputTokens: 28}},
		// A cache count past the prompt's, from a broken server or proxy: at most the prompt.
		{name: "gemini cached past the prompt", w: wires[3], reply: gemini(`{"text":"Paris"}`, "STOP", `{"promptTokenCount":4100,"candidatesTokenCount":2,"totalTokenCount":4102,"cachedContentTokenCount":5000}`),
			usage: record.Usage{InputTokens: 4100, OutputTokens: 2, CachedInputTokens: 4100}},
		// Anthropic counts its prompt cache's tokens apart from input_tokens: a gateway that
		// caches (OpenRouter) makes them the prompt's most.
		{name: "anthropic prompt cache", w: wires[1], reply: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_creation_input_tokens":3000,"cache_read_input_tokens":20000,"output_tokens":30}}`,
			usage: record.Usage{InputTokens: 23010, OutputTokens: 30, CachedInputTokens: 20000, CacheWriteInputTokens: 3000}},
		// A reply read from its body (a redacted_thinking block langchaingo does not know) with a
		// cache count no call has: unknown, as UsageFromInfo reads such a count.
		{name: "anthropic negative cache count", w: wires[1], reply: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-7-sonnet-20250219","content":[{"type":"redacted_thinking","data":"EmwKAhgB"},{"type":"text","text":"Paris"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"cache_read_input_tokens":-100,"output_tokens":4}}`,
			noUsage: true},
		{name: "gemini streamed", w: wires[3], reply: `{"candidates":[{"content":{"parts":[{"text":"The capital"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":10}},` +
			`{"candidates":[{"content":{"parts":[{"text":" is Paris."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":5,"totalTokenCount":13}},` +
			gemini(`{"text":""}`, "STOP", `{"promptTokenCount":8,"candidatesTokenCount":6,"totalTokenCount":14}`),
			usage: record.Usage{InputTokens: 8, OutputTokens: 6}},
		{name: "gemini streamed, totals last", w: wires[3], reply: `{"candidates":[{"content":{"parts":[{"text":"Paris"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}},` +
			gemini(`{"text":"."}`, "STOP", `{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":10}`),
			usage: record.Usage{InputTokens: 8, OutputTokens: 2}},
		{name: "gemini cut", w: wires[3], reply: gemini(`{"text":"Par"}`, "MAX_TOKENS", `{"promptTokenCount":8,"candidatesTokenCount":16,"totalTokenCount":24}`),
			usage: record.Usage{InputTokens: 8, OutputTokens: 16}, cut: true},
		{name: "gemini thought to the limit", w: wires[3], reply: `{"candidates":[{"content":{"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":24,"thoughtsTokenCount":16}}`,
			usage: record.Usage{InputTokens: 8, OutputTokens: 16}, cut: true, wantErr: "max_tokens 16 ran out before any text"},
		// The prompt tokens the provider served from its cache, which it bills at a lower rate.
		{name: "openai cached prompt", w: wires[0], reply: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2006,"completion_tokens":3,"total_tokens":2009,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
			usage: record.Usage{InputTokens: 2006, OutputTokens: 3, CachedInputTokens: 1920}},
		// DeepSeek's API reports its cache hits apart, prompt_cache_hit_tokens (a part of
		// prompt_tokens, billed at a tenth of the input rate), with no prompt_tokens_details.
		{name: "deepseek cached prompt", w: wires[0], reply: `{"id":"c","object":"chat.completion","created":1,"model":"deepseek-chat","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":2006,"completion_tokens":3,"total_tokens":2009,"prompt_cache_hit_tokens":1920,"prompt_cache_miss_tokens":86}}`,
			usage: record.Usage{InputTokens: 2006, OutputTokens: 3, CachedInputTokens: 1920}},
		{name: "deepseek cached prompt, empty reply", w: wires[0], reply: `{"id":"c","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"Let me think."},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":2006,"completion_tokens":16,"total_tokens":2022,"prompt_cache_hit_tokens":1920,"prompt_cache_miss_tokens":86,"completion_tokens_details":{"reasoning_tokens":16}}}`,
			usage: record.Usage{InputTokens: 2006, OutputTokens: 16, CachedInputTokens: 1920}, cut: true, wantErr: "empty reply"},
		{name: "gemini cached prompt, streamed", w: wires[3], reply: `{"candidates":[{"content":{"parts":[{"text":"Paris"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":4100,"totalTokenCount":4100,"cachedContentTokenCount":4096}},` +
			gemini(`{"text":"."}`, "STOP", `{"promptTokenCount":4100,"candidatesTokenCount":2,"totalTokenCount":4102,"cachedContentTokenCount":4096,"cacheTokensDetails":[{"modality":"TEXT","tokenCount":4096}]}`),
			usage: record.Usage{InputTokens: 4100, OutputTokens: 2, CachedInputTokens: 4096}},
		{name: "openai partial usage", w: wires[0], reply: `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12}}`,
			noUsage: true},
		{name: "ollama cached prompt", w: wires[2], reply: `{"model":"llama3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"Paris"},"done":true,"total_duration":1,"eval_count":5}`,
			noUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			c := replyClient(t, w, tt.reply)
			req := testRequest(w.provider, wireModels[w.provider])
			if tt.unstreamed {
				req.Messages = req.Messages[1:]
			}
			resp, err := c.Generate(context.Background(), req)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Generate: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Generate error = %v, want one with %q", err, tt.wantErr)
			}
			if !reflect.DeepEqual(resp.Usage, tt.usage) || resp.NoUsage != tt.noUsage || resp.Cut != tt.cut {
				t.Errorf("Generate = usage %+v, no usage %v, cut %v; want %+v, %v, %v", resp.Usage, resp.NoUsage, resp.Cut, tt.usage, tt.noUsage, tt.cut)
			}
		})
	}
}

// TestRepliesReadFromBody: a 200 reply that langchaingo v0.1.14 cannot read but that is its
// provider's, with an answer in it, is answered from its body, as the provider's SDKs read it:
// an Anthropic message with a redacted_thinking block (extended thinking that Anthropic's safety
// systems encrypted) beside its thinking and text blocks; an OpenAI-compatible message whose
// content is an array of parts (Mistral's reasoning models: a thinking part, then text parts);
// a Gemini reply with a part of data genai does not know (only a thoughtSignature, an
// executableCode) beside text and thought parts. Its text is that of its text blocks or parts
// joined, its reasoning that of the thinking the provider gives readably, its usage the body's;
// the rules of any reply hold: one cut at max_tokens is Cut, one without text is ErrEmptyReply.
func TestRepliesReadFromBody(t *testing.T) {
	const (
		redacted = `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"}`
		thinking = `{"type":"thinking","thinking":"The user asks for the capital of France.\n\nThat is Paris.","signature":"EuYBCkQYAiJAjqSTe4yb8LTpJxvAk4HNUB6u1hyC"}`
		claude   = `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-3-7-sonnet-20250219","content":[`
		claudeOK = `],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":140}}`
		mistral  = `{"id":"cf79f7daaee244b1a0ae5c7b1444424a","object":"chat.completion","created":1759500534,"model":"magistral-small-2509","choices":[{"index":0,"message":{"role":"assistant","tool_calls":null,"content":[`
		think    = `{"type":"thinking","thinking":[{"type":"text","text":"The capital of France"},{"type":"text","text":" is Paris."}]}`
		gemUsage = `"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":60,"thoughtsTokenCount":50},"modelVersion":"gemini-2.5-flash","responseId":"mHroaJ2dMoGtz7IP"}`
	)
	claudeUsage := record.Usage{InputTokens: 20, OutputTokens: 140}
	mistralUsage := record.Usage{InputTokens: 12, OutputTokens: 30}
	gemUsageWant := record.Usage{InputTokens: 8, OutputTokens: 52}
	tests := []struct {
		name      string
		w         wire
		reply     string
		text      string
		reasoning string
		usage     record.Usage
		cut       bool
		wantErr   string
		unary     bool // a request of one message, which genai asks without streaming
	}{
		{"anthropic redacted_thinking", wires[1], claude + thinking + `,` + redacted + `,{"type":"text","text":"Paris"}` + claudeOK,
			"Paris", "The user asks for the capital of France.\n\nThat is Paris.", claudeUsage, false, "", false},
		{"anthropic thinking, which langchaingo reads", wires[1], claude + thinking + `,{"type":"text","text":"Paris"}` + claudeOK,
			"Paris", "The user asks for the capital of France.\n\nThat is Paris.", claudeUsage, false, "", false},
		{"anthropic redacted_thinking alone, text blocks joined", wires[1], claude + redacted + `,{"type":"text","text":"The capital is "},{"type":"text","text":"Paris."}` + claudeOK,
			"The capital is Paris.", "", claudeUsage, false, "", false},
		{"anthropic redacted_thinking, prompt cache", wires[1], claude + redacted + `,{"type":"text","text":"Paris"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":7,"cache_read_input_tokens":100,"output_tokens":4}}`,
			"Paris", "", record.Usage{InputTokens: 127, OutputTokens: 4, CachedInputTokens: 100, CacheWriteInputTokens: 7}, false, "", false},
		{"anthropic cut at max_tokens", wires[1], claude + redacted + `,{"type":"text","text":"The capital"}],"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":16}}`,
			"The capital", "", record.Usage{InputTokens: 20, OutputTokens: 16}, true, "", false},
		{"anthropic no text", wires[1], claude + redacted + `],"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":16}}`,
			"", "", record.Usage{InputTokens: 20, OutputTokens: 16}, true, "empty reply (stop reason max_tokens: max_tokens 16 ran out before any text", false},
		{"mistral thinking part", wires[0], mistral + think + `,{"type":"text","text":"Paris"}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"total_tokens":42,"completion_tokens":30}}`,
			"Paris", "The capital of France is Paris.", mistralUsage, false, "", false},
		{"text parts joined round a reference", wires[0], mistral + `{"type":"text","text":"The capital is "},{"type":"reference","reference_ids":[0]},{"type":"text","text":"Paris."}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"total_tokens":42,"completion_tokens":30}}`,
			"The capital is Paris.", "", mistralUsage, false, "", false},
		{"mistral cut in its thinking", wires[0], mistral + think + `]},"finish_reason":"length"}],"usage":{"prompt_tokens":12,"total_tokens":28,"completion_tokens":16}}`,
			"", "The capital of France is Paris.", record.Usage{InputTokens: 12, OutputTokens: 16}, true, "empty reply (stop reason length: max_tokens 16 ran out before any text", false},
		{"gemini thoughtSignature part", wires[3], `{"candidates":[{"content":{"parts":[{"text":"Paris"},{"thoughtSignature":"CiQB0e2Kb8dWq7tX"}],"role":"model"},"finishReason":"STOP","index":0}],` + gemUsage,
			"Paris", "", gemUsageWant, false, "", false},
		{"gemini thoughtSignature part, not streamed", wires[3], `{"candidates":[{"content":{"parts":[{"thoughtSignature":"CiQB0e2Kb8dWq7tX"},{"text":"Paris"}],"role":"model"},"finishReason":"STOP","index":0}],` + gemUsage,
			"Paris", "", gemUsageWant, false, "", true},
		{"gemini stream with thoughts and code", wires[3], `{"candidates":[{"content":{"parts":[{"text":"The capital of France.","thought":true}],"role":"model"},"index":0}],` + gemUsage + `,` +
			`{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"print('Paris')"}},{"text":"The capital is "}],"role":"model"},"index":0}],` + gemUsage + `,` +
			`{"candidates":[{"content":{"parts":[{"text":"Paris."}],"role":"model"},"finishReason":"STOP","index":0}],` + gemUsage,
			"The capital is Paris.", "The capital of France.", gemUsageWant, false, "", false},
		{"gemini thought part, which langchaingo reads as text", wires[3], `{"candidates":[{"content":{"parts":[{"text":"The capital of France.","thought":true},{"text":"Paris"}],"role":"model"},"finishReason":"STOP","index":0}],` + gemUsage,
			"Paris", "The capital of France.", gemUsageWant, false, "", false},
		{"gemini thoughts alone", wires[3], `{"candidates":[{"content":{"parts":[{"text":"The capital of France.","thought":true},{"thoughtSignature":"CiQB0e2Kb8dWq7tX"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],` + gemUsage,
			"", "The capital of France.", gemUsageWant, true, "empty reply (stop reason MAX_TOKENS: max_tokens 16 ran out before any text", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := testRequest(tt.w.provider, wireModels[tt.w.provider])
			if tt.unary {
				req.Messages = req.Messages[1:] // genai asks generateContent, not its stream
			}
			c := replyClient(t, tt.w, tt.reply)
			resp, err := c.Generate(context.Background(), req)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Generate: %v", err)
			case tt.wantErr != "" && (!errors.Is(err, ErrEmptyReply) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Generate error = %v, want one with %q", err, tt.wantErr)
			}
			if resp.Text != tt.text || resp.Reasoning != tt.reasoning || !reflect.DeepEqual(resp.Usage, tt.usage) || resp.NoUsage || resp.Cut != tt.cut || resp.Attempts != 1 {
				t.Errorf("Generate = text %q, reasoning %q, usage %+v, no usage %v, cut %v, %d attempts; want %q, %q, %+v, false, %v, 1",
					resp.Text, resp.Reasoning, resp.Usage, resp.NoUsage, resp.Cut, resp.Attempts, tt.text, tt.reasoning, tt.usage, tt.cut)
			}
		})
	}
}

// TestUnreadableReplyKeepsUsage: a 200 reply that neither langchaingo v0.1.14 nor Generate can
// read from its body (an OpenAI-compatible message whose content is an object, no string nor
// array of parts) fails the call, but keeps the usage its server reported: it was paid for.
func TestUnreadableReplyKeepsUsage(t *testing.T) {
	c := replyClient(t, wires[0], `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":{"text":"Paris"}},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42}}`)
	resp, err := c.Generate(context.Background(), testRequest("openai", wireModels["openai"]))
	if err == nil || !strings.Contains(err.Error(), "cannot unmarshal object") {
		t.Fatalf("Generate = %+v, %v; want the client's error: nothing reads the reply", resp, err)
	}
	if want := (record.Usage{InputTokens: 12, OutputTokens: 30}); !reflect.DeepEqual(resp.Usage, want) || resp.NoUsage || resp.Attempts != 1 || resp.Text != "" {
		t.Errorf("Generate error %v: text %q, usage %+v, no usage %v, %d attempts; want none, %+v, false, 1", err, resp.Text, resp.Usage, resp.NoUsage, resp.Attempts, want)
	}
	// Without a usage (llama.cpp's server may leave it out) it was paid for all the same: its
	// usage is unknown, as an empty reply's is, not that of a call that cost nothing.
	c = replyClient(t, wires[0], `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":{"text":"Paris"}},"finish_reason":"stop"}]}`)
	resp, err = c.Generate(context.Background(), testRequest("openai", wireModels["openai"]))
	if err == nil || !resp.NoUsage || !resp.Usage.IsZero() {
		t.Errorf("without a usage: Generate = %+v, %v; want an error with the usage unknown", resp, err)
	}
}

// TestEmptyReplies: a reply with no text is the error ErrEmptyReply with the usage paid for, on
// every provider, including the shapes langchaingo turns into errors of its own: Anthropic's empty
// content (end_turn) or none, OpenAI's choices empty, null or left out (langchaingo's "empty
// response"), and Gemini's reply without candidates (genai asks
// for enums as numbers). The providers' blocks are TestBlocked's and TestGoogleBlocked's.
func TestEmptyReplies(t *testing.T) {
	tests := []struct {
		name  string
		w     wire
		reply string
		usage record.Usage
		why   string
	}{
		{"anthropic end_turn", wires[1], `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":2}}`,
			record.Usage{InputTokens: 20, OutputTokens: 2}, "stop reason end_turn; no text block"},
		{"openai no choices", wires[0], `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12}}`,
			record.Usage{InputTokens: 12}, "no choices"},
		{"openai choices null", wires[0], `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":null,"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12}}`,
			record.Usage{InputTokens: 12}, "no choices"},
		{"openai no choices, cached prompt", wires[0], `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":0,"total_tokens":1200,"prompt_tokens_details":{"cached_tokens":1024}}}`,
			record.Usage{InputTokens: 1200, CachedInputTokens: 1024}, "no choices"},
		{"openai choices left out", wires[0], `{"id":"c","object":"chat.completion","created":1,"model":"m","usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12}}`,
			record.Usage{InputTokens: 12}, "no choices"},
		{"anthropic no content", wires[1], `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","usage":{"input_tokens":20,"output_tokens":0}}`,
			record.Usage{InputTokens: 20}, "no content"},
		{"gemini no candidates", wires[3], `[{"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}]`,
			record.Usage{InputTokens: 8}, "no candidates"},
		{"gemini no text", wires[3], `[{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":5,"index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":1,"totalTokenCount":9}}]`,
			record.Usage{InputTokens: 8, OutputTokens: 1}, "stop reason OTHER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.reply = tt.reply
			if w.provider == "googleai" {
				w.reply = strings.TrimSuffix(strings.TrimPrefix(tt.reply, "["), "]") // wireServer wraps it for the stream
			}
			c := replyClient(t, w, w.reply)
			resp, err := c.Generate(context.Background(), testRequest(w.provider, wireModels[w.provider]))
			want := w.provider + " " + wireModels[w.provider] + ": empty reply (" + tt.why + ")"
			if !errors.Is(err, ErrEmptyReply) || err.Error() != want {
				t.Errorf("Generate error = %v, want %q", err, want)
			}
			if !reflect.DeepEqual(resp.Usage, tt.usage) || resp.NoUsage {
				t.Errorf("Generate usage = %+v (no usage %v), want %+v", resp.Usage, resp.NoUsage, tt.usage)
			}
		})
	}
}

// TestBlocked: a reply without text that OpenAI's content filter stopped (finish_reason
// content_filter, its content null, "" or parts without text) or that Claude's safety classifiers stopped (stop_reason
// refusal, its content empty or an empty text block) is a BlockedError, as Gemini's blocks are:
// asked once (the same prompt is stopped again), with the usage it was paid for, and never an
// empty reply, which a judge asks again. Claude's stop_details names the policy's category when
// the API sends it. A reply with text that was stopped so is TestFiltered's: its text is kept.
func TestBlocked(t *testing.T) {
	openai := func(message string) string {
		return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":` + message +
			`,"logprobs":null,"finish_reason":"content_filter"}],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`
	}
	claude := func(content, details string) string {
		return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":` + content +
			`,"stop_reason":"refusal","stop_sequence":null` + details + `,"usage":{"input_tokens":20,"output_tokens":3}}`
	}
	tests := []struct {
		name  string
		w     wire
		reply string
		want  string
		usage record.Usage
	}{
		{"openai content null", wires[0], openai(`{"role":"assistant","content":null,"refusal":null}`),
			"openai gpt-4o-mini: reply blocked by OpenAI: content_filter", record.Usage{InputTokens: 12, OutputTokens: 7}},
		{"openai content empty", wires[0], openai(`{"role":"assistant","content":""}`),
			"openai gpt-4o-mini: reply blocked by OpenAI: content_filter", record.Usage{InputTokens: 12, OutputTokens: 7}},
		{"openai content left out", wires[0], openai(`{"role":"assistant"}`),
			"openai gpt-4o-mini: reply blocked by OpenAI: content_filter", record.Usage{InputTokens: 12, OutputTokens: 7}},
		{"openai content of parts without text", wires[0], openai(`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Hmm."}]}]}`),
			"openai gpt-4o-mini: reply blocked by OpenAI: content_filter", record.Usage{InputTokens: 12, OutputTokens: 7}},
		{"anthropic no content", wires[1], claude(`[]`, ""),
			"anthropic claude-sonnet-4-20250514: reply blocked by Anthropic: refusal", record.Usage{InputTokens: 20, OutputTokens: 3}},
		{"anthropic empty text", wires[1], claude(`[{"type":"text","text":""}]`, ""),
			"anthropic claude-sonnet-4-20250514: reply blocked by Anthropic: refusal", record.Usage{InputTokens: 20, OutputTokens: 3}},
		{"anthropic stop_details", wires[1], claude(`[]`, `,"stop_details":{"type":"refusal","category":"cyber","explanation":"This request was declined because it could enable cyber harm."}`),
			"anthropic claude-sonnet-4-20250514: reply blocked by Anthropic: refusal (cyber)", record.Usage{InputTokens: 20, OutputTokens: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.reply = tt.reply
			var calls atomic.Int64
			srv := wireServer(t, w, &calls, nil)
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey,
				HTTPClient: NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond}).Client()})
			if err != nil {
				t.Fatal(err)
			}
			model := map[string]string{"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-20250514"}[w.provider]
			resp, err := c.Generate(context.Background(), testRequest(w.provider, model))
			var be *BlockedError
			var ce *CallError
			if !errors.As(err, &be) || !errors.As(err, &ce) || errors.Is(err, ErrEmptyReply) || err.Error() != tt.want {
				t.Fatalf("Generate error = %v, want a BlockedError %q", err, tt.want)
			}
			if n := calls.Load(); n != 1 || ce.Attempts != 1 {
				t.Errorf("%d requests reached the server, %d attempts counted; want 1 (a block is not retried)", n, ce.Attempts)
			}
			if resp.Text != "" || !reflect.DeepEqual(resp.Usage, tt.usage) || resp.NoUsage {
				t.Errorf("Generate = text %q, usage %+v (no usage %v); want no text, usage %+v", resp.Text, resp.Usage, resp.NoUsage, tt.usage)
			}
		})
	}
}

// TestUnreadableReplies: a 200 reply that langchaingo v0.1.14 crashes on (its OpenAI client
// dereferences nil for a null choice) is an error of the call, naming the reply, not a panic that
// ends the run and loses the records not yet written. (Its Anthropic client's crash on a body of
// JSON null is not reached: that body is no message, TestShapeFaults'.)
func TestUnreadableReplies(t *testing.T) {
	tests := []struct {
		w     wire
		reply string
	}{
		{wires[0], `{"choices":[null]}`},
	}
	for _, tt := range tests {
		t.Run(tt.w.provider, func(t *testing.T) {
			c := replyClient(t, tt.w, tt.reply)
			resp, err := c.Generate(context.Background(), testRequest(tt.w.provider, wireModels[tt.w.provider]))
			var ce *CallError
			if !errors.As(err, &ce) || ce.Attempts != 1 || resp.Text != "" {
				t.Fatalf("Generate = %+v, %v; want a CallError after 1 attempt", resp, err)
			}
			want := tt.w.provider + " " + wireModels[tt.w.provider] + ": the client could not read the reply application/json (" + strconv.Quote(tt.reply) + "): "
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Generate error = %q, want it to begin %q", err, want)
			}
		})
	}
}

// TestOllamaCut: Ollama says a reply stopped at num_predict in done_reason "length", which
// langchaingo does not pass on; the reply is counted as cut all the same.
func TestOllamaCut(t *testing.T) {
	for reason, cut := range map[string]bool{"length": true, "stop": false} {
		c := replyClient(t, wires[2], `{"model":"llama3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"Par"},"done_reason":"`+reason+`","done":true,"total_duration":1,"prompt_eval_count":26,"eval_count":16}`)
		resp, err := c.Generate(context.Background(), testRequest("ollama", "llama3"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Cut != cut {
			t.Errorf("done_reason %s: Cut = %v, want %v", reason, resp.Cut, cut)
		}
	}
}

// TestErrorBodyMessage: vLLM (and servers like it) word an error as a top-level "message", where
// langchaingo reads OpenAI's error.message only; the call error keeps the server's words.
func TestErrorBodyMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}`)
	}))
	defer srv.Close()
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), testRequest("openai", "Qwen/Qwen2.5-7B-Instruct"))
	want := "openai Qwen/Qwen2.5-7B-Instruct: API returned unexpected status code: 400: This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."
	if err == nil || err.Error() != want {
		t.Errorf("Generate error = %v, want %q", err, want)
	}
}

// TestErrorStringMessage: text-generation-inference words an error as {"error": "…"}, a string
// where langchaingo's OpenAI, Anthropic and Gemini clients look for an object: a prompt too long
// for the model failed with 'API returned unexpected status code: 422' and nothing to say why.
// The call error keeps the server's words; Ollama's client, which reads them, words them once.
func TestErrorStringMessage(t *testing.T) {
	const body = `{"error":"Input validation error: ` + "`inputs`" + ` tokens + ` + "`max_new_tokens`" + ` must be <= 4096. Given: 5000 ` + "`inputs`" + ` tokens and 32 ` + "`max_new_tokens`" + `","error_type":"validation"}`
	const words = "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 5000 `inputs` tokens and 32 `max_new_tokens`"
	for _, tc := range []struct{ provider, path, want string }{
		{"openai", "/v1", "openai tgi: API returned unexpected status code: 422: " + words},
		{"anthropic", "/v1", "anthropic tgi: API returned unexpected status code: 422: " + words},
		{"googleai", "", "googleai tgi: googleapi: Error 422: " + words},
		{"ollama", "", "ollama tgi: " + words},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			if err := errorReply(t, tc.provider, tc.path, "tgi", http.StatusUnprocessableEntity, body); err == nil || err.Error() != tc.want {
				t.Errorf("Generate error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestErrorDetailMessage: a server built on FastAPI words an error as {"detail": "…"}, or a
// request it could not read as {"detail": [{"loc": […], "msg": …}, …]}, where the OpenAI,
// Anthropic and Gemini clients look for an error object and found no words ("…status code:
// 422: "): the detail is the message, its validation errors worded by their place.
func TestErrorDetailMessage(t *testing.T) {
	const invalid = `{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{"model":"m"}},` +
		`{"type":"extra_forbidden","loc":["body","frequency_penalty"],"msg":"Extra inputs are not permitted","input":0.0}]}`
	const words = "body.messages: Field required; body.frequency_penalty: Extra inputs are not permitted"
	for _, tc := range []struct {
		provider, path string
		status         int
		body, want     string
	}{
		{"openai", "/v1", 422, invalid, "openai m: API returned unexpected status code: 422: " + words},
		{"anthropic", "/v1", 422, invalid, "anthropic m: API returned unexpected status code: 422: " + words},
		{"googleai", "", 422, invalid, "googleai m: googleapi: Error 422: " + words},
		{"openai", "/v1", 401, `{"detail":"Not authenticated"}`, "openai m: API returned unexpected status code: 401: Not authenticated"},
	} {
		t.Run(tc.provider+" "+strconv.Itoa(tc.status), func(t *testing.T) {
			err := errorReply(t, tc.provider, tc.path, "m", tc.status, tc.body)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Generate error = %v, want it to start %q", err, tc.want)
			}
		})
	}
}

// TestErrorObjectOllama: Ollama's client reads an error body's "error" as a string, and one that is
// an object (an OpenAI-compatible proxy's, in front of Ollama) failed to decode, the record's
// error naming a Go struct field and not the status nor the server's words.
func TestErrorObjectOllama(t *testing.T) {
	for _, tc := range []struct {
		status     int
		body, want string
	}{
		{400, `{"error":{"message":"bad thing in request","type":"invalid_request_error"}}`, "ollama m: HTTP 400: bad thing in request"},
		{422, `{"error":{"code":422}}`, "ollama m: HTTP 422"},
		{404, `{"error":"model \"m\" not found, try pulling it first"}`, `ollama m: model "m" not found, try pulling it first`},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			if err := errorReply(t, "ollama", "", "m", tc.status, tc.body); err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "Go struct") {
				t.Errorf("Generate error = %v, want it to start %q", err, tc.want)
			}
		})
	}
}

// errorReply is the error of a call of provider, for model, to a loopback server that answers
// status and body, as JSON, to every request.
func errorReply(t *testing.T, provider, path, model string, status int, body string) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	defer srv.Close()
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: provider, BaseURL: srv.URL + path, APIKey: testKey,
		HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), testRequest(provider, model))
	return err
}

// TestInBandError: OpenRouter answers 200 with {"error": {"code", "message"}} in the body when
// the model fails after it started. A transient code is retried as that status would be, and the
// reply that follows is the answer; another code ends the call at once; the message is kept, and
// neither it nor a malformed body is worded as a network error.
func TestInBandError(t *testing.T) {
	ok := wires[0].reply
	for _, tc := range []struct {
		name     string
		replies  []string // in order; the last repeats
		calls    int64
		wantErr  []string // substrings of the error, none for success
		attempts int
	}{
		{"502 then an answer", []string{`{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"X"}}}`, ok}, 2, nil, 2},
		{"429 twice, then an answer", []string{`{"error":{"code":429,"message":"Rate limit exceeded"}}`, `{"error":{"code":429,"message":"Rate limit exceeded"}}`, ok}, 3, nil, 3},
		{"503 throughout", []string{`{"error":{"code":503,"message":"No endpoints found that can handle the request"}}`}, 3,
			[]string{"after 3 attempts", "reply with status 200 holds error 503: No endpoints found that can handle the request"}, 3},
		{"403 is final", []string{`{"error":{"code":403,"message":"Input flagged by moderation"}, "user_id":"u1"}`}, 1,
			[]string{"reply with status 200 holds error 403: Input flagged by moderation"}, 1},
		{"code that is no number", []string{`{"error":{"code":"server_error","message":"The server had an error"}}`}, 1,
			[]string{"reply with status 200 holds an error: The server had an error"}, 1},
		{"choices null", []string{`{"id":"gen-1","choices":null,"error":{"code":403,"message":"Input flagged by moderation"}}`}, 1,
			[]string{"reply with status 200 holds error 403: Input flagged by moderation"}, 1},
		{"malformed JSON", []string{`{"choices":[{"index":0,`}, 3, []string{"malformed JSON in response body", "after 3 attempts"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := replayServer(t, tc.replies, nil)
			c := retryingOpenAI(t, srv.URL, 2)
			resp, err := c.Generate(context.Background(), testRequest("openai", "openai/gpt-4o-mini"))
			if got := calls.Load(); got != tc.calls {
				t.Errorf("%d requests reached the server, want %d", got, tc.calls)
			}
			if resp.Attempts != tc.attempts {
				t.Errorf("attempts %d, want %d", resp.Attempts, tc.attempts)
			}
			if tc.wantErr == nil {
				if err != nil || resp.Text != "Paris" || !reflect.DeepEqual(resp.Usage, wires[0].usage) {
					t.Errorf("Generate = %+v, %v; want the answer Paris with its usage", resp, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Generate = %+v, want an error", resp)
			}
			errorHas(t, err, tc.wantErr...)
			if strings.Contains(err.Error(), "network error") {
				t.Errorf("error %q calls a reply a network error", err)
			}
		})
	}
}

// TestFiltered: a reply with text that OpenAI's content filter stopped, or that Claude stopped as
// a refusal, keeps its text and is marked Filtered; a normal stop is not.
func TestFiltered(t *testing.T) {
	for _, tc := range []struct {
		w        wire
		reply    string
		filtered bool
	}{
		{wires[0], `{"id":"c","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Par"},"finish_reason":"content_filter"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`, true},
		{wires[0], wires[0].reply, false},
		{wires[1], `{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"text","text":"I can"}],"stop_reason":"refusal","usage":{"input_tokens":20,"output_tokens":2}}`, true},
		{wires[1], wires[1].reply, false},
	} {
		w := tc.w
		c := replyClient(t, w, tc.reply)
		resp, err := c.Generate(context.Background(), testRequest(w.provider, "m"))
		if err != nil {
			t.Fatalf("%s: %v", w.provider, err)
		}
		if resp.Filtered != tc.filtered || resp.Text == "" {
			t.Errorf("%s %s: Filtered = %v with text %q, want %v with the text", w.provider, tc.reply, resp.Filtered, resp.Text, tc.filtered)
		}
	}
}

// TestEmptyAtMaxTokens: a reply cut at max_tokens before any text (a thinking model's budget
// spent on thinking) says so, naming the budget: --max-tokens, or langchaingo's 2048 for
// anthropic and googleai when none is given.
func TestEmptyAtMaxTokens(t *testing.T) {
	anthropic := `{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":"max_tokens","usage":{"input_tokens":20,"output_tokens":2048}}`
	gemini := `{"candidates":[{"content":{"role":"model"},"finishReason":2,"index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":2056}}`
	for _, tc := range []struct {
		w         wire
		reply     string
		maxTokens int
		want      string
	}{
		{wires[1], anthropic, 0, "empty reply (stop reason max_tokens: max_tokens 2048, langchaingo's default without --max-tokens, ran out before any text"},
		{wires[1], anthropic, 16, "empty reply (stop reason max_tokens: max_tokens 16 ran out before any text"},
		{wires[3], gemini, 0, "empty reply (stop reason MAX_TOKENS: max_tokens 2048, langchaingo's default without --max-tokens, ran out before any text"},
	} {
		w := tc.w
		c := replyClient(t, w, tc.reply)
		req := testRequest(w.provider, "gemini-2.0-flash")
		req.MaxTokens = tc.maxTokens
		_, err := c.Generate(context.Background(), req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, max_tokens %d: error %v, want one containing %q", w.provider, tc.maxTokens, err, tc.want)
		}
	}
}

// TestAnthropicContentBlocks: a Claude reply's answer is the text of its text blocks joined in
// order, as the Anthropic SDKs read it (langchaingo makes each block a choice of its own); a
// thinking block is no part of it. The usage, cut and refusal are the message's. An OpenAI
// reply's choices are alternatives (n > 1): the answer is the first, never their join.
func TestAnthropicContentBlocks(t *testing.T) {
	msg := func(content, stop string) string {
		return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[` + content +
			`],"stop_reason":"` + stop + `","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":9}}`
	}
	const (
		thinking = `{"type":"thinking","thinking":"The capital of France is Paris.","signature":"EqQBCgIYAhIM"}`
		text1    = `{"type":"text","text":"The capital is "}`
		text2    = `{"type":"text","text":"Paris."}`
	)
	claude := record.Usage{InputTokens: 20, OutputTokens: 9}
	tests := []struct {
		name     string
		w        wire
		reply    string
		text     string
		usage    record.Usage
		cut      bool
		filtered bool
	}{
		{name: "two text blocks", w: wires[1], reply: msg(text1+","+text2, "end_turn"), text: "The capital is Paris.", usage: claude},
		{name: "thinking, then text", w: wires[1], reply: msg(thinking+","+text2, "end_turn"), text: "Paris.", usage: claude},
		{name: "thinking, then two text blocks, cut", w: wires[1], reply: msg(thinking+","+text1+","+text2, "max_tokens"),
			text: "The capital is Paris.", usage: claude, cut: true},
		{name: "two text blocks, refused", w: wires[1], reply: msg(text1+","+text2, "refusal"), text: "The capital is Paris.", usage: claude, filtered: true},
		{name: "openai n=2", w: wires[0], reply: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[` +
			`{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"},` +
			`{"index":1,"message":{"role":"assistant","content":"Lyon"},"finish_reason":"length"}],` +
			`"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}`,
			text: "Paris", usage: record.Usage{InputTokens: 12, OutputTokens: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := replyClient(t, tt.w, tt.reply)
			resp, err := c.Generate(context.Background(), testRequest(tt.w.provider, "m"))
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if resp.Text != tt.text || !reflect.DeepEqual(resp.Usage, tt.usage) || resp.NoUsage || resp.Cut != tt.cut || resp.Filtered != tt.filtered {
				t.Errorf("Generate = text %q, usage %+v (no usage %v), cut %v, filtered %v; want %q, %+v, cut %v, filtered %v",
					resp.Text, resp.Usage, resp.NoUsage, resp.Cut, resp.Filtered, tt.text, tt.usage, tt.cut, tt.filtered)
			}
		})
	}
}

// TestContextWindow: a Claude reply that stopped at the model's context window (stop_reason
// model_context_window_exceeded, which Sonnet 4.5 and later give where earlier models refuse the
// request) is cut short as one that stopped at max_tokens is, and marked apart (Window), as a
// larger max_tokens takes it no further; one without text is an empty reply that says so,
// naming no max_tokens that ran out.
func TestContextWindow(t *testing.T) {
	msg := func(content, stop string) string {
		return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[` + content +
			`],"stop_reason":"` + stop + `","stop_sequence":null,"usage":{"input_tokens":199990,"output_tokens":10}}`
	}
	usage := record.Usage{InputTokens: 199990, OutputTokens: 10}
	const full = "model_context_window_exceeded"
	tests := []struct {
		name        string
		reply       string
		text        string
		cut, window bool
		err         string
	}{
		{name: "text", reply: msg(`{"type":"text","text":"The capital is"}`, full), text: "The capital is", cut: true, window: true},
		{name: "text at max_tokens", reply: msg(`{"type":"text","text":"The capital is"}`, "max_tokens"), text: "The capital is", cut: true},
		{name: "an empty text block", reply: msg(`{"type":"text","text":""}`, full), cut: true, window: true,
			err: "anthropic m: empty reply (stop reason model_context_window_exceeded: the prompt left no room for any text in the model's context window)"},
		{name: "no content", reply: msg(``, full), cut: true, window: true,
			err: "anthropic m: empty reply (stop reason model_context_window_exceeded: the prompt left no room for any text in the model's context window)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := replyClient(t, wires[1], tt.reply)
			resp, err := c.Generate(context.Background(), testRequest("anthropic", "m"))
			if got := fmt.Sprint(err); tt.err == "" && err != nil || tt.err != "" && got != tt.err {
				t.Errorf("Generate error = %v, want %q", err, tt.err)
			}
			if resp.Text != tt.text || resp.Cut != tt.cut || resp.Window != tt.window || !reflect.DeepEqual(resp.Usage, usage) {
				t.Errorf("Generate = text %q, cut %v, window %v, usage %+v; want %q, cut %v, window %v, usage %+v",
					resp.Text, resp.Cut, resp.Window, resp.Usage, tt.text, tt.cut, tt.window, usage)
			}
		})
	}
}

// TestSeedOnTheWire: a request's body carries a seed exactly when SentSeed says so, with its
// value (openai at the top level, ollama among its options); anthropic and googleai get none,
// and a seed of 0 is left out. The dry runs show the seed by SentSeed.
func TestSeedOnTheWire(t *testing.T) {
	want := map[string]bool{"openai": true, "ollama": true}
	for _, w := range wires {
		for _, seed := range []*int{nil, new(0), new(7)} {
			req, sentText := sentBody(t, w, func(r *Request) { r.Seed = seed })
			var body any
			if err := json.Unmarshal([]byte(sentText), &body); err != nil {
				t.Fatal(err)
			}
			got, found := seedIn(body)
			sent := req.SentSeed()
			if found != (sent != nil) || sent != nil && got != float64(*sent) {
				t.Errorf("%s, seed %v: body has a seed %v (%v), SentSeed = %v", w.provider, ptrText(seed), found, got, ptrText(sent))
			}
			if wantSent := want[w.provider] && seed != nil && *seed != 0; (sent != nil) != wantSent {
				t.Errorf("%s, seed %v: SentSeed = %v, want one sent %v", w.provider, ptrText(seed), ptrText(sent), wantSent)
			}
		}
	}
}

// seedIn finds a "seed" member anywhere in a decoded JSON body.
func seedIn(v any) (float64, bool) {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["seed"].(float64); ok {
			return s, true
		}
		for _, x := range v {
			if s, ok := seedIn(x); ok {
				return s, true
			}
		}
	case []any:
		for _, x := range v {
			if s, ok := seedIn(x); ok {
				return s, true
			}
		}
	}
	return 0, false
}

func ptrText(p *int) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(*p)
}

// TestCallErrorCountsOnce: a call that fails every attempt counts them once, at the end, in
// CallError's words, whichever client quotes the transport's error: anthropic, ollama and
// googleai put "Post …: after 3 attempts: dial tcp …" inside it, so the message read "…: after 3
// attempts: … connection refused (after 3 attempts)". One attempt is not counted. The count comes
// before the hint on what to check.
func TestCallErrorCountsOnce(t *testing.T) {
	url := clitest.ClosedURL(t)
	for _, provider := range []string{"openai", "anthropic", "ollama", "googleai"} {
		for retries, suffix := range map[int]string{0: "", 2: " (after 3 attempts)"} {
			base := url
			if provider == "openai" {
				base += "/v1"
			}
			tr := NewTransport(TransportConfig{MaxRetries: retries, Backoff: time.Millisecond})
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: provider, BaseURL: base, APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(context.Background(), testRequest(provider, "m"))
			if err == nil {
				t.Fatalf("%s against a closed port: no error", provider)
			}
			msg, hint, _ := strings.Cut(err.Error(), "; ") // openai gives the cause in brackets after its own words
			ends := strings.HasSuffix(msg, "connection refused"+suffix) || strings.HasSuffix(msg, "connection refused)"+suffix)
			if !strings.HasPrefix(hint, "nothing answers at ") {
				t.Errorf("%s, %d retries, against a closed port: %q, want the hint that nothing answers", provider, retries, err)
			}
			if !ends || strings.Count(msg, "attempt") != strings.Count(suffix, "attempt") {
				t.Errorf("%s, %d retries, against a closed port: %q, want the refused connection, then %q, and no other count of attempts", provider, retries, msg, suffix)
			}
		}
	}
}

// TestMaxTemperature: the providers' documented upper bounds; none for an OpenAI-compatible
// server other than OpenAI's, which applies its own, and the largest float32 for Ollama, whose
// client in langchaingo holds the temperature so.
func TestMaxTemperature(t *testing.T) {
	for _, tc := range []struct {
		provider, base string
		hi             float64
		ok             bool
	}{
		{"openai", "", 2, true},
		{"openai", "https://api.openai.com/v1/", 2, true},
		{"openai", "https://API.openai.com:443/v1", 2, true},
		{"openai", "http://127.0.0.1:8000/v1", 0, false},
		{"anthropic", "", 1, true},
		{"anthropic", "http://127.0.0.1:4000", 1, true},
		{"googleai", "", 2, true},
		{"ollama", "", math.MaxFloat32, true},
		{"extractive", "", 0, false},
	} {
		if hi, ok := MaxTemperature(tc.provider, tc.base); hi != tc.hi || ok != tc.ok {
			t.Errorf("MaxTemperature(%q, %q) = %v, %v, want %v, %v", tc.provider, tc.base, hi, ok, tc.hi, tc.ok)
		}
	}
}

// TestMaxStops: the providers' documented bounds on stop sequences a call; none for an
// OpenAI-compatible server other than OpenAI's, Anthropic's or Ollama's.
func TestMaxStops(t *testing.T) {
	for _, tc := range []struct {
		provider, base string
		most           int
		api            string
	}{
		{"openai", "", 4, "OpenAI's API"},
		{"openai", "https://API.openai.com:443/v1", 4, "OpenAI's API"},
		{"openai", "http://127.0.0.1:8000/v1", 0, ""},
		{"googleai", "", 5, "the Gemini API"},
		{"googleai", "http://127.0.0.1:4000", 5, "the Gemini API"},
		{"anthropic", "", 0, ""},
		{"ollama", "", 0, ""},
		{"extractive", "", 0, ""},
	} {
		if most, api := MaxStops(tc.provider, tc.base); most != tc.most || api != tc.api {
			t.Errorf("MaxStops(%q, %q) = %d, %q, want %d, %q", tc.provider, tc.base, most, api, tc.most, tc.api)
		}
	}
}

// TestNegativeUsageUnknown: a server that reports a count no call has (a negative prompt count,
// from a broken OpenAI-compatible server) gives a reply whose usage is unknown, as one that
// reports none, not a usage that prices at a negative cost.
func TestNegativeUsageUnknown(t *testing.T) {
	for _, usage := range []string{
		`{"prompt_tokens":-5,"completion_tokens":3,"total_tokens":-2}`,
		`{"prompt_tokens":12,"completion_tokens":-3,"total_tokens":9}`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":`+usage+`}`)
		}))
		c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey,
			HTTPClient: NewTransport(TransportConfig{}).Client()})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini"))
		srv.Close()
		if err != nil || resp.Text != "Paris" || !resp.NoUsage || !resp.Usage.IsZero() {
			t.Errorf("usage %s: %+v, %v; want Paris with the usage unknown", usage, resp, err)
		}
	}
}

// TestTPMNegativeUsage: a failed reply whose usage is unknown because its counts are impossible
// (negative) is charged to the TPM window as one without usage is, not at the negative count,
// which would free the window for more than its limit; a known usage is charged as it is.
func TestTPMNegativeUsage(t *testing.T) {
	held := func(usage string) float64 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[]`+usage+`}`)
		}))
		defer srv.Close()
		tpm := NewLimiter(1000, (&sleeps{}).sleep)
		fixed := tpm.now()
		tpm.now = func() time.Time { return fixed }
		c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL, APIKey: testKey,
			HTTPClient: NewTransport(TransportConfig{MaxRetries: -1}).Client(), TPM: tpm})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini")); err == nil {
			t.Fatal("an empty reply: no error")
		}
		return tpm.held(fixed)
	}
	none := held("")
	if none < 0 {
		t.Fatalf("TPM window after an empty reply without usage holds %v", none)
	}
	if got := held(`,"usage":{"prompt_tokens":-50,"completion_tokens":0,"total_tokens":-50}`); got != none {
		t.Errorf("TPM window after an empty reply of usage -50 holds %v, want %v, as without usage", got, none)
	}
	if got := held(`,"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12}`); got != 12 {
		t.Errorf("TPM window after an empty reply of usage 12 holds %v, want 12", got)
	}
}

// TestBodyBrokenOff: a 200 reply whose body ends before its Content-Length (the connection closed
// partway) is retried as a transient failure, and its error says the server replied and the
// body broke off; it said "network error: failed to reach API server", which sent a user looking
// for a server that was up.
func TestBodyBrokenOff(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n" + `{"id":"c","object":"chat.completion",`)
		buf.Flush()
	}))
	defer srv.Close()
	c := retryingOpenAI(t, srv.URL, 1)
	resp, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini"))
	if err == nil {
		t.Fatalf("Generate = %+v, want an error", resp)
	}
	if got := calls.Load(); got != 2 || resp.Attempts != 2 {
		t.Errorf("%d requests reached the server in %d attempts, want 2 (retried once)", got, resp.Attempts)
	}
	const want = "the server replied (status 200) but its body broke off: unexpected EOF (after 2 attempts)"
	if !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "network error") {
		t.Errorf("error %q, want it to end %q and not to call the reply a network error", err, want)
	}
}

// TestRedirect: a call the server redirects with 301, 302 or 303 (an http:// base URL that a
// proxy sends on to https://) is not followed, as a client would follow it as a GET without the
// request, which no endpoint answers (a 404 that blamed the model name): its error names the
// redirect and where it goes, with no retry. 307 and 308 keep the method and the request, and are
// followed.
func TestRedirect(t *testing.T) {
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				body, _ := io.ReadAll(r.Body)
				switch {
				case !strings.HasPrefix(r.URL.Path, "/moved/"):
					http.Redirect(w, r, "/moved"+r.URL.Path, status)
				case r.Method != http.MethodPost || len(body) == 0:
					http.NotFound(w, r)
				default:
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, okReply)
				}
			}))
			defer srv.Close()
			c := retryingOpenAI(t, srv.URL, 2)
			resp, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini"))
			if status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect {
				if err != nil || resp.Text != "ok" || calls.Load() != 2 {
					t.Errorf("Generate = %q, %v after %d requests; want ok after 2 (followed)", resp.Text, err, calls.Load())
				}
				return
			}
			if err == nil {
				t.Fatalf("Generate = %+v, want an error", resp)
			}
			want := fmt.Sprintf("the server redirected the call (HTTP %d) to %s/moved/v1/chat/completions, which would ask it again as a GET without its request: give the base URL of that address", status, srv.URL)
			if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "status code: 404") {
				t.Errorf("error %q, want it to hold %q and no 404 status (the GET's)", err, want)
			}
			if got := calls.Load(); got != 1 || resp.Attempts != 1 {
				t.Errorf("%d requests reached the server in %d attempts, want 1 (not followed, not retried)", got, resp.Attempts)
			}
		})
	}
}

// TestRedirectShownWithoutPassword: the address a 301 names is shown as the base URL is in a hint,
// without its password: a relative Location resolves against the request's URL, which carried the
// base URL's user and password into the error, stderr and the records.
func TestRedirectShownWithoutPassword(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/moved"+r.URL.Path, http.StatusMovedPermanently)
	}))
	defer srv.Close()
	c := retryingOpenAI(t, strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1), 0)
	_, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini"))
	want := "redirected the call (HTTP 301) to " + strings.Replace(srv.URL, "http://", "http://user:xxxxx@", 1) + "/moved/v1/chat/completions,"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "pa55word") {
		t.Errorf("error %v, want it to hold %q and no password", err, want)
	}
}

// TestRedirectKeepsKeyHome: a 307 to another host is followed without the API key, as Go's
// client follows one without an Authorization header: Anthropic's x-api-key went along, and
// Gemini's x-goog-api-key was put on every request, to whatever host it went. A redirect within
// the base URL's host keeps it.
func TestRedirectKeepsKeyHome(t *testing.T) {
	for _, w := range wires {
		if w.authHeader == "" {
			continue
		}
		for _, foreign := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/foreign=%v", w.provider, foreign), func(t *testing.T) {
				var got []string
				target := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					got = r.Header.Values(w.authHeader)
					rw.Header().Set("Content-Type", w.contentType())
					io.WriteString(rw, w.reply)
				}))
				defer target.Close()
				to := target.URL
				if foreign { // another host name for the same loopback server
					to = strings.Replace(to, "127.0.0.1", "localhost", 1)
				}
				srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					http.Redirect(rw, r, to+r.URL.RequestURI(), http.StatusTemporaryRedirect)
				}))
				defer srv.Close()
				tr := NewTransport(TransportConfig{Backoff: time.Millisecond})
				c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: tr.Client()})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Generate(context.Background(), userOnly(w.provider, wireModels[w.provider])); err != nil {
					t.Fatal(err)
				}
				if foreign && len(got) != 0 {
					t.Errorf("the redirect's other host got %s %q, want no key", w.authHeader, got)
				}
				if !foreign && (len(got) != 1 || got[0] != w.authValue) {
					t.Errorf("the redirect within the host got %s %q, want the key", w.authHeader, got)
				}
			})
		}
	}
}

// TestOpenAIReadsNoEnvironment: an openai client sends what its Config says and nothing the
// environment holds: langchaingo put OPENAI_ORGANIZATION, a variable qapipe documents nowhere,
// in an OpenAI-Organization header of every call (a stale one fails each with a 401), and would
// take OPENAI_BASE_URL and OPENAI_MODEL for the base URL and model not given.
func TestOpenAIReadsNoEnvironment(t *testing.T) {
	for _, kv := range [][2]string{{"OPENAI_ORGANIZATION", "org-stale"}, {"OPENAI_BASE_URL", "http://127.0.0.1:1/v1"},
		{"OPENAI_API_BASE", "http://127.0.0.1:1/v1"}, {"OPENAI_MODEL", "other-model"}} {
		t.Setenv(kv[0], kv[1])
	}
	var got struct {
		org   []string
		model string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		got.org = r.Header.Values("OpenAI-Organization")
		var body struct{ Model string }
		json.NewDecoder(r.Body).Decode(&body) //nolint:errcheck // an empty model fails the test
		got.model = body.Model
		rw.Header().Set("Content-Type", "application/json")
		io.WriteString(rw, `{"id":"x","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Paris"}}],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`)
	}))
	t.Cleanup(srv.Close)
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), testRequest("openai", "gpt-4o-mini")); err != nil {
		t.Fatalf("Generate: %v (the call went elsewhere?)", err)
	}
	if len(got.org) != 0 || got.model != "gpt-4o-mini" {
		t.Errorf("request: OpenAI-Organization %q, model %q; want no header and gpt-4o-mini", got.org, got.model)
	}
}
