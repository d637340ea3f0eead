package judge

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Verdict is a parsed judge reply.
type Verdict struct {
	Score     float64
	Label     string
	Reasoning string
}

// ErrUnparsable marks a judge reply that its protocol's parser cannot read.
var ErrUnparsable = errors.New("unparsable judge reply")

func unparsable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnparsable, fmt.Sprintf(format, args...))
}

// errEmptyReply is the error of a reply with no text but Python whitespace, in every protocol:
// its parser's own complaint ("invalid JSON: expecting value at byte 0", say) would read as that
// of a reply in prose.
var errEmptyReply = unparsable("empty reply")

// empty reports whether raw is empty once Python-stripped.
func empty(raw string) bool { return textnorm.Strip(raw) == "" }

// ParseYesNo applies LongMemEval's rule: the reply is stripped and lower-cased, and it is correct iff
// it contains "yes" anywhere (so "Yes.", "eyes" and "yesterday" all count). An empty reply is
// unparsable here (upstream would score it 0; a None reply crashes upstream). A reply with
// neither "yes" nor "no" in it (a refusal, say) scores 0 as upstream scores it, under the label
// LabelNeither, so that it can be counted.
func ParseYesNo(raw string) (Verdict, error) {
	s := textnorm.Lower(textnorm.Strip(raw))
	switch {
	case s == "":
		return Verdict{}, errEmptyReply
	case strings.Contains(s, "yes"):
		return Verdict{Score: 1, Label: "yes"}, nil
	case strings.Contains(s, "no"):
		return Verdict{Score: 0, Label: "no"}, nil
	}
	return Verdict{Score: 0, Label: LabelNeither}, nil
}

// LabelNeither labels a yes/no reply that says neither.
const LabelNeither = "neither"

// mem0's verdicts: its judge is asked for one of them, and its rule scores 1 for CORRECT alone.
const (
	mem0Correct = "CORRECT"
	mem0Wrong   = "WRONG"
)

// readsYesNo reports whether a judgment of mode was read by LongMemEval's yes/no rule
// (ParseYesNo), whose labels are "yes", "no" and LabelNeither.
func readsYesNo(mode string) bool {
	return mode == ModeLongMemEval || mode == ModeCustom+":"+FormatYesNo
}

// readsLabel reports whether a judgment of mode was read by mem0's rule (ParseMem0), whose label
// is the reply's own.
func readsLabel(mode string) bool { return mode == ModeMem0 || mode == ModeCustom+":"+FormatLabel }

// ParseMAGMA applies MAGMA's rule: json.loads of the whole reply (no fence stripping; NaN and
// Infinity allowed), score = float(obj["score"]) clamped with max(0.0, min(1.0, s)), so NaN and
// +Infinity give 1.0 and -Infinity 0.0. A reply that is not a JSON object, or whose "score" float()
// refuses, is unparsable (upstream raises); so is one with no "score", which upstream would score
// 0.0 without a word.
func ParseMAGMA(raw string) (Verdict, error) {
	if empty(raw) {
		return Verdict{}, errEmptyReply
	}
	obj, err := jsonObject(raw)
	if err != nil {
		return Verdict{}, err
	}
	score, ok := obj.Get("score")
	if !ok {
		return Verdict{}, unparsable(`no "score" key`)
	}
	s, err := score.Float()
	if err != nil {
		return Verdict{}, unparsable(`"score": %v`, err)
	}
	s = pyClamp01(s)
	v := Verdict{Score: s, Label: strconv.FormatFloat(s, 'g', -1, 64)}
	if r, ok := obj.Get("reasoning"); ok && r.Kind == python.Str {
		v.Reasoning = r.S
	}
	return v, nil
}

// pyClamp01 is Python's max(0.0, min(1.0, s)), NaN and -0.0 included.
func pyClamp01(s float64) float64 {
	if !(s < 1.0) { // min(1.0, s) keeps 1.0 unless s < 1.0 (false for NaN)
		s = 1.0
	}
	if !(s > 0.0) { // max(0.0, s) keeps 0.0 unless s > 0.0 (false for -0.0, which it turns into 0.0)
		s = 0.0
	}
	return s
}

// pyWS is Python's \s for str patterns (the str.isspace set).
const pyWS = `[\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

var mem0Fence = regexp.MustCompile("(?s)```(?:json)?" + pyWS + "*(.*?)" + pyWS + "*```")

// ParseMem0 applies mem0's rule: strip, take the first ```(json)? fence's body if any, json.loads,
// read "label"; the score is 1 iff the label is exactly "CORRECT". Invalid JSON or a missing label
// is unparsable (upstream raises); so is a label that is not a string, which upstream would score 0.
func ParseMem0(raw string) (Verdict, error) {
	s := textnorm.Strip(raw)
	if s == "" {
		return Verdict{}, errEmptyReply
	}
	if m := mem0Fence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	obj, err := jsonObject(s)
	if err != nil {
		return Verdict{}, err
	}
	label, ok := obj.Get("label")
	if !ok || label.Kind != python.Str {
		return Verdict{}, unparsable(`no string "label"`)
	}
	v := Verdict{Label: label.S}
	if label.S == mem0Correct {
		v.Score = 1
	}
	return v, nil
}

// jsonObject is json.loads(s), which must give a dict.
func jsonObject(s string) (python.Value, error) {
	v, err := python.Loads(s)
	if err != nil {
		return v, unparsable("invalid JSON: %v", err)
	}
	if v.Kind != python.Dict {
		return v, unparsable("JSON is not an object")
	}
	return v, nil
}
