package model

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/pkg/record"
)

func TestReadThought(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       Thought
	}{
		{"both tags", "<think>\nThe capital is Paris.\n</think>\n\nParis", Thought{Answer: "Paris", Thinking: "The capital is Paris.", Found: true}},
		{"closing tag only", "The capital is Paris.\n</think>\n\nParis", Thought{Answer: "Paris", Thinking: "The capital is Paris.", Found: true}},
		{"white space before the opening tag", " \n<think>x</think> Paris ", Thought{Answer: "Paris ", Thinking: "x", Found: true}},
		{"no tags", "Paris", Thought{Answer: "Paris"}},
		{"cut in its thinking", "<think>\nThe capital is", Thought{Thinking: "The capital is", Found: true, Cut: true}},
		{"cut after white space", "\n\n<think>\nThe capital is", Thought{Thinking: "The capital is", Found: true, Cut: true}},
		{"opening tag only, not first", "Paris <think>", Thought{Answer: "Paris <think>"}},
		{"tags inside the answer", "Wrap it in <think> and </think>.", Thought{Answer: "Wrap it in <think> and </think>."}},
		{"the last closing tag ends the thinking", "<think>a</think>b<think>c</think>\nd", Thought{Answer: "d", Thinking: "a</think>b<think>c", Found: true}},
		{"closing tag only, quoted in the thinking", "use </think> here? no.\n</think>\nParis", Thought{Answer: "Paris", Thinking: "use </think> here? no.", Found: true}},
		{"empty thinking", "<think>\n\n</think>\n\nParis", Thought{Answer: "Paris", Found: true}},
		{"nothing after the thinking", "<think>x</think>\n", Thought{Thinking: "x", Found: true}},
		{"a JSON verdict that mentions the closing tag", `{"score": 0.9, "reasoning": "ends with a stray </think> tag"}`,
			Thought{Answer: `{"score": 0.9, "reasoning": "ends with a stray </think> tag"}`}},
		{"a fenced JSON verdict", "```json\n{\"label\": \"CORRECT\", \"why\": \"</think>\"}\n```",
			Thought{Answer: "```json\n{\"label\": \"CORRECT\", \"why\": \"</think>\"}\n```"}},
		{"JSON after the thinking", "hmm, {\"a\": 1}?\n</think>\n{\"score\": 1}", Thought{Answer: `{"score": 1}`, Thinking: `hmm, {"a": 1}?`, Found: true}},
		{"a JSON-like answer cut by its tag", `{"score": 1 </think> }`, Thought{Answer: "}", Thinking: `{"score": 1`, Found: true}},
		{"multi-line answer keeps its inside", "<think>x</think>\n\nline 1\n\nline 2\n", Thought{Answer: "line 1\n\nline 2\n", Thinking: "x", Found: true}},
		// Magistral's tags, by the same rules; the other pair's tags are text in them.
		{"Magistral's tags", "[THINK]The capital is Paris.[/THINK]Paris", Thought{Answer: "Paris", Thinking: "The capital is Paris.", Found: true, Close: "[/THINK]"}},
		{"Magistral's closing tag only", "The capital is Paris.\n[/THINK]\n\nParis", Thought{Answer: "Paris", Thinking: "The capital is Paris.", Found: true, Close: "[/THINK]"}},
		{"Magistral cut in its thinking", "\n[THINK]The capital is", Thought{Thinking: "The capital is", Found: true, Cut: true, Close: "[/THINK]"}},
		{"Magistral's tags inside the answer", "Wrap it in [THINK] and [/THINK].", Thought{Answer: "Wrap it in [THINK] and [/THINK]."}},
		{"Magistral thinking of the other tags", "[THINK]not </think> but[/THINK] Paris", Thought{Answer: "Paris", Thinking: "not </think> but", Found: true, Close: "[/THINK]"}},
		{"thinking of Magistral's tags", "<think>not [/THINK] but</think> Paris", Thought{Answer: "Paris", Thinking: "not [/THINK] but", Found: true}},
		{"cut, with the other closing tag inside", "<think>not [/THINK] but", Thought{Thinking: "not [/THINK] but", Found: true, Cut: true}},
		{"the closing tag that comes last", "a</think>b[/THINK]c", Thought{Answer: "c", Thinking: "a</think>b", Found: true, Close: "[/THINK]"}},
		{"a JSON verdict that mentions Magistral's tag", `{"score": 1, "why": "[/THINK]"}`, Thought{Answer: `{"score": 1, "why": "[/THINK]"}`}},
		// gpt-oss's harmony channels: analysis, then final; the message ends around them go.
		{"gpt-oss's channels", "<|channel|>analysis<|message|>The capital is Paris.<|end|><|start|>assistant<|channel|>final<|message|>Paris",
			Thought{Answer: "Paris", Thinking: "The capital is Paris.", Found: true, Close: harmonyFinal}},
		{"gpt-oss's channels, special tokens kept", "<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>Paris<|return|>",
			Thought{Answer: "Paris", Thinking: "x", Found: true, Close: harmonyFinal}},
		{"gpt-oss's final channel only", "x<|end|><|start|>assistant<|channel|>final<|message|> Paris",
			Thought{Answer: "Paris", Thinking: "x", Found: true, Close: harmonyFinal}},
		{"gpt-oss cut in its analysis", "<|channel|>analysis<|message|>The capital is", Thought{Thinking: "The capital is", Found: true, Cut: true, Close: harmonyFinal}},
		{"gpt-oss analysing in two messages", "<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>analysis<|message|>b<|end|><|start|>assistant<|channel|>final<|message|>Paris",
			Thought{Answer: "Paris", Thinking: "a<|end|><|start|>assistant<|channel|>analysis<|message|>b", Found: true, Close: harmonyFinal}},
	} {
		if tc.want.Found && tc.want.Close == "" {
			tc.want.Close = "</think>"
		}
		if got := ReadThought(tc.text); got != tc.want {
			t.Errorf("%s: ReadThought(%q) = %+v, want %+v", tc.name, tc.text, got, tc.want)
		}
	}
}

