package model

// This file reads what langchaingo drops from a reply body the Transport kept (Attempts.Body).

import (
	"bytes"
	"encoding/json"
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
	// streamUsage is set when usage is a streamed Gemini reply's (readGemini), which replaces
	// langchaingo's reading.
	streamUsage bool
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
	// answer is the reply read from the body, as the provider's SDKs read it, for a 200 reply
	// langchaingo could not read (bodyAnswer); nil for a body that is no reply of the
	// provider's with an answer's place in it.
	answer *bodyAnswer
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

// readOpenAI reads an OpenAI chat reply:
//   - empty: no choices (an empty list, null or none), which langchaingo calls an error ("empty
//     response") and drops with the usage. An error body holds no choices either: Generate reads
//     empty only from a 200 reply, which the Transport has found of a chat completion's shape;
//   - blocked: the first choice, the answer, stopped by the content filter before any text:
//     finish_reason "content_filter" ("content was omitted due to a flag from our content
//     filters", Azure OpenAI's too) with its content null, "" or left out, or an array of
//     parts without text. A reply with text is no block (that text is the answer,
//     Response.Filtered);
//   - reasoning: the first choice's message.reasoning, the thinking that vLLM (since 0.11, where
//     reasoning_content was renamed), OpenRouter and Ollama's /v1 send apart from the text,
//     which langchaingo v0.1.14 does not read; a reasoning that is no string (OpenRouter's
//     reasoning_details are an array beside it) is none;
//   - refusal: the first choice's message.refusal, none when a choice's refusal is no string;
//   - usage: read whatever the content is, so that a reply langchaingo cannot read (a content
//     that is an array of parts, as Mistral's reasoning models send) keeps what it cost;
//   - answer: the first choice's content, a string or an array of parts (openAIAnswer), with
//     its finish_reason.
func readOpenAI(body []byte) reply {
	var r struct {
		Choices *[]struct {
			Message struct {
				Content          json.RawMessage `json:"content"` // no string from some servers (an array of parts)
				Refusal          json.RawMessage `json:"refusal"`
				Reasoning        json.RawMessage `json:"reasoning"`
				ReasoningContent json.RawMessage `json:"reasoning_content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			CompletionTokens    int `json:"completion_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &r) != nil {
		return reply{}
	}
	u := r.Usage
	out := reply{usage: record.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens,
		CachedInputTokens: min(max(u.PromptTokensDetails.CachedTokens, 0), u.PromptTokens)}}
	if r.Choices == nil || len(*r.Choices) == 0 {
		out.empty = "no choices"
		return out
	}
	cs := *r.Choices
	first := cs[0].Message
	a := openAIAnswer(first.Content)
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
	for _, c := range cs {
		if _, ok := jsonString(c.Message.Refusal); !ok {
			return out
		}
	}
	refusal, _ := jsonString(first.Refusal)
	out.refusal = strings.TrimSpace(refusal)
	return out
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
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			text.WriteString(c.Text)
		case "thinking":
			if t := strings.TrimSpace(c.Thinking); t != "" {
				thoughts = append(thoughts, t)
			}
		}
	}
	out := reply{usage: r.usage(), reasoning: strings.Join(thoughts, "\n\n")}
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
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// hasText reports whether text is in any of the message's blocks.
func (r *anthropicMessage) hasText() bool {
	for _, c := range r.Content {
		if strings.TrimSpace(c.Text) != "" {
			return true
		}
	}
	return false
}

// usage is the message's usage as a record.Usage.
func (r *anthropicMessage) usage() record.Usage {
	return record.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}
}

// readGemini reads a Gemini reply: one generateContent reply, or the JSON array of them that a
// streamed reply is (streamGenerateContent, which genai asks for when a request has a system
// message or several turns):
//   - blocked: a reply the API's filters blocked (geminiBlock);
//   - empty: one without candidates, or whose candidates hold no text (geminiEmpty);
//   - stop: the finish reason as the API names it (geminiFinish);
//   - usage: that of the last response with a usageMetadata, which holds the running totals;
//     streamUsage is set for a stream's, as genai v0.15.1 merges a stream keeping the first
//     response's usage ("TODO: Take the last UsageMetadata"), the count of the first few tokens
//     or of the prompt alone.
//   - answer: the text of the first candidate's parts that are not thoughts, over the
//     responses of a stream, joined in order as google-genai's response.text joins them; the
//     candidate's thought parts (a part with thought true, which the API sends when asked to
//     include thoughts) are reasoning, joined as they came (a stream's are pieces of one);
//     thoughts is set when there was any such part, which genai v0.15.1 does not know and
//     langchaingo reads as text.
//
// A stream that does not decode whole (a response of another shape in it) is still read for a
// block in the responses that did: a block is the answer, whatever else the stream holds.
func readGemini(body []byte) reply {
	rs, listed, ok := geminiReplies(body)
	var out reply
	for _, r := range rs {
		if m := r.UsageMetadata; m != nil {
			out.usage, out.streamUsage = m.usage(), listed && ok
		}
	}
	out.blocked = geminiBlock(rs)
	if ok {
		out.stop = geminiFinish(rs)
		out.empty = geminiEmpty(rs)
		out.answer, out.reasoning, out.thoughts = geminiAnswer(rs)
		if out.answer != nil {
			out.answer.stop = out.stop
		}
	}
	return out
}

