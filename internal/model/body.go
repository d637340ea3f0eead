package model

// This file reads what langchaingo drops from a reply body the Transport kept (Attempts.Body).

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// emptyReply reads a successful reply body that holds no text, which langchaingo turns into an
// error of its own and drops with its usage: OpenAI's empty choices, Anthropic's empty content
// (its stop reason end_turn; a refusal is anthropicBlocked's, read first), and Gemini's reply
// without candidates (a blocked one is geminiBlocked's, read first). It returns the reply's usage and why it stopped, and false when
// body is no such reply (an error object, another shape, or a reply with text).
func emptyReply(provider string, body []byte) (u record.Usage, why string, ok bool) {
	switch provider {
	case "openai":
		var r struct {
			Choices *[]json.RawMessage `json:"choices"`
			Usage   struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(body, &r) != nil || r.Choices == nil || len(*r.Choices) > 0 {
			return u, "", false
		}
		return record.Usage{InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens}, "no choices", true
	case "anthropic":
		r, ok := textlessAnthropic(body)
		if !ok {
			return u, "", false
		}
		return r.usage(), "stop reason " + r.StopReason, true
	case "googleai":
		return emptyGemini(body)
	}
	return u, "", false
}

// geminiReply is the part of a generateContent reply emptyGemini reads.
type geminiReply struct {
	Candidates []struct {
		Content struct {
			Parts []struct{ Text string }
		}
		FinishReason json.RawMessage
	}
	PromptFeedback *struct{ BlockReason json.RawMessage }
	UsageMetadata  *geminiUsage
	Error          json.RawMessage
}

// geminiUsage is a Gemini reply's usageMetadata.
type geminiUsage struct{ PromptTokenCount, CandidatesTokenCount, TotalTokenCount int }

// usage is m as a record.Usage: a thinking model's thoughts, counted in the total apart from the
// candidates, are billed as output.
func (m *geminiUsage) usage() record.Usage {
	return record.Usage{InputTokens: m.PromptTokenCount, OutputTokens: max(m.CandidatesTokenCount, m.TotalTokenCount-m.PromptTokenCount)}
}

// geminiStreamUsage is the usage of a streamed Gemini reply (streamGenerateContent's JSON array of
// responses, which genai asks for when a request has a system message or several turns): that of
// its last response with a usageMetadata, which holds the running totals. genai v0.15.1 merges the
// stream keeping the first response's ("TODO: Take the last UsageMetadata"), the count of the first
// few tokens or of the prompt alone. ok is false when body is no such array or holds no usage.
func geminiStreamUsage(body []byte) (u record.Usage, ok bool) {
	t := bytes.TrimSpace(body)
	var rs []geminiReply
	if len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &rs) != nil {
		return u, false
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if m := rs[i].UsageMetadata; m != nil {
			return m.usage(), true
		}
	}
	return u, false
}

// geminiReplies reads body as Gemini's: one generateContent reply, or the array of them that a
// streamed reply (streamGenerateContent) is; ok is false for a body that is neither.
func geminiReplies(body []byte) (rs []geminiReply, ok bool) {
	t := bytes.TrimSpace(body)
	if len(t) > 0 && t[0] == '[' {
		return rs, json.Unmarshal(t, &rs) == nil
	}
	var r geminiReply
	if json.Unmarshal(t, &r) != nil {
		return nil, false
	}
	return []geminiReply{r}, true
}

// geminiFinish is the finish reason of a Gemini reply's first candidate as the API names it
// (MAX_TOKENS, OTHER, MALFORMED_FUNCTION_CALL, ...): the last one its responses give, "" for
// none. langchaingo reads it through genai v0.15.1, which names only the first five reasons, in
// names of its own ("FinishReasonOther"; "FinishReason(10)" for the others), and which, merging
// a stream, keeps the last response's reason even when that response gives none, losing a
// MAX_TOKENS given before it.
func geminiFinish(rs []geminiReply) string {
	for i := len(rs) - 1; i >= 0; i-- {
		if cs := rs[i].Candidates; len(cs) > 0 {
			if f := enumName(cs[0].FinishReason, geminiFinishReasons...); f != "" {
				return f
			}
		}
	}
	return ""
}

