package clitest

// This file holds what the fuzz targets of a single flag share: running it as the command parses
// it, and seeding the corpus with the values the command's archives give it.

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
)

// RunFlag runs an app that holds only the flag named name among flags (a command's), parsed as the
// command parses it (its variable too), with args and action; it returns what the app wrote to
// stderr (its warnings) and its error.
func RunFlag(t testing.TB, flags []cli.Flag, name string, args []string, action cli.ActionFunc) (stderr string, err error) {
	t.Helper()
	i := slices.IndexFunc(flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) })
	if i < 0 {
		t.Fatalf("no --%s flag", name)
	}
	var errw bytes.Buffer
	app := command.NewApp("qa-x", "test", "", nil, io.Discard, &errw)
	app.Flags = []cli.Flag{flags[i]}
	app.Action = action
	err = command.Execute(context.Background(), app, append([]string{"qa-x"}, args...))
	return errw.String(), err
}

// FlagValue is a value a command's archive gives a flag: on the command line, or in its variable
// (FromEnv).
type FlagValue struct {
	Text    string
	FromEnv bool
}

// FlagValues returns the values the archives testdata/cli/*.txtar give the flag name (without
// dashes) after "--name " or "--name=", and its variable env (if not "") after "ENV=", each
// unquoted when the archive quotes it ("a b" or 'a b').
func FlagValues(tb testing.TB, name, env string) []FlagValue {
	tb.Helper()
	lead := `--` + regexp.QuoteMeta(name) + `[ =]`
	if env != "" {
		lead = `(?:` + lead + `|` + regexp.QuoteMeta(env) + `=)`
	}
	re := regexp.MustCompile(lead + `("[^"\n]*"|'[^'\n]*'|\S+)`)
	files, err := filepath.Glob(filepath.Join("testdata", "cli", "*.txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	var values []FlagValue
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			v, err := strconv.Unquote(m[1])
			if err != nil {
				v = strings.Trim(m[1], "'")
			}
			values = append(values, FlagValue{v, !strings.HasPrefix(m[0], "--")})
		}
	}
	return values
}

// FlagTexts returns the values the archives give the flag name on the command line (FlagValues
// without a variable), as text.
func FlagTexts(tb testing.TB, name string) []string {
	tb.Helper()
	var texts []string
	for _, v := range FlagValues(tb, name, "") {
		texts = append(texts, v.Text)
	}
	return texts
}

// FlagArgs gives value to the flag name, whose variable is env: as the arguments "--name value",
// or with fromEnv in the variable (set for t), no argument then. ok is false when the variable
// cannot hold value (a NUL), for the caller to skip the input.
func FlagArgs(t *testing.T, name, env, value string, fromEnv bool) (args []string, ok bool) {
	if !fromEnv {
		return []string{"--" + name, value}, true
	}
	if strings.IndexByte(value, 0) >= 0 {
		return nil, false
	}
	t.Setenv(env, value)
	return nil, true
}
