package learncurve

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/evalearn"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
)

// FuzzObserve builds a judged record from its parts and holds Observe to its doc: ErrNoSequence
// exactly for a record without a placement (a sequence id, and a position ≥ 1 or MetaPosition); else the sequence's id, a position that is the
// placement's (MetaPosition's evalearn.Key, or the position ≥ 1), the type RawType or NamedType
// gives, and an answer counted right only when nothing failed and the verdict's score is above 0,
// never with a reason it was unread.
func FuzzObserve(f *testing.F) {
	f.Add(true, "s", 1, "", "", "Maths", 1.0, true, "", "", "")
	f.Add(true, "s", 0, "3.0", "", "", 0.0, false, "```json\n{\"answer_score\": 1}\n```", "", "")
	f.Add(true, "", 2, "", "null", "", 0.0, false, "{\"answer_score\": 0}", "", "")
	f.Add(true, "", 3, "3", "", "A", 1.0, true, "", "", "") // a results placement without its sequence's id
	f.Add(true, "s", -1, "true", "1e400", "x", 1.0, true, "", "judge call: budget spent", "")
	f.Add(true, "s", 7, "", "", "", 0.5, true, "The answer looks right.", "", "empty answer")
	f.Add(false, "s", 1, "", "", "", 0.0, false, "", "", "")
	f.Add(true, "s", 1, "\"4\"", "[1]", "", 0.0, false, " \n", "", "")
	f.Fuzz(func(t *testing.T, hasSeq bool, seq string, pos int, metaPos, metaType, typ string,
		score float64, scored bool, raw, judgeErr, predErr string) {
		r := &record.Record{ID: "r", Type: typ, Meta: map[string]json.RawMessage{},
			Judgments: map[string]*record.Judgment{JudgeName: {Raw: raw, Error: judgeErr}}}
		if hasSeq {
			r.Sequence = &record.Sequence{ID: seq, Position: pos}
		}
		if metaPos != "" {
			r.Meta[MetaPosition] = json.RawMessage(metaPos)
		}
		if metaType != "" {
			r.Meta[MetaType] = json.RawMessage(metaType)
		}
		if scored {
			r.Judgments[JudgeName].Score = &score
		}
		if predErr != "" {
			r.Prediction = &record.Prediction{Text: "42", Error: predErr}
		}
		o, err := Observe(r)
		placed := hasSeq && seq != "" && (metaPos != "" || pos >= 1)
		if !placed {
			if !errors.Is(err, ErrNoSequence) {
				t.Fatalf("Observe(%+v) = %+v, %v, want ErrNoSequence", r.Sequence, o, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Observe(%+v, meta %q) = %v, want an observation", r.Sequence, r.Meta, err)
		}
		if o.Seq != seq {
			t.Errorf("Observe: Seq = %q, want the sequence's id %q", o.Seq, seq)
		}
		wantPos := strconv.Itoa(pos)
		if metaPos != "" {
			wantPos, _, _ = evalearn.Key([]byte(metaPos))
		}
		if o.Pos != wantPos {
			t.Errorf("Observe(position %d, meta %q) = Pos %q, want %q", pos, metaPos, o.Pos, wantPos)
		}
		switch {
		case metaType != "" && o.Type != RawType([]byte(metaType)),
			metaType == "" && typ != "" && o.Type != NamedType(typ),
			metaType == "" && typ == "" && !o.Type.isZero():
			t.Errorf("Observe(type %q, meta %q) = Type %+v", typ, metaType, o.Type)
		}
		v, _, _ := evalearn.Verdict(r.Judgments[JudgeName])
		if failed := judgeErr != "" || predErr != ""; o.Correct && (failed || !(v > 0)) {
			t.Errorf("Observe(score %v/%v, raw %q, errors %q %q) counts the answer right", score, scored, raw, judgeErr, predErr)
		} else if !failed && o.Correct != (v > 0) {
			t.Errorf("Observe(score %v/%v, raw %q) = Correct %v, want the verdict's %v > 0", score, scored, raw, o.Correct, v)
		}
		if o.Correct && o.Unread != "" {
			t.Errorf("Observe(raw %q) = right, yet unread: %q", raw, o.Unread)
		}
	})
}

// FuzzRawType holds RawType to its doc: a JSON string is the type of that name (printed with
// U+FFFD for a lone surrogate); every other value's Key starts with nonStrKey, so that it never
// equals a name's; equal values of Python's numbers (1, 1.0, true) share a Key; and the result
// is never the zero type.
func FuzzRawType(f *testing.F) {
	for _, s := range []string{`"Maths"`, `"Donn\u00e9es"`, `""`, `null`, `true`, `false`, `1`, `1.0`, `1e2`,
		`-0.0`, `2.5`, `1e400`, `NaN`, `-Infinity`, `99999999999999999999`, `[1]`, `{"a": 1}`, ` "x" `,
		`"\ud800"`, `"\u00ff"`, "\"\xff\"", "\xff1", `Maths`, ``, `"a" "b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := RawType([]byte(raw))
		if got.isZero() {
			t.Fatalf("RawType(%q) is the zero type", raw)
		}
		if again := RawType([]byte(raw)); again != got {
			t.Fatalf("RawType(%q) = %+v, then %+v", raw, got, again)
		}
		v, err := python.Loads(raw)
		switch {
		case err == nil && v.Kind == python.Str:
			want := NamedType(v.S)
			want.Name = python.UTF8(v.S) // a lone surrogate printed as U+FFFD
			if got != want {
				t.Fatalf("RawType(%q) = %+v, want the name %q", raw, got, v.S)
			}
		case err == nil:
			if !strings.HasPrefix(got.Key, nonStrKey) {
				t.Fatalf("RawType(%q) = key %q, want it to start with %q", raw, got.Key, nonStrKey)
			}
		}
		if got.kind == strType && utf8.ValidString(raw) && strings.HasPrefix(got.Key, nonStrKey) {
			t.Fatalf("RawType(%q) = the name %q, which starts as no name's key does", raw, got.Key)
		}
		if err == nil && (v.Kind == python.Int || v.Kind == python.Bool || v.Kind == python.Float) {
			if f, ok := number(v); ok && f == float64(int64(f)) && f > -1e15 && f < 1e15 {
				if want := RawType([]byte(strconv.FormatInt(int64(f), 10))); got.Key != want.Key {
					t.Fatalf("RawType(%q) = key %q, RawType(%d) %q: equal numbers, want one key", raw, got.Key, int64(f), want.Key)
				}
			}
		}
	})
}

// number is v, a Python int, bool or float, as a float64, when it is one exactly.
func number(v python.Value) (float64, bool) {
	switch v.Kind {
	case python.Bool:
		if v.B {
			return 1, true
		}
		return 0, true
	case python.Int:
		n, err := strconv.ParseInt(v.N, 10, 64)
		return float64(n), err == nil && n > -1<<53 && n < 1<<53
	case python.Float:
		return v.F, true
	}
	return 0, false
}
