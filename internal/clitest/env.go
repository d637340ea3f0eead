package clitest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// clearedEnv is set once ClearEnv has cleared the environment, so that the child processes the
// tests start, which inherit it with the variables their test set on purpose, keep them.
const clearedEnv = "QAPIPE_TEST_ENV_CLEARED"

// envName matches a variable as --help names it for a flag: "[$QA_SEED]".
var envName = regexp.MustCompile(`\$([A-Z][A-Z0-9_]*)`)

// ClearEnv, called from a test binary's TestMain, unsets the variables through which the shell
// that runs the tests would reach the commands that cmds map from their names to their Run: every
// variable that a command's --help, or one of its subcommands', names for a flag, and every
// *_API_KEY. A QA_MODEL or OPENAI_API_KEY of the developer's then changes no test, and a test
// that needs a variable sets it with t.Setenv. The others, such as QA_TEST_* and the QA_*
// variables that name extra golden files, are kept.
//
// Note: the names come from --help, not from a QA_ prefix, because the golden files' variables
// begin with QA_ too and must reach the tests.
func ClearEnv(cmds map[string]command.RunFunc) {
	if os.Getenv(clearedEnv) != "" {
		return
	}
	var names []string
	for prog, run := range cmds {
		names = append(names, flagEnv(prog, run)...)
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasSuffix(k, "_API_KEY") {
			names = append(names, k)
		}
	}
	for _, k := range names {
		os.Unsetenv(k)
	}
	os.Setenv(clearedEnv, "1")
}

// Main is a test binary's TestMain for packages whose tests run the commands cmds maps from
// their names to their Run: it clears the environment (ClearEnv), then runs the tests and exits
// with their status.
func Main(m *testing.M, cmds map[string]command.RunFunc) {
	ClearEnv(cmds)
	os.Exit(m.Run())
}

// flagEnv returns the variables that prog's --help and its subcommands' name.
func flagEnv(prog string, run command.RunFunc) []string {
	top := help(run, prog)
	names := envNames(top)
	for _, sub := range subcommands(top) {
		names = append(names, envNames(help(run, prog, sub))...)
	}
	if len(names) == 0 {
		panic("clitest: " + prog + " --help names no variable")
	}
	return names
}

func help(run command.RunFunc, args ...string) []byte {
	var out bytes.Buffer
	run(context.Background(), append(args, "--help"), strings.NewReader(""), &out, io.Discard) //nolint:errcheck // the output is what counts
	return out.Bytes()
}

func envNames(help []byte) []string {
	var names []string
	for _, m := range envName.FindAllSubmatch(help, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

// subcommands returns the first word of each line of the COMMANDS section of help.
func subcommands(help []byte) []string {
	var subs []string
	in := false
	for sc := bufio.NewScanner(bytes.NewReader(help)); sc.Scan(); {
		line := sc.Text()
		switch {
		case line == "COMMANDS:":
			in = true
		case in && strings.TrimSpace(line) == "":
			return subs
		case in:
			if f := strings.Fields(line); len(f) > 0 && f[0] != "help," && f[0] != "help" {
				subs = append(subs, strings.TrimSuffix(f[0], ","))
			}
		}
	}
	return subs
}
