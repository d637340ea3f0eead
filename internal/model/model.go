// Package model asks language models for text: providers over langchaingo, token-usage
// normalisation, prices, and a retrying, rate-limited HTTP transport. qa-predict and qa-judge share it.
//
// The googleai provider's model is built by the function in Config.Gemini (package gemini's New),
// so that only qa-predict and qa-judge, which pass it, link the Google client libraries.
//
// Every provider is a Client; the offline extractive predictor is one more Client, so the rest of the
// pipeline never knows whether an answer came over the network.
package model

import (
	"context"
	"fmt"
	"math"

	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Message is one chat message. Role is "system", "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// DefaultGeminiSafety is the threshold langchaingo v0.1.14 sends a googleai call unless told
// otherwise (gemini.DefaultSafety).
const DefaultGeminiSafety = "block_only_high"

// Request is everything that determines a model's answer. Its canonical JSON encoding is what the
// cache key is computed from, so every field that changes the reply must live here.
type Request struct {
	Provider    string    `json:"provider"`
	BaseURL     string    `json:"base_url,omitempty"`
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	TopP        *float64  `json:"top_p,omitempty"` // nil for none; what a call carries is SentTopP
	TopK        *int      `json:"top_k,omitempty"` // nil for none; what a call carries is SentTopK
	Seed        *int      `json:"seed,omitempty"`
	// Stop holds the sequences at which the model stops generating, none of them in the reply
	// (OpenAI's stop, Anthropic's stop_sequences, Ollama's options.stop, Gemini's stopSequences;
	// nil for none, and a request without them keys the cache as before they were sent).
	Stop []string `json:"stop,omitempty"`
	// NumCtx is the context window, in tokens, Ollama is asked to run the model with (its
	// options.num_ctx), 0 for the server's own (OLLAMA_CONTEXT_LENGTH, or the model's num_ctx, or
	// 2,048 to 4,096 tokens), which cuts a longer prompt without an error. Only ollama's calls
	// carry it (SentNumCtx).
	NumCtx int `json:"num_ctx,omitempty"`
	// MaxTokensField is the member an openai call carries MaxTokens in (MaxTokensFields): "" or
	// auto for MaxTokensFieldFor's choice by BaseURL. Other providers' calls ignore it; what a
	// call carries is SentMaxTokensField.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// GeminiSafety is the threshold of the safetySettings a googleai call carries, which its
	// client sets (gemini.WithSafety); "" is DefaultGeminiSafety. It is here so that a reply is
	// served only to a call with the threshold it was asked with, as a stricter one may block it
	// (the cache keys the default and other providers' thresholds as none).
	GeminiSafety string `json:"gemini_safety,omitempty"`
	// Sample distinguishes repeated samples of the same request (n>1), so they are not collapsed.
	Sample int `json:"sample,omitempty"`
	// ResponseFormat asks for a reply format: "" (free text) or ResponseJSON. It is sent as
	// OpenAI's response_format {"type": "json_object"}, Ollama's format "json" and Gemini's
	// response MIME type application/json; Anthropic has no JSON mode and ignores it.
	ResponseFormat string `json:"response_format,omitempty"`
	// Question and Context carry the bare question and passages for providers that answer from them
	// without a prompt (extractive). Prompt-driven providers ignore them.
	Question string           `json:"question,omitempty"`
	Context  []record.Passage `json:"context,omitempty"`
}

// ResponseJSON is the Request.ResponseFormat that asks for a JSON object (OpenAI's JSON mode).
const ResponseJSON = "json_object"

// Response is a model's reply to one Request.
type Response struct {
	Text     string       `json:"text"`
	Model    string       `json:"model,omitempty"`
	Usage    record.Usage `json:"usage"`
	Attempts int          `json:"attempts"`
	Cached   bool         `json:"cached"`
	// NoUsage is set when the server reported no token usage: Usage is then unknown, not zero,
	// and the reply's cost cannot be counted.
	NoUsage bool `json:"no_usage,omitempty"`
	// Replies is the usage of each reply the call was billed for, in order, when it was more
	// than one: a failed generation (GenerationError) that the Transport retried, whose server
	// billed it, and the reply after it. Usage is then their sum, and each is priced as its own
	// call (Billed). It is nil when Usage is one reply's, or unknown (NoUsage: a reply of them
	// came without usage).
	Replies []record.Usage `json:"replies,omitempty"`
	// Cut is set when the reply stopped at max_tokens, or (Window) at the model's context window.
	Cut bool `json:"cut,omitempty"`
	// Window is set, with Cut, when the reply stopped because the prompt and the reply filled the
	// model's context window (Anthropic's stop_reason model_context_window_exceeded, which Claude
	// Sonnet 4.5 and later give where earlier models refuse a request whose prompt and max_tokens
	// exceed it): a larger max_tokens takes it no further, a shorter prompt does.
	Window bool `json:"window,omitempty"`
	// Filtered is set when a reply with text was stopped by the provider's content filter
	// (OpenAI's finish_reason content_filter) or as a refusal (Claude's stop_reason refusal): the
	// text, perhaps partial, is the answer.
	Filtered bool `json:"filtered,omitempty"`
	// Stopped is set when the reply came whole and stopped of itself: its stop reason is the
	// model's own end (OpenAI's and Ollama's stop, Anthropic's end_turn or stop_sequence, Gemini's
	// STOP; an Ollama reply done without a done_reason), it refused nothing, and its text is a
	// string, not an OpenAI-compatible content that is null, left out or parts of blank text or
	// none (which the OpenAI SDK gives as None or a list, not ""), nor an Anthropic message
	// without a text block or a Gemini candidate without parts (on which LoCoMo's scripts, reading
	// message.content[0].text or response.text, fail). An empty reply so marked is the empty
	// answer a benchmark's script keeps (qa-predict --empty-reply keep). The cache stores it with
	// the reply, so that a reply it serves has it as it came.
	Stopped bool `json:"-"`
	// Reasoning is a reasoning model's thinking: what the server sent apart from the text (an
	// OpenAI-compatible server's reasoning_content or reasoning, Ollama's thinking), and, once
	// Thinking has read the reply, the thinking it took out of the text.
	Reasoning string `json:"reasoning,omitempty"`
	// Raw is the text as it came, set by Thinking, which may take thinking out of Text; "" when
	// no Thinking read the reply, whose Text is then as it came. It is never cached: the cache
	// sits inside Thinking and stores Text as it came.
	Raw string `json:"-"`
}

// Billed is the usage of each reply r was billed for, to be priced each as its own call
// (Prices.CostOf): a prompt's long-context rate applies to it alone, as its server bills it, not
// to the prompts of the call's retries together. It is Replies, or Usage as one reply's.
func (r Response) Billed() []record.Usage {
	if r.Replies != nil {
		return r.Replies
	}
	return []record.Usage{r.Usage}
}

// CutAt says where the reply stopped before its end, as a record's prediction or judgment keeps
// it: record.CutContextWindow (Window), record.CutMaxTokens (Cut), or "" when it came whole.
func (r Response) CutAt() string {
	switch {
	case r.Window:
		return record.CutContextWindow
	case r.Cut:
		return record.CutMaxTokens
	}
	return ""
}

// CutNote is what follows the error of a reply to req that its reader could not read: where it
// stopped, when it was cut short before its end (at the model's context window, at req's
// max_tokens as its call carries it, or, when it carries none, at the server's own limit), with
// what lets it finish; "" when it came whole. The same budget would cut it again, so such a
// reply is not asked again.
func (r Response) CutNote(req Request) string {
	switch n := req.SentMaxTokens(); {
	case !r.Cut:
		return ""
	case r.Window:
		return " (the reply stopped at the model's context window, cut short: a shorter prompt lets it finish)"
	case n > 0:
		return fmt.Sprintf(" (the reply stopped at max_tokens %d, cut short: a larger --max-tokens lets it finish)", n)
	}
	return " (the reply stopped at the server's token limit, no max_tokens being sent, cut short: --max-tokens lets it finish)"
}

// AsCame is the reply's text as the model sent it, before any thinking was taken out of it.
func (r Response) AsCame() string {
	if r.Raw != "" {
		return r.Raw
	}
	return r.Text
}

// Client answers requests. Implementations must be safe for concurrent use.
type Client interface {
	Generate(ctx context.Context, req Request) (Response, error)
}

// SampleSeed is the seed sample k of a request sends for the seed given: seed + k, as a model
// sent the same seed gives the same answer, so the samples would not be independent. 0, which
// langchaingo leaves out, is skipped (seed -1's sample 1 sends 1, its sample 2 sends 2), so that
// every sample of a seed sends one of its own; a seed of 0 is sent as none by every sample. ok is
// false when seed + k is past the largest int, where it would wrap round to another sample's.
func SampleSeed(seed, k int) (s int, ok bool) {
	if seed == 0 {
		return 0, true
	}
	if seed > math.MaxInt-k {
		return 0, false
	}
	s = seed + k
	if seed < 0 && s >= 0 {
		s++
	}
	return s, true
}

// blank reports whether s, a reply's text, holds nothing but white space as Python's strip()
// takes it (textnorm.Strip: \x1c to \x1f too, which Go's strings.TrimSpace keeps), as every
// caller strips an answer or a verdict before reading it: such a reply is an empty one.
func blank(s string) bool { return textnorm.Strip(s) == "" }
