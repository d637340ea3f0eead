package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	gojson "github.com/goccy/go-json"
)

// marshal and unmarshal are the one seam to the JSON library; swapping it means editing these two.
// Text is written as is (no \u003c for "<"): records are data, not HTML.
func marshal(v any) ([]byte, error)   { return gojson.MarshalWithOption(v, gojson.DisableHTMLEscape()) }
func unmarshal(b []byte, v any) error { return gojson.Unmarshal(b, v) }

// Marshal encodes v with the record package's JSON library.
func Marshal(v any) ([]byte, error) { return marshal(v) }

// Unmarshal decodes b into v with the record package's JSON library.
func Unmarshal(b []byte, v any) error { return unmarshal(b, v) }

// MarshalJSON encodes the known fields in schema order followed by the unknown ones, sorted.
//
// An empty question and nil answers (a record read without them) are left out rather than
// written as "" and null: a stage that passes a record through must not add members to it, nor
// take them away, so a question read as "" is written as "". The
// known members come first, and every string before answers is escaped, so the first such
// member in the encoding is the record's own.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	b, err := marshal(plain(r))
	if err != nil {
		return nil, err
	}
	if r.Question == "" && !r.emptyQuestion {
		b = bytes.Replace(b, []byte(`,"question":""`), nil, 1)
	}
	if r.Answers == nil {
		b = bytes.Replace(b, []byte(`,"answers":null`), nil, 1)
	}
	if b, err = r.empty.restore(b); err != nil {
		return nil, err
	}
	return appendExtra(b, r.Extra, recordKeys)
}

// UnmarshalJSON decodes a record, keeping unknown fields in Extra.
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	var p plain
	src, extra, empty, err := decodeKnown(b, recordKeys, &p)
	if err != nil {
		return contextPath(src, judgmentPath(src, err))
	}
	if err := surrogateClash(src); err != nil {
		return err
	}
	if err := NullAnswer(src, p.Answers); err != nil {
		return err
	}
	if pr := p.Prediction; pr != nil {
		if err := NullText(src, pr.Text, pr.Error); err != nil {
			return err
		}
		if err := NullScore(src, pr.Score, pr.Error); err != nil {
			return err
		}
	}
	if err := NullJudgmentScore(src, p.Judgments); err != nil {
		return err
	}
	if err := nullValue(src, p.Scores, "scores", "a number"); err != nil {
		return err
	}
	if err := nullValue(src, p.ScoreErrors, "score_errors", "a string"); err != nil {
		return err
	}
	*r = Record(p)
	r.Extra = extra
	r.empty = empty
	r.emptyQuestion = p.Question == "" && hasQuestion(src)
	return nil
}

// MarshalJSON encodes the passage with its unknown fields.
func (p Passage) MarshalJSON() ([]byte, error) {
	type plain Passage
	return encodeWithExtra(plain(p), p.empty, p.Extra, passageKeys)
}

// UnmarshalJSON decodes a passage, keeping unknown fields in Extra.
func (p *Passage) UnmarshalJSON(b []byte) error {
	type plain Passage
	var q plain
	extra, empty, err := decodeWithExtra(b, passageKeys, "context", &q)
	if err != nil {
		return err
	}
	*p = Passage(q)
	p.Extra = extra
	p.empty = empty
	return nil
}

// MarshalJSON encodes the prediction with its unknown fields. An empty text read from a
// prediction without one is left out, not written as "", the empty answer, and a null one (a
// failed prediction's) is written as null again, after the members that have values. Supporting
// facts that are an empty list, not nil, are written as []: a model that named no fact, which
// HotpotQA's evaluation scores 0, where facts left out are none given, which qa-score leaves
// unscored.
func (p Prediction) MarshalJSON() ([]byte, error) {
	type plain Prediction
	b, err := marshal(plain(p))
	if err != nil {
		return nil, err
	}
	if p.Text == "" && p.noText { // text is the first member
		if rest, ok := bytes.CutPrefix(b, []byte(`{"text":""`)); ok {
			b = append([]byte{'{'}, bytes.TrimPrefix(rest, []byte(","))...)
		}
	}
	empty := p.empty
	if p.SupportingFacts != nil && len(p.SupportingFacts) == 0 && !slices.ContainsFunc(empty, func(e emptyMember) bool { return e.key == "supporting_facts" }) {
		empty = append(slices.Clip(empty), emptyMember{key: "supporting_facts", value: json.RawMessage("[]")})
	}
	if b, err = empty.restore(b); err != nil {
		return nil, err
	}
	return appendExtra(b, p.Extra, predictionKeys)
}

// UnmarshalJSON decodes a prediction, keeping unknown fields in Extra.
func (p *Prediction) UnmarshalJSON(b []byte) error {
	type plain Prediction
	var q plain
	extra, empty, err := decodeWithExtra(b, predictionKeys, "prediction", &q)
	if err != nil {
		if _, ok := errors.AsType[*factError](err); ok { // the decoder does not say which fact
			var v struct {
				Facts json.RawMessage `json:"supporting_facts"`
			}
			if unmarshal(b, &v) == nil {
				if ferr := FactsError("prediction.supporting_facts", v.Facts); ferr != nil {
					return ferr
				}
			}
		}
		return err
	}
	if err := counted(namedCount{"latency_ms", "milliseconds", float64(q.LatencyMS)}, namedCount{"attempts", "a count", float64(q.Attempts)}, costCount(q.CostUSD)); err != nil {
		return inField("prediction", err)
	}
	*p = Prediction(q)
	p.Extra = extra
	p.empty = empty
	if q.Text == "" { // only an empty text is looked at again
		switch t := bytes.TrimSpace(lastMember(b, "text")); {
		case t == nil:
			p.noText = true
		case string(t) == "null": // a failed prediction's (NullText refuses any other): none, kept in empty
			p.noText = true
		}
	}
	return nil
}

