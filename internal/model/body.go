package model

// This file reads what langchaingo drops from a reply body the Transport kept (Attempts.Body);
// the OpenAI and Gemini readers are in openaibody.go and geminibody.go.

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/qapipe/qapipe/pkg/record"
)

// reply is what a call's reply body says that langchaingo's reading of it drops, read once per
// call by readReply: the body is decoded once, in its provider's shape, and each field is what
// one of Generate's questions needs (was the reply blocked, why did an empty one stop, what did
// the server think apart from its text). A provider's reader fills the fields it knows; the
// others stay zero.
//
// Note: a reader per question, each decoding the body in a shape of its own, decoded a Gemini
// reply three times a call (its block, finish reason and stream usage). The members that only
// some questions read are kept raw and read from the one value they sit in (jsonString), so that
// one that fits no question's shape spoils no other question's reading, as it did not when each
// question decoded apart.
type reply struct {
	// usage is the reply's usage as the body gives it, where langchaingo drops it with the
	// reply (a block, an empty reply): for Gemini, that of its last response with a
	// usageMetadata, which holds a stream's running totals.
	usage record.Usage
	// geminiUsage is set when usage is that of a Gemini reply read whole (readGemini), which
	// replaces langchaingo's reading.
	geminiUsage bool
	// blocked is the provider's filters' block of the prompt or reply, nil for none.
	blocked *BlockedError
	// empty says why a reply that holds no text stopped ("no choices", "stop reason
	// end_turn"), which langchaingo turns into an error of its own; "" when the body is no such
	// reply (another shape, a reply with text). A block is blocked's. An OpenAI error object,
	// which holds no choices, reads as "no choices": it is read from a 200 reply only.
	empty string
	// stop is the stop reason the body gives where langchaingo loses it: Ollama's done_reason
	// and Gemini's finishReason as the API names it (geminiFinish).
	stop string
	// reasoning is the thinking a server sends apart from the text and langchaingo drops,
	// trimmed: message.reasoning (readOpenAI), Ollama's message.thinking (readOllama), the
	// thinking blocks of Anthropic's message (readAnthropic), Gemini's thought parts
	// (readGemini).
	reasoning string
	// thoughts is set when a Gemini reply holds thought parts (readGemini), whose text
	// langchaingo reads as the answer's.
	thoughts bool
	// refusal is the refusal text of an OpenAI chat reply's first choice (its message.refusal,
	// which langchaingo does not pass on), trimmed.
	refusal string
	// notString is set when the content of an OpenAI chat reply's first choice is no string:
	// null, left out, or an array of parts (readOpenAI), which the OpenAI SDK gives as None or
	// a list where a string is the text, "" included; content says which, in an empty reply's
	// error ("content null").
	notString bool
	content   string
	// textPart is set when an Anthropic message holds a text block (readAnthropic), or a Gemini
	// reply's first candidate a part that is no thought (readGemini), its text "" or not: where
	// the SDKs read the text. A message of no block but thinking ones, or a candidate without
	// parts, has none, and its SDK no "" to give (the Python SDKs raise IndexError or ValueError,
	// or give None).
	textPart bool
	// done is set when an Ollama reply's last line says it is done (readOllama).
	done bool
	// failed is the failure an OpenAI-compatible server ended the reply's generation with
	// (finish_reason "error" or "abort"), nil for none: no answer, whatever text it holds.
	failed *GenerationError
	// answer is the reply read from the body, as the provider's SDKs read it, for a 200 reply
	// langchaingo could not read (bodyAnswer); nil for a body that is no reply of the
	// provider's with an answer's place in it.
	answer *bodyAnswer
}

// bodyCount is a token count in a reply's body: any JSON value, for a reply whose count is no
// int, which the client libraries fail on whole (langchaingo v0.1.14: 'cannot unmarshal number
// 10.0 into Go struct field ChatUsage.usage.prompt_tokens of type int', from a server that
// writes counts as floats), is still a reply whose answer the body holds. A whole number from 0
// to maxTokenCount is its value (10.0 is 10, as the OpenAI SDK's pydantic reads it); anything
// else is -1, which makes the usage unknown, and null or none is 0.
type bodyCount int

func (n *bodyCount) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	*n = -1
	if f, err := strconv.ParseFloat(string(b), 64); err == nil && f == math.Trunc(f) && f >= 0 && f <= maxTokenCount {
		*n = bodyCount(f)
	}
	return nil
}

// counts reports whether every one of ns is a count of tokens (bodyCount's -1 is none).
func counts(ns ...bodyCount) bool {
	for _, n := range ns {
		if n < 0 {
			return false
		}
	}
	return true
}

// bodyAnswer is a reply's answer read from its body: what Generate answers with when langchaingo
// v0.1.14 fails on a 200 reply of the provider's that holds one, as it does on a content block of
// a type it does not know (Claude's redacted_thinking, the thinking Anthropic's safety systems
// encrypted), an OpenAI-compatible message whose content is an array of parts (Mistral's
// reasoning models: a thinking part, then text parts), or a Gemini part with data it does not
// know (one that holds only a thoughtSignature, an executableCode). The reply is valid, its
// answer in it, and paid for.
type bodyAnswer struct {
	// text is the answer: the text of the message's text blocks or parts, joined in order
	// without a separator, as the providers' SDKs join them (Anthropic's; google-genai's
	// response.text, which leaves thought parts out), "" for none.
	text string
	// reasoning is the thinking the reply holds readably beside its text, trimmed: a Mistral
	// thinking part's text, else the message's reasoning_content (openai; Anthropic's thinking
	// blocks and Gemini's thought parts are reply.reasoning, read for every reply).
	reasoning string
	// stop is the reply's stop reason as its API names it.
	stop string
}

