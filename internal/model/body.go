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
// (its stop reason end_turn or refusal), and Gemini's safety blocks (of the prompt or of the
// candidate) or reply without candidates. It returns the reply's usage and why it stopped, and
// false when body is no such reply (an error object, another shape, or a reply with text).
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
		var r struct {
			Type    string `json:"type"`
			Content []struct {
				Type, Text string
			} `json:"content"`
			StopReason string `json:"stop_reason"`
			Usage      struct {
				InputTokens  int `json:"input_tokens"`
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(body, &r) != nil || r.Type != "message" {
			return u, "", false
		}
		for _, c := range r.Content {
			if strings.TrimSpace(c.Text) != "" {
				return u, "", false
			}
		}
		return record.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}, "stop reason " + r.StopReason, true
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

// emptyGemini is emptyReply for a Gemini reply: one object, or the array of them a streamed reply is.
func emptyGemini(body []byte) (u record.Usage, why string, ok bool) {
	var rs []geminiReply
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		if json.Unmarshal(t, &rs) != nil {
			return u, "", false
		}
	} else {
		var r geminiReply
		if json.Unmarshal(t, &r) != nil {
			return u, "", false
		}
		rs = []geminiReply{r}
	}
	why = "no candidates"
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
			if len(c.FinishReason) > 0 {
				why = "finish reason " + enumName(c.FinishReason, "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER")
			}
		}
		if r.PromptFeedback != nil && len(r.PromptFeedback.BlockReason) > 0 {
			why = "prompt blocked: " + enumName(r.PromptFeedback.BlockReason, "SAFETY", "OTHER")
		}
		if m := r.UsageMetadata; m != nil {
			u = m.usage()
		}
	}
	return u, why, len(rs) > 0
}

// enumName is the name of a Gemini enum value, which genai asks for as a number (names[0] is 1);
// a number it does not know, or a name, is given as it came.
func enumName(v json.RawMessage, names ...string) string {
	var n int
	if json.Unmarshal(v, &n) == nil && n >= 1 && n <= len(names) {
		return names[n-1]
	}
	return strings.Trim(string(v), `"`)
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

// bodyMessage is the message of an error body that the client does not read: the top-level
// "message" of vLLM's errors ({"object": "error", "message": …}), which langchaingo's OpenAI
// client misses, or that of the Google API error that streamGenerateContent wraps in an array
// ([{"error": {"message": …}}]), where genai finds none; "" when there is none.
func bodyMessage(body []byte) string {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		var rs []struct {
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(t, &rs) != nil || len(rs) == 0 || rs[0].Error == nil {
			return ""
		}
		return strings.TrimSpace(rs[0].Error.Message)
	}
	var r struct {
		Object  string `json:"object"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &r) != nil || r.Object != "error" {
		return ""
	}
	return strings.TrimSpace(r.Message)
}
