// Command qa-learncurve computes EvaLearn's learning-curve metrics from judged sequential records.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/learncurve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := learncurve.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	command.Report(os.Stderr, "qa-learncurve", err)
	os.Exit(command.ExitCode(err))
}
