package judge

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// namesArgRE finds the --names values (and QA_AGREE_NAMES's) the command tests give.
var namesArgRE = regexp.MustCompile(`(?:--names[ =]|QA_AGREE_NAMES=)("[^"\n]*"|\S+)`)

// FuzzParseAgreeNames: --names either reads to two or more judgment names, each non-empty,
// trimmed, without a comma, none twice, the non-empty trimmed pieces of the value in order, and
// the names joined by commas read back to the same names; or it is a usage error (exit code 2)
// in one of the three wordings, the one that fits the value: a name given twice (the first name
// repeated, quoted), no name, or one name.
func FuzzParseAgreeNames(f *testing.F) {
	for _, s := range []string{"j1,j2", "j3,j1", "j1,j2,j3", " a , b ", "a,,b,", ",", ",,", "big", "a, a",
		"a,\u00a0a\u00a0", "\u00e9t\u00e9,\u00e9te", "x\ny,z", "a,b\x00", "\xff,\xfe"} {
		f.Add(s)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "cli", "*.txtar"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range namesArgRE.FindAllStringSubmatch(string(data), -1) {
			if v, err := strconv.Unquote(m[1]); err == nil {
				f.Add(v)
			} else {
				f.Add(m[1])
			}
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		var pieces []string // the non-empty trimmed pieces
		for p := range strings.SplitSeq(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				pieces = append(pieces, p)
			}
		}
		names, err := parseAgreeNames(s)
		if err != nil {
			if names != nil || command.ExitCode(err) != command.ExitUsage {
				t.Errorf("parseAgreeNames(%q) = %q, %v (exit %d), want no names and a usage error", s, names, err, command.ExitCode(err))
			}
			var want string
			for i, p := range pieces {
				if slices.Contains(pieces[:i], p) {
					want = fmt.Sprintf("--names: %q given twice: a judge compared with itself", p)
					break
				}
			}
			switch {
			case want != "":
			case len(pieces) == 0:
				want = fmt.Sprintf("--names %q names no judgment", s)
			case len(pieces) == 1:
				want = fmt.Sprintf("--names: need at least two judgment names, got 1 (%q)", pieces[0])
			}
			if err.Error() != want {
				t.Errorf("parseAgreeNames(%q) error %q, want %q", s, err, want)
			}
			return
		}
		if len(names) < 2 || !slices.Equal(names, pieces) {
			t.Fatalf("parseAgreeNames(%q) = %q, want the non-empty trimmed pieces %q, at least two", s, names, pieces)
		}
		for i, n := range names {
			if n == "" || n != strings.TrimSpace(n) || strings.Contains(n, ",") || slices.Contains(names[:i], n) {
				t.Errorf("parseAgreeNames(%q): name %d %q is empty, untrimmed, holds a comma or repeats one", s, i, n)
			}
		}
		if again, err := parseAgreeNames(strings.Join(names, ",")); err != nil || !slices.Equal(again, names) {
			t.Errorf("parseAgreeNames(%q) = %q, %v; want %q back", strings.Join(names, ","), again, err, names)
		}
	})
}