// emptyGemini is emptyReply for a Gemini reply without candidates, or whose candidates hold no
// text; a blocked one is geminiBlocked's.
func emptyGemini(body []byte) (u record.Usage, why string, ok bool) {
	rs, ok := geminiReplies(body)
	if !ok {
		return u, "", false
	}
	for _, r := range rs {
		if r.Error != nil {
			return u, "", false
		}
		for _, c := range r.Candidates {
			for _, p := range c.Content.Parts {
				if strings.TrimSpace(p.Text) != "" {
					return u, "", false
				}
			}
		}
		if m := r.UsageMetadata; m != nil {
			u = m.usage()
		}
	}
	why = "no candidates"
	if f := geminiFinish(rs); f != "" {
		why = "stop reason " + f
	}
	return u, why, len(rs) > 0
}

// geminiBlocked reads a Gemini reply that the API's filters blocked: the prompt (a
// promptFeedback.blockReason, and no candidates) or the reply (a candidate's finishReason that
// names a filter, its content then left out), in any response of a stream, which may have
// streamed text before the block. It returns the reply's usage (a stream's last, which holds the
// running totals) and the block; ok is false for any other body.
//
// Note: genai v0.15.1 calls a blocked prompt, or a reply stopped for SAFETY or RECITATION, an
// error (BlockedError) but knows no other reason; langchaingo then reads a reply stopped for
// another one (SPII, BLOCKLIST, ...) as an empty reply, or, streamed, as the text before the
// block, dropping the reason of a last response without content. The body says it whole.
func geminiBlocked(body []byte) (u record.Usage, b *BlockedError, ok bool) {
	rs, _ := geminiReplies(body)
	for _, r := range rs {
		if r.Error != nil {
			return u, nil, false
		}
		if pf := r.PromptFeedback; pf != nil && b == nil {
			if why := enumName(pf.BlockReason, geminiBlockReasons...); why != "" {
				b = &BlockedError{By: "Gemini", Prompt: true, Reason: why}
			}
		}
		for _, c := range r.Candidates {
			if f := enumName(c.FinishReason, geminiFinishReasons...); geminiFilters[f] && b == nil {
				b = &BlockedError{By: "Gemini", Reason: f}
			}
		}
		if m := r.UsageMetadata; m != nil {
			u = m.usage()
		}
	}
	return u, b, b != nil
}

// openAIBlocked reads an OpenAI chat reply whose first choice, the answer, the content filter
// stopped before any text: finish_reason "content_filter" ("content was omitted due to a flag from
// our content filters", Azure OpenAI's too) with its content null, "" or left out. It returns the
// reply's usage and the block; ok is false for any other body, a reply with text among them (that
// text is the answer, Response.Filtered).
func openAIBlocked(body []byte) (u record.Usage, b *BlockedError, ok bool) {
	var r struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &r) != nil || len(r.Choices) == 0 {
		return u, nil, false
	}
	ch := r.Choices[0]
	if ch.FinishReason != "content_filter" || ch.Message.Content != nil && strings.TrimSpace(*ch.Message.Content) != "" {
		return u, nil, false
	}
	u = record.Usage{InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens}
	return u, &BlockedError{By: "OpenAI", Reason: ch.FinishReason}, true
}

// anthropicBlocked reads an Anthropic message that stopped before any text with stop_reason
// "refusal": Claude's streaming classifiers intervened for a potential policy violation, and
// asking again without changing the prompt is refused again (Anthropic's "Streaming refusals"
// guide). The reason is the stop reason, with the policy's category when stop_details gives it
// ("refusal (cyber)"). It returns the message's usage, billed up to the refusal, and the block;
// ok is false for any other body, a message with text among them (Response.Filtered).
func anthropicBlocked(body []byte) (u record.Usage, b *BlockedError, ok bool) {
	r, ok := textlessAnthropic(body)
	if !ok || r.StopReason != "refusal" {
		return u, nil, false
	}
	why := r.StopReason
	if d := r.StopDetails; d != nil && strings.TrimSpace(d.Category) != "" {
		why += " (" + strings.TrimSpace(d.Category) + ")"
	}
	return r.usage(), &BlockedError{By: "Anthropic", Reason: why}, true
}

