package score

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"strings"
	"testing"
)

// goldenFields maps qa-score's score names to the golden corpus's field names.
var goldenFields = map[string]string{
	"em": "squad_em", "f1": "squad_f1", "squad2_em": "squad2_em", "squad2_f1": "squad2_f1",
	"hotpot_em": "hotpot_em", "hotpot_f1": "hotpot_f1",
	"rouge1": "rouge1_f", "rouge2": "rouge2_f", "rougeL": "rougeL_f",
	"rouge1_nostem": "rouge1_f_nostem", "rouge2_nostem": "rouge2_f_nostem", "rougeL_nostem": "rougeL_f_nostem",
	"bleu1": "bleu1", "bleu2": "bleu2", "bleu4": "bleu4", "meteor": "meteor", "meteor_nosyn": "meteor_nosyn",
	"cmrc_em": "cmrc_em", "cmrc_f1": "cmrc_f1",
}

// TestGoldenSample runs golden pairs through the whole command, as ../shared/tools/check-metrics
// does, and checks every score against the official value: it proves each name is wired to the
// right metric and that cmrc_* run exactly on the Chinese records. The two ROUGE families are
// computed together (metric.RougeBoth) when both are selected and apart otherwise, and so are the
// two METEOR ones (metric.METEORBoth), so the run is repeated with one of a pair, the other, and
// names of both.
func TestGoldenSample(t *testing.T) {
	type pair struct {
		ID         string             `json:"id"`
		Prediction string             `json:"prediction"`
		References []string           `json:"references"`
		Lang       string             `json:"lang"`
		Expected   map[string]float64 `json:"expected"`
	}
	data, err := os.ReadFile("testdata/pairs_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	want := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		want[p.ID] = p.Expected
		rec := map[string]any{"schema": 1, "id": p.ID, "dataset": "golden", "lang": p.Lang, "question": "",
			"answers": p.References, "prediction": map[string]any{"text": p.Prediction}}
		b, _ := json.Marshal(rec)
		in.Write(append(b, '\n'))
	}
	for _, metrics := range []string{"", "rouge1,rouge2,rougeL", "rouge1_nostem,rouge2_nostem,rougeL_nostem", "rougeL,rouge2_nostem",
		"meteor", "meteor_nosyn", "meteor,meteor_nosyn,rouge1"} {
		t.Run("metrics="+metrics, func(t *testing.T) {
			fields := goldenFields
			args := []string{"qa-score"}
			if metrics != "" {
				fields = map[string]string{}
				for _, name := range strings.Split(metrics, ",") {
					fields[name] = goldenFields[name]
				}
				args = append(args, "--metrics", metrics)
			}
			differ := map[string]int{}
			n := 0
			for _, r := range scoredRecords(t, bytes.NewReader(in.Bytes()), args...) {
				n++
				exp := want[r.ID]
				for name, field := range fields {
					w, hasWant := exp[field]
					g, hasGot := r.Scores[name]
					if hasWant != hasGot || math.Abs(g-w) > 1e-9 {
						if differ[name] < 3 {
							t.Errorf("%s %s = %v (present %v), want %v (present %v)", r.ID, name, g, hasGot, w, hasWant)
						}
						differ[name]++
					}
				}
				if len(r.Scores) != len(fields)-missing(exp, fields) {
					t.Errorf("%s: %d scores, want %d: %v", r.ID, len(r.Scores), len(fields)-missing(exp, fields), r.Scores)
				}
			}
			if n != len(want) {
				t.Errorf("got %d records back, want %d", n, len(want))
			}
			for name, k := range differ {
				t.Errorf("%s differs on %d of %d pairs", name, k, n)
			}
		})
	}
}

// missing counts the fields that the golden values exp lack (cmrc_* of a pair that is not Chinese).
func missing(exp map[string]float64, fields map[string]string) int {
	n := 0
	for _, field := range fields {
		if _, ok := exp[field]; !ok {
			n++
		}
	}
	return n
}

// scored is a record as the command wrote it, its id and scores.
type scored struct {
	ID     string             `json:"id"`
	Scores map[string]float64 `json:"scores"`
}

// scoredRecords runs the command (args, from its name on) over in and returns the records it
// wrote; the run must succeed.
func scoredRecords(t *testing.T, in io.Reader, args ...string) []scored {
	t.Helper()
	var out, stderr bytes.Buffer
	if err := Run(context.Background(), args, in, &out, &stderr); err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.Bytes())
	}
	var recs []scored
	for line := range bytes.Lines(out.Bytes()) {
		var r scored
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}
