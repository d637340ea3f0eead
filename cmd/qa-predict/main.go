// Command qa-predict answers every qapipe record with a model (JSON Lines in, JSON Lines out).
package main

import (
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/predict"
)

func main() { command.MainCalls("qa-predict", predict.Run) }
