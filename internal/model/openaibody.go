package model

// This file reads what langchaingo drops from an OpenAI chat reply body (see body.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// readOpenAI reads an OpenAI chat reply:
//   - empty: no choices (an empty list, null or none), which langchaingo calls an error ("empty
//     response") and drops with the usage. An error body holds no choices either: Generate reads
//     empty only from a 200 reply, which the Transport has found of a chat completion's shape;
//   - blocked: the first choice, the answer, stopped by the content filter before any text:
//     finish_reason "content_filter" ("content was omitted due to a flag from our content
//     filters", Azure OpenAI's too) with its content null, "" or left out, or an array of
//     parts of blank text or none. A reply with text is no block (that text is the answer,
//     Response.Filtered);
//   - reasoning: the first choice's message.reasoning, the thinking that vLLM (since 0.11, where
//     reasoning_content was renamed), OpenRouter and Ollama's /v1 send apart from the text,
//     which langchaingo v0.1.14 does not read; a reasoning that is no string (OpenRouter's
//     reasoning_details are an array beside it) is none;
//   - refusal: the first choice's message.refusal, none when a choice's refusal is no string
//     (openAIRefusal);
//   - usage: read whatever the content is, so that a reply langchaingo cannot read (a content
//     that is an array of parts, as Mistral's reasoning models send) keeps what it cost; the
//     prompt tokens served from the provider's cache are OpenAI's
//     prompt_tokens_details.cached_tokens, or else DeepSeek's prompt_cache_hit_tokens (a part of
//     its prompt_tokens too, billed at a tenth of its input rate), which langchaingo drops;
//   - answer: the first choice's content, a string or an array of parts (openAIAnswer), with
//     its finish_reason;
//   - failed: the first choice ended as a failure, its finish_reason "error" or "abort"
//     (openAIFailure), with the error the choice or else the reply holds.
func readOpenAI(body []byte) reply {
	var r struct {
		Choices *[]openAIChoice `json:"choices"`
		Error   json.RawMessage `json:"error"` // beside the choices, as OpenRouter's stream chunk puts it
		Usage   struct {
			PromptTokens        bodyCount `json:"prompt_tokens"`
			CompletionTokens    bodyCount `json:"completion_tokens"`
			PromptTokensDetails struct {
				CachedTokens bodyCount `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			PromptCacheHitTokens bodyCount `json:"prompt_cache_hit_tokens"` // DeepSeek's
		} `json:"usage"`
	}
	if json.Unmarshal(body, &r) != nil {
		return reply{}
	}
	u := r.Usage
	in := int(u.PromptTokens)
	cached := max(int(u.PromptTokensDetails.CachedTokens), 0)
	if cached == 0 {
		cached = max(int(u.PromptCacheHitTokens), 0)
	}
	out := reply{usage: record.Usage{InputTokens: in, OutputTokens: int(u.CompletionTokens),
		CachedInputTokens: min(cached, max(in, 0))}}
	if r.Choices == nil || len(*r.Choices) == 0 {
		out.empty = "no choices"
		return out
	}
	cs := *r.Choices
	first := cs[0].Message
	a := openAIAnswer(first.Content)
	if t := bytes.TrimSpace(first.Content); len(t) == 0 || t[0] != '"' {
		out.notString = true // null, left out, or parts: the SDK's None or list, no ""
		switch {
		case len(t) == 0:
			out.content = "content left out"
		case string(t) == "null":
			out.content = "content null"
		case !openAITextPart(t):
			out.content = "content of parts without text"
		case a != nil && strings.TrimSpace(a.text) == "":
			out.content = "content of parts of blank text"
		default:
			out.content = "content of parts"
		}
	}
	if cs[0].FinishReason == "content_filter" && (len(first.Content) == 0 || a != nil && strings.TrimSpace(a.text) == "") {
		out.blocked = &BlockedError{By: "OpenAI", Reason: cs[0].FinishReason}
	}
	if s, ok := jsonString(first.Reasoning); ok {
		out.reasoning = strings.TrimSpace(s)
	}
	if a != nil {
		if a.reasoning == "" {
			s, _ := jsonString(first.ReasoningContent)
			a.reasoning = strings.TrimSpace(s)
		}
		a.stop = cs[0].FinishReason
		out.answer = a
	}
	out.refusal = openAIRefusal(cs)
	out.failed = openAIFailure(cs[0], r.Error)
	return out
}

// openAIFailure is the GenerationError of c, an OpenAI-compatible reply's first choice, when its
// finish_reason says that the server's generation failed: "error" (OpenRouter, with the code and
// message of the choice's error object when it has one; vLLM) or "abort" (vLLM); nil for any
// other. A choice without an error of its own takes top's, the reply's "error" member (an object,
// as OpenRouter puts it beside the choices of a stream's chunk, or a string). A code that is no
// HTTP error status (400 to 599: a negative one, 200, a number past any status) is none: it says
// nothing a status would, and the failure is then retried as one without a code.
func openAIFailure(c openAIChoice, top json.RawMessage) *GenerationError {
	if c.FinishReason != "error" && c.FinishReason != "abort" {
		return nil
	}
	e := &GenerationError{Reason: c.FinishReason}
	for _, raw := range []json.RawMessage{c.Error, top} {
		if s, ok := jsonString(raw); ok && len(raw) > 0 {
			e.Message = strings.TrimSpace(s)
		} else {
			var o struct {
				Code    json.RawMessage `json:"code"`
				Message json.RawMessage `json:"message"`
			}
			if json.Unmarshal(raw, &o) != nil {
				continue
			}
			var code int
			if json.Unmarshal(o.Code, &code) == nil && code >= 400 && code < 600 {
				e.Code = code // a code that is no number, or no error status, is none
			}
			m, _ := jsonString(o.Message)
			e.Message = strings.TrimSpace(m)
		}
		if e.Code != 0 || e.Message != "" {
			break
		}
	}
	return e
}

// generationFault returns the GenerationError of data, a 200 reply's body, under a context that
// names the OpenAI chat completion's shape (withChatShape), or nil, with the usage the reply
// reports.
func generationFault(ctx context.Context, data []byte) (*GenerationError, record.Usage) {
	s, ok := ctx.Value(shapeKey{}).(*shape)
	if !ok || s.name != chatShapes["openai"].name || !bytes.Contains(data, []byte(`"error"`)) && !bytes.Contains(data, []byte(`"abort"`)) {
		return nil, record.Usage{} // the common case, without decoding
	}
	r := readOpenAI(data)
	return r.failed, r.usage
}

// openAIChoice is a choice of an OpenAI chat reply, as readOpenAI reads it.
type openAIChoice struct {
	Message struct {
		Content          json.RawMessage `json:"content"` // no string from some servers (an array of parts)
		Refusal          json.RawMessage `json:"refusal"`
		Reasoning        json.RawMessage `json:"reasoning"`
		ReasoningContent json.RawMessage `json:"reasoning_content"`
	} `json:"message"`
	FinishReason string          `json:"finish_reason"`
	Error        json.RawMessage `json:"error"` // OpenRouter's, beside finish_reason "error"
}

// openAIRefusal returns the refusal of cs, an OpenAI chat reply's choices (one at least): the
// first choice's message.refusal, trimmed, or "" when that of any choice is no string.
func openAIRefusal(cs []openAIChoice) string {
	for _, c := range cs {
		if _, ok := jsonString(c.Message.Refusal); !ok {
			return ""
		}
	}
	refusal, _ := jsonString(cs[0].Message.Refusal)
	return strings.TrimSpace(refusal)
}

// openAIAnswer reads content, an OpenAI-compatible chat message's: a string, null (no text), or
// an array of parts, as Mistral's API sends for its reasoning models (Magistral):
// [{"type":"thinking","thinking":[{"type":"text","text":"…"}]},{"type":"text","text":"Paris"}].
// The answer is the text of its text parts, joined in order (a part of another type, such as
// Mistral's reference or an image, holds none); the reasoning is that of its thinking parts, the
// text of each one's text chunks (or its thinking, when a string) joined, the parts apart by a
// blank line. A content of another kind (an object, a number), or left out (a choice that is
// null), or a part that is no object, is no answer: nil.
func openAIAnswer(content json.RawMessage) *bodyAnswer {
	if len(content) == 0 { // none, as in a choice that is null: no message's
		return nil
	}
	if s, ok := jsonString(content); ok {
		return &bodyAnswer{text: s}
	}
	if t := bytes.TrimSpace(content); string(t) == "null" {
		return &bodyAnswer{}
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     json.RawMessage `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return nil
	}
	var text strings.Builder
	var thoughts []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			s, _ := jsonString(p.Text)
			text.WriteString(s)
		case "thinking":
			if t := strings.TrimSpace(chunksText(p.Thinking)); t != "" {
				thoughts = append(thoughts, t)
			}
		}
	}
	return &bodyAnswer{text: text.String(), reasoning: strings.Join(thoughts, "\n\n")}
}

// openAITextPart reports whether content, an OpenAI-compatible chat message's array of parts,
// holds a text part whose text is a string ("" or blank included): where openAIAnswer finds text.
//
// Note: a reply of parts of blank text was said to be of "parts without text".
func openAITextPart(content json.RawMessage) bool {
	var parts []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return false
	}
	for _, p := range parts {
		if _, ok := jsonString(p.Text); ok && p.Type == "text" {
			return true
		}
	}
	return false
}

// chunksText is the text of v, a Mistral thinking part's thinking: a string, or an array of
// chunks whose text chunks' text it joins in order.
func chunksText(v json.RawMessage) string {
	if s, ok := jsonString(v); ok {
		return s
	}
	var chunks []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	}
	_ = json.Unmarshal(v, &chunks) // what is no array of chunks holds no text
	var b strings.Builder
	for _, c := range chunks {
		if c.Type == "text" {
			s, _ := jsonString(c.Text)
			b.WriteString(s)
		}
	}
	return b.String()
}
