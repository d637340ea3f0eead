package score

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

// TestHotpotRandom runs random HotpotQA records through the command and checks their answer,
// supporting-fact and joint scores (EM, F1, precision and recall of each, the group hotpot)
// against those hotpot_evaluate_v1.py gives them
// (scripts/random-hotpot.py): the committed vectors, or the file QA_HOTPOT_VECTORS names. The
// values are the script's own arithmetic, so they must match exactly.
func TestHotpotRandom(t *testing.T) {
	type vector struct {
		Record   json.RawMessage    `json:"record"`
		Expected map[string]float64 `json:"expected"`
	}
	vs, path := vectors.Read[vector](t, "testdata/hotpot_random.jsonl", "QA_HOTPOT_VECTORS")
	var in bytes.Buffer
	want := make([]map[string]float64, len(vs))
	for i, v := range vs {
		in.Write(append(v.Record, '\n'))
		want[i] = v.Expected
	}
	recs := scoredRecords(t, &in, "qa-score", "--metrics", "hotpot") // the twelve figures eval() prints
	if len(recs) != len(want) {
		t.Fatalf("%d records out, want %d", len(recs), len(want))
	}
	bad, compared := 0, 0
	for n, r := range recs {
		compared += len(want[n])
		for name, w := range want[n] {
			if got, ok := r.Scores[name]; !ok || got != w {
				if bad++; bad <= 20 {
					t.Errorf("%s:%d (id %q): %s = %v (present: %v), want %v", path, n+1, r.ID, name, got, ok, w)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", path, bad, compared)
	}
}
