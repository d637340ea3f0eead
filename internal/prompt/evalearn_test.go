package prompt

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// TestEvaLearnTranscript rebuilds the 28 requests evaluate.py sent for sequences 4 and 36 (recorded
// in testdata/evalearn_transcript.jsonl) from the problems, the templates and the recorded replies.
func TestEvaLearnTranscript(t *testing.T) {
	var data struct {
		Sequences []struct {
			SequenceID  int    `json:"sequence_id"`
			Type        string `json:"type"`
			QuestionIDs []int  `json:"question_ids"`
		} `json:"sequences"`
		Problems []struct {
			ID     int      `json:"id"`
			Prompt []string `json:"prompt"`
			Rubric string   `json:"rubric"`
		} `json:"problems"`
	}
	b, err := os.ReadFile("testdata/evalearn_seq4_36.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	type call struct {
		SequenceID int    `json:"sequence_id"`
		Position   int    `json:"position_in_sequence"`
		QuestionID int    `json:"question_id"`
		Role       string `json:"role"`
		Raw        string `json:"raw_response"`
		Request    struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		} `json:"request"`
	}
	tb, err := os.ReadFile("testdata/evalearn_transcript.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var calls []call
	for _, line := range strings.Split(strings.TrimSpace(string(tb)), "\n") {
		var c call
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, c)
	}
	probs := map[int]int{}
	for i, p := range data.Problems {
		probs[p.ID] = i
	}
	n := 0
	for _, seq := range data.Sequences {
		var history []EvaLearnRecord
		for pos, qid := range seq.QuestionIDs {
			p := data.Problems[probs[qid]]
			client, judge := calls[n], calls[n+1]
			n += 2
			if client.QuestionID != qid || judge.Role != "judge" || client.Position != pos+1 {
				t.Fatalf("transcript out of step at seq %d pos %d", seq.SequenceID, pos+1)
			}
			sys, user := EvaLearnStudent(seq.Type, history, p.Prompt)
			checkMsg(t, "client system", client.Request.Messages[0].Content, sys)
			checkMsg(t, "client user", client.Request.Messages[1].Content, user)
			answer := textnorm.Strip(client.Raw)
			checkMsg(t, "judge system", judge.Request.Messages[0].Content, "")
			checkMsg(t, "judge user", judge.Request.Messages[1].Content, EvaLearnJudge(p.Rubric, answer))
			history = append(history, EvaLearnRecord{Position: pos + 1, Turns: p.Prompt, Answer: answer,
				Rubric: p.Rubric, Judgment: textnorm.Strip(judge.Raw)})
		}
	}
	if n != 28 {
		t.Errorf("rebuilt %d requests, want 28", n)
	}
}

func checkMsg(t *testing.T, what, want, got string) {
	t.Helper()
	if got != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s differs at byte %d: got %q, want %q", what, i, got[i:min(len(got), i+80)], want[i:min(len(want), i+80)])
	}
}
