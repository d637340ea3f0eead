package metric

import (
	"fmt"
	"testing"
)

// TestSameLength: the functions that take slices in parallel panic with a message naming
// themselves and the lengths when the slices differ, not with an index out of range, and
// CountLabels when a label is not among those it counts, and CorpusBLEU and NewBLEUCounts when the
// n-gram orders are not 1 to 4.
func TestSameLength(t *testing.T) {
	less := func(a, b string) bool { return a < b }
	for _, tc := range []struct {
		name string
		call func()
		want string
	}{
		{"ROCCurve", func() { ROCCurve([]float64{0.1, 0.9}, []bool{true}) }, "metric.ROCCurve: 2 scores for 1 labels"},
		{"EvalChunks sentences", func() { EvalChunks([][]string{{"O"}}, nil) }, "metric.EvalChunks: 0 predicted sentences for 1 gold sentences"},
		{"EvalChunks tags", func() { EvalChunks([][]string{{"O"}, {"B-X", "I-X"}}, [][]string{{"O"}, {"B-X"}}) },
			"metric.EvalChunks: 1 predicted tags in sentence 1 for 2 gold tags"},
		{"Classify", func() { Classify([]string{"a", "b"}, []string{"a"}, PRFOptions{}) }, "metric.Classify: 1 predicted labels for 2 true labels"},
		{"CountLabels length", func() { CountLabels([]string{"a"}, []string{"a", "b"}, []string{"a", "b"}) }, "metric.CountLabels: 2 predicted labels for 1 true labels"},
		{"CountLabels label", func() { CountLabels([]string{"a", "c"}, []string{"a", "a"}, []string{"a", "b"}) }, `metric.CountLabels: label "c" of record 1 is not in all`},
		{"CorpusBLEU", func() { CorpusBLEU([][]string{{"a"}}, nil, []float64{1}) }, "metric.CorpusBLEU: 1 hypotheses for 0 reference lists"},
		{"Rank labels", func() { Rank([]string{"q", "q"}, []float64{1}, []float64{0.5, 0.2}, less) }, "metric.Rank: 1 labels for 2 queries"},
		{"Rank scores", func() { Rank([]string{"q"}, []float64{1}, []float64{0.5, 0.2}, less) }, "metric.Rank: 2 scores for 1 queries"},
		{"CountPairs short", func() { CountPairs([]float64{0.9, 0.4}, []float64{0.1}) }, "metric.CountPairs: 1 negative scores for 2 positive scores"},
		{"CountPairs long", func() { CountPairs([]float64{0.9}, []float64{0.1, 0.6}) }, "metric.CountPairs: 2 negative scores for 1 positive scores"},
		{"CountGroupPairs labels", func() { CountGroupPairs([]string{"q", "q"}, []float64{1}, []float64{0.5, 0.2}) },
			"metric.CountGroupPairs: 1 labels for 2 groups"},
		{"CountGroupPairs scores", func() { CountGroupPairs([]string{"q", "q"}, []float64{1, 0}, []float64{0.5}) },
			"metric.CountGroupPairs: 1 scores for 2 groups"},
		{"Perplexity", func() { Perplexity([]float64{12.5, 3}, []int{5}) }, "metric.Perplexity: 1 token counts for 2 losses"},
		{"CorpusBLEU no weights", func() { CorpusBLEU([][]string{{"a"}}, [][][]string{{{"a"}}}, nil) }, "metric.CorpusBLEU: 0 weights, want 1 to 4"},
		{"CorpusBLEU 5 weights", func() { CorpusBLEU([][]string{{"a"}}, [][][]string{{{"a"}}}, []float64{0.2, 0.2, 0.2, 0.2, 0.2}) },
			"metric.CorpusBLEU: 5 weights, want 1 to 4"},
		{"NewBLEUCounts", func() { NewBLEUCounts(0) }, "metric.NewBLEUCounts: 0 n-gram orders, want 1 to 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); got != tc.want {
					t.Errorf("panic %q, want %q", got, tc.want)
				}
			}()
			tc.call()
		})
	}
	// Equal lengths pass.
	if r := Classify([]string{"a", "b"}, []string{"a", "a"}, PRFOptions{}); r.Accuracy != 0.5 {
		t.Errorf("Classify accuracy %v, want 0.5", r.Accuracy)
	}
}
