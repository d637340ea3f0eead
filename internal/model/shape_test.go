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
)

// TestShapeFaults: a 200 reply that is JSON but not the provider's reply (an array, a string, a
// number, null, an object with none of the reply's members; in Gemini's stream, such a response)
// is retried as malformed JSON is, and then fails naming what came, with the hint of a base URL
// or a provider that is not the server's, and no Go type of a client's in the words.
func TestShapeFaults(t *testing.T) {
	const (
		openaiReply    = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`
		anthropicReply = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":12,"output_tokens":1}}`
		ollamaReply    = `{"model":"llama3.2","created_at":"2024-12-01T10:00:00Z","message":{"role":"assistant","content":"Paris"},"done_reason":"stop","done":true}`
	)
	byProvider := map[string]wire{}
	for _, w := range wires {
		byProvider[w.provider] = w
	}
	tests := []struct {
		provider, body, want string
	}{
		{"openai", `[]`, `reply with status 200 is no chat completion: a JSON array ("[]")`},
		{"openai", `"Service Unavailable"`, `reply with status 200 is no chat completion: a JSON string ("\"Service Unavailable\"")`},
		{"openai", `42`, `reply with status 200 is no chat completion: a JSON number ("42")`},
		{"openai", `null`, `reply with status 200 is no chat completion: JSON null ("null")`},
		{"openai", `{}`, `reply with status 200 is no chat completion: an empty JSON object ("{}")`},
		{"openai", `{"detail":"Not Found"}`, `reply with status 200 is no chat completion: a JSON object with none of the reply's members ("{\"detail\":\"Not Found\"}")`},
		{"anthropic", `[{"type":"message"}]`, `reply with status 200 is no message: a JSON array ("[{\"type\":\"message\"}]")`},
		{"anthropic", `null`, `reply with status 200 is no message: JSON null ("null")`},
		{"anthropic", `{"detail":"Not Found"}`, `reply with status 200 is no message: a JSON object with none of the reply's members ("{\"detail\":\"Not Found\"}")`},
		{"ollama", `[]`, `reply with status 200 is no chat reply: a JSON array ("[]")`},
		{"ollama", `true`, `reply with status 200 is no chat reply: a JSON boolean ("true")`},
		{"ollama", `{"detail":"Not Found"}`, `reply with status 200 is no chat reply: a JSON object with none of the reply's members ("{\"detail\":\"Not Found\"}")`},
		// Another provider's reply, which shares members with this one's ("id", "model",
		// "usage") but holds none of its own: a --provider that is not the server's.
		{"anthropic", openaiReply, `reply with status 200 is no message: a JSON object with none of "type", "content" and "error" ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.comple…")`},
		{"openai", anthropicReply, `reply with status 200 is no chat completion: a JSON object with none of "choices", "object" and "error" ("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"a…")`},
		{"openai", ollamaReply, `reply with status 200 is no chat completion: a JSON object with none of "choices", "object" and "error" ("{\"model\":\"llama3.2\",\"created_at\":\"2024-1…")`},
		{"ollama", openaiReply, `reply with status 200 is no chat reply: a JSON object with none of "message", "done", "done_reason", "created_at" and "error" ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.comple…")`},
		// wireServer serves Gemini's stream: the body is an array of the responses given here.
		{"googleai", `"x"`, `reply with status 200 is no generateContent reply: a JSON array holding a JSON string ("[\"x\"]")`},
		{"googleai", `{"detail":"Not Found"}`, `reply with status 200 is no generateContent reply: a JSON array holding a JSON object with none of the reply's members ("[{\"detail\":\"Not Found\"}]")`},
	}
	for _, tt := range tests {
		t.Run(tt.provider+" "+tt.body, func(t *testing.T) {
			w := byProvider[tt.provider]
			w.reply = tt.body
			var calls atomic.Int64
			srv := wireServer(t, w, &calls, nil)
			base := w.baseURL(srv.URL)
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: base, APIKey: testKey,
				HTTPClient: NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond}).Client()})
			if err != nil {
				t.Fatal(err)
			}
			model := wireModels[w.provider]
			resp, err := c.Generate(context.Background(), testRequest(w.provider, model))
			var ce *CallError
			if !errors.As(err, &ce) || resp.Text != "" {
				t.Fatalf("Generate = %+v, %v; want a CallError", resp, err)
			}
			if n := calls.Load(); n != 3 || ce.Attempts != 3 {
				t.Errorf("%d requests reached the server, %d attempts counted; want 3 (retried as malformed JSON)", n, ce.Attempts)
			}
			if got, want := ce.Err.Error(), w.provider+" "+model+": "+tt.want; got != want {
				t.Errorf("Generate error = %q, want %q", got, want)
			}
			hint := "check that " + base + " is the API's base URL" + apiPlace(w.provider, "--provider", base) +
				" and that its server speaks --provider " + w.provider + "'s API"
			if ce.Hint != hint {
				t.Errorf("Generate hint = %q, want %q", ce.Hint, hint)
			}
			if strings.Contains(err.Error(), "Go value") || strings.Contains(err.Error(), "client.") {
				t.Errorf("Generate error %q names a Go type", err)
			}
		})
	}
}

