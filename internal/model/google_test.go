package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/pkg/record"
)

// userOnly is testRequest without its system message: genai sends a lone user message to
// generateContent (which gax retries and times), a conversation to streamGenerateContent.
func userOnly(provider, model string) Request {
	req := testRequest(provider, model)
	req.Messages = req.Messages[1:]
	return req
}

// TestGoogleWithoutGemini: a command that passes no Gemini builder refuses googleai in words
// that say so, instead of failing on a nil function at its first call.
func TestGoogleWithoutGemini(t *testing.T) {
	c, err := New(context.Background(), Config{Provider: "googleai", BaseURL: "http://127.0.0.1:1", APIKey: testKey})
	const want = "googleai: this command was built without the Gemini client (model.Config.Gemini)"
	if c != nil || err == nil || err.Error() != want {
		t.Fatalf("New without a Gemini builder: %v, %v; want the error %q", c, err, want)
	}
}

// TestGoogleRetriesOnce: the Gemini client under langchaingo (genai over gax) retries a 503
// itself, for up to ten minutes, on top of the Transport's retries; a 503 that outlasts
// --max-retries must end the call after the Transport's attempts, with the server's words.
func TestGoogleRetriesOnce(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)
	}))
	defer srv.Close()
	tr := NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond, Seed: 1})
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), userOnly("googleai", "gemini-2.0-flash"))
	if got := calls.Load(); got != 3 {
		t.Errorf("%d requests reached the server, want 3 (1 + --max-retries 2)", got)
	}
	ce, ok := err.(*CallError)
	if !ok {
		t.Fatalf("Generate error = %v, want a CallError", err)
	}
	if ce.Attempts != 3 {
		t.Errorf("CallError counts %d attempts, want 3", ce.Attempts)
	}
	errorHas(t, err, "503", "The model is overloaded")
	if strings.Contains(err.Error(), srv.URL) {
		t.Errorf("error %q names the request URL", err)
	}
}

// TestGoogleNoCallDeadline: gax gives a Gemini call without a deadline one of ten minutes, which
// would cut the Transport's retries short; the call runs under the caller's context alone.
func TestGoogleNoCallDeadline(t *testing.T) {
	var calls atomic.Int64
	srv := wireServer(t, wires[3], &calls, nil)
	var seen atomic.Bool
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if d, ok := r.Context().Deadline(); ok && time.Until(d) < time.Hour {
			seen.Store(true)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	tr := NewTransport(TransportConfig{Base: base})
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: wires[3].baseURL(srv.URL), APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), userOnly("googleai", "gemini-2.0-flash")); err != nil {
		t.Fatal(err)
	}
	if seen.Load() {
		t.Errorf("the request carried a deadline within the hour; want none but the caller's")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestGoogleStreamedErrorMessage: genai sends a request with a system message to
// streamGenerateContent, whose error body is an array holding the error object; the call's error
// keeps the server's words, as it does for generateContent's bare object, for a status the client
// reads (400) and for a 503 that outlasted the retries, which keyHeader words.
func TestGoogleStreamedErrorMessage(t *testing.T) {
	tests := []struct {
		status int
		msg    string
	}{
		{http.StatusBadRequest, "User location is not supported for the API use."},
		{http.StatusServiceUnavailable, "The model is overloaded. Please try again later."},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			body := fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":"UNAVAILABLE"}}`, tt.status, tt.msg)
			if strings.Contains(r.URL.Path, ":streamGenerateContent") {
				body = "[" + body + "\n]" // as the API writes it, the array closed on a line of its own
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tt.status)
			io.WriteString(w, body)
		}))
		c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
		if err != nil {
			t.Fatal(err)
		}
		for name, req := range map[string]Request{"generateContent": userOnly("googleai", "gemini-2.0-flash"), "streamGenerateContent": testRequest("googleai", "gemini-2.0-flash")} {
			_, err := c.Generate(context.Background(), req)
			if want := fmt.Sprintf("googleai gemini-2.0-flash: googleapi: Error %d: %s", tt.status, tt.msg); err == nil || err.Error() != want {
				t.Errorf("%d, %s: Generate error = %v, want %q", tt.status, name, err, want)
			}
		}
		srv.Close()
	}
}

