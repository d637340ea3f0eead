package prompt_test

import (
	"fmt"

	"github.com/qapipe/qapipe/internal/prompt"
)

func ExampleRender() {
	// One pass: the inserted value's "{answer}" is not rescanned; unknown braces stay.
	fmt.Println(prompt.Render(`Q: {question} A: {answer} {"answer_score": 1}`,
		map[string]string{"question": "what is {answer}?", "answer": "42"}))
	// Output: Q: what is {answer}? A: 42 {"answer_score": 1}
}
