package learncurve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
)

// plotFormat returns the image format of the --plot file plot: --plot-format's (or
// QA_PLOT_FORMAT's) when given, else the one the file's extension names. A --plot-format that
// another extension names is kept, with a warning, as qa-score keeps its summary's --format:
// --plot c.png --plot-format svg is what was asked for, if not what the name says. A name
// whose extension names no format ("-", /dev/stdout, curve, curve.jpg) needs --plot-format.
// --plot-format is read in any case, as the extension is (PNG is png).
//
// Note: the format was the extension's alone, so the plot could not go to a pipe or a file
// named without one.
func plotFormat(c *cli.Context, plot string) (string, error) {
	byExt := extPlotFormat(plot)
	f := flagPlotFormat(c)
	if f == "" {
		if byExt == "" {
			why := "no extension names the image format"
			if ext := plotExt(plot); ext != "" && plot != "-" {
				why = fmt.Sprintf("unsupported plot format %q", ext)
			}
			return "", command.Usagef("--plot %s: %s: name a .svg or .png file, or give --plot-format svg or png (QA_PLOT_FORMAT)", plot, why)
		}
		return byExt, nil
	}
	if !slices.Contains(PlotFormats, f) {
		return "", unknownPlotFormat(c)
	}
	if byExt != "" && byExt != f {
		fmt.Fprintf(c.App.ErrWriter, "qa-learncurve: warning: --plot %s: writing %s (--plot-format%s), not the %s its extension names\n",
			plot, f, command.FromEnv(c, "plot-format"), byExt)
	}
	return f, nil
}

// flagPlotFormat is --plot-format (or QA_PLOT_FORMAT) in lower case, as a --plot file's extension
// is read (extPlotFormat): PNG is png. It is "" when not given.
//
// Note: --plot-format PNG was refused (did you mean "png"?) where curve.PNG was png.
func flagPlotFormat(c *cli.Context) string { return strings.ToLower(c.String("plot-format")) }

// unknownPlotFormat is the usage error of a --plot-format that names no image format, as typed.
func unknownPlotFormat(c *cli.Context) error {
	f := c.String("plot-format")
	return command.Usagef("--plot-format: unknown format %q%s (want svg or png)%s", f, command.FromEnv(c, "plot-format"),
		english.DidYouMean(strings.ToLower(f), PlotFormats))
}

// plotStdout checks a --plot that writes the image to stdout ("-", /dev/stdout, or the file stdout
// was redirected to, by its own name: cfg.PlotToStdout): stdout then
// carries the image alone, so the JSON report must go to an --output file (it is then written
// there only), and the text report, which has no other place, cannot be asked for.
//
// Note: the report and then the image on one stream would be neither a report nor an image.
func plotStdout(c *cli.Context, cfg Config) error {
	switch {
	case !cfg.PlotToStdout:
	case cfg.Output == "":
		return command.Usagef("--plot %s: the image would go to stdout after the report: write the report to a file with --output FILE (then stdout carries the image only)", cfg.Plot)
	case command.StdoutFile(cfg.Output, c.App.Writer):
		return command.Usagef("--output %s: stdout carries the image of --plot %s: name a file for the report", cfg.Output, cfg.Plot)
	case cfg.Format != FormatJSON:
		return command.Usagef("--format %s%s: the text report goes to stdout, which carries the image of --plot %s: leave --format out (the JSON report goes to --output)",
			cfg.Format, command.FromEnv(c, "format"), cfg.Plot)
	}
	return nil
}
