package model

// This file reads what langchaingo drops from a Gemini reply body (see body.go).

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// readGemini reads a Gemini reply: one generateContent reply, or the JSON array of them that a
// streamed reply is (streamGenerateContent, which genai asks for when a request has a system
// message or several turns):
//   - blocked: a reply the API's filters blocked (geminiBlock);
//   - empty: one without candidates, or whose candidates hold no text (geminiEmpty);
//   - stop: the finish reason as the API names it (geminiFinish);
//   - usage: that of the last response with a usageMetadata, which holds the running totals;
//     geminiUsage is set for any reply that decodes, streamed or not, as genai v0.15.1 merges a
//     stream keeping the first response's usage ("TODO: Take the last UsageMetadata"), the count
//     of the first few tokens or of the prompt alone, and drops thoughtsTokenCount, which a
//     reply without a totalTokenCount (a proxy's) counts a thinking model's thoughts in alone.
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
	rs, ok := geminiReplies(body)
	var out reply
	for _, r := range rs {
		if m := r.UsageMetadata; m != nil {
			out.usage, out.geminiUsage = m.usage(), ok
		}
	}
	out.blocked = geminiBlock(rs)
	if ok {
		out.stop = geminiFinish(rs)
		out.empty = geminiEmpty(rs)
		out.answer, out.reasoning, out.thoughts = geminiAnswer(rs)
		out.textPart = geminiTextPart(rs)
		if out.answer != nil {
			out.answer.stop = out.stop
		}
	}
	return out
}

// geminiTextPart reports whether the first candidate of rs, a Gemini reply (geminiReplies), has a
// part that is no thought in any of its responses: where the SDKs read the text, "" or not.
func geminiTextPart(rs []geminiReply) bool {
	for _, r := range rs {
		if len(r.Candidates) == 0 {
			continue
		}
		for _, p := range r.Candidates[0].Content.Parts {
			if !p.thought() {
				return true
			}
		}
	}
	return false
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
	PromptTokenCount, CandidatesTokenCount, TotalTokenCount bodyCount
	ThoughtsTokenCount                                      bodyCount // a thinking model's, apart from the candidates'
	CachedContentTokenCount                                 bodyCount // of the prompt's
	ToolUsePromptTokenCount                                 bodyCount // a tool's results, read as prompt: input, apart from the prompt's
}

// usage is m as a record.Usage: a thinking model's thoughts, counted apart from the candidates
// (thoughtsTokenCount, and in the total), are billed as output; a proxy that leaves out the total
// leaves them counted still. The tokens of a tool's results (toolUsePromptTokenCount, in the
// total too) are input, not the output the total less the prompt would make them. A count that
// is none makes it unknown.
func (m *geminiUsage) usage() record.Usage {
	if !counts(m.PromptTokenCount, m.CandidatesTokenCount, m.TotalTokenCount, m.ThoughtsTokenCount, m.CachedContentTokenCount, m.ToolUsePromptTokenCount) {
		return record.Usage{}
	}
	in := int(m.PromptTokenCount + m.ToolUsePromptTokenCount)
	out := max(int(m.CandidatesTokenCount+m.ThoughtsTokenCount), int(m.TotalTokenCount)-in)
	return record.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: min(int(m.CachedContentTokenCount), in)}
}

// geminiReplies reads body as Gemini's: one generateContent reply, or the array of them that a
// streamed reply (streamGenerateContent) is; ok is false for a body that is neither, and rs then
// holds the responses of an array that did decode (encoding/json fills what fits).
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
				if !blank(p.Text) && !p.thought() {
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
