package examples

import (
	"bufio"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/command"
)

// helpWidth is the widest line of --help prose, indent included: the paragraphs are wrapped at
// about 100 columns, and a line left far past it after an edit is a wrap forgotten.
const helpWidth = 105

// sectionHead is a heading of urfave/cli's help, at the left margin: "GLOBAL OPTIONS:".
var sectionHead = regexp.MustCompile(`^[A-Z][A-Z ]*:$`)

// descIndent is the indent urfave/cli gives the DESCRIPTION's prose; example command lines are
// indented further.
const descIndent = 3

// TestHelpWrap checks that the DESCRIPTION of every command's --help (and of qa-judge agree's) is
// wrapped at the width of the rest: a line of prose is at most helpWidth columns. Table rows (a
// name, then two or more spaces, then its text) and example command lines (a command, indented
// past the prose) are left as they are.
//
// Note: a line was taken for an example by its first word alone (qa-…), so that a line of prose
// that a wrap began with "qa-score reads …" went unchecked at any width.
func TestHelpWrap(t *testing.T) {
	bin := commands(t)
	for _, args := range helpCommands {
		name := strings.Join(args, " ")
		in := false
		sc := bufio.NewScanner(strings.NewReader(helpText(t, bin, args...)))
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "DESCRIPTION:":
				in = true
				continue
			case sectionHead.MatchString(line):
				in = false
			}
			text := strings.TrimLeft(line, " ")
			example := strings.HasPrefix(text, "qa-") && len(line)-len(text) > descIndent
			if !in || example || strings.Contains(text, "  ") {
				continue
			}
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("%s --help: a line of %d columns (at most %d):\n%s", name, n, helpWidth, line)
			}
		}
	}
}

// TestHelpInterrupting: the commands that finish their calls in flight at the first signal
// (qa-predict, qa-judge, and qa-score for its embedding calls, all under command.MainCalls)
// each say in --help what the further signals do, as README's "Interrupting a run" says it for
// them all; qa-score's did not say that a SIGTERM echoed within a second counts once.
// (The echoes' figures are command.SignalEcho's, tested there.)
func TestHelpInterrupting(t *testing.T) {
	bin := commands(t)
	for _, prog := range []string{"qa-predict", "qa-judge", "qa-score"} {
		help := strings.Join(strings.Fields(helpText(t, bin, prog)), " ")
		for _, want := range []string{
			"A second signal, or the 2 minutes passing, abandons the calls in flight",
			"a third signal, or 10 s more, ends the run without them.",
			"A SIGTERM or SIGHUP within a second of either, or a SIGINT within 0.1 s of one, counts once",
		} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help does not say %q", prog, want)
			}
		}
	}
}

// TestHelpInputs: every command that reads records says in --help, in the same words
// (command.InputsHelp), that its inputs are FILE arguments, that none or "-" is stdin, and that a
// gzip-compressed one is read; qa-load's says so in its own, longer words. qa-predict's,
// qa-judge's, qa-judge agree's and qa-score's said none of it, qa-learncurve's nothing of gzip.
func TestHelpInputs(t *testing.T) {
	bin := commands(t)
	want := strings.Join(strings.Fields(command.InputsHelp), " ")
	for _, args := range helpCommands {
		name := strings.Join(args, " ")
		help := strings.Join(strings.Fields(helpText(t, bin, args...)), " ")
		if name == "qa-load" {
			for _, w := range []string{`none or "-" means stdin`, "Inputs may be gzip-compressed (known by their first bytes"} {
				if !strings.Contains(help, w) {
					t.Errorf("qa-load --help does not say %q", w)
				}
			}
			continue
		}
		if !strings.Contains(help, want) {
			t.Errorf("%s --help does not say %q", name, want)
		}
	}
}