// MarshalJSON encodes the judgment with its unknown fields.
func (j Judgment) MarshalJSON() ([]byte, error) {
	type plain Judgment
	return encodeWithExtra(plain(j), j.empty, j.Extra, judgmentKeys)
}

// UnmarshalJSON decodes a judgment, keeping unknown fields in Extra.
func (j *Judgment) UnmarshalJSON(b []byte) error {
	type plain Judgment
	var q plain
	extra, empty, err := decodeWithExtra(b, judgmentKeys, "judgment", &q)
	if err != nil {
		return err
	}
	if err := counted(namedCount{"attempts", "a count", float64(q.Attempts)}, costCount(q.CostUSD)); err != nil {
		return inField("judgment", err)
	}
	*j = Judgment(q)
	j.Extra = extra
	j.empty = empty
	return nil
}

// MarshalJSON encodes the sequence with its unknown fields.
func (s Sequence) MarshalJSON() ([]byte, error) {
	type plain Sequence
	return encodeWithExtra(plain(s), s.empty, s.Extra, sequenceKeys)
}

// UnmarshalJSON decodes a sequence, keeping unknown fields in Extra.
func (s *Sequence) UnmarshalJSON(b []byte) error {
	type plain Sequence
	var q plain
	extra, empty, err := decodeWithExtra(b, sequenceKeys, "sequence", &q)
	if err != nil {
		return err
	}
	*s = Sequence(q)
	s.Extra = extra
	s.empty = empty
	return nil
}

// MarshalJSON encodes the usage's known counts (see Usage) with its unknown fields: a count the
// decoded object left out stays out, never written as 0.
func (u Usage) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, '{')
	if u.InputKnown() {
		b = strconv.AppendInt(append(b, `"input_tokens":`...), int64(u.InputTokens), 10)
	}
	if u.OutputKnown() {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `"output_tokens":`...), int64(u.OutputTokens), 10)
	}
	if u.CachedInputTokens != 0 {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `"cached_input_tokens":`...), int64(u.CachedInputTokens), 10)
	}
	if u.CacheWriteInputTokens != 0 {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `"cache_write_input_tokens":`...), int64(u.CacheWriteInputTokens), 10)
	}
	return appendExtra(append(b, '}'), u.Extra, usageKeys)
}

// UnmarshalJSON decodes a usage, keeping unknown fields in Extra and noting the counts left out
// (or null): unknown, not 0. Only a count that decoded to 0 is looked at again.
//
// Note: decoding the counts into *int told a count left out from one given without looking
// again, but cost every record with a usage two allocations more (4% more in BenchmarkReader).
func (u *Usage) UnmarshalJSON(b []byte) error {
	type plain Usage
	var q plain
	extra, _, err := decodeWithExtra(b, usageKeys, "usage", &q) // a null count stays out (see Usage)
	if err != nil {
		return err
	}
	if err := counted(namedCount{"input_tokens", "a count", float64(q.InputTokens)}, namedCount{"output_tokens", "a count", float64(q.OutputTokens)}, namedCount{"cached_input_tokens", "a count", float64(q.CachedInputTokens)},
		namedCount{"cache_write_input_tokens", "a count", float64(q.CacheWriteInputTokens)}); err != nil {
		return inField("usage", err)
	}
	*u = Usage(q)
	u.Extra = extra
	if u.InputTokens == 0 && !givenCount(b, "input_tokens") {
		u.unknown |= unknownInput
	}
	if u.OutputTokens == 0 && !givenCount(b, "output_tokens") {
		u.unknown |= unknownOutput
	}
	return nil
}

// costCount is a cost in US dollars as counted checks it; an unknown cost (nil) is 0.
func costCount(c *float64) namedCount {
	v := 0.0
	if c != nil {
		v = *c
	}
	return namedCount{"cost_usd", "US dollars", v}
}

// givenCount reports whether the encoded usage b gives a count under key: its last such member
// is there and not null, as the decoder reads it.
func givenCount(b []byte, key string) bool {
	v := lastMember(b, key)
	return v != nil && Kind(v) != "null"
}

// MarshalJSON encodes the batch with its unknown fields.
func (b Batch) MarshalJSON() ([]byte, error) {
	type plain Batch
	return encodeWithExtra(plain(b), b.empty, b.Extra, batchKeys)
}

// UnmarshalJSON decodes a batch, keeping unknown fields in Extra.
func (b *Batch) UnmarshalJSON(data []byte) error {
	type plain Batch
	var q plain
	extra, empty, err := decodeWithExtra(data, batchKeys, "batch", &q)
	if err != nil {
		return err
	}
	*b = Batch(q)
	b.Extra = extra
	b.empty = empty
	return nil
}
