package load

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// FuzzEvaLearn feeds arbitrary problem and sequence files to EvaLearn, the one loader that reads
// a pair (FuzzLoaders fuzzes the others): no panic; every record it emits is valid and encodes as
// one JSON line, with a position in its sequence; every bad item is a *record.Error that names its
// file and a line of it; an error that stops the load names one of the two files.
func FuzzEvaLearn(f *testing.F) {
	head := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		return b[:min(len(b), 8<<10)]
	}
	good := `{"id": 1, "type": "T", "prompt": ["Q?"], "rubric": "R"}`
	for _, s := range [][2]string{
		{string(head("EvaLearn_Problem.json")), string(head("EvaLearn_Sequence.json"))},
		{"[\n" + good + "\n]", `[{"sequence_id": 1, "type": "T", "question_ids": [1, 1.0, "1", true, null, [1], {}]}]`},
		{"[\n" + good + ",\n" + `{"id": 2, "type": "T", "prompt": ["Q?", 5], "rubric": "R"}` + "\n]",
			"[\n" + `{"sequence_id": 4, "type": "U", "question_ids": [2, 1, 2], "x": {"y": [1.50]}}` + ",\n" +
				`{"sequence_id": 5, "question_ids": []}, {"sequence_id": [5], "question_ids": [1]}, null` + "\n]"},
		{`[{"id": [2], "type": 5, "prompt": ["Q?"]}, {"id": "3", "prompt": [""], "canonical_answer": ["4"]}, 7]`,
			`[{"sequence_id": "\ud800", "type": "", "questions_ids": [3]}, {"sequence_id": 3e0, "question_ids": ["3", 3]}]`},
		{`[{"id": 1, "type": "A\ud800", "prompt": [], "canonical_answer": -12.50, "extra": null}]`, `[] x`},
		{"", ""},
		{"[", `[{"sequence_id": 1, "question_ids": [1]}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, problems, sequences []byte) {
		err := EvaLearn(Input{Name: "p", R: bytes.NewReader(problems)}, Input{Name: "s", R: bytes.NewReader(sequences)}, Options{},
			func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					var re *record.Error
					if !errors.As(bad, &re) || (re.File != "p" && re.File != "s") || re.Line <= 0 {
						t.Errorf("bad item %q does not name its file and line", bad)
					}
					return nil
				}
				if err := r.Validate(); err != nil {
					t.Errorf("invalid record %+v: %v", r, err)
				}
				if r.Sequence == nil || r.Sequence.Position < 1 {
					t.Errorf("record %q has sequence %+v, want a position from 1", r.ID, r.Sequence)
				}
				line, err := r.MarshalJSON()
				if err != nil || bytes.ContainsAny(line, "\n\r") {
					t.Errorf("record %q encodes as %q, %v", r.ID, line, err)
				}
				return nil
			})
		if err == nil {
			return
		}
		if re, ok := errors.AsType[*record.Error](err); ok && re.File != "p" && re.File != "s" {
			t.Errorf("EvaLearn error %q names neither file", err)
		}
	})
}
