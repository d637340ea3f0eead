// Command qa-load turns benchmark files into qapipe records (JSON Lines on stdout).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/load"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := load.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	command.Report(os.Stderr, "qa-load", err)
	os.Exit(command.ExitCode(err))
}
