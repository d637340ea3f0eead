package judge

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestParseYesNo(t *testing.T) {
	tests := []struct {
		raw   string
		want  float64
		label string
		bad   bool
	}{
		{"Yes.", 1, "yes", false}, {"yes, because", 1, "yes", false}, {" YES \n", 1, "yes", false},
		{"No.", 0, "no", false}, {"eyes", 1, "yes", false}, {"yesterday", 1, "yes", false}, {"no, not yes", 1, "yes", false},
		{"Not really", 0, "no", false}, {"The answer is no.", 0, "no", false}, {"N/A", 0, LabelNeither, false},
		{"I'm sorry, I can't help with that.", 0, LabelNeither, false},
		{"", 0, "", true}, {" \x1c\n", 0, "", true},
	}
	for _, tt := range tests {
		v, err := ParseYesNo(tt.raw)
		if (err != nil) != tt.bad || !tt.bad && (v.Score != tt.want || v.Label != tt.label) {
			t.Errorf("ParseYesNo(%q) = %v %q, %v, want %v %q (unparsable %v)", tt.raw, v.Score, v.Label, err, tt.want, tt.label, tt.bad)
		}
	}
}

func TestParseMAGMA(t *testing.T) {
	tests := []struct {
		raw    string
		want   float64
		reason string
		bad    bool
	}{
		{`{"score": 0.8, "reasoning": "close"}`, 0.8, "close", false},
		{`{"score": 1.7}`, 1, "", false},
		{`{"score": -0.2}`, 0, "", false},
		{`{"score": NaN}`, 1, "", false},
		{`{"score": Infinity}`, 1, "", false},
		{`{"score": -Infinity}`, 0, "", false},
		{`{"score": -0.0}`, 0, "", false}, // max(0.0, -0.0) is 0.0: the score and its label read 0, not -0
		{`{"score": "-0"}`, 0, "", false},
		{`{"score": "0.6"}`, 0.6, "", false},
		{`{"score": true}`, 1, "", false},
		{` {"score": 0} `, 0, "", false},
		{`{"reasoning": "NaN Infinity", "score": 0.4}`, 0.4, "NaN Infinity", false},
		{`{"score": "1_0"}`, 1, "", false}, // float() takes PEP 515 underscores
		{`{"score": "0.2_5"}`, 0.25, "", false},
		{`{"score": "\u0660.\u0665"}`, 0.5, "", false}, // and digits of any script
		{"{\"score\": \" 0.5\u3000\"}", 0.5, "", false},
		{`{"x": 1e400, "score": 0.5, "y": 1` + strings.Repeat("0", 400) + `}`, 0.5, "", false},
		{`{"score": 1e400}`, 1, "", false},
		{`{"score": 1` + strings.Repeat("0", 400) + `}`, 0, "", true}, // float(10**400) raises
		{`{"score": "\u001c0.5"}`, 0, "", true},                       // float() strips ASCII spaces only
		{`{"score": "1__0"}`, 0, "", true},
		{`{"score": "0x1"}`, 0, "", true},
		{`{"score": "--inf"}`, 0, "", true},
		{`{"score": "\u0130nf"}`, 0, "", true},          // İ is not I for float()
		{"```json\n{\"score\": 0.8}\n```", 0, "", true}, // no fence stripping upstream
		{`{"reasoning": "x"}`, 0, "", true},
		{`{"score": null}`, 0, "", true},
		{`{"score": "high"}`, 0, "", true},
		{`[0.5]`, 0, "", true},
		{`{"score": 0.5} trailing`, 0, "", true},
		{``, 0, "", true},
	}
	for _, tt := range tests {
		v, err := ParseMAGMA(tt.raw)
		if (err != nil) != tt.bad {
			t.Errorf("ParseMAGMA(%q) error = %v, want unparsable %v", tt.raw, err, tt.bad)
			continue
		}
		if err != nil && !errors.Is(err, ErrUnparsable) {
			t.Errorf("ParseMAGMA(%q) error = %v, want ErrUnparsable", tt.raw, err)
		}
		// The score bit for bit (-0 is not 0 in the record), and the label that writes it.
		label := strconv.FormatFloat(tt.want, 'g', -1, 64)
		if !tt.bad && (math.Float64bits(v.Score) != math.Float64bits(tt.want) || v.Label != label || v.Reasoning != tt.reason) {
			t.Errorf("ParseMAGMA(%q) = %v %q %q, want %v %q %q", tt.raw, v.Score, v.Label, v.Reasoning, tt.want, label, tt.reason)
		}
	}
}