// TestThinkingClient: the Thinking client reads every reply of the client it wraps, here a real
// client of a loopback server: the answer in Text, the text as it came in Raw, the thinking
// added to what the server sent apart; a reply cut in its thinking fails naming the max_tokens
// that ran out, one with nothing after its thinking is an empty reply, and both keep their usage
// and Raw.
func TestThinkingClient(t *testing.T) {
	usage := record.Usage{InputTokens: 10, OutputTokens: 32}
	for _, tc := range []struct {
		name string
		// provider is openai unless set; stop is the reply's finish_reason (stop_reason), "stop"
		// (end_turn) unless set; apart is the reasoning_content an OpenAI-compatible server sends.
		provider, text, apart, stop string
		maxTokens                   int
		want                        Response // its Usage is usage, always
		err                         string
	}{
		{name: "both tags", text: "<think>\nhmm\n</think>\n\nParis",
			want: Response{Text: "Paris", Reasoning: "hmm", Raw: "<think>\nhmm\n</think>\n\nParis"}},
		{name: "no thinking", text: "Paris", apart: "sent apart",
			want: Response{Text: "Paris", Reasoning: "sent apart", Raw: "Paris"}},
		{name: "sent apart and inline", text: "b</think>Paris", apart: "a",
			want: Response{Text: "Paris", Reasoning: "a\n\nb", Raw: "b</think>Paris"}},
		{name: "cut at max_tokens", text: "<think>\nThe capital", stop: "length", maxTokens: 32,
			want: Response{Reasoning: "The capital", Raw: "<think>\nThe capital", Cut: true},
			err:  "openai r1: reply cut in its thinking: no </think>, so no answer (max_tokens 32 ran out before the answer; a reasoning model's thinking counts in it)"},
		{name: "cut at the server's limit", text: "<think>\nThe capital", stop: "length",
			want: Response{Reasoning: "The capital", Raw: "<think>\nThe capital", Cut: true},
			err:  "openai r1: reply cut in its thinking: no </think>, so no answer (it stopped at the server's token limit before the answer)"},
		{name: "cut at langchaingo's default", provider: "anthropic", text: "<think>\nThe capital", stop: "max_tokens",
			want: Response{Reasoning: "The capital", Raw: "<think>\nThe capital", Cut: true},
			err:  "anthropic r1: reply cut in its thinking: no </think>, so no answer (max_tokens 2048, langchaingo's default without --max-tokens, ran out before the answer; a reasoning model's thinking counts in it)"},
		{name: "cut at the context window", provider: "anthropic", text: "<think>\nThe capital", stop: "model_context_window_exceeded", maxTokens: 32,
			want: Response{Reasoning: "The capital", Raw: "<think>\nThe capital", Cut: true, Window: true},
			err:  "anthropic r1: reply cut in its thinking: no </think>, so no answer (the model's context window filled up before the answer)"},
		{name: "stopped in its thinking", text: "<think>\nThe capital",
			want: Response{Reasoning: "The capital", Raw: "<think>\nThe capital"},
			err:  "openai r1: reply cut in its thinking: no </think>, so no answer"},
		{name: "nothing after the thinking", text: "<think>x</think>\n\n",
			want: Response{Text: "", Reasoning: "x", Raw: "<think>x</think>\n\n"},
			err:  "openai r1: empty reply (nothing after </think>)"},
		{name: "nothing after the thinking, at max_tokens", text: "<think>x</think>\n\n", stop: "length", maxTokens: 32,
			want: Response{Reasoning: "x", Raw: "<think>x</think>\n\n", Cut: true},
			err:  "openai r1: empty reply (nothing after </think>: max_tokens 32 ran out after it; a reasoning model's thinking counts in it)"},
		{name: "nothing after the thinking, at the server's limit", text: "<think>x</think>", stop: "length",
			want: Response{Reasoning: "x", Raw: "<think>x</think>", Cut: true},
			err:  "openai r1: empty reply (nothing after </think>: it stopped at the server's token limit after it)"},
		{name: "Magistral's tags", text: "[THINK]hmm[/THINK]Paris",
			want: Response{Text: "Paris", Reasoning: "hmm", Raw: "[THINK]hmm[/THINK]Paris"}},
		{name: "Magistral cut at max_tokens", text: "[THINK]The capital", stop: "length", maxTokens: 32,
			want: Response{Reasoning: "The capital", Raw: "[THINK]The capital", Cut: true},
			err:  "openai r1: reply cut in its thinking: no [/THINK], so no answer (max_tokens 32 ran out before the answer; a reasoning model's thinking counts in it)"},
		{name: "Magistral with nothing after the thinking", text: "[THINK]x[/THINK] ",
			want: Response{Reasoning: "x", Raw: "[THINK]x[/THINK] "},
			err:  "openai r1: empty reply (nothing after [/THINK])"},
		{name: "gpt-oss cut at max_tokens", text: "<|channel|>analysis<|message|>The capital", stop: "length", maxTokens: 32,
			want: Response{Reasoning: "The capital", Raw: "<|channel|>analysis<|message|>The capital", Cut: true},
			err:  "openai r1: reply cut in its thinking: no <|channel|>final<|message|>, so no answer (max_tokens 32 ran out before the answer; a reasoning model's thinking counts in it)"},
	} {
		w := wires[0]
		if tc.provider == "anthropic" {
			w = wires[1]
		}
		req := testRequest(w.provider, "r1")
		req.MaxTokens = tc.maxTokens
		got, err := Thinking{Next: replyClient(t, w, thinkingReply(t, w.provider, tc.text, tc.apart, tc.stop))}.Generate(context.Background(), req)
		want := tc.want
		want.Usage, want.Attempts = usage, 1
		want.Stopped = tc.stop == "" || tc.stop == "stop" || tc.stop == "end_turn" // stopped of itself (thinkingReply's default)
		got.Model = ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Generate = %+v, want %+v", tc.name, got, want)
		}
		if got.AsCame() != tc.text {
			t.Errorf("%s: AsCame = %q, want the text as it came, %q", tc.name, got.AsCame(), tc.text)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: Generate error %v, want none", tc.name, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s: Generate error %v, want %q", tc.name, err, tc.err)
		case tc.err != "" && !errors.As(err, new(*CallError)):
			t.Errorf("%s: Generate error %T, want a *CallError", tc.name, err)
		}
	}
}