// TestShapeFaultWithoutKey: a reply of another shape that echoes the call's API key is quoted
// without it, in every provider's way of sending it: the quote was cut to 40 bytes before the
// error's redaction, which then no longer found the key whose first bytes the cut kept.
func TestShapeFaultWithoutKey(t *testing.T) {
	for _, w := range wires {
		if w.authHeader == "" {
			continue
		}
		t.Run(w.provider, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				rw.Header().Set("Content-Type", "application/json")
				io.WriteString(rw, `{"detail":"bad key `+testKey+`"}`)
			}))
			defer srv.Close()
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey,
				HTTPClient: NewTransport(TransportConfig{Backoff: time.Millisecond}).Client()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(context.Background(), testRequest(w.provider, wireModels[w.provider]))
			if err == nil || !strings.Contains(err.Error(), `bad key [redacted]`) || strings.Contains(err.Error(), testKey[:8]) {
				t.Errorf("Generate error %v, want the reply quoted with [redacted] for the key", err)
			}
		})
	}
}

// TestShapeFaultThenAnswer: a reply of another shape is retried, and the answer that follows is
// the call's.
func TestShapeFaultThenAnswer(t *testing.T) {
	for _, w := range wires {
		if w.provider == "googleai" {
			continue // its stream's path is wireServer's
		}
		t.Run(w.provider, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				rw.Header().Set("Content-Type", "application/json")
				if calls.Add(1) == 1 {
					io.WriteString(rw, `[]`)
					return
				}
				io.WriteString(rw, w.reply)
			}))
			defer srv.Close()
			c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey,
				HTTPClient: NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond}).Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), testRequest(w.provider, wireModels[w.provider]))
			if err != nil || resp.Text != "Paris" || resp.Attempts != 2 || !reflect.DeepEqual(resp.Usage, w.usage) {
				t.Errorf("Generate = %+v, %v; want Paris after 2 attempts with usage %+v", resp, err, w.usage)
			}
		})
	}
}

// TestShapeOfReplies: the replies of each provider's shape pass, streams included, and so does a
// body that is no JSON, which is not for the shape to judge.
func TestShapeOfReplies(t *testing.T) {
	tests := []struct {
		provider, body string
	}{
		{"openai", `{"id":"c","choices":[]}`},
		{"openai", `{"error":{"message":"boom"}}`},
		{"openai", `<html>`},
		{"openai", ``},
		{"anthropic", `{"type":"message","content":[]}`},
		{"googleai", `{"usageMetadata":{"promptTokenCount":8}}`},
		{"googleai", `[{"candidates":[]},{"usageMetadata":{}}]`},
		{"ollama", "{\"message\":{\"content\":\"Pa\"},\"done\":false}\n{\"message\":{\"content\":\"ris\"},\"done\":true}\n"},
		{"ollama", "{\"done\":false}\nnot json\n"},
		{"ollama", `{"message":{"content":"Paris"}}`}, // a lone reply without "done": taken as whole
		{"ollama", "{\"message\":{\"content\":\"Pa\"},\"done\":false}\n{\"error\":\"model runner stopped\"}\n"},
		{"embed", `[]`},
	}
	for _, tt := range tests {
		if err := shapeFault(withChatShape(context.Background(), tt.provider), []byte(tt.body)); err != nil {
			t.Errorf("shapeFault(%s, %q) = %v, want nil", tt.provider, tt.body, err)
		}
	}
	ctx := withChatShape(context.Background(), "ollama")
	body := "{\"done\":false}\n[1]\n"
	want := `reply with status 200 is no chat reply: a stream holding a JSON array ("{\"done\":false}")`
	if err := shapeFault(ctx, []byte(body)); err == nil || err.Error() != want {
		t.Errorf("shapeFault(ollama, %q) = %v, want %s", body, err, want)
	}
}

