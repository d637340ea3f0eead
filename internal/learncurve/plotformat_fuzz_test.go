package learncurve

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

// runPlotFormat runs qa-learncurve's --plot-format flag (QA_PLOT_FORMAT) with args, and returns
// what plotFormat makes of it for the --plot file plot, and the warnings.
func runPlotFormat(t *testing.T, args []string, plot string) (format, warned string, err error) {
	t.Helper()
	warned, err = clitest.RunFlag(t, flags(), "plot-format", args, func(c *cli.Context) error {
		format, err = plotFormat(c, plot)
		return err
	})
	return format, warned, err
}

// FuzzPlotFormat: the image format of --plot FILE. Without --plot-format (or given empty) it is
// the one FILE's extension names, in any case, before a .gz ending; FILE naming none is a usage
// error `--plot FILE: ...` that says which extension it has, if any. --plot-format, given on the
// command line or (env) in QA_PLOT_FORMAT, takes svg or png in any case, as the extension is
// read (PNG is png), kept with a warning when the extension names the other; anything else is a usage error `--plot-format: unknown format
// "VALUE"` (Go-quoted; from QA_PLOT_FORMAT when it came from there). A format read is read again
// the same as --plot-format, without a warning. Every message is valid UTF-8 when FILE is.
func FuzzPlotFormat(f *testing.F) {
	for _, plot := range []string{"-", "/dev/stdout", "curve.png", "curve.svg", "curve.PNG", "curve.svg.gz", "c.png.GZ", "curve",
		"curve.jpg", "curve.gz", ".svg", "a.svg/", "curve.svg.gz.gz", "dir.png/curve", "c.\xff"} {
		for _, format := range []string{"", "svg", "png", "pgn", "SVG", "Png", " png", "PGN", "pdf", "\xff", "QA_PLOT_FORMAT"} {
			f.Add(plot, format, false)
		}
	}
	f.Add("curve.png", "svg", true)
	f.Add("curve", "pgn", true)
	f.Fuzz(func(t *testing.T, plot, value string, env bool) {
		args, ok := clitest.FlagArgs(t, "plot-format", "QA_PLOT_FORMAT", value, env)
		if !ok {
			return
		}
		format, warned, err := runPlotFormat(t, args, plot)

		name := plot
		if command.GzipNamed(name) {
			name = name[:len(name)-len(".gz")]
		}
		ext := strings.ToLower(filepath.Ext(name))
		byExt := ""
		if f := strings.TrimPrefix(ext, "."); slices.Contains(PlotFormats, f) {
			byExt = f
		}
		if err != nil {
			msg := err.Error()
			var want string
			switch {
			case value != "":
				want = "--plot-format: unknown format " + strconv.Quote(value)
				if env {
					want += " from QA_PLOT_FORMAT"
				}
				want += " (want svg or png)"
			case ext != "" && plot != "-":
				want = "--plot " + plot + ": unsupported plot format " + strconv.Quote(filepath.Ext(name)) + ": "
			default:
				want = "--plot " + plot + ": no extension names the image format: "
			}
			if command.ExitCode(err) != command.ExitUsage || !strings.HasPrefix(msg, want) || utf8.ValidString(plot) && !utf8.ValidString(msg) ||
				slices.Contains(PlotFormats, strings.ToLower(value)) || value == "" && byExt != "" {
				t.Errorf("--plot %q --plot-format %q (env %v): error %q (exit %d), want a usage error beginning %q", plot, value, env, msg, command.ExitCode(err), want)
			}
			return
		}
		want := strings.ToLower(value)
		if want == "" {
			want = byExt
		}
		if format != want || !slices.Contains(PlotFormats, format) {
			t.Errorf("--plot %q --plot-format %q (env %v) = %q, want %q", plot, value, env, format, want)
		}
		if wantWarn := byExt != "" && byExt != format; wantWarn != (warned != "") || wantWarn && !strings.Contains(warned, "not the "+byExt+" its extension names") {
			t.Errorf("--plot %q --plot-format %q (env %v): warnings %q, want one: %v", plot, value, env, warned, wantWarn)
		}
		if again, warned, err := runPlotFormat(t, []string{"--plot-format", format}, plot); again != format || err != nil || warned != "" && value == "" {
			t.Errorf("--plot %q --plot-format %q read again = %q, %v, warnings %q", plot, format, again, err, warned)
		}
	})
}

// TestPlotFormatCase: --plot-format and QA_PLOT_FORMAT read a format in any case, as a --plot
// file's extension is read (curve.PNG is png): PNG was refused, with "did you mean "png"?". An
// unknown one in capitals is refused as typed, the suggestion in lower case.
func TestPlotFormatCase(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		plot         string
		format, warn string
		err          string
	}{
		{[]string{"--plot-format", "PNG"}, "-", "png", "", ""},
		{[]string{"--plot-format", "Svg"}, "curve", "svg", "", ""},
		{[]string{"--plot-format", "SVG"}, "curve.svg", "svg", "", ""},
		{[]string{"--plot-format", "PNG"}, "curve.PNG", "png", "", ""},
		{[]string{"--plot-format", "SVG"}, "curve.png", "svg", "qa-learncurve: warning: --plot curve.png: writing svg (--plot-format), not the png its extension names\n", ""},
		{[]string{"QA_PLOT_FORMAT=PNG"}, "-", "png", "", ""},
		{[]string{"--plot-format", "PGN"}, "-", "", "", `--plot-format: unknown format "PGN" (want svg or png); did you mean "png"?`},
	} {
		t.Run(strings.Join(tc.args, " ")+" "+tc.plot, func(t *testing.T) {
			args := tc.args
			if env, ok := strings.CutPrefix(args[0], "QA_PLOT_FORMAT="); ok {
				t.Setenv("QA_PLOT_FORMAT", env)
				args = nil
			}
			format, warned, err := runPlotFormat(t, args, tc.plot)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if format != tc.format || warned != tc.warn || msg != tc.err {
				t.Errorf("--plot %s: format %q, warnings %q, error %q; want %q, %q, %q", tc.plot, format, warned, msg, tc.format, tc.warn, tc.err)
			}
		})
	}
}
