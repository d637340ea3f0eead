package clitest

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
)

// TestClearEnv: the variables of a command's flags and of its subcommand's, and the API keys,
// are unset; a variable no flag reads (a golden file's) is kept.
func TestClearEnv(t *testing.T) {
	run := func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		app := command.NewApp("qa-x", "test command", "", nil, stdout, stderr)
		app.Flags = []cli.Flag{&cli.IntFlag{Name: "top", EnvVars: []string{"QA_X_TOP"}}}
		app.Commands = []*cli.Command{{Name: "sub", Usage: "a subcommand",
			Flags:  []cli.Flag{&cli.IntFlag{Name: "low", EnvVars: []string{"QA_X_LOW"}}},
			Action: func(*cli.Context) error { return nil }}}
		app.Action = func(*cli.Context) error { return nil }
		return command.Execute(ctx, app, args)
	}
	t.Setenv(clearedEnv, "")
	for _, k := range []string{"QA_X_TOP", "QA_X_LOW", "QA_X_VECTORS", "X_API_KEY"} {
		t.Setenv(k, "1")
	}
	ClearEnv(map[string]command.RunFunc{"qa-x": run})
	for k, want := range map[string]bool{"QA_X_TOP": false, "QA_X_LOW": false, "QA_X_VECTORS": true, "X_API_KEY": false, clearedEnv: true} {
		if _, set := os.LookupEnv(k); set != want {
			t.Errorf("after ClearEnv, %s set = %v, want %v", k, set, want)
		}
	}
}
