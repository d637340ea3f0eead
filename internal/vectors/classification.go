package vectors

import (
	"encoding/json"
	"testing"
)

// ClassificationCounts are the case counts of the classification golden files, as the table of
// the golden README (golden/classification/README.md) gives them, for the tests that read a copy
// (pkg/metric's and qa-score's): a copy that lost whole lines fails on its count.
var ClassificationCounts = map[string]int{
	"accuracy_prf.jsonl": 42,
	"auc.jsonl":          42,
	"pairwise.jsonl":     41,
	"chunk.jsonl":        45,
	"ranking.jsonl":      42,
	"corpus_bleu.jsonl":  42,
	"ppl.jsonl":          29,
}

// ClassificationRandomCount is the case count of each file of random classification cases
// (pkg/metric/testdata/classification/random): the --n of the command its README gives.
const ClassificationRandomCount = 250

// ClassCase is a case of the classification goldens: a metric's input, its parameters and what
// the reference code gave.
type ClassCase struct {
	ID       string                     `json:"id"`
	Kind     string                     `json:"kind"`
	Input    map[string]json.RawMessage `json:"input"`
	Params   map[string]json.RawMessage `json:"params"`
	Expected map[string]json.RawMessage `json:"expected"`
	// Source is the file the case came from, as the test names it: "auc.jsonl",
	// "random/auc.jsonl", or a path in $QA_CLASSIFICATION_GOLDEN.
	Source string `json:"-"`
}

// ReadClassCases reads the cases of the file path, in the golden format, with Read, naming source
// as their Source, and fails unless it holds want of them; want < 0 accepts any count but none.
func ReadClassCases(t *testing.T, path, source string, want int) []ClassCase {
	t.Helper()
	cases, _ := Read[ClassCase](t, path, "")
	if want >= 0 && len(cases) != want {
		t.Fatalf("%s: %d cases, want %d", path, len(cases), want)
	}
	for i := range cases {
		cases[i].Source = source
	}
	return cases
}