// TestEmbedShapes: the embedding endpoints' replies pass, an empty list included (the caller
// counts the vectors), and so does any body of an endpoint without a shape; JSON of another shape
// is named, for text-embeddings-inference down to the lists it holds.
func TestEmbedShapes(t *testing.T) {
	tests := []struct {
		provider, path, body, want string
	}{
		{"openai", "/embeddings", `{"object":"list","data":[],"model":"m"}`, ""},
		{"openai", "/embeddings", `{"error":{"message":"boom"}}`, ""},
		{"ollama", "/api/embed", `{"model":"m","embeddings":[[0.1]]}`, ""},
		{"tei", "/embed", `[]`, ""},
		{"tei", "/embed", ` [[0.1],[0.2]] `, ""},
		{"tei", "/embed_all", `[[[0.1]],[]]`, ""},
		{"tei", "/tokenize", `[[{"id":1}]]`, ""},
		{"tei", "/info", `{"model_id":"m"}`, ""},
		{"openai", "/embeddings", `[[0.1]]`, `reply with status 200 is no embedding list: a JSON array ("[[0.1]]")`},
		{"ollama", "/api/embed", `{"data":[]}`, `reply with status 200 is no embed reply: a JSON object with none of the reply's members ("{\"data\":[]}")`},
		{"tei", "/embed", `{ }`, `reply with status 200 is no list of embeddings: an empty JSON object ("{ }")`},
		{"tei", "/embed", `{"error":"x"}`, `reply with status 200 is no list of embeddings: a JSON object ("{\"error\":\"x\"}")`},
		{"tei", "/embed", `[[0.1], 0.2]`, `reply with status 200 is no list of embeddings: a JSON array holding a JSON number ("[[0.1], 0.2]")`},
		{"tei", "/tokenize", `[null]`, `reply with status 200 is no list of tokenizations: a JSON array holding JSON null ("[null]")`},
	}
	for _, tt := range tests {
		err := shapeFault(WithEmbedShape(context.Background(), tt.provider, tt.path), []byte(tt.body))
		if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
			t.Errorf("shapeFault(%s %s, %q) = %v, want %q", tt.provider, tt.path, tt.body, err, tt.want)
		}
	}
}

