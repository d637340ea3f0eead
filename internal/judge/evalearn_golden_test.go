package judge

import (
	"encoding/json"
	"os"
	"testing"
)

// TestParseEvaLearnGolden checks ParseEvaLearn's outcome against the original evaluate_metric.py on
// every distinct judge reply of the EvaLearn case2_edge golden set.
func TestParseEvaLearnGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/evalearn_outcomes.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Raw     string  `json:"raw"`
		Outcome float64 `json:"outcome"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("%d golden replies, want 135", len(cases))
	}
	for _, c := range cases {
		if got, _, _ := ParseEvaLearn(c.Raw); got != c.Outcome {
			t.Errorf("ParseEvaLearn(%q) = %v, want %v", c.Raw, got, c.Outcome)
		}
	}
}
