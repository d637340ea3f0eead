package prompt

// LoCoMo-family judge template names.
const (
	MAGMASystem = "magma/judge_system.txt"
	MAGMAUser   = "magma/judge_user.txt"
	MAGMACat5   = "magma/cat5_unanswerable.json"
	Mem0User    = "mem0/judge_user.txt"
)

// MAGMAJudge returns the MAGMA continuous judge's system and user messages.
func MAGMAJudge(question, gold, generated string) (system, user string) {
	return Must(MAGMASystem).Text, Must(MAGMAUser).MustFill(map[string]string{
		"question": question, "gold_answer": gold, "generated_answer": generated})
}

// Mem0Judge returns the mem0 CORRECT/WRONG judge's user message.
func Mem0Judge(question, gold, generated string) string {
	return Must(Mem0User).MustFill(map[string]string{
		"question": question, "gold_answer": gold, "generated_answer": generated})
}

// LongMemEvalJudge fills the LongMemEval judge template routed by id and type.
func LongMemEvalJudge(questionID, questionType, question, answer, response string) (string, *Template, error) {
	t, err := LongMemEvalJudgeTemplate(questionID, questionType)
	if err != nil {
		return "", nil, err
	}
	return t.MustFill(map[string]string{"question": question, "answer": answer, "response": response}), t, nil
}
