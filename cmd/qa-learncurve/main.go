// Command qa-learncurve computes EvaLearn's learning-curve metrics from judged sequential records.
package main

import (
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/learncurve"
)

func main() { command.Main("qa-learncurve", learncurve.Run) }
