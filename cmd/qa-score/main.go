// Command qa-score scores predictions in qapipe records and summarises the scores.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/score"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := score.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	command.Report(os.Stderr, "qa-score", err)
	os.Exit(command.ExitCode(err))
}