func TestParseMem0(t *testing.T) {
	tests := []struct {
		raw   string
		want  float64
		label string
		bad   bool
	}{
		{`{"label": "CORRECT"}`, 1, "CORRECT", false},
		{`{"label": "WRONG"}`, 0, "WRONG", false},
		{`{"label": "correct"}`, 0, "correct", false}, // exact, case-sensitive
		{"```json\n{\"label\": \"CORRECT\"}\n```", 1, "CORRECT", false},
		{"Reasoning first.\n```\n{\"label\": \"WRONG\"}\n```", 0, "WRONG", false},
		{"  {\"label\": \"CORRECT\"}\n", 1, "CORRECT", false},
		// re.search takes the first fence, and its lazy body ends at the first closing ```.
		{"```json\n{\"label\": \"WRONG\"}\n```\nOn reflection:\n```json\n{\"label\": \"CORRECT\"}\n```", 0, "WRONG", false},
		{"```json\u3000{\"label\": \"CORRECT\"}\u3000```", 1, "CORRECT", false}, // Python \s is Unicode
		{`{"label": "CORRECT", "n": -1e400, "m": 1` + strings.Repeat("0", 400) + `}`, 1, "CORRECT", false},
		{"The answer is CORRECT", 0, "", true},
		{`{"verdict": "CORRECT"}`, 0, "", true},
		{`{"label": 1}`, 0, "", true},
		{`["CORRECT"]`, 0, "", true},
	}
	for _, tt := range tests {
		v, err := ParseMem0(tt.raw)
		if (err != nil) != tt.bad || !tt.bad && (v.Score != tt.want || v.Label != tt.label) {
			t.Errorf("ParseMem0(%q) = %v %q, %v, want %v %q (unparsable %v)", tt.raw, v.Score, v.Label, err, tt.want, tt.label, tt.bad)
		}
	}
}