// anthropicMessage is the part of an Anthropic message that emptyReply and anthropicBlocked read.
type anthropicMessage struct {
	Type    string `json:"type"`
	Content []struct {
		Type, Text string
	} `json:"content"`
	StopReason  string `json:"stop_reason"`
	StopDetails *struct {
		Category string `json:"category"`
	} `json:"stop_details"`
	Usage struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// textlessAnthropic reads body as an Anthropic message with no text in any of its blocks; ok is
// false for any other body.
func textlessAnthropic(body []byte) (r anthropicMessage, ok bool) {
	if json.Unmarshal(body, &r) != nil || r.Type != "message" {
		return r, false
	}
	for _, c := range r.Content {
		if strings.TrimSpace(c.Text) != "" {
			return r, false
		}
	}
	return r, true
}

// usage is the message's usage as a record.Usage.
func (r *anthropicMessage) usage() record.Usage {
	return record.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}
}

// geminiFinishReasons names the values of a candidate's finishReason from 1, and
// geminiBlockReasons those of promptFeedback.blockReason, as the Gemini API numbers them
// (google.ai.generativelanguage's Candidate.FinishReason and PromptFeedback.BlockReason).
var (
	geminiFinishReasons = []string{"STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "LANGUAGE", "BLOCKLIST",
		"PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL"}
	geminiBlockReasons = []string{"SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY"}
)

// geminiFilters holds the finish reasons that say the API's filters stopped a reply and left its
// content out: flagged for safety, recitation, an unsupported language, a blocklisted term,
// prohibited content, sensitive personal data, or an unsafe image (by name too, as the API writes
// reasons newer than the numbers above).
var geminiFilters = map[string]bool{
	"SAFETY": true, "RECITATION": true, "LANGUAGE": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true,
	"SPII": true, "IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true, "IMAGE_RECITATION": true,
}

// enumName is the name of a Gemini enum value, which genai asks for as a number (names[0] is 1),
// "" for none (absent, null, 0, or a name ending _UNSPECIFIED); a number it does not know, or a
// name, is given as it came.
func enumName(v json.RawMessage, names ...string) string {
	var n int
	switch {
	case json.Unmarshal(v, &n) != nil:
	case n >= 1 && n <= len(names):
		return names[n-1]
	case n == 0:
		return ""
	}
	s := strings.Trim(string(v), `"`)
	if strings.HasSuffix(s, "_UNSPECIFIED") {
		return ""
	}
	return s
}

// openAIRefusal is the refusal text of an OpenAI chat reply's first choice (its message.refusal,
// which langchaingo does not pass on), "" when there is none.
func openAIRefusal(body []byte) string {
	var r struct {
		Choices []struct {
			Message struct {
				Refusal string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &r) != nil || len(r.Choices) == 0 {
		return ""
	}
	return strings.TrimSpace(r.Choices[0].Message.Refusal)
}

// openAIReasoningText is the message.reasoning of an OpenAI-compatible chat reply's first choice,
// trimmed, "" when there is none: the thinking that vLLM (since 0.11, where reasoning_content
// was renamed), OpenRouter and Ollama's /v1 send apart from the text, which langchaingo v0.1.14
// does not read. A reasoning that is no string (OpenRouter's reasoning_details are an array
// beside it) is none.
func openAIReasoningText(body []byte) string {
	var r struct {
		Choices []struct {
			Message struct {
				Reasoning json.RawMessage `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &r) != nil || len(r.Choices) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(r.Choices[0].Message.Reasoning, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// ollamaThinking is the message.thinking of an Ollama chat reply, trimmed (the thinking of a
// model that thinks, which Ollama sends apart from the text since 0.9, asked or, in later
// versions, by default), which langchaingo v0.1.14 drops; a streamed reply's is the thinking of
// its lines joined.
func ollamaThinking(body []byte) string {
	var b strings.Builder
	for line := range bytes.Lines(bytes.TrimSpace(body)) {
		var r struct {
			Message struct {
				Thinking string `json:"thinking"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &r) == nil {
			b.WriteString(r.Message.Thinking)
		}
	}
	return strings.TrimSpace(b.String())
}

// ollamaDoneReason is the done_reason of an Ollama chat reply (its last line, when streamed),
// which langchaingo does not pass on: "length" when it stopped at num_predict.
func ollamaDoneReason(body []byte) string {
	body = bytes.TrimSpace(body)
	if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	}
	var r struct {
		DoneReason string `json:"done_reason"`
	}
	json.Unmarshal(body, &r) //nolint:errcheck // no reason read is no reason
	return r.DoneReason
}
