package prompt

import (
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/internal/python"
)

// EvaLearn template names.
const (
	EvaLearnStudentSystem = "evalearn/student_system.txt"
	EvaLearnStudentUser   = "evalearn/student_user.txt"
	EvaLearnTurnUser      = "evalearn/question_turn_user.txt"
	EvaLearnTurnAssistant = "evalearn/question_turn_assistant.txt"
	EvaLearnHistory       = "evalearn/history_record.txt"
	EvaLearnJudgeUser     = "evalearn/judge_user.txt"
)

// EvaLearnQuestion renders a problem's prompt list: even items as user turns, odd as assistant.
func EvaLearnQuestion(turns []string) string {
	var b strings.Builder
	for i, t := range turns {
		name := EvaLearnTurnUser
		if i%2 == 1 {
			name = EvaLearnTurnAssistant
		}
		b.WriteString(Must(name).MustFill(map[string]string{"text": t}))
	}
	return b.String()
}

// EvaLearnRecord is one earlier problem of a sequence as the student sees it in its history.
type EvaLearnRecord struct {
	Position int      // 1-based position in the sequence
	Turns    []string // the problem's prompt list
	Answer   string   // the stripped student answer
	Rubric   string
	Judgment string // the stripped judge reply
}

// EvaLearnHistoryRecord renders one history record ({prompt_repr} is Python str() of the list).
func EvaLearnHistoryRecord(r EvaLearnRecord) string {
	return Must(EvaLearnHistory).MustFill(map[string]string{
		"position": fmt.Sprint(r.Position), "prompt_repr": python.StrList(r.Turns),
		"answer": r.Answer, "rubric": r.Rubric, "judgment": r.Judgment,
	})
}

// EvaLearnStudent returns the student's system and user messages for a problem of type typ after
// the earlier records history (all earlier positions, right or wrong; empty at position 1).
func EvaLearnStudent(typ string, history []EvaLearnRecord, turns []string) (system, user string) {
	var h strings.Builder
	for _, r := range history {
		h.WriteString(EvaLearnHistoryRecord(r))
	}
	system = Must(EvaLearnStudentSystem).MustFill(map[string]string{"type": typ})
	user = Must(EvaLearnStudentUser).MustFill(map[string]string{"history": h.String(), "question": EvaLearnQuestion(turns)})
	return system, user
}

// EvaLearnJudge fills the EvaLearn judge prompt: the judge sees the rubric and the answer only.
func EvaLearnJudge(rubric, answer string) string {
	return Must(EvaLearnJudgeUser).MustFill(map[string]string{"rubric": rubric, "answer": answer})
}
