// Package record defines the one record schema that every qapipe stage reads and writes, and
// streams records as JSON Lines.
//
// A record is one JSON object per line. Each stage owns the fields it writes and passes every other
// field through untouched: fields this package does not know are kept verbatim (as raw JSON) and
// written back out, so stages compose in any order and a file written by a newer stage survives an
// older one. A known field read with an empty value ("type": "", "meta": {}, null), which the
// encoder would leave out, is written again as it came, so that passing a record through takes
// no member away.
//
// A Reader reads records one line at a time in bounded memory (lines up to DefaultMaxLine, or
// SetMaxLine's limit). A line it cannot take (no JSON, no record, not UTF-8, too long, cut short)
// is a *Error naming its file, line and id, after which reading goes on with the next line; any
// other error is the underlying reader's and ends the stream. A Writer buffers its lines and
// keeps its first error: a record it refuses stops the stream, so check Write's error, or at
// least Flush's. A Reader is for one goroutine; so is a Writer, but for FlushWhenIdle's flushes.
//
// Note: unknown fields are kept as json.RawMessage rather than decoded into map[string]any so that
// numbers and strings survive byte for byte (a float64 round trip would change 1e400 or 0.10).
package record

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// SchemaVersion is the version written into the schema field of every record.
const SchemaVersion = 1

// Record is one question with everything the pipeline has learnt about it.
type Record struct {
	Schema   int       `json:"schema"`
	ID       string    `json:"id"`
	Dataset  string    `json:"dataset,omitempty"`
	Split    string    `json:"split,omitempty"`
	Lang     string    `json:"lang,omitempty"`
	Type     string    `json:"type,omitempty"`
	Question string    `json:"question"`
	Turns    []string  `json:"turns,omitempty"`
	Answers  []string  `json:"answers"`
	Rubric   string    `json:"rubric,omitempty"`
	Context  []Passage `json:"context,omitempty"`
	Sequence *Sequence `json:"sequence,omitempty"`
	// Meta holds dataset-specific facts kept verbatim (level, evidence, question_date, …).
	Meta map[string]json.RawMessage `json:"meta,omitempty"`

	Prediction *Prediction          `json:"prediction,omitempty"`
	Judgments  map[string]*Judgment `json:"judgments,omitempty"`
	// Scores holds qa-score's scores by metric name. A null among them is a bad line, not a 0;
	// a scores member given twice is read from the last alone, as qa-score reads it, and so is
	// score_errors.
	Scores map[string]float64 `json:"scores,omitempty"`
	// ScoreErrors says, per metric name, why qa-score did not compute a metric it was asked for
	// and that applies to the record (a failed embedding call, a field the metric reads that
	// cannot be read): a metric missing from Scores with no entry here does not apply.
	ScoreErrors map[string]string `json:"score_errors,omitempty"`

	// Extra holds the top-level fields this schema does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`

	// emptyQuestion is set when the record was decoded from a line that has "question":"", so
	// that encoding it again keeps the member a record built without a question leaves out.
	emptyQuestion bool
	// empty holds the members decoded with an empty value ("type": "", "meta": {}), written
	// again where the encoding would leave them out (see emptyMembers).
	empty emptyMembers
}

// Passage is one piece of context: a paragraph, a conversation session, a document.
type Passage struct {
	Title     string   `json:"title,omitempty"`
	Date      string   `json:"date,omitempty"`
	Text      string   `json:"text"`
	Sentences []string `json:"sentences,omitempty"`
	// Extra holds fields this schema does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
	// empty holds the members decoded with an empty value, written again (see Record).
	empty emptyMembers
}

// Sequence places a record in a sequential benchmark: sequence id and 1-based position.
type Sequence struct {
	ID       string `json:"id"`
	Position int    `json:"position"`
	// Extra holds fields this schema does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
	// empty holds the members decoded with an empty value, written again (see Record).
	empty emptyMembers
}

// Usage counts the tokens of one model call (or the sum over its attempts). A count is known
// unless the usage was decoded from an object without it (or with it null): such a count reads
// as 0 but is unknown, not free, and is left out when the usage is written again. A Usage built
// in code (what a model call reports) has both counts known, a 0 included.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// CachedInputTokens counts those of InputTokens that the provider served from its prompt
	// cache, which it bills at a lower rate: OpenAI's prompt_tokens_details.cached_tokens, the
	// Gemini API's cachedContentTokenCount, Anthropic's cache_read_input_tokens (which Anthropic
	// counts apart from its input_tokens, and InputTokens holds). It is 0, and left out, when the
	// reply reports none.
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
	// CacheWriteInputTokens counts those of InputTokens that the provider wrote to its prompt
	// cache, which it bills above the input rate: Anthropic's cache_creation_input_tokens (counted
	// apart from its input_tokens too, and billed 1.25 times the input rate). It is 0, and left
	// out, when the reply reports none.
	CacheWriteInputTokens int `json:"cache_write_input_tokens,omitempty"`
	// Extra holds fields this schema does not know, verbatim (a provider's further counts, say).
	Extra map[string]json.RawMessage `json:"-"`

	// unknown holds the counts the decoded object left out (unknownInput, unknownOutput).
	unknown uint8
}

