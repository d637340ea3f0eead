package model

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestEmptyStop: an empty reply (ErrEmptyReply) is marked Stopped when it came whole and stopped
// of itself with the empty text: OpenAI's finish_reason stop with content "", Anthropic's end_turn
// or stop_sequence with a text block, Gemini's STOP with a part, Ollama's done with done_reason
// stop. One cut at max_tokens, refused, without choices or candidates, stopped for another reason,
// or whose text is not there for its SDK to give as "" is not: an OpenAI content null, left out
// or parts without text (the OpenAI SDK's None), an Anthropic message without a text block
// (LoCoMo's message.content[0].text raises IndexError), a Gemini candidate without parts (the
// SDK's response.text raises ValueError).
func TestEmptyStop(t *testing.T) {
	openai := func(message, finish string) string {
		return `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":` + message +
			`,"finish_reason":"` + finish + `"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`
	}
	claude := func(content, stop string) string {
		return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":` + content +
			`,"stop_reason":"` + stop + `","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":1}}`
	}
	gemini := func(parts, finish string) string {
		return `{"candidates":[{"content":{"parts":` + parts + `,"role":"model"},"finishReason":` + finish +
			`,"index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":1,"totalTokenCount":9}}`
	}
	ollama := func(content, tail string) string {
		return `{"model":"llama3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":` + content + `},"done":true` + tail + `,"prompt_eval_count":26,"eval_count":1}`
	}
	tests := []struct {
		name    string
		w       wire
		reply   string
		stopped bool
	}{
		{"openai stop, content empty", wires[0], openai(`{"role":"assistant","content":""}`, "stop"), true},
		{"openai stop, content white space", wires[0], openai(`{"role":"assistant","content":" \n"}`, "stop"), true},
		{"openai stop, content null", wires[0], openai(`{"role":"assistant","content":null}`, "stop"), false},
		{"openai stop, content left out", wires[0], openai(`{"role":"assistant"}`, "stop"), false},
		{"openai stop, parts without text", wires[0], openai(`{"role":"assistant","content":[{"type":"thinking","thinking":"Hmm."}]}`, "stop"), false},
		{"openai stop, parts of blank text", wires[0], openai(`{"role":"assistant","content":[{"type":"text","text":" \n"},{"type":"thinking","thinking":"Hmm."}]}`, "stop"), false},
		{"openai stop, parts of empty text", wires[0], openai(`{"role":"assistant","content":[{"type":"text","text":""}]}`, "stop"), false},
		{"openai stop, no parts", wires[0], openai(`{"role":"assistant","content":[]}`, "stop"), false},
		{"openai stop, refusal", wires[0], openai(`{"role":"assistant","content":"","refusal":"I can't help with that."}`, "stop"), false},
		{"openai length", wires[0], openai(`{"role":"assistant","content":""}`, "length"), false},
		{"openai tool_calls", wires[0], openai(`{"role":"assistant","content":""}`, "tool_calls"), false},
		{"openai no choices", wires[0], `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12}}`, false},
		{"anthropic end_turn, no content", wires[1], claude(`[]`, "end_turn"), false},
		{"anthropic end_turn, thinking alone", wires[1], claude(`[{"type":"thinking","thinking":"Hmm.","signature":"s"}]`, "end_turn"), false},
		{"anthropic end_turn, white space text", wires[1], claude(`[{"type":"text","text":" \n"}]`, "end_turn"), true},
		{"anthropic end_turn, empty text", wires[1], claude(`[{"type":"text","text":""}]`, "end_turn"), true},
		{"anthropic stop_sequence", wires[1], claude(`[{"type":"text","text":""}]`, "stop_sequence"), true},
		{"anthropic max_tokens", wires[1], claude(`[]`, "max_tokens"), false},
		{"anthropic content left out", wires[1], `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","usage":{"input_tokens":20,"output_tokens":0}}`, false},
		{"gemini STOP", wires[3], gemini(`[{"text":""}]`, "1"), true},
		{"gemini STOP by name", wires[3], gemini(`[{"text":""}]`, `"STOP"`), true},
		{"gemini STOP, no parts", wires[3], `{"candidates":[{"content":{"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`, false},
		{"gemini STOP, empty parts", wires[3], gemini(`[]`, `"STOP"`), false},
		{"gemini STOP, no content", wires[3], `{"candidates":[{"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`, false},
		{"gemini OTHER", wires[3], gemini(`[{"text":""}]`, "5"), false},
		{"gemini MAX_TOKENS", wires[3], gemini(`[{"text":""}]`, "2"), false},
		{"gemini no candidates", wires[3], `{"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`, false},
		{"ollama done stop", wires[2], ollama(`""`, `,"done_reason":"stop"`), true},
		{"ollama done, no done_reason", wires[2], ollama(`""`, ``), true},
		{"ollama done length", wires[2], ollama(`""`, `,"done_reason":"length"`), false},
	}
	// What the error of a reply that stopped of itself, yet is not Stopped, says of its text.
	whyNot := map[string]string{
		"openai stop, content null":          "(stop reason stop; content null)",
		"openai stop, content left out":      "(stop reason stop; content left out)",
		"openai stop, parts without text":    "(stop reason stop; content of parts without text)",
		"openai stop, parts of blank text":   "(stop reason stop; content of parts of blank text)",
		"openai stop, parts of empty text":   "(stop reason stop; content of parts of blank text)",
		"openai stop, no parts":              "(stop reason stop; content of parts without text)",
		"openai stop, content empty":         "empty reply (stop reason stop)",
		"anthropic end_turn, no content":     "(stop reason end_turn; no text block)",
		"anthropic end_turn, empty text":     "empty reply (stop reason end_turn)",
		"anthropic end_turn, thinking alone": "(stop reason end_turn; no text block)",
		"gemini STOP, no parts":              "(stop reason STOP; no parts)",
		"gemini STOP by name":                "empty reply (stop reason STOP)",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := replyClient(t, tt.w, tt.reply)
			resp, err := c.Generate(context.Background(), testRequest(tt.w.provider, wireModels[tt.w.provider]))
			if err == nil || !errors.Is(err, ErrEmptyReply) && !strings.Contains(err.Error(), "blocked") {
				t.Fatalf("Generate = %+v, %v; want an empty reply's error", resp, err)
			}
			if why, ok := whyNot[tt.name]; ok && !strings.Contains(err.Error(), why) {
				t.Errorf("error %q, want it to say %q: why the empty reply is not kept", err, why)
			}
			if resp.Stopped != tt.stopped || strings.TrimSpace(resp.Text) != "" {
				t.Errorf("Generate = stopped %v, text %q (error %v); want stopped %v, no text", resp.Stopped, resp.Text, err, tt.stopped)
			}
		})
	}
}
