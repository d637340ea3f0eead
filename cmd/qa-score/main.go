// Command qa-score scores predictions in qapipe records and summarises the scores.
package main

import (
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/score"
)

func main() { command.MainCalls("qa-score", score.Run) }