// The bits of Usage.unknown.
const (
	unknownInput uint8 = 1 << iota
	unknownOutput
)

// IsZero reports whether u counts nothing and carries nothing else.
func (u Usage) IsZero() bool {
	return u.InputTokens == 0 && u.OutputTokens == 0 && len(u.Extra) == 0
}

// Known reports whether both of u's counts are known: none was left out of the object u was
// decoded from. A cost or a total over u's counts is only as known as they are.
func (u Usage) Known() bool { return u.InputKnown() && u.OutputKnown() }

// InputKnown reports whether u's input count is known (see Usage).
func (u Usage) InputKnown() bool { return u.unknown&unknownInput == 0 || u.InputTokens != 0 }

// OutputKnown reports whether u's output count is known (see Usage).
func (u Usage) OutputKnown() bool { return u.unknown&unknownOutput == 0 || u.OutputTokens != 0 }

// Prediction is the answer a model (or a baseline) gave, with what it cost.
type Prediction struct {
	Text string `json:"text"`
	// Cut says where the reply the prediction was read from stopped before its end:
	// CutMaxTokens or CutContextWindow, "" when it came whole.
	Cut      string `json:"cut,omitempty"`
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	Usage    *Usage `json:"usage,omitempty"`
	// CostUSD is nil when no price is known for the model (unknown is not free).
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	LatencyMS    int64    `json:"latency_ms,omitempty"`
	Attempts     int      `json:"attempts,omitempty"`
	Cached       bool     `json:"cached,omitempty"`
	Error        string   `json:"error,omitempty"`
	PromptSHA256 string   `json:"prompt_sha256,omitempty"`
	// Score is an optional probability or score for the positive class (classification metrics).
	Score *float64 `json:"score,omitempty"`
	// SupportingFacts are predicted [title, sentence index] pairs (HotpotQA).
	SupportingFacts []Fact `json:"supporting_facts,omitempty"`
	// Notes are the notes a model took before answering, one per piece of context it was shown
	// (LongMemEval's con-separate reading: one per history block, session, turn or round, in the
	// order they were asked for).
	Notes []string `json:"notes,omitempty"`
	// Reasoning is the thinking of a reasoning model that answered: the part of its reply's
	// text before "</think>", taken out of Text, or what its server sent apart from the text
	// (reasoning_content).
	Reasoning string `json:"reasoning,omitempty"`
	// Batch is set when the question was asked in one call with others (LoCoMo's batched QA).
	Batch *Batch `json:"batch,omitempty"`
	// Extra holds fields this schema does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
	// empty holds the members decoded with an empty value, written again (see Record).
	empty emptyMembers

	// noText is set when the prediction was decoded from an object without a text member (a
	// failed one, or a score or facts alone: see NullText) or ClearText took the text away, so
	// that encoding it again does not add the
	// empty answer "" that it never gave.
	noText bool
}

// HasText reports whether p gives an answer text, the empty answer "" included: it was not
// decoded from an object without a text member (a failed prediction, or one that carries a score,
// a loss and tokens or supporting facts alone) nor made so by ClearText. A prediction built in Go
// has one, Text, whatever its value.
func (p *Prediction) HasText() bool { return p.Text != "" || !p.noText }

// ClearText takes p's answer text away: Text is emptied, HasText reports false and p is encoded
// without a text member, as one that gives supporting facts, a score, or a loss and tokens alone,
// and no answer. Setting Text to a non-empty string afterwards gives it one again.
func (p *Prediction) ClearText() { p.Text, p.noText = "", true }

// The values of a prediction's or a judgment's cut: where the model's reply stopped before its
// end. A reply so cut is kept as the benchmarks' scripts keep it (its text the answer, or the
// verdict when it still reads as one), and the member says which ones were, to look at or to ask
// again with a larger max_tokens.
const (
	// CutMaxTokens: the reply stopped at the call's max_tokens (OpenAI's and vLLM's finish_reason
	// "length", Anthropic's stop_reason "max_tokens", Gemini's finishReason MAX_TOKENS), or, when
	// the call sent none, at the server's own limit. A larger max_tokens lets it finish.
	CutMaxTokens = "max_tokens"
	// CutContextWindow: the reply stopped as the prompt and the reply filled the model's context
	// window (Anthropic's stop_reason model_context_window_exceeded). A larger max_tokens takes
	// it no further; a shorter prompt does.
	CutContextWindow = "context_window"
)

