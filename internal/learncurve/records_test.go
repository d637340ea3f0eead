package learncurve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestObserveFailed: a record whose prediction or EvaLearn judgment failed counts as wrong, as the
// run reports it, whatever score or raw reply the judgment holds.
func TestObserveFailed(t *testing.T) {
	one := 1.0
	tests := []struct {
		name      string
		predError string
		j         *record.Judgment
		want      bool
	}{
		{"scored", "", &record.Judgment{Score: &one}, true},
		{"scored, prediction failed", "empty answer: not passed to the judge", &record.Judgment{Score: &one}, false},
		{"scored, judgment failed", "", &record.Judgment{Score: &one, Error: "judge call: budget spent"}, false},
		{"cut in its thinking", "", &record.Judgment{Raw: "<think>\nAt first {\"answer_score\": 1}",
			Error: "judge call: openai r1: reply cut in its thinking: no </think>, so no answer"}, false},
		// --think keep read the whole reply: the "```json" of its thinking made EvaLearn's rule read
		// that block, which is no JSON; the text after the thinking has a score.
		{"unparsable under keep", "", &record.Judgment{Raw: "<think>\nI will write ```json {score} ```.\n</think>\n\n{\"answer_score\": 1}",
			Error: "unparsable judge reply: invalid JSON in the json block: expecting property name enclosed in double quotes at byte 1"}, false},
		{"raw, not failed", "", &record.Judgment{Raw: "<think>\nhm\n</think>\n\n{\"answer_score\": 1}"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &record.Record{ID: "r", Sequence: &record.Sequence{ID: "s", Position: 1},
				Prediction: &record.Prediction{Text: "42", Error: tt.predError},
				Judgments:  map[string]*record.Judgment{JudgeName: tt.j}}
			o, err := Observe(r)
			if err != nil {
				t.Fatalf("Observe: %v", err)
			}
			if o.Correct != tt.want {
				t.Errorf("Observe(%s).Correct = %v, want %v", tt.name, o.Correct, tt.want)
			}
		})
	}
}

// TestObserveUnread: a raw reply read for want of a score counts as wrong when EvaLearn's rule
// finds no score in it, and Unread says why, so that the run counts it; a reply that reads 0, an
// empty one (no verdict, counted apart) and a scored judgment leave Unread empty.
func TestObserveUnread(t *testing.T) {
	zero := 0.0
	tests := []struct {
		name   string
		j      *record.Judgment
		unread string
	}{
		{"no score", &record.Judgment{Raw: "The answer looks right."}, `no {"answer_score": N} in the reply`},
		{"string score", &record.Judgment{Raw: "```json\n{\"answer_score\": \"1\"}\n```"}, `"answer_score" is not a number or boolean, so it cannot be compared with 0`},
		{"no answer_score in the block", &record.Judgment{Raw: "```json\n{\"score\": 1}\n```"}, `no "answer_score" in the json block`},
		{"reads 0", &record.Judgment{Raw: `{"answer_score": 0}`}, ""},
		{"empty", &record.Judgment{Raw: " \n"}, ""},
		{"scored", &record.Judgment{Score: &zero, Raw: "no score here"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &record.Record{ID: "r", Sequence: &record.Sequence{ID: "s", Position: 1},
				Judgments: map[string]*record.Judgment{JudgeName: tt.j}}
			o, err := Observe(r)
			if err != nil {
				t.Fatalf("Observe: %v", err)
			}
			if o.Correct || o.Unread != tt.unread {
				t.Errorf("Observe(%s) = Correct %v, Unread %q; want false, %q", tt.name, o.Correct, o.Unread, tt.unread)
			}
		})
	}
}

// TestModelsWarning: answers of two models or more are named in a warning, up to maxNames
// of them ("20 or more"); one model, or none, gives none.
func TestModelsWarning(t *testing.T) {
	many := map[string]bool{}
	for i := range maxNames {
		many[fmt.Sprintf("m%02d", i)] = true
	}
	for _, tc := range []struct {
		models map[string]bool
		want   string // a part of the warning; "" for none
	}{
		{nil, ""},
		{map[string]bool{"a": true}, ""},
		{map[string]bool{"b": true, "a": true}, `answers of 2 models ("a", "b"), which the report pools`},
		{many, `answers of 20 or more models ("m00", "m01",`},
	} {
		got := modelsWarning(tc.models)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("modelsWarning(%v) = %q, want it to hold %q", tc.models, got, tc.want)
		}
	}
}

// TestObserveScoreAboveZero: a judgment's score counts the answer right when it is above 0, any
// amount above, as evaluate_metric.py's `binary_outcome = 1 if score > 0 else 0` counts it; 0 and
// below count it wrong. (A partial score such as 0.25 or 0.5 is right, not rounded or halved.)
func TestObserveScoreAboveZero(t *testing.T) {
	for _, tt := range []struct {
		score float64
		want  bool
	}{{1e-9, true}, {0.25, true}, {0.5, true}, {1, true}, {3, true}, {0, false}, {-0.5, false}} {
		r := &record.Record{ID: "r", Sequence: &record.Sequence{ID: "s", Position: 1},
			Judgments: map[string]*record.Judgment{JudgeName: {Score: &tt.score}}}
		o, err := Observe(r)
		if err != nil {
			t.Fatalf("Observe: %v", err)
		}
		if o.Correct != tt.want {
			t.Errorf("Observe(score %v).Correct = %v, want %v", tt.score, o.Correct, tt.want)
		}
	}
}