// TestThinkingPassesFailures: a call that failed reaches Thinking's caller as the wrapped client
// gave it.
func TestThinkingPassesFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"model r1 does not exist","type":"invalid_request_error"}}`)
	}))
	defer srv.Close()
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, bare := c.Generate(context.Background(), testRequest("openai", "r1"))
	_, err = Thinking{Next: c}.Generate(context.Background(), testRequest("openai", "r1"))
	if bare == nil || err == nil || err.Error() != bare.Error() || !errors.As(err, new(*CallError)) {
		t.Errorf("Generate over a failed call: error %v, want the call's %v", err, bare)
	}
}

// thinkingReply is a reply body of provider (openai or anthropic) holding text, the thinking
// apart sent apart (openai only), stopped for the reason stop ("" for the usual one), and
// reporting TestThinkingClient's usage.
func thinkingReply(t *testing.T, provider, text, apart, stop string) string {
	t.Helper()
	quote := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if provider == "anthropic" {
		if stop == "" {
			stop = "end_turn"
		}
		return `{"id":"msg_1","type":"message","role":"assistant","model":"r1","content":[{"type":"text","text":` + quote(text) +
			`}],"stop_reason":` + quote(stop) + `,"usage":{"input_tokens":10,"output_tokens":32}}`
	}
	if stop == "" {
		stop = "stop"
	}
	message := `{"role":"assistant","content":` + quote(text)
	if apart != "" {
		message += `,"reasoning_content":` + quote(apart)
	}
	return `{"id":"c","object":"chat.completion","created":1,"model":"r1","choices":[{"index":0,"message":` + message +
		`},"finish_reason":` + quote(stop) + `}],"usage":{"prompt_tokens":10,"completion_tokens":32,"total_tokens":42}}`
}

// TestSentReasoning: the thinking a server sends apart from the text is the response's
// Reasoning: reasoning_content (DeepSeek's API, llama-server, vLLM before 0.11) as langchaingo
// passes it on, reasoning (vLLM since 0.11, OpenRouter, Ollama's /v1) and Ollama's native
// thinking, which langchaingo drops; the text is the answer alone.
func TestSentReasoning(t *testing.T) {
	openai := func(message string) string {
		return `{"id":"c","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":` + message +
			`,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42}}`
	}
	for _, tc := range []struct {
		name  string
		w     wire
		reply string
		want  string
	}{
		{"reasoning_content", wires[0], openai(`{"role":"assistant","content":"Paris","reasoning_content":"\nThe capital of France is Paris.\n"}`), "The capital of France is Paris."},
		{"reasoning", wires[0], openai(`{"role":"assistant","content":"Paris","reasoning":"The capital of France is Paris."}`), "The capital of France is Paris."},
		{"reasoning_details only", wires[0], openai(`{"role":"assistant","content":"Paris","reasoning":null,"reasoning_details":[{"type":"reasoning.text","text":"x"}]}`), ""},
		{"none", wires[0], openai(`{"role":"assistant","content":"Paris"}`), ""},
		{"ollama thinking", wires[2], `{"model":"qwen3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"Paris","thinking":"The capital of France is Paris."},"done":true,"prompt_eval_count":26,"eval_count":5}`, "The capital of France is Paris."},
	} {
		c := replyClient(t, tc.w, tc.reply)
		resp, err := c.Generate(context.Background(), testRequest(tc.w.provider, "deepseek-reasoner"))
		if err != nil {
			t.Errorf("%s: Generate: %v", tc.name, err)
			continue
		}
		if resp.Text != "Paris" || resp.Reasoning != tc.want {
			t.Errorf("%s: Generate = text %q, reasoning %q; want Paris, %q", tc.name, resp.Text, resp.Reasoning, tc.want)
		}
	}
}