// choice is a as langchaingo's reading of a reply gives it: its text, stop reason and reasoning;
// the usage is the body's (reply.usage).
func (a *bodyAnswer) choice() *llms.ContentChoice {
	return &llms.ContentChoice{Content: a.text, StopReason: a.stop, ReasoningContent: a.reasoning}
}

// readReply reads body, the reply of a call to provider that the Transport kept
// (Attempts.Body), decoding it once; a body of no shape the provider's reader knows reads as
// nothing (a zero reply).
func readReply(provider string, body []byte) reply {
	switch provider {
	case "openai":
		return readOpenAI(body)
	case "anthropic":
		return readAnthropic(body)
	case "googleai":
		return readGemini(body)
	case "ollama":
		return readOllama(body)
	}
	return reply{}
}

// readAnthropic reads an Anthropic message that holds no text in any of its blocks:
//   - blocked: one that stopped with stop_reason "refusal": Claude's streaming classifiers
//     intervened for a potential policy violation, and asking again without changing the prompt
//     is refused again (Anthropic's "Streaming refusals" guide). The reason is the stop reason,
//     with the policy's category when stop_details gives it ("refusal (cyber)"); the usage is
//     billed up to the refusal;
//   - empty: any other (its stop reason end_turn, as a rule; "no content" for one that gives
//     none), which langchaingo calls an error.
//
// A message with text is read for its usage (a refusal after text is Response.Filtered), which a
// message langchaingo cannot read (a block of a type it does not know) keeps. Every message is
// read for its reasoning, the thinking of its thinking blocks (Claude's extended thinking,
// summarised by Claude 4), trimmed, the blocks apart by a blank line, which langchaingo v0.1.14
// leaves in a choice's GenerationInfo; a redacted_thinking block's is encrypted, and none. Its answer is the text of its text blocks joined in order, as answer joins
// langchaingo's choices.
func readAnthropic(body []byte) reply {
	var r anthropicMessage
	if json.Unmarshal(body, &r) != nil || r.Type != "message" {
		return reply{}
	}
	var text strings.Builder
	var thoughts []string
	textPart := false
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			text.WriteString(c.Text)
			textPart = true
		case "thinking":
			if t := strings.TrimSpace(c.Thinking); t != "" {
				thoughts = append(thoughts, t)
			}
		}
	}
	out := reply{usage: r.usage(), reasoning: strings.Join(thoughts, "\n\n"), textPart: textPart}
	if r.Content != nil {
		out.answer = &bodyAnswer{text: text.String(), stop: r.StopReason}
	}
	if r.hasText() {
		return out
	}
	out.empty = "stop reason " + r.StopReason
	if r.StopReason == "" {
		out.empty = "no content"
	}
	if r.StopReason == "refusal" {
		why := r.StopReason
		if d := r.StopDetails; d != nil && strings.TrimSpace(d.Category) != "" {
			why += " (" + strings.TrimSpace(d.Category) + ")"
		}
		out.blocked = &BlockedError{By: "Anthropic", Reason: why}
	}
	return out
}

// anthropicMessage is the part of an Anthropic message that readAnthropic reads.
type anthropicMessage struct {
	Type    string `json:"type"`
	Content []struct {
		Type, Text, Thinking string
	} `json:"content"`
	StopReason  string `json:"stop_reason"`
	StopDetails *struct {
		Category string `json:"category"`
	} `json:"stop_details"`
	Usage struct {
		InputTokens              bodyCount `json:"input_tokens"`
		OutputTokens             bodyCount `json:"output_tokens"`
		CacheCreationInputTokens bodyCount `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     bodyCount `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// hasText reports whether text is in any of the message's blocks.
func (r *anthropicMessage) hasText() bool {
	for _, c := range r.Content {
		if !blank(c.Text) {
			return true
		}
	}
	return false
}

// usage is the message's usage as a record.Usage.
func (r *anthropicMessage) usage() record.Usage {
	u := r.Usage
	if !counts(u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens) {
		return record.Usage{} // no call has such a count: unknown, as UsageFromInfo reads it
	}
	in, cached, written := anthropicInput(int(u.InputTokens), int(u.CacheCreationInputTokens), int(u.CacheReadInputTokens))
	return record.Usage{InputTokens: in, OutputTokens: int(u.OutputTokens), CachedInputTokens: cached, CacheWriteInputTokens: written}
}

// readOllama reads an Ollama chat reply, one JSON object or, streamed, one a line (NDJSON):
//   - reasoning: its message.thinking, the thinking of a model that thinks, which Ollama sends
//     apart from the text since 0.9 (asked or, in later versions, by default) and langchaingo
//     v0.1.14 drops; a stream's is the thinking of its lines joined;
//   - stop: its done_reason (its last line's), which langchaingo does not pass on: "length"
//     when it stopped at num_predict.
func readOllama(body []byte) reply {
	var out reply
	var thinking strings.Builder
	for line := range bytes.Lines(bytes.TrimSpace(body)) {
		var r struct {
			Message struct {
				Thinking string `json:"thinking"`
			} `json:"message"`
			DoneReason json.RawMessage `json:"done_reason"`
			Done       json.RawMessage `json:"done"`
		}
		if json.Unmarshal(line, &r) == nil {
			thinking.WriteString(r.Message.Thinking)
		}
		// The last line's, whatever else that line holds (encoding/json fills what fits).
		out.stop, _ = jsonString(r.DoneReason)
		out.done = string(bytes.TrimSpace(r.Done)) == "true"
	}
	out.reasoning = strings.TrimSpace(thinking.String())
	return out
}