// Batch places a prediction in the call it shared with other records' questions. The call's
// usage, cost_usd and latency_ms are on the prediction of the record named First alone, so that
// sums over records count the call once; the others carry its prompt_sha256, attempts, cached
// flag and cut.
type Batch struct {
	First string `json:"first"` // the id of the record whose prediction carries the call's usage and cost
	Index int    `json:"index"` // the question's number in the call's prompt, from 0
	Size  int    `json:"size"`  // the questions asked in the call
	// Extra holds fields this schema does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
	// empty holds the members decoded with an empty value, written again (see Record).
	empty emptyMembers
}

// Fact is a HotpotQA supporting fact, written as the JSON pair [title, sentence index].
type Fact struct {
	Title    string
	Sentence int
}

// Judgment is one judge's verdict on a prediction. Score is nil when the judge failed: a failure
// is an Error, never a zero.
type Judgment struct {
	Score        *float64 `json:"score,omitempty"`
	Label        string   `json:"label,omitempty"`
	Mode         string   `json:"mode,omitempty"`
	Model        string   `json:"model,omitempty"`
	PromptSHA256 string   `json:"prompt_sha256,omitempty"`
	Raw          string   `json:"raw,omitempty"`
	// Reasoning is the verdict's own reasoning (MAGMA's JSON "reasoning", a rule's why).
	Reasoning string `json:"reasoning,omitempty"`
	// Thinking is the judge model's thinking on the reply Raw keeps: what its server sent apart
	// from the text (reasoning_content, Claude's thinking blocks, …) and what --think strip took
	// out of the text, as a prediction's reasoning holds a model's.
	Thinking string `json:"thinking,omitempty"`
	// Cut says where the reply the verdict was read from stopped before its end, as a
	// prediction's does: CutMaxTokens or CutContextWindow, "" when it came whole.
	Cut      string   `json:"cut,omitempty"`
	Usage    *Usage   `json:"usage,omitempty"`
	CostUSD  *float64 `json:"cost_usd,omitempty"`
	Attempts int      `json:"attempts,omitempty"`
	Cached   bool     `json:"cached,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Extra holds fields this schema does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
	// empty holds the members decoded with an empty value, written again (see Record).
	empty emptyMembers
}

// ScoreError returns an error when the judgment j, under name in a record's judgments, has a
// score outside 0 to 1 (the 5 of a 1-5 rubric, -1, 1.5, which a hand-made file can hold; qa-judge
// holds the scores it reads to that range); else nil, for a nil j or one without a score too. It is
// no decoding error: qa-learncurve takes such a score as EvaLearn's script takes an answer_score,
// where qa-score's judge_score and qa-judge agree refuse it.
func (j *Judgment) ScoreError(name string) error {
	if j == nil || j.Score == nil || *j.Score >= 0 && *j.Score <= 1 {
		return nil
	}
	return fmt.Errorf("judgments.%s.score: want a score from 0 to 1, got %s", name, strconv.FormatFloat(*j.Score, 'g', -1, 64))
}

// ScoreErrorJudgment returns the name of the judgment that msg, an error ScoreError gave (as
// qa-score keeps it in a record's score_errors), names, and whether msg is in that form: a name
// with dots or ".score: " in it is read whole, as the score after the last ".score: " holds
// neither.
func ScoreErrorJudgment(msg string) (name string, ok bool) {
	rest, ok := strings.CutPrefix(msg, "judgments.")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, ".score: ")
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

// Failed reports whether the record carries a prediction error or any judgment error.
func (r *Record) Failed() bool {
	if r.Prediction != nil && r.Prediction.Error != "" {
		return true
	}
	for _, j := range r.Judgments {
		if j != nil && j.Error != "" {
			return true
		}
	}
	return false
}

// SetMeta stores v, encoded as JSON, under key in r.Meta.
func (r *Record) SetMeta(key string, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	if r.Meta == nil {
		r.Meta = make(map[string]json.RawMessage)
	}
	r.Meta[key] = b
	return nil
}

// MetaString returns the meta value under key if it is a JSON string: not for null, which the
// decoder would read as "" (a missing value, as pandas writes one, is no string).
func (r *Record) MetaString(key string) (string, bool) {
	raw, ok := r.Meta[key]
	if !ok || isNull(raw) {
		return "", false
	}
	var s string
	if unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// MetaValue decodes the meta value under key into v; it reports false when the key is absent.
func (r *Record) MetaValue(key string, v any) (bool, error) {
	raw, ok := r.Meta[key]
	if !ok {
		return false, nil
	}
	return true, unmarshal(raw, v)
}
