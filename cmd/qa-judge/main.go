// Command qa-judge grades predictions in qapipe records with the benchmarks' own judge protocols.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := judge.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	command.Report(os.Stderr, "qa-judge", err)
	os.Exit(command.ExitCode(err))
}