func TestPyClamp(t *testing.T) {
	// Compared bit for bit: -0.0 == 0.0, but max(0.0, -0.0) is 0.0, and a judgment's score -0
	// would be written "score": -0, label "-0".
	for _, tt := range []struct{ in, want float64 }{{math.NaN(), 1}, {math.Inf(1), 1}, {math.Inf(-1), 0}, {0.3, 0.3},
		{math.Copysign(0, -1), 0}, {-0.2, 0}, {0, 0}, {1, 1}, {math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64}} {
		if got := pyClamp01(tt.in); math.Float64bits(got) != math.Float64bits(tt.want) {
			t.Errorf("pyClamp01(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"```json\n{\"answer_score\": 1}\n```", `{"score": NaN}`, `{"label": "CORRECT"}`, "yes", "\"NaN\\\"", "{\"answer_score\":\u0661}"} {
		f.Add(s)
	}
	replies, _ := vectors.Read[struct{ Reply string }](f, "testdata/random_replies.jsonl", "")
	for _, r := range vectors.Spread(replies, 250) {
		f.Add(r.Reply)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// MAGMA: a score in [0,1], never NaN nor -0 (Python's max(0.0, ...) gives 0.0), labelled by
		// its own figure.
		v, err := ParseMAGMA(raw)
		switch {
		case err != nil && !errors.Is(err, ErrUnparsable):
			t.Fatalf("ParseMAGMA(%q) error %v", raw, err)
		case err == nil && (!(v.Score >= 0 && v.Score <= 1) || math.Signbit(v.Score)):
			t.Fatalf("ParseMAGMA(%q) = %v, outside [0,1]", raw, v.Score)
		case err == nil && v.Label != strconv.FormatFloat(v.Score, 'g', -1, 64):
			t.Fatalf("ParseMAGMA(%q) = %v labelled %q", raw, v.Score, v.Label)
		case err != nil && empty(raw) != (err == errEmptyReply):
			t.Fatalf("ParseMAGMA(%q) error %v", raw, err)
		}
		// mem0: 1 exactly for the label "CORRECT", else 0.
		v, err = ParseMem0(raw)
		switch {
		case err != nil && !errors.Is(err, ErrUnparsable):
			t.Fatalf("ParseMem0(%q) error %v", raw, err)
		case err == nil && v.Score != map[bool]float64{true: 1}[v.Label == "CORRECT"] || math.Signbit(v.Score):
			t.Fatalf("ParseMem0(%q) = %v labelled %q", raw, v.Score, v.Label)
		case err != nil && empty(raw) != (err == errEmptyReply):
			t.Fatalf("ParseMem0(%q) error %v", raw, err)
		}
		// LongMemEval: unparsable only when empty; else 1 iff "yes" is in the lower-cased reply.
		v, err = ParseYesNo(raw)
		low := textnorm.Lower(raw)
		switch {
		case (err != nil) != empty(raw) || err != nil && err != errEmptyReply:
			t.Fatalf("ParseYesNo(%q) error %v", raw, err)
		case err == nil && v.Score != map[bool]float64{true: 1}[strings.Contains(low, "yes")]:
			t.Fatalf("ParseYesNo(%q) = %v, %q", raw, v.Score, v.Label)
		case err == nil && v.Score == 0 && (v.Label == "no") != strings.Contains(low, "no"):
			t.Fatalf("ParseYesNo(%q) = %v, %q", raw, v.Score, v.Label)
		}
	})
}

// TestParseRandom checks the reply parsers against random replies scored by the upstream parse
// expressions (scripts/random-judge-replies.py): the committed ones, or the file QA_JUDGE_REPLIES
// names. Where upstream raises the reply must be unparsable here. The three places where this
// package is stricter than upstream, on purpose, are checked to be exactly those: a MAGMA object
// with no "score" (upstream 0.0), a mem0 "label" that is not a string (upstream 0) and an empty
// LongMemEval reply (upstream 0).
func TestParseRandom(t *testing.T) {
	type vector struct {
		Reply                    string
		Mem0, MAGMA, LongMemEval any
	}
	vectors.Check(t, "testdata/random_replies.jsonl", "QA_JUDGE_REPLIES", func(c vector) string {
		for _, p := range []struct {
			name   string
			parse  func(string) (Verdict, error)
			want   any
			strict string // the error of the deliberate difference: upstream scores 0 there
		}{
			{"mem0", ParseMem0, c.Mem0, `no string "label"`},
			{"magma", ParseMAGMA, c.MAGMA, `no "score" key`},
			{"longmemeval", ParseYesNo, c.LongMemEval, "empty reply"},
		} {
			v, err := p.parse(c.Reply)
			var ok bool
			switch want := p.want.(type) {
			case string: // "error": upstream raises
				ok = err != nil
			case float64:
				ok = err == nil && math.Float64bits(v.Score) == math.Float64bits(want) || // -0 is not upstream's 0.0
					err != nil && want == 0 && p.strict != "" && strings.HasSuffix(err.Error(), p.strict)
			}
			if !ok {
				return fmt.Sprintf("%s(%q) = %v, %v; upstream %v", p.name, c.Reply, v.Score, err, p.want)
			}
		}
		return ""
	})
}

// TestEmptyReply: a reply with no text but Python whitespace is "empty reply" in every protocol,
// not the JSON parser's complaint, which reads as that of a reply in prose; a reply whose text
// is an empty fence or a lone "{" is not empty.
func TestEmptyReply(t *testing.T) {
	parsers := []struct {
		name  string
		parse func(string) (Verdict, error)
	}{{"yes/no", ParseYesNo}, {"MAGMA", ParseMAGMA}, {"mem0", ParseMem0}, {"EvaLearn", parseEvaLearnVerdict}}
	for _, p := range parsers {
		for _, tt := range []struct{ raw, want string }{
			{"", "unparsable judge reply: empty reply"},
			{" \n\t", "unparsable judge reply: empty reply"},
			{"\u3000\x1c\u2028", "unparsable judge reply: empty reply"},
			{"{", ""},
			{"```json\n```", ""},
		} {
			_, err := p.parse(tt.raw)
			if tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, ErrUnparsable)) {
				t.Errorf("%s(%q) error = %v, want %q", p.name, tt.raw, err, tt.want)
			}
			if tt.want == "" && err != nil && strings.Contains(err.Error(), "empty reply") {
				t.Errorf("%s(%q) error = %v, want no \"empty reply\"", p.name, tt.raw, err)
			}
		}
	}
}
