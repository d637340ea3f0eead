package judge

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/score"
)

// TestUpstreamZeroReasked: a reply that the protocol's own script scores 0 (an empty yes/no reply,
// a MAGMA object without "score", a mem0 label that is no string, an EvaLearn reply with no
// score) is unparsable here, so it is asked again: when the second reply parses, the judgment
// takes its score, which upstream, keeping the first reply's 0, never gives, and qa-score
// --errors-as-zero has no error to count 0. Only --parse-retries 0 keeps the first reply's
// failure, which --errors-as-zero then counts 0, as upstream does.
func TestUpstreamZeroReasked(t *testing.T) {
	for _, tt := range []struct {
		name, mode, in, zero, good string
	}{
		{"longmemeval", ModeLongMemEval, rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", ""),
			"", "yes"},
		{"magma", ModeLoCoMo, rec("locomo:c:1", "locomo", "multi_hop", "Where?", "Paris", "Paris", `{"category":1}`),
			`{"reasoning": "right"}`, `{"score": 1.0, "reasoning": "right"}`},
		{"mem0", ModeMem0, rec("locomo:c:1", "locomo", "multi_hop", "Where?", "Paris", "Paris", `{"category":1}`),
			`{"label": true}`, `{"label": "CORRECT"}`},
		{"evalearn", ModeEvaLearn, rec("evalearn:4:1", "evalearn", "Logical Reasoning", "Solve it", "", "42", ""),
			"[Grade]: 1 point", "[JSON]: ```json\n{\"answer_score\": 1}\n```"},
	} {
		for _, retries := range []string{"2", "0"} {
			t.Run(tt.name+"/parse-retries="+retries, func(t *testing.T) {
				var n atomic.Int64
				srv := newChatServer(t, func(chatRequest) (string, int) {
					if n.Add(1) == 1 {
						return tt.zero, 200
					}
					return tt.good, 200
				})
				judged, stderr, _ := runJudge(t, []string{"--mode", tt.mode, "--base-url", srv.URL, "--model", "judge-1",
					"--parse-retries", retries}, tt.in)
				var out, errb bytes.Buffer
				err := score.Run(context.Background(), []string{"qa-score", "--metrics", "judge_score", "--errors-as-zero"},
					strings.NewReader(judged), &out, &errb)
				command.Report(&errb, "qa-score", err)
				recs := decodeAll(t, out.String())
				if len(recs) != 1 {
					t.Fatalf("%d records out of qa-score, want 1 (qa-judge stderr %s; qa-score stderr %s)", len(recs), stderr, errb.String())
				}
				want := 1.0 // the second reply's score, not upstream's
				if retries == "0" {
					want = 0 // the first reply's failure counted 0, upstream's figure
				}
				if got := recs[0].Scores["judge_score"]; got != want {
					t.Errorf("judge_score = %v after %d calls, want %v (qa-judge stderr %s)", got, n.Load(), want, stderr)
				}
			})
		}
	}
}
