package model

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/pkg/record"
)

// replyBodies are a successful reply of each provider as Generate reads it after langchaingo:
// vLLM's with its reasoning apart, Claude's, Gemini's streamed in three responses (a request with
// a system message), and a thinking model's from Ollama.
var replyBodies = []struct{ provider, body string }{
	{"openai", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"message":{"role":"assistant","content":"Paris","refusal":null,"reasoning":"The user asks for the capital of France. That is Paris.","tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":40,"completion_tokens":28,"prompt_tokens_details":null},"prompt_logprobs":null,"kv_transfer_params":null}`},
	{"anthropic", `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":4}}`},
	{"googleai", `[{"candidates":[{"content":{"parts":[{"text":"The capital"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8},"modelVersion":"gemini-2.0-flash"},
{"candidates":[{"content":{"parts":[{"text":" of France is"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8},"modelVersion":"gemini-2.0-flash"},
{"candidates":[{"content":{"parts":[{"text":" Paris."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":6,"totalTokenCount":14},"modelVersion":"gemini-2.0-flash"}]`},
	{"ollama", `{"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":{"role":"assistant","content":"Paris","thinking":"The user asks for the capital of France. That is Paris."},"done_reason":"stop","done":true,"total_duration":1,"prompt_eval_count":26,"eval_count":30}`},
}

// BenchmarkReadReply measures what Generate spends reading a reply's body after langchaingo,
// which it decodes once a call (readReply).
func BenchmarkReadReply(b *testing.B) {
	for _, rb := range replyBodies {
		b.Run(rb.provider, func(b *testing.B) {
			body := []byte(rb.body)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				readReply(rb.provider, body)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "replies/s")
		})
	}
}

// TestReadReply checks what readReply finds in replyBodies, the benchmark's replies.
func TestReadReply(t *testing.T) {
	want := map[string]reply{
		"openai": {usage: record.Usage{InputTokens: 12, OutputTokens: 28}, reasoning: "The user asks for the capital of France. That is Paris.",
			answer: &bodyAnswer{text: "Paris", stop: "stop"}},
		"anthropic": {usage: record.Usage{InputTokens: 20, OutputTokens: 4}, textPart: true, answer: &bodyAnswer{text: "Paris", stop: "end_turn"}},
		"googleai": {usage: record.Usage{InputTokens: 8, OutputTokens: 6}, geminiUsage: true, stop: "STOP", textPart: true,
			answer: &bodyAnswer{text: "The capital of France is Paris.", stop: "STOP"}},
		"ollama": {stop: "stop", done: true, reasoning: "The user asks for the capital of France. That is Paris."},
	}
	for _, rb := range replyBodies {
		if diff := cmp.Diff(want[rb.provider], readReply(rb.provider, []byte(rb.body)), cmp.AllowUnexported(reply{}, bodyAnswer{}, record.Usage{})); diff != "" {
			t.Errorf("readReply(%s) differs (-want +got):\n%s", rb.provider, diff)
		}
	}
}

// FuzzReadReply: readReply never panics on any body of any provider, and what it reads is as its
// fields say: valid UTF-8, the reasoning trimmed, an answer's stop reason the reply's.
func FuzzReadReply(f *testing.F) {
	for _, rb := range replyBodies {
		f.Add(rb.provider, rb.body)
	}
	f.Add("anthropic", `{"type":"message","content":[{"type":"thinking","thinking":" hm "},{"type":"redacted_thinking","data":"x"},{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}`)
	f.Add("openai", `{"choices":[{"message":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"}]},{"type":"text","text":"Paris"}]},"finish_reason":"stop"}]}`)
	f.Add("openai", `{"choices":[{"message":{"content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10.0,"completion_tokens":2.5,"prompt_tokens_details":{"cached_tokens":"3"}}}`)
	f.Add("googleai", `[{"candidates":[{"content":{"parts":[{"text":"hm","thought":true},{"thoughtSignature":"x"},{"text":"Paris"}]},"finishReason":"STOP"}]}]`)
	f.Fuzz(func(t *testing.T, provider, body string) {
		r := readReply(provider, []byte(body))
		if strings.TrimSpace(r.reasoning) != r.reasoning || !utf8.ValidString(r.reasoning) {
			t.Errorf("readReply(%s, %q) reasoning %q: not trimmed valid UTF-8", provider, body, r.reasoning)
		}
		if a := r.answer; a != nil {
			if !utf8.ValidString(a.text) || strings.TrimSpace(a.reasoning) != a.reasoning {
				t.Errorf("readReply(%s, %q) answer %+v: text not valid UTF-8 or reasoning not trimmed", provider, body, *a)
			}
			if provider == "googleai" && a.stop != r.stop {
				t.Errorf("readReply(%s, %q) answer stop %q, reply's %q", provider, body, a.stop, r.stop)
			}
		}
	})
}