// geminiAnswer is the answer of rs, a Gemini reply (geminiReplies), its reasoning, and whether
// any of its parts was a thought, as readGemini reads them; nil when no response has a candidate,
// or one holds an error.
func geminiAnswer(rs []geminiReply) (answer *bodyAnswer, reasoning string, thoughts bool) {
	var text, thought strings.Builder
	for _, r := range rs {
		if r.Error != nil {
			return nil, "", false
		}
		if len(r.Candidates) == 0 {
			continue
		}
		if answer == nil {
			answer = &bodyAnswer{}
		}
		for _, p := range r.Candidates[0].Content.Parts {
			if p.thought() {
				thought.WriteString(p.Text)
				thoughts = true
				continue
			}
			text.WriteString(p.Text)
		}
	}
	if answer != nil {
		answer.text = text.String()
	}
	return answer, strings.TrimSpace(thought.String()), thoughts
}

// geminiReply is the part of a generateContent reply readGemini reads.
type geminiReply struct {
	Candidates []struct {
		Content struct {
			Parts []geminiPart
		}
		FinishReason json.RawMessage
	}
	PromptFeedback *struct{ BlockReason json.RawMessage }
	UsageMetadata  *geminiUsage
	Error          json.RawMessage
}

// geminiPart is a part of a Gemini reply's candidate, as readGemini reads it.
type geminiPart struct {
	Text string
	// Thought is true for a thought summary, no part of the answer; kept raw (thought), so
	// that one of another type spoils no other reading of the reply.
	Thought json.RawMessage
}

// thought reports whether p is a thought: its thought is true.
func (p *geminiPart) thought() bool { return string(bytes.TrimSpace(p.Thought)) == "true" }

// geminiUsage is a Gemini reply's usageMetadata.
type geminiUsage struct {
	PromptTokenCount, CandidatesTokenCount, TotalTokenCount int
	CachedContentTokenCount                                 int // of the prompt's
}

// usage is m as a record.Usage: a thinking model's thoughts, counted in the total apart from the
// candidates, are billed as output.
func (m *geminiUsage) usage() record.Usage {
	return record.Usage{InputTokens: m.PromptTokenCount, OutputTokens: max(m.CandidatesTokenCount, m.TotalTokenCount-m.PromptTokenCount),
		CachedInputTokens: min(max(m.CachedContentTokenCount, 0), m.PromptTokenCount)}
}

// geminiReplies reads body as Gemini's: one generateContent reply, or the array of them that a
// streamed reply (streamGenerateContent) is, listed; ok is false for a body that is neither, and
// rs then holds the responses of an array that did decode (encoding/json fills what fits).
func geminiReplies(body []byte) (rs []geminiReply, listed, ok bool) {
	t := bytes.TrimSpace(body)
	if len(t) > 0 && t[0] == '[' {
		return rs, true, json.Unmarshal(t, &rs) == nil
	}
	var r geminiReply
	if json.Unmarshal(t, &r) != nil {
		return nil, false, false
	}
	return []geminiReply{r}, false, true
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

// geminiEmpty says why rs, a Gemini reply without candidates or whose candidates hold no text
// (a thought part's is none), stopped: "no candidates", or its finish reason; "" for any other
// reply. A blocked one is geminiBlock's, read first.
func geminiEmpty(rs []geminiReply) string {
	for _, r := range rs {
		if r.Error != nil {
			return ""
		}
		for _, c := range r.Candidates {
			for _, p := range c.Content.Parts {
				if strings.TrimSpace(p.Text) != "" && !p.thought() {
					return ""
				}
			}
		}
	}
	switch f := geminiFinish(rs); {
	case len(rs) == 0:
		return ""
	case f != "":
		return "stop reason " + f
	}
	return "no candidates"
}

// geminiBlock is the block of a Gemini reply that the API's filters blocked, nil for none: the
// prompt (a promptFeedback.blockReason, and no candidates) or the reply (a candidate's
// finishReason that names a filter, its content then left out), in any response of a stream,
// which may have streamed text before the block. A reply that holds an error is none.
//
// Note: genai v0.15.1 calls a blocked prompt, or a reply stopped for SAFETY or RECITATION, an
// error (BlockedError) but knows no other reason; langchaingo then reads a reply stopped for
// another one (SPII, BLOCKLIST, ...) as an empty reply, or, streamed, as the text before the
// block, dropping the reason of a last response without content. The body says it whole.
func geminiBlock(rs []geminiReply) *BlockedError {
	var b *BlockedError
	for _, r := range rs {
		if r.Error != nil {
			return nil
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
	}
	return b
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
		}
		if json.Unmarshal(line, &r) == nil {
			thinking.WriteString(r.Message.Thinking)
		}
		// The last line's, whatever else that line holds (encoding/json fills what fits).
		out.stop, _ = jsonString(r.DoneReason)
	}
	out.reasoning = strings.TrimSpace(thinking.String())
	return out
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
