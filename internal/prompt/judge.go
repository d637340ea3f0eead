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

// longMemEvalJudgeAliases is evaluate_qa.py's model_zoo: the names its command line takes and the
// models they call.
var longMemEvalJudgeAliases = map[string]string{
	"gpt-4o":                 "gpt-4o-2024-08-06",
	"gpt-4o-mini":            "gpt-4o-mini-2024-07-18",
	"llama-3.1-70b-instruct": "meta-llama/Meta-Llama-3.1-70B-Instruct",
}

// LongMemEvalJudgeModel returns the model LongMemEval's evaluate_qa.py calls when given name:
// its alias target (gpt-4o is gpt-4o-2024-08-06, the judge its reported numbers use), or name.
func LongMemEvalJudgeModel(name string) string {
	if m, ok := longMemEvalJudgeAliases[name]; ok {
		return m
	}
	return name
}

// LongMemEvalJudge fills the LongMemEval judge template routed by abstention and question type
// (LongMemEvalJudgeTemplate).
func LongMemEvalJudge(abstention bool, questionType, question, answer, response string) (string, *Template, error) {
	t, err := LongMemEvalJudgeTemplate(abstention, questionType)
	if err != nil {
		return "", nil, err
	}
	return t.MustFill(map[string]string{"question": question, "answer": answer, "response": response}), t, nil
}
