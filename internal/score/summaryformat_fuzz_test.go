package score

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// runSummaryFormat runs qa-score's --format flag (QA_SUMMARY_FORMAT) with args, and returns the
// format parseSummary reads for the --summary file summary, and the warnings.
func runSummaryFormat(t *testing.T, args []string, summary string) (format, warned string, err error) {
	t.Helper()
	warned, err = clitest.RunFlag(t, flags(), "format", args, func(c *cli.Context) error {
		cfg := &config{summary: summary}
		err := cfg.parseSummary(c)
		format = cfg.format
		return err
	})
	return format, warned, err
}

// FuzzSummaryFormat: the format of qa-score's --summary FILE. Without --format (or given empty) it
// is the one FILE's extension names, in any case, before a .gz ending, else json (for -, and for
// no --summary). --format, given on the command line or (env) in QA_SUMMARY_FORMAT, takes json,
// table, markdown or csv, kept with a warning when the extension names another (but .txt, which
// any text format fits); anything else is a usage error `--format: unknown format "VALUE" (want
// one of json, table, markdown, csv)`, Go-quoted, that a value from the variable ends by naming
// it. Without --summary, a --format given is warned of as doing nothing. A format read is read
// again the same as --format. Every message is valid UTF-8.
func FuzzSummaryFormat(f *testing.F) {
	names := append([]string{"", "-", "s.json", "s.csv", "s.CSV", "s.md", "s.markdown", "s.txt", "s.csv.gz", "s.md.GZ", "s.gz", "s",
		"s.tsv", "dir.csv/s", "s.csv.gz.gz", "s.\xff"}, clitest.FlagTexts(f, "summary")...)
	values := append([]string{"", "json", "table", "markdown", "csv", "md", "JSON", " csv", "text", "\xff", "QA_SUMMARY_FORMAT"},
		clitest.FlagTexts(f, "format")...)
	for i, s := range names {
		for j, v := range values {
			if (i+j)%3 == 0 || s == "" || v == "" {
				f.Add(s, v, false)
			}
		}
	}
	f.Add("s.csv", "markdown", true)
	f.Add("s.csv", "QA_SUMMARY_FORMAT", true)
	f.Fuzz(func(t *testing.T, summary, value string, env bool) {
		args, ok := clitest.FlagArgs(t, "format", "QA_SUMMARY_FORMAT", value, env)
		if !ok {
			return
		}
		format, warned, err := runSummaryFormat(t, args, summary)

		name := summary
		if command.GzipNamed(name) {
			name = name[:len(name)-len(".gz")]
		}
		ext, byExt := strings.ToLower(filepath.Ext(name)), ""
		for _, e := range summaryExtensions {
			if e.ext == ext {
				byExt = e.format
			}
		}
		if err != nil {
			msg := err.Error()
			want := "--format: unknown format " + strconv.Quote(value) + " (want one of json, table, markdown, csv)"
			if command.ExitCode(err) != command.ExitUsage || !strings.HasPrefix(msg, want) || !utf8.ValidString(msg) ||
				env && !strings.HasSuffix(msg, " (from QA_SUMMARY_FORMAT)") || value == "" || slices.Contains(formats, value) {
				t.Errorf("--summary %q --format %q (env %v): error %q (exit %d), want a usage error beginning %q", summary, value, env, msg, command.ExitCode(err), want)
			}
			return
		}
		want := value
		switch {
		case want != "":
		case byExt != "" && summary != "-":
			want = byExt
		default:
			want = "json"
		}
		if format != want || !slices.Contains(formats, format) {
			t.Errorf("--summary %q --format %q (env %v) = %q, want %q", summary, value, env, format, want)
		}
		mismatch := value != "" && byExt != "" && byExt != format && ext != ".txt"
		if mismatch != strings.Contains(warned, "not the "+byExt+" its extension names") {
			t.Errorf("--summary %q --format %q (env %v): warnings %q, want the extension's: %v", summary, value, env, warned, mismatch)
		}
		if (summary == "") != strings.Contains(warned, "without --summary it does nothing") { // the flag is always given
			t.Errorf("--summary %q --format %q (env %v): warnings %q", summary, value, env, warned)
		}
		if !utf8.ValidString(warned) && utf8.ValidString(summary) {
			t.Errorf("--summary %q --format %q: warnings %q are not valid UTF-8", summary, value, warned)
		}
		if again, _, err := runSummaryFormat(t, []string{"--format", format}, summary); again != format || err != nil {
			t.Errorf("--summary %q --format %q read again = %q, %v", summary, format, again, err)
		}
	})
}
