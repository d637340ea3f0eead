// Command qa-predict answers every qapipe record with a model (JSON Lines in, JSON Lines out).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/predict"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := predict.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	command.Report(os.Stderr, "qa-predict", err)
	os.Exit(command.ExitCode(err))
}