// holdsTag reports whether s holds one of thinkTags' tags.
func holdsTag(s string) bool {
	for _, p := range thinkTags {
		if strings.Contains(s, p.open) || strings.Contains(s, p.close) {
			return true
		}
	}
	return false
}

func FuzzReadThought(f *testing.F) {
	for _, s := range []string{"<think>\na\n</think>\n\nParis", "a\n</think>\nb", "<think>a", "Paris", "x<think>y</think>z", " <think></think>",
		"[THINK]a[/THINK]b", "<think>[/THINK]", "a[/THINK]b</think>c",
		"<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>final<|message|>b<|return|>", "<|channel|>analysis<|message|>a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		th := ReadThought(text)
		switch {
		case th.Cut:
			if th.Answer != "" || !strings.HasSuffix(strings.TrimSpace(text), th.Thinking) || strings.Contains(text, th.Close) {
				t.Fatalf("ReadThought(%q) = %+v: cut with an answer, its closing tag, or thinking that is not the text's end", text, th)
			}
		case !th.Found:
			if th.Answer != text || th.Close != "" {
				t.Fatalf("ReadThought(%q) = %+v: no thinking taken, yet not the whole text", text, th)
			}
		default:
			// gpt-oss's answer may lose a message end after it (trimHarmony)
			if !strings.Contains(text[strings.LastIndex(text, th.Close):], th.Answer) || strings.Contains(th.Answer, th.Close) || (th.Close != "</think>" && th.Close != "[/THINK]" && th.Close != harmonyFinal) ||
				(th.Close != harmonyFinal && !strings.HasSuffix(text, th.Answer)) {
				t.Fatalf("ReadThought(%q) = %+v: the answer is not the text after the last closing tag", text, th)
			}
		}
		if utf8.ValidString(text) && (!utf8.ValidString(th.Answer) || !utf8.ValidString(th.Thinking)) {
			t.Fatalf("ReadThought(%q) = %+v: invalid UTF-8 from valid text", text, th)
		}
		if again := ReadThought(th.Answer); th.Found && !th.Cut && again.Found && !holdsTag(th.Answer) {
			t.Fatalf("ReadThought(%q) = %+v, and its answer has thinking again: %+v", text, th, again)
		}
	})
}

// TestEmptyReplyKeepsReasoning: a reply without text that langchaingo calls an error (a Gemini
// stream sent as one object, not the array Gemini sends, holding a thought part alone) is an
// empty reply that keeps the thinking its server sent, as a reply read whole keeps it.
func TestEmptyReplyKeepsReasoning(t *testing.T) {
	reply := `{"candidates":[{"content":{"parts":[{"text":"Weighing Paris.","thought":true}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":20,"thoughtsTokenCount":12}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: "googleai", BaseURL: srv.URL, APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), testRequest("googleai", "gemini-2.5-flash"))
	if !errors.Is(err, ErrEmptyReply) {
		t.Fatalf("Generate: error %v; want an empty reply", err)
	}
	if resp.Text != "" || resp.Reasoning != "Weighing Paris." {
		t.Errorf("Generate = text %q, reasoning %q; want none, %q", resp.Text, resp.Reasoning, "Weighing Paris.")
	}
}
