package clitest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// DryRunFinishing runs run with args (a dry run of a stage that calls models, the program name
// first) over stdin, asked to finish before it starts, as at a first signal. A dry run makes no
// call, so it must stop at once, write nothing and say interrupted; and it must say it makes no
// call (interrupt.NoCalls) under the program's name, so that the command layer does not
// announce "writing the records left" at the signal.
func DryRunFinishing(t *testing.T, run command.RunFunc, args []string, stdin string) {
	t.Helper()
	ctx, finish := interrupt.WithFinish(context.Background())
	finish()
	var stdout, stderr bytes.Buffer
	err := run(ctx, args, strings.NewReader(stdin), &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitInterrupted || stdout.Len() != 0 {
		t.Errorf("dry run asked to finish: exit %d (%v), stdout %q; want %d and nothing", code, err, stdout.String(), command.ExitInterrupted)
	}
	if name, ok := interrupt.NoCallsName(ctx); !ok || name != args[0] {
		t.Errorf("dry run: interrupt.NoCallsName = %q, %v; want %q, true", name, ok, args[0])
	}
}

// DryRunFinishingAtEOF runs run as DryRunFinishing does, but asked to finish while it waits on
// the last read of stdin, after its records were read (a first signal with no record after it,
// as when the stage before writes nothing more). The run must still stop as interrupted (exit
// 130), its completed output, lines records' lines, written, and not end as a finished run does,
// with its summary and exit 0.
func DryRunFinishingAtEOF(t *testing.T, run command.RunFunc, args []string, stdin string, lines int) {
	t.Helper()
	ctx, finish := interrupt.WithFinish(context.Background())
	var stdout, stderr bytes.Buffer
	err := run(ctx, args, ThenAtEOF(strings.NewReader(stdin), func() { finish() }), &stdout, &stderr)
	if code := command.ExitCode(err); code != command.ExitInterrupted {
		t.Errorf("dry run asked to finish at the end of its input: exit %d (%v); want %d\nstderr:\n%s", code, err, command.ExitInterrupted, stderr.String())
	}
	if got := strings.Count(stdout.String(), "\n"); got != lines {
		t.Errorf("dry run asked to finish at the end of its input wrote %d lines, want %d:\n%s", got, lines, stdout.String())
	}
}