// TestReadOpenAICounts: an OpenAI reply's token counts are read from any JSON number: a whole
// one from 0 to maxTokenCount is its value, anything else -1 (the usage unknown, knownUsage),
// null or none 0; a cached count that is no count is 0, and none is above the prompt's.
func TestReadOpenAICounts(t *testing.T) {
	for _, tc := range []struct {
		usage string
		want  record.Usage
	}{
		{`{"prompt_tokens":10.0,"completion_tokens":1e1}`, record.Usage{InputTokens: 10, OutputTokens: 10}},
		{`{"prompt_tokens":10,"completion_tokens":2.5}`, record.Usage{InputTokens: 10, OutputTokens: -1}},
		{`{"prompt_tokens":"10","completion_tokens":-3}`, record.Usage{InputTokens: -1, OutputTokens: -1}},
		{`{"prompt_tokens":1e300,"completion_tokens":null}`, record.Usage{InputTokens: -1}},
		{`{"prompt_tokens":8,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":9.0}}`, record.Usage{InputTokens: 8, OutputTokens: 2, CachedInputTokens: 8}},
		{`{"prompt_tokens":8,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":true}}`, record.Usage{InputTokens: 8, OutputTokens: 2}},
		{`{"prompt_tokens":8,"completion_tokens":2,"prompt_cache_hit_tokens":6,"prompt_cache_miss_tokens":2}`, record.Usage{InputTokens: 8, OutputTokens: 2, CachedInputTokens: 6}},
		{`{"prompt_tokens":8,"completion_tokens":2,"prompt_cache_hit_tokens":6,"prompt_tokens_details":{"cached_tokens":4}}`, record.Usage{InputTokens: 8, OutputTokens: 2, CachedInputTokens: 4}},
		{`{"prompt_tokens":8,"completion_tokens":2,"prompt_cache_hit_tokens":-6}`, record.Usage{InputTokens: 8, OutputTokens: 2}},
	} {
		body := `{"choices":[{"message":{"content":"Paris"},"finish_reason":"stop"}],"usage":` + tc.usage + `}`
		r := readReply("openai", []byte(body))
		if !cmp.Equal(r.usage, tc.want, cmp.AllowUnexported(record.Usage{})) || r.answer == nil || r.answer.text != "Paris" {
			t.Errorf("readReply(openai, usage %s) = usage %+v, answer %+v; want %+v and Paris", tc.usage, r.usage, r.answer, tc.want)
		}
	}
}

// TestReadCountsAnthropicGemini: Claude's and Gemini's token counts are read as OpenAI's are
// (bodyCount): a whole number that is no int is its value, another makes the usage unknown.
func TestReadCountsAnthropicGemini(t *testing.T) {
	for _, tc := range []struct {
		provider, body string
		want           record.Usage
	}{
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":20.0,"output_tokens":4,"cache_read_input_tokens":2e0}}`,
			record.Usage{InputTokens: 22, OutputTokens: 4, CachedInputTokens: 2}},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":4,"cache_creation_input_tokens":5e2,"cache_read_input_tokens":30}}`,
			record.Usage{InputTokens: 550, OutputTokens: 4, CachedInputTokens: 30, CacheWriteInputTokens: 500}},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":-1,"output_tokens":4,"cache_creation_input_tokens":5}}`,
			record.Usage{}},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"Paris"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":4.5}}`,
			record.Usage{}},
		{"googleai", `{"candidates":[{"content":{"parts":[{"text":"Paris"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":8.0,"candidatesTokenCount":2,"thoughtsTokenCount":3.0,"totalTokenCount":13,"cachedContentTokenCount":4}}`,
			record.Usage{InputTokens: 8, OutputTokens: 5, CachedInputTokens: 4}},
		{"googleai", `{"candidates":[{"content":{"parts":[{"text":"Paris"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":"2"}}`,
			record.Usage{}},
	} {
		r := readReply(tc.provider, []byte(tc.body))
		if !cmp.Equal(r.usage, tc.want, cmp.AllowUnexported(record.Usage{})) || r.answer == nil || r.answer.text != "Paris" {
			t.Errorf("readReply(%s, %s) = usage %+v, answer %+v; want %+v and Paris", tc.provider, tc.body, r.usage, r.answer, tc.want)
		}
	}
}