// TestGoogleBlocked: a Gemini reply that the API's filters blocked is a BlockedError naming the
// reason, asked once (no retry: it is blocked again) and with the usage it was paid for, whether
// langchaingo's genai calls it an error (a blocked prompt; a reply stopped for SAFETY or
// RECITATION), an empty reply (a reply stopped for a reason genai v0.15.1 does not know) or,
// streamed, the text sent before the block. A prompt blocked has promptFeedback.blockReason and
// no candidates; a reply blocked, a candidate with that finishReason and no content. genai asks
// for the enums as numbers; the API writes them as names otherwise.
func TestGoogleBlocked(t *testing.T) {
	const (
		ratings  = `"safetyRatings":[{"category":8,"probability":4,"blocked":true}]`
		prompt8  = `"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}`
		streamed = `{"candidates":[{"content":{"parts":[{"text":"The capital"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`
	)
	promptBlocked := func(reason string) string {
		return `{"promptFeedback":{"blockReason":` + reason + `,` + ratings + `},` + prompt8 + `}`
	}
	replyBlocked := func(reason string) string {
		return `{"candidates":[{"finishReason":` + reason + `,"index":0,` + ratings + `}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":3,"totalTokenCount":11}}`
	}
	tests := []struct {
		name   string
		chunks []string // the replies of a stream; one is also the reply of generateContent
		want   string
		usage  record.Usage
	}{
		{"prompt SAFETY", []string{promptBlocked("1")}, "prompt blocked by Gemini: SAFETY", record.Usage{InputTokens: 8}},
		{"prompt OTHER", []string{promptBlocked("2")}, "prompt blocked by Gemini: OTHER", record.Usage{InputTokens: 8}},
		{"prompt BLOCKLIST", []string{promptBlocked("3")}, "prompt blocked by Gemini: BLOCKLIST", record.Usage{InputTokens: 8}},
		{"prompt PROHIBITED_CONTENT", []string{promptBlocked("4")}, "prompt blocked by Gemini: PROHIBITED_CONTENT", record.Usage{InputTokens: 8}},
		{"prompt IMAGE_SAFETY", []string{promptBlocked("5")}, "prompt blocked by Gemini: IMAGE_SAFETY", record.Usage{InputTokens: 8}},
		{"prompt by name", []string{promptBlocked(`"PROHIBITED_CONTENT"`)}, "prompt blocked by Gemini: PROHIBITED_CONTENT", record.Usage{InputTokens: 8}},
		{"reply SAFETY", []string{replyBlocked("3")}, "reply blocked by Gemini: SAFETY", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply RECITATION", []string{replyBlocked("4")}, "reply blocked by Gemini: RECITATION", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply BLOCKLIST", []string{replyBlocked("7")}, "reply blocked by Gemini: BLOCKLIST", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply PROHIBITED_CONTENT", []string{replyBlocked("8")}, "reply blocked by Gemini: PROHIBITED_CONTENT", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply SPII", []string{replyBlocked("9")}, "reply blocked by Gemini: SPII", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply SPII by name", []string{replyBlocked(`"SPII"`)}, "reply blocked by Gemini: SPII", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply LANGUAGE", []string{replyBlocked("6")}, "reply blocked by Gemini: LANGUAGE", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply IMAGE_SAFETY", []string{replyBlocked("11")}, "reply blocked by Gemini: IMAGE_SAFETY", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply IMAGE_PROHIBITED_CONTENT by name", []string{replyBlocked(`"IMAGE_PROHIBITED_CONTENT"`)}, "reply blocked by Gemini: IMAGE_PROHIBITED_CONTENT",
			record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"reply IMAGE_RECITATION by name", []string{replyBlocked(`"IMAGE_RECITATION"`)}, "reply blocked by Gemini: IMAGE_RECITATION",
			record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"text streamed, then SAFETY", []string{streamed, replyBlocked("3")}, "reply blocked by Gemini: SAFETY", record.Usage{InputTokens: 8, OutputTokens: 3}},
		{"text streamed, then SPII", []string{streamed, replyBlocked("9")}, "reply blocked by Gemini: SPII", record.Usage{InputTokens: 8, OutputTokens: 3}},
	}
	for _, tt := range tests {
		for method, req := range geminiRequests(len(tt.chunks)) {
			t.Run(tt.name+", "+method, func(t *testing.T) {
				c, calls := geminiClient(t, tt.chunks...)
				resp, err := c.Generate(context.Background(), req)
				var be *BlockedError
				var ce *CallError
				if !errors.As(err, &be) || !errors.As(err, &ce) || err.Error() != "googleai gemini-2.0-flash: "+tt.want {
					t.Fatalf("Generate error = %v, want a BlockedError %q", err, "googleai gemini-2.0-flash: "+tt.want)
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
}

// TestGoogleNotBlocked: safety ratings in promptFeedback, or a block reason of 0 (unspecified),
// block nothing: the reply is the answer.
func TestGoogleNotBlocked(t *testing.T) {
	for _, feedback := range []string{`{"safetyRatings":[{"category":8,"probability":1}]}`, `{"blockReason":0}`, `{"blockReason":"BLOCK_REASON_UNSPECIFIED"}`} {
		reply := `{"candidates":[{"content":{"parts":[{"text":"Paris"}],"role":"model"},"finishReason":1,"index":0}],"promptFeedback":` + feedback + `,"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":10}}`
		for method, req := range map[string]Request{"generateContent": userOnly("googleai", "gemini-2.0-flash"), "streamGenerateContent": testRequest("googleai", "gemini-2.0-flash")} {
			c, _ := geminiClient(t, reply)
			if resp, err := c.Generate(context.Background(), req); err != nil || resp.Text != "Paris" {
				t.Errorf("promptFeedback %s, %s: Generate = %q, %v; want Paris", feedback, method, resp.Text, err)
			}
		}
	}
}

// geminiClient is a googleai client, with a Transport that retries transient failures, of a
// loopback server answering generateContent with chunks[0] and streamGenerateContent with the
// array of chunks, as the REST API streams; calls counts the requests.
func geminiClient(t *testing.T, chunks ...string) (Client, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		body := chunks[0]
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			body = "[" + strings.Join(chunks, "\n,\r\n") + "\n]"
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	tr := NewTransport(TransportConfig{MaxRetries: 3, Backoff: time.Millisecond, Seed: 1})
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return c, &calls
}

// TestGoogleEmptyReason: a Gemini reply without text that no filter blocked is an empty reply
// naming its finishReason as the API does (OTHER, MALFORMED_FUNCTION_CALL, ...), as a blocked
// reply names its reason, and not as genai v0.15.1 does ("FinishReasonOther", or
// "FinishReason(10)" for the reasons it does not know); whether langchaingo read the candidate
// or, losing it when a stream's first response has none, called the reply empty itself.
func TestGoogleEmptyReason(t *testing.T) {
	const usage = `"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":1,"totalTokenCount":9}`
	empty := func(reason string) string {
		return `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":` + reason + `,"index":0}],` + usage + `}`
	}
	tests := []struct {
		name   string
		chunks []string // the replies of a stream; one is also the reply of generateContent
		want   string
		cut    bool
	}{
		{"STOP", []string{empty("1")}, "empty reply (stop reason STOP)", false},
		{"OTHER", []string{empty("5")}, "empty reply (stop reason OTHER)", false},
		{"MALFORMED_FUNCTION_CALL", []string{empty("10")}, "empty reply (stop reason MALFORMED_FUNCTION_CALL)", false},
		{"MALFORMED_FUNCTION_CALL by name", []string{empty(`"MALFORMED_FUNCTION_CALL"`)}, "empty reply (stop reason MALFORMED_FUNCTION_CALL)", false},
		{"UNEXPECTED_TOOL_CALL", []string{empty("12")}, "empty reply (stop reason UNEXPECTED_TOOL_CALL)", false},
		{"MAX_TOKENS", []string{`{"candidates":[{"content":{"role":"model"},"finishReason":2,"index":0}],` + usage + `}`},
			"empty reply (stop reason MAX_TOKENS: max_tokens 16 ran out before any text; a reasoning model's thinking counts in it)", true},
		{"OTHER after a response without candidates", []string{`{"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`, empty("5")}, "empty reply (stop reason OTHER)", false},
	}
	for _, tt := range tests {
		for method, req := range geminiRequests(len(tt.chunks)) {
			t.Run(tt.name+", "+method, func(t *testing.T) {
				c, _ := geminiClient(t, tt.chunks...)
				resp, err := c.Generate(context.Background(), req)
				if want := "googleai gemini-2.0-flash: " + tt.want; !errors.Is(err, ErrEmptyReply) || err.Error() != want {
					t.Errorf("Generate error = %v, want an empty reply %q", err, want)
				}
				want := record.Usage{InputTokens: 8, OutputTokens: 1}
				if resp.Cut != tt.cut || !reflect.DeepEqual(resp.Usage, want) {
					t.Errorf("Generate = cut %v, usage %+v; want cut %v, usage %+v", resp.Cut, resp.Usage, tt.cut, want)
				}
			})
		}
	}
}

// TestGoogleCut: a Gemini reply that stopped at max_tokens (finishReason MAX_TOKENS, 2 as genai
// asks for it) is marked Cut with its text kept, streamed or not. The stream gives the reason in
// its last response, which may hold no content, content without parts, or an empty text part.
func TestGoogleCut(t *testing.T) {
	const (
		text  = `{"candidates":[{"content":{"parts":[{"text":"The capital"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`
		usage = `"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":16,"totalTokenCount":24}`
	)
	last := func(candidate string) string { return `{"candidates":[` + candidate + `],` + usage + `}` }
	tests := []struct {
		name   string
		chunks []string // the replies of a stream; one is also the reply of generateContent
		text   string
		cut    bool
	}{
		{"text and MAX_TOKENS", []string{last(`{"content":{"parts":[{"text":"The capital"}],"role":"model"},"finishReason":2,"index":0}`)}, "The capital", true},
		{"text and MAX_TOKENS by name", []string{last(`{"content":{"parts":[{"text":"The capital"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}`)}, "The capital", true},
		{"text and STOP", []string{last(`{"content":{"parts":[{"text":"The capital"}],"role":"model"},"finishReason":1,"index":0}`)}, "The capital", false},
		{"text, then MAX_TOKENS without content", []string{text, last(`{"finishReason":2,"index":0}`)}, "The capital", true},
		{"text, then MAX_TOKENS without parts", []string{text, last(`{"content":{"role":"model"},"finishReason":2,"index":0}`)}, "The capital", true},
		{"text, then MAX_TOKENS with no parts", []string{text, last(`{"content":{"parts":[],"role":"model"},"finishReason":2,"index":0}`)}, "The capital", true},
		{"text, then MAX_TOKENS with an empty text", []string{text, last(`{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":2,"index":0}`)}, "The capital", true},
		{"text, then MAX_TOKENS without an index", []string{text, last(`{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":2}`)}, "The capital", true},
		{"text, then STOP with an empty text", []string{text, last(`{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":1,"index":0}`)}, "The capital", false},
		// genai merges a stream keeping its last response's reason, even one left out (0).
		{"text, MAX_TOKENS, then a response without a reason", []string{text, `{"candidates":[{"finishReason":2,"index":0}]}`,
			last(`{"content":{"parts":[{"text":""}],"role":"model"},"index":0}`)}, "The capital", true},
	}
	for _, tt := range tests {
		for method, req := range geminiRequests(len(tt.chunks)) {
			t.Run(tt.name+", "+method, func(t *testing.T) {
				c, _ := geminiClient(t, tt.chunks...)
				resp, err := c.Generate(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				want := record.Usage{InputTokens: 8, OutputTokens: 16}
				if resp.Text != tt.text || resp.Cut != tt.cut || !reflect.DeepEqual(resp.Usage, want) {
					t.Errorf("Generate = %q, cut %v, usage %+v; want %q, cut %v, usage %+v", resp.Text, resp.Cut, resp.Usage, tt.text, tt.cut, want)
				}
			})
		}
	}
}

// geminiRequests are the requests that reach a Gemini reply of n responses by each endpoint that
// can send it: one with a system message, which streams (streamGenerateContent), and, for a single
// response, one without, which does not (generateContent).
func geminiRequests(n int) map[string]Request {
	requests := map[string]Request{"streamGenerateContent": testRequest("googleai", "gemini-2.0-flash")}
	if n == 1 {
		requests["generateContent"] = userOnly("googleai", "gemini-2.0-flash")
	}
	return requests
}

// TestGoogleSystemOnly: langchaingo's Gemini client fails on messages that are all system
// messages before it sends anything (on two it indexes past its empty history and panics): the
// call's error says no reply came, where it blamed a reply it could not read, and no request
// reaches the server. (qa-predict refuses the one setting that sends such messages, LoCoMo's
// gpt-3.5 ones, as a usage error.)
func TestGoogleSystemOnly(t *testing.T) {
	var calls atomic.Int64
	srv := wireServer(t, wires[3], &calls, nil)
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: wires[3].baseURL(srv.URL), APIKey: testKey,
		HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	req := testRequest("googleai", "gemini-2.0-flash")
	req.Messages = []Message{{Role: "system", Content: "Be brief."}, {Role: "system", Content: "Where is Paris?"}}
	_, err = c.Generate(context.Background(), req)
	const want = "googleai gemini-2.0-flash: the client failed before any reply came, building the request: "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Generate error = %v, want it to begin %q", err, want)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests reached the server, want 0", n)
	}
}

// TestGoogleStreamFailsMidway: the Gemini API ends a stream (streamGenerateContent, a JSON array of
// responses) that fails once it has begun with an error object after the responses it sent, with
// status 200; genai drops it unread. It is the call's error, retried as its code would be as a
// status, never the text streamed before it taken for the whole answer.
func TestGoogleStreamFailsMidway(t *testing.T) {
	const (
		begun      = `{"candidates":[{"content":{"parts":[{"text":"The capital"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`
		overloaded = `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`
		invalid    = `{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}`
		whole      = `{"candidates":[{"content":{"parts":[{"text":"Paris"}],"role":"model"},"finishReason":1,"index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":10}}`
	)
	tests := []struct {
		name    string
		streams [][]string // the responses of each call's stream in turn; the last repeats
		calls   int64
		text    string
		err     string
	}{
		{"503 after text, then an answer", [][]string{{begun, overloaded}, {whole}}, 2, "Paris", ""},
		{"503 before any text, then an answer", [][]string{{overloaded}, {whole}}, 2, "Paris", ""},
		{"503 after text throughout", [][]string{{begun, overloaded}}, 4, "",
			"googleai gemini-2.0-flash: reply with status 200 holds error 503: The model is overloaded. Please try again later. (after 4 attempts)"},
		{"400 after text is final", [][]string{{begun, invalid}}, 1, "",
			"googleai gemini-2.0-flash: reply with status 200 holds error 400: Request contains an invalid argument."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1))
				io.Copy(io.Discard, r.Body)
				if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
					http.Error(w, "want a stream", http.StatusNotFound)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, "["+strings.Join(tt.streams[min(n, len(tt.streams))-1], "\n,\r\n")+"\n]")
			}))
			t.Cleanup(srv.Close)
			tr := NewTransport(TransportConfig{MaxRetries: 3, Backoff: time.Millisecond, Seed: 1})
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: tr.Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), testRequest("googleai", "gemini-2.0-flash"))
			if got := fmt.Sprint(err); tt.err == "" && err != nil || tt.err != "" && got != tt.err {
				t.Errorf("Generate error = %v, want %q", err, tt.err)
			}
			if resp.Text != tt.text || calls.Load() != tt.calls {
				t.Errorf("Generate = text %q after %d calls, want %q after %d", resp.Text, calls.Load(), tt.text, tt.calls)
			}
			if tt.err == "" && !reflect.DeepEqual(resp.Usage, record.Usage{InputTokens: 8, OutputTokens: 2}) {
				t.Errorf("usage %+v, want the answer's", resp.Usage)
			}
		})
	}
}
