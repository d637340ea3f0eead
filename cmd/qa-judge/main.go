// Command qa-judge grades predictions in qapipe records with the benchmarks' own judge protocols.
package main

import (
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
)

func main() { command.MainCalls("qa-judge", judge.Run) }
