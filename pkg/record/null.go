package record

// This file refuses a null that the decoder would read as an empty value (see codec.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// hasQuestion reports whether the record encoded in b has a question member (of any value).
func hasQuestion(b []byte) bool {
	var v struct {
		Question *json.RawMessage `json:"question"`
	}
	return unmarshal(b, &v) == nil && v.Question != nil
}

// hasStringID reports whether the object b has a member "id", its key exactly so as the record's
// decoder reads it ("Id" is another member, kept in Extra), whose value, the last one's, is a
// string: a record whose id is "" has one, one without an id or with null there has none.
func hasStringID(b []byte) bool {
	str := false
	_ = walkMembers(b, func(q []byte, escaped bool, _, vStart, _ int) error {
		if k, err := decodeKey(q, escaped); err == nil && k == "id" {
			str = b[vStart] == '"'
		}
		return nil
	})
	return str
}

// NullAnswer returns an error naming the first null among the answers of the record encoded in
// b, given the answers b decoded to, or nil. The decoder reads a null answer as "", the answer of
// an unanswerable question, which would turn a missing gold answer into a question to decline
// without a word. Only a record with an empty answer is looked at again.
func NullAnswer(b []byte, answers []string) error {
	if !slices.Contains(answers, "") {
		return nil
	}
	var v struct {
		Answers []*string `json:"answers"`
	}
	if unmarshal(b, &v) != nil {
		return nil
	}
	for i, a := range v.Answers {
		if a == nil {
			return fmt.Errorf(`answers[%d]: want a string, got null (an unanswerable question's answer is "")`, i)
		}
	}
	return nil
}

// NullText returns an error when the record encoded in b has a prediction whose text is null or
// missing and which carries no error, given the text and error its prediction decoded to; else
// nil. The decoder reads a null or missing text as "", the empty answer, which SQuAD v2's rules
// score as a right "no answer" to an unanswerable question: a prediction a script wrote as None
// or left without a text (a generation that failed) would be credited as declining, without a
// word. A prediction without a text that carries a metric's other input is kept (textOptional).
// Only a prediction with an empty text and no error is looked at again.
func NullText(b []byte, text, errMsg string) error {
	if text != "" || errMsg != "" {
		return nil
	}
	pred := lastMember(b, "prediction")
	switch t := lastMember(pred, "text"); {
	case string(bytes.TrimSpace(t)) == "null":
		return errors.New(`prediction.text: want a string, got null (a prediction that failed carries an error; an empty answer is "")`)
	case t == nil && Kind(pred) == "an object" && !textOptional(pred):
		return errors.New(`prediction.text: missing (a prediction that failed carries an error; an empty answer is "")`)
	}
	return nil
}

// textOptional reports whether pred, an encoded prediction without a text, carries what a metric
// reads in place of a text: a positive-class score (auc, pn, pairwise_acc, mrr, map), the loss
// and tokens perplexity reads, the members qa-score's --score-field, --loss-field and
// --tokens-field name by default, or HotpotQA's supporting facts (sp_em, sp_f1), which its
// official prediction file may give for a question it gives no answer for. A classifier's or a
// language model's scores are no answer declined, nor are facts alone: such a prediction has no
// text (HasText), and the metrics of an answer leave it out.
//
// Note: refusing every prediction without a text but a failed one would be simpler, but would
// turn away score-only ranking and perplexity files that the metrics reading them take as they
// are; whether such a shape is meant as an answer is not ours to say, so it stays valid.
func textOptional(pred []byte) bool {
	for _, k := range []string{"score", "loss", "tokens", "supporting_facts"} {
		if v := lastMember(pred, k); v != nil && Kind(v) != "null" {
			return true
		}
	}
	return false
}

// NullScore returns an error when the record encoded in b has a prediction whose score is null
// and which carries no error, given the score and error its prediction decoded to; else nil.
// The decoder reads a null score as no score, so a record whose classifier wrote None (pandas
// writes a NaN so) would leave auc, pn, pairwise_acc, mrr and map without a word; a prediction
// without a score leaves the member out. Beside an error it is a failed prediction's, which no
// metric reads. Only a line that holds "null" and a prediction without a score or an error is
// looked at again: most predictions have no score, and walking every line's members cost more
// than finding no "null" in it. As for the text, the last prediction member and its last score
// member are the ones read.
func NullScore(b []byte, score *float64, errMsg string) error {
	if score != nil || errMsg != "" || !bytes.Contains(b, []byte("null")) {
		return nil
	}
	if s := lastMember(lastMember(b, "prediction"), "score"); string(bytes.TrimSpace(s)) == "null" {
		return errors.New(`prediction.score: want a number, got null (a prediction without a score leaves the member out)`)
	}
	return nil
}

// NullJudgmentScore returns an error naming the first (in sorted order) judgment of the record
// encoded in b whose score is null and which carries no error, given the judgments b decoded to;
// else nil. The decoder reads a null score as no score, so judge_score would leave the record out
// and qa-learncurve read the judge's raw reply instead, without a word, where a judge's score of
// None (pandas: NaN) is a fault of the file; a judgment without a score leaves the member out.
// As for a prediction's score (NullScore), only a line that holds "null" and a judgment without
// a score or an error is looked at again, and the last members are the ones read.
func NullJudgmentScore(b []byte, judgments map[string]*Judgment) error {
	if len(judgments) == 0 || !bytes.Contains(b, []byte("null")) {
		return nil
	}
	var js []byte
	for _, name := range slices.Sorted(maps.Keys(judgments)) {
		if j := judgments[name]; j == nil || j.Score != nil || j.Error != "" {
			continue
		}
		if js == nil {
			js = lastMember(b, "judgments")
		}
		if s := lastMember(lastMember(js, name), "score"); string(bytes.TrimSpace(s)) == "null" {
			return fmt.Errorf(`judgments.%s.score: want a number, got null (a judgment without a score leaves the member out)`, name)
		}
	}
	return nil
}

// nullValue returns an error naming the first null among the values of the record's object
// member (scores, score_errors) encoded in b, or nil. The decoder reads a null there as the zero
// value (a null score, what pandas writes for a NaN, as 0; a null message as ""), which a stage
// passing the record on would then write as a value: only when vals, what b's member decoded to,
// holds a zero value is the member's own encoding looked at again.
//
// Note: it decoded the whole of b into a map to find the member, which cost a record with a score
// of 0 (a wrong answer's em) two fifths more time and 42 allocations more than another.
func nullValue[V comparable](b []byte, vals map[string]V, member, want string) error {
	var zero V
	for _, v := range vals {
		if v == zero {
			return NullMember(lastMember(b, member), member, want)
		}
	}
	return nil
}

// NullMember returns an error naming the first (in sorted order) key of obj, the encoded object
// of a record's member named member, whose value is null where want was wanted; nil when there is
// none, or when obj is no object.
func NullMember(obj []byte, member, want string) error {
	nulls := false
	err := walkMembers(obj, func(_ []byte, _ bool, _, vStart, vEnd int) error {
		nulls = nulls || string(obj[vStart:vEnd]) == "null"
		return nil
	})
	if err == nil && !nulls {
		return nil // the usual case, a score of 0, read without decoding the object
	}
	var vals map[string]json.RawMessage
	if unmarshal(obj, &vals) != nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		if string(bytes.TrimSpace(vals[k])) == "null" {
			return fmt.Errorf("%s.%s: want %s, got null", member, k, want)
		}
	}
	return nil
}
