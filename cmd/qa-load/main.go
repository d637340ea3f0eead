// Command qa-load turns benchmark files into qapipe records (JSON Lines on stdout).
package main

import (
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/load"
)

func main() { command.Main("qa-load", load.Run) }