// BenchmarkShapeFault checks the 200 replies of embedding calls, the largest a Transport reads: an
// OpenAI embedding list and a text-embeddings-inference list of 64 vectors of 1,024 numbers each.
func BenchmarkShapeFault(b *testing.B) {
	var vec strings.Builder
	vec.WriteByte('[')
	for i := range 1024 {
		if i > 0 {
			vec.WriteByte(',')
		}
		fmt.Fprintf(&vec, "%.8f", float64(i)/1024-0.5)
	}
	vec.WriteByte(']')
	var openai, tei strings.Builder
	openai.WriteString(`{"object":"list","data":[`)
	tei.WriteByte('[')
	for i := range 64 {
		if i > 0 {
			openai.WriteByte(',')
			tei.WriteByte(',')
		}
		fmt.Fprintf(&openai, `{"object":"embedding","index":%d,"embedding":%s}`, i, vec.String())
		tei.WriteString(vec.String())
	}
	openai.WriteString(`],"model":"m","usage":{"prompt_tokens":64,"total_tokens":64}}`)
	tei.WriteByte(']')
	for _, c := range []struct{ provider, path, body string }{
		{"openai", "/embeddings", openai.String()},
		{"tei", "/embed", tei.String()},
	} {
		b.Run(c.provider, func(b *testing.B) {
			ctx := WithEmbedShape(context.Background(), c.provider, c.path)
			data := []byte(c.body)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := shapeFault(ctx, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestElements: the first byte of each element of a valid JSON array, past strings holding
// brackets, commas, quotes and backslashes, and nested arrays and objects.
func TestElements(t *testing.T) {
	for in, want := range map[string]string{
		`[]`:          "",
		` [ ] `:       "",
		`[[1,2],[3]]`: "[[",
		"[\n [1, [2, {\"a\": [3]}]],\t{\"b\": 1} , \"x\" ]": `[{"`,
		`["a,[\"]\\", 1, [2], -3, true, null]`:              `"1[-tn`,
		`[{"k": "]"}, [","], "\\\\", 0.5e3]`:                `{["0`,
	} {
		var got []byte
		elements([]byte(in), func(first byte) bool { got = append(got, first); return true })
		if string(got) != want {
			t.Errorf("elements(%s) gave first bytes %q, want %q", in, got, want)
		}
	}
	n := 0
	elements([]byte(`[1,2,3]`), func(byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("elements went on after f returned false: %d calls, want 2", n)
	}
}

// TestOllamaStreamCut: an Ollama stream whose body ends before its last line ("done": true), as
// a server or proxy that stops mid-answer leaves it with a clean end, is a transient failure,
// retried, and the whole answer that follows is the call's: it was read as the answer so far, or
// as an empty reply when no text had come. A lone reply with "done" false is cut likewise, and so
// is a body that ends within a line, a reply begun and not ended.
func TestOllamaStreamCut(t *testing.T) {
	ctx := withChatShape(context.Background(), "ollama")
	for body, want := range map[string]string{
		"{\"message\":{\"content\":\"Pa\"},\"done\":false}\n{\"message\":{\"content\":\"ri\"},\"done\":false}\n": `reply with status 200 is no chat reply: a stream holding no last line ("done": true): the stream was cut`,
		`{"message":{"content":"Pa"},"done":false}`:                                                              `reply with status 200 is no chat reply: no last line ("done": true): the stream was cut`,
		// cut within a line: the body ends inside a reply begun and not ended
		"{\"message\":{\"content\":\"Pa\"},\"done\":false}\n{\"message\":{\"cont": `reply with status 200 is no chat reply: a stream holding no last line ("done": true): the stream was cut`,
		`{"model":"llama3.2","message":{"role":"assis`:                            `reply with status 200 is no chat reply: no last line ("done": true): the stream was cut`,
	} {
		if err := shapeFault(ctx, []byte(body)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("shapeFault(ollama, %q) = %v, want %s", body, err, want)
		}
	}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		rw.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(rw, `{"model":"llama3.2","message":{"role":"assistant","content":"Pa"},"done":false}`+"\n")
		switch calls.Add(1) {
		case 1:
			return // cut: no more lines
		case 2:
			io.WriteString(rw, `{"model":"llama3.2","message":{"role":"assistant","cont`) // cut within a line
			return
		}
		io.WriteString(rw, `{"model":"llama3.2","message":{"role":"assistant","content":"ris"},"done":false}`+"\n"+
			`{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":7,"eval_count":2}`+"\n")
	}))
	defer srv.Close()
	c, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL,
		HTTPClient: NewTransport(TransportConfig{MaxRetries: 2, Backoff: time.Millisecond}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), testRequest("ollama", "llama3.2"))
	if err != nil || resp.Text != "Paris" || resp.Attempts != 3 || calls.Load() != 3 {
		t.Errorf("Generate = %+v, %v after %d requests; want Paris in 3 attempts (the cut streams retried)", resp, err, calls.Load())
	}
}

// TestOllamaStreamCutHint: a stream cut on every attempt fails, and its hint names the server
// that stopped while it answered, not a base URL or provider that is not the server's: its first
// line was the API's.
func TestOllamaStreamCutHint(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		rw.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(rw, `{"model":"llama3.2","message":{"role":"assistant","content":"Pa"},"done":false}`+"\n")
	}))
	defer srv.Close()
	c, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL,
		HTTPClient: NewTransport(TransportConfig{MaxRetries: 1, Backoff: time.Millisecond}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), testRequest("ollama", "llama3.2"))
	var ce *CallError
	if !errors.As(err, &ce) || calls.Load() != 2 {
		t.Fatalf("Generate error %v after %d requests, want a CallError after 2", err, calls.Load())
	}
	if want := "the server stopped in the middle of its reply"; !strings.HasPrefix(ce.Hint, want) || strings.Contains(ce.Hint, "base URL") {
		t.Errorf("hint %q, want one that starts %q and names no base URL", ce.Hint, want)
	}
}
