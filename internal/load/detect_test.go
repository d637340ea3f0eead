package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/format"
)

func TestDetectSamples(t *testing.T) {
	tests := []struct{ file, want string }{
		{"hotpotqa_train_sample200.jsonl", "hotpotqa"},
		{"hotpotqa_array5.json", "hotpotqa"},
		{"cmrc2018_dev_sample.json", "cmrc2018"},
		{"squad_v11_synthetic.json", "squad"},
		{"squad_v20_synthetic.json", "squad"},
		{"locomo10.json", "locomo"},
		{"longmemeval_synthetic.json", "longmemeval"},
		{"EvaLearn_Problem.json", "evalearn"},
		{"EvaLearn_Sequence.json", "evalearn"},
		{"evalearn_results_edge.jsonl", "evalearn-results"},
		{"evalearn_results_edge60.json", "evalearn-results"},
		{"generic.jsonl", "jsonl"},
		{"generic.csv", "csv"},
		{"README.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 1<<16 {
				b = b[:1<<16]
			}
			if got := format.Detect(tt.file, b); got != tt.want {
				t.Errorf("format.Detect(%q) = %q, want %q", tt.file, got, tt.want)
			}
		})
	}
}
