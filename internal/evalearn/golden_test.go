package evalearn

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/qapipe/qapipe/internal/vectors"
)

func readGolden(tb testing.TB) []goldenReply {
	b, err := os.ReadFile("testdata/outcomes.json")
	if err != nil {
		tb.Fatal(err)
	}
	var cases []goldenReply
	if err := json.Unmarshal(b, &cases); err != nil {
		tb.Fatal(err)
	}
	return cases
}

type goldenReply struct {
	Raw     string  `json:"raw"`
	Outcome float64 `json:"outcome"`
}

// TestParseReplyGolden checks ParseReply's outcome against the original evaluate_metric.py on
// every distinct judge reply of the EvaLearn case2_edge golden set.
func TestParseReplyGolden(t *testing.T) {
	cases := readGolden(t)
	if len(cases) != 135 {
		t.Fatalf("%d golden replies, want 135", len(cases))
	}
	for _, c := range cases {
		if got, _, _ := ParseReply(c.Raw); got != c.Outcome {
			t.Errorf("ParseReply(%q) = %v, want %v", c.Raw, got, c.Outcome)
		}
	}
}

func BenchmarkParseReply(b *testing.B) {
	cases := readGolden(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		ParseReply(cases[n%len(cases)].Raw)
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "replies/s")
}

// TestParseReplyRandom checks ParseReply against random replies scored by the original
// evaluate_metric.py (scripts/random-evalearn.py --replies): the committed ones, or the file
// QA_EVALEARN_REPLIES names.
func TestParseReplyRandom(t *testing.T) {
	type vector struct {
		Reply   string  `json:"reply"`
		Outcome float64 `json:"outcome"`
	}
	vectors.Check(t, "testdata/random_replies.jsonl", "QA_EVALEARN_REPLIES", func(c vector) string {
		if got, _, _ := ParseReply(c.Reply); got != c.Outcome {
			return fmt.Sprintf("ParseReply(%q) = %v, want %v", c.Reply, got, c.Outcome)
		}
		return ""
	})
}
