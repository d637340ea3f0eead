package record

// This file reads and writes HotpotQA's supporting facts (see codec.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// MarshalJSON writes the fact as [title, sentence].
func (f Fact) MarshalJSON() ([]byte, error) {
	t, err := marshal(f.Title)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "[%s,%d]", t, f.Sentence), nil
}

// UnmarshalJSON reads a fact from [title, sentence]. Its error is a *factError, which
// FactsError and a prediction's decoder put under the fact's path.
func (f *Fact) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := unmarshal(b, &pair); err != nil || pair == nil {
		return &factError{msg: "want a [title, sentence index] pair, got " + kindOf(b)}
	}
	if len(pair) != 2 {
		return &factError{msg: "want a [title, sentence index] pair, got a list of " + count(len(pair), "element", "elements")}
	}
	// null decodes into a string or an int as nothing, leaving "" or 0, which HotpotQA's
	// evaluation, comparing Python tuples, tells apart from None: it is no title or index.
	if err := unmarshal(pair[0], &f.Title); err != nil || isNull(pair[0]) {
		return &factError{at: "[0]", msg: "want a string, got " + kindOf(pair[0])}
	}
	if isNull(pair[1]) {
		return &factError{at: "[1]", msg: "want an integer, got " + kindOf(pair[1])}
	}
	if err := unmarshal(pair[1], &f.Sentence); err != nil {
		// An integral number written as a float (1.0, 1e0) is that index, as Python's tuples
		// compare it in HotpotQA's evaluation.
		var x float64
		switch err := unmarshal(pair[1], &x); {
		case err == nil && x == math.Trunc(x) && math.Abs(x) > 1<<53:
			// A whole number past what an int holds, or in a float's form past 2^53: it is an
			// integer, and the message says which ones are read.
			return &factError{at: "[1]", msg: "want an integer within 64 bits written in digits (within ±2^53 as a float), got " + kindOf(pair[1])}
		case err != nil || x != math.Trunc(x):
			return &factError{at: "[1]", msg: "want an integer, got " + kindOf(pair[1])}
		}
		f.Sentence = int(x)
	}
	return nil
}

// factError is a supporting fact that does not read: at is "" for the pair itself, "[0]" for its
// title, "[1]" for its sentence index; FactsError puts the list's path and index before it.
type factError struct{ at, msg string }

func (e *factError) Error() string {
	if e.at == "" {
		return e.msg
	}
	return e.at + ": " + e.msg
}

// FactsError returns the fault of raw, supporting facts found at path, when it is not a list of
// [title, sentence index] pairs, named by its path as the record reader names a field's
// ("meta.supporting_facts[2][1]: want an integer, got a string"); else nil.
func FactsError(path string, raw []byte) error {
	var elems []json.RawMessage
	if err := unmarshal(raw, &elems); err != nil {
		return fmt.Errorf("%s: want a list of [title, sentence index] pairs, got %s", path, kindOf(raw))
	}
	for i, e := range elems {
		var f Fact
		if err := unmarshal(e, &f); err != nil {
			if fe, ok := errors.AsType[*factError](err); ok {
				return fmt.Errorf("%s[%d]%s: %s", path, i, fe.at, fe.msg)
			}
			return fmt.Errorf("%s[%d]: %s", path, i, DescribeDecodeError(err))
		}
	}
	return nil
}

// kindOf is Kind, with a number's text: "the number 1.5", for a pair's sentence index.
func kindOf(b []byte) string {
	if k := Kind(b); k != "a number" {
		return k
	}
	return "the number " + string(bytes.TrimSpace(b))
}
