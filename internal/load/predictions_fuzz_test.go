package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// predictionsErr is the start of a parsePredictions error: the file's name, then, for
// LongMemEval's JSON Lines, the line at fault.
var predictionsErr = regexp.MustCompile(`^p\.json(:(\d+))?[: ]`)

// FuzzParsePredictions feeds arbitrary text to parsePredictions: no panic; an error names the
// file, and a line of it that holds text when it names one; a file that reads is one of the three
// formats, and what it holds, written out again in that format, reads back the same.
func FuzzParsePredictions(f *testing.F) {
	for _, s := range []string{
		`{"q1": "a", "q2": ""}`, `{}`, `{"q1": 3}`, `"a"`, `q1,a`, `{"q1": "a"} {"q2": "b"}`,
		`{"answer": {"a1": "yes"}, "sp": {"a1": [["T", 0], ["U", 1.0]], "a2": []}}`,
		`{"answer": {"a1": "no"}, "sp": null}`, `{"answer": {}, "sp": {"a1": [["T", null]]}}`,
		`{"answer": {"a1": "x"}, "sp": {"a1": null}}`, `{"answer": "x", "q": "y"}`,
		"{\"question_id\": \"e1\", \"hypothesis\": \"h\", \"autoeval_label\": {}}\n\n{\"question_id\": \"e2\", \"hypothesis\": \"\"}\n",
		`[{"question_id": "e1", "hypothesis": "h"}]`, "{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\r\n{\"question_id\": \"e2\"}\r\n",
		"{\"question_id\": \"e1\", \"hypothesis\": \"h\"}\n{\"question_id\": \"e1\", \"hypothesis\": \"i\"}\n",
		"{\n  \"question_id\": \"e1\",\n  \"hypothesis\": \"h\"\n}\n", `[1, {"question_id": 2}]`, "[] x",
		`{"q\u00e9": "\ud800", "\u0000": "\xff"}`, `{"q1": -0.0, "q2": 1E400, "q3": false}`,
		"{\"question_id\": \"e1\", \"hypothesis\": \"h\", \"autoeval_label\": {\"model\": \"gpt-4o-2024-08-06\", \"label\": true}}\n{\"question_id\": \"e2\", \"hypothesis\": \"i\", \"autoeval_label\": {\"model\": \"m\", \"label\": false, \"x\": 1}}\n",
		"{\"question_id\": \"e1\", \"hypothesis\": [1.50, null, {\"a\": true}]}\n{\"question_id\": \"e2\", \"hypothesis\": null}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePredictions("p.json", b)
		if err != nil {
			checkPredictionsErr(t, b, err)
			return
		}
		var again []byte
		switch p.Format {
		case "squad":
			again = marshalTexts(t, p)
		case "hotpotqa":
			again = marshalHotpotQA(t, p)
		case "longmemeval":
			again = marshalHypotheses(t, p)
		default:
			t.Fatalf("parsePredictions(%q) = format %q", b, p.Format)
		}
		q, err := parsePredictions("p.json", again)
		if err != nil {
			t.Fatalf("parsePredictions(%q) reads, but written out again as %q: %v", b, again, err)
		}
		// An answer that was no string is written out as the string of its str(); an
		// autoeval_label that did not read, as one that does not, on another line.
		if q.Format != p.Format || !cmp.Equal(q.byID, p.byID, cmp.AllowUnexported(official{}, autoevalLabel{}), cmpopts.IgnoreFields(official{}, "notString", "labelErr")) {
			t.Fatalf("parsePredictions(%q) = %s %v, written out and read again %s %v", b, p.Format, p.byID, q.Format, q.byID)
		}
		for id, o := range p.byID {
			if (o.labelErr == "") != (q.byID[id].labelErr == "") {
				t.Fatalf("parsePredictions(%q): %q's autoeval_label error %q, written out and read again %q", b, id, o.labelErr, q.byID[id].labelErr)
			}
			if o.labelErr != "" {
				checkPredictionsErr(t, b, errors.New(o.labelErr))
			}
		}
	})
}

// checkPredictionsErr checks that err, parsePredictions's error on b, names the file, and that
// a line it names is one of b's that holds more than white space.
func checkPredictionsErr(t *testing.T, b []byte, err error) {
	t.Helper()
	m := predictionsErr.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("parsePredictions(%q): error %q does not start with the file's name", b, err)
	}
	if m[2] == "" {
		return
	}
	lines := bytes.Split(b, []byte("\n"))
	n, _ := strconv.Atoi(m[2])
	if n < 1 || n > len(lines) || len(trimSpace(lines[n-1])) == 0 {
		t.Fatalf("parsePredictions(%q): error %q names line %d, of %d, which is blank or none", b, err, n, len(lines))
	}
}

// marshalTexts writes p's answers as SQuAD's {id: text}.
func marshalTexts(t *testing.T, p *Predictions) []byte {
	texts := map[string]string{}
	for id, o := range p.byID {
		if !o.hasText || o.facts != nil {
			t.Fatalf("SQuAD prediction %q = %+v, want a text alone", id, o)
		}
		texts[id] = o.text
	}
	return mustMarshal(t, texts)
}

// marshalHotpotQA writes p's answers and supporting facts as HotpotQA's {"answer": …, "sp": …};
// an id given neither (its "sp" null) is written with "sp" null again.
func marshalHotpotQA(t *testing.T, p *Predictions) []byte {
	answers, sp := map[string]string{}, map[string]any{}
	for id, o := range p.byID {
		if o.hasText {
			answers[id] = o.text
		}
		if o.facts != nil || !o.hasText {
			facts := make([][2]any, 0, len(o.facts))
			for _, f := range o.facts {
				facts = append(facts, [2]any{f.Title, f.Sentence})
			}
			sp[id] = facts
			if o.facts == nil {
				sp[id] = nil
			}
		}
	}
	return mustMarshal(t, map[string]any{"answer": answers, "sp": sp})
}

// marshalHypotheses writes p's answers as LongMemEval's JSON Lines, in sorted order, with their
// autoeval_labels (null for one that did not read).
func marshalHypotheses(t *testing.T, p *Predictions) []byte {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(p.byID)) {
		o := p.byID[id]
		if !o.hasText || o.facts != nil {
			t.Fatalf("LongMemEval prediction %q = %+v, want a text alone", id, o)
		}
		h := map[string]any{"question_id": id, "hypothesis": o.text}
		switch {
		case o.label != nil:
			h["autoeval_label"] = map[string]any{"model": o.label.model, "label": o.label.correct}
		case o.labelErr != "":
			h["autoeval_label"] = nil
		}
		fmt.Fprintf(&b, "%s\n", mustMarshal(t, h))
	}
	if b.Len() == 0 {
		return []byte("[]")
	}
	return []byte(b.String())
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
