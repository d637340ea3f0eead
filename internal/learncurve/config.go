package learncurve

import (
	"fmt"
	"io"
	"slices"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/urfave/cli/v2"
)

// Config is one run of qa-learncurve, as its flags set it.
type Config struct {
	Problems, Warmup int
	Format           string
	Output           string // also write the JSON report here
	Plot             string // "-" (or /dev/stdout): stdout, the report then in Output only
	PlotToStdout     bool   // Plot is where stdout writes (command.StdoutFile)
	PlotFormat       string // "svg" or "png"
	Bootstrap        int
	Level            float64
	Seed             uint64
	Judge            string
	JudgeFlag        string // how messages name where Judge came from: "--judge", "--judge from QA_JUDGE"
	Strict           bool
	MaxLine          int
}

// MaxProblems is the most --problems: the report holds M values a sequence and type (and the
// warnings name missing positions), so an M mistyped by some digits would take gigabytes, while
// sequential benchmarks have a few to some hundreds of problems a sequence (EvaLearn's 7).
const MaxProblems = 10000

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "problems", Value: 7, EnvVars: []string{"QA_PROBLEMS"}, Usage: fmt.Sprintf("problems per sequence `M`, 1 to %d; positions above M are ignored", MaxProblems)},
		&cli.IntFlag{Name: "warmup", Value: 3, EnvVars: []string{"QA_WARMUP"}, Usage: "post-warmup accuracy leaves out the first `K` positions"},
		&cli.StringFlag{Name: "format", Value: FormatJSON, EnvVars: []string{"QA_LEARNCURVE_FORMAT"}, Usage: "output `FORMAT`: json (EvaLearn's report) or evalearn-text (its console text)"},
		&cli.StringFlag{Name: "output", EnvVars: []string{"QA_OUTPUT"}, Usage: "also write the JSON report to `FILE` (only there with --plot -; gzip-compressed when FILE ends in .gz)"},
		&cli.StringFlag{Name: "plot", EnvVars: []string{"QA_PLOT"}, Usage: "draw accuracy per position and type to `FILE` (.svg or .png; .svg.gz or .png.gz gzip-compressed; - for stdout, with --output and --plot-format)"},
		&cli.StringFlag{Name: "plot-format", EnvVars: []string{"QA_PLOT_FORMAT"}, Usage: "image `FORMAT` of --plot: svg or png, in any case (default: the one its extension names)"},
		command.BootstrapFlag(0),
		command.LevelFlag(),
		command.BootstrapSeedFlag(),
		&cli.StringFlag{Name: "judge", Value: JudgeName, EnvVars: []string{"QA_JUDGE"}, Usage: "judgments key `NAME` holding the verdicts (empty: the default, as qa-score reads an empty --judge)"},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in `BYTES`"),
	}
}

func configure(c *cli.Context, stdin io.Reader) (Config, error) {
	cfg := Config{
		Problems: c.Int("problems"), Warmup: c.Int("warmup"), Format: c.String("format"),
		Output: c.String("output"), Plot: c.String("plot"), Bootstrap: c.Int("bootstrap"),
		Seed: uint64(c.Int64("seed")), Judge: c.String("judge"), JudgeFlag: "--judge" + command.FromEnv(c, "judge"),
		Strict: c.Bool("strict"),
	}
	if cfg.Judge == "" { // an exported QA_JUDGE= means qa-score's default, and this one's
		cfg.Judge = JudgeName
	}
	var err error
	if cfg.MaxLine, err = command.MaxLine(c); err != nil {
		return cfg, err
	}
	if cfg.Bootstrap, err = command.Bootstrap(c); err != nil {
		return cfg, err
	}
	if cfg.Level, err = command.Level(c); err != nil {
		return cfg, err
	}
	if err := checkCounts(cfg); err != nil {
		return cfg, err
	}
	if err := configurePlot(c, &cfg); err != nil { // first: --plot - refuses --output - its way
		return cfg, err
	}
	if cfg.Output == "-" { // it would make a file named "-"
		if cfg.Format == FormatText {
			return cfg, command.Usagef("--output: - is stdout, which carries the text report: name a file for the JSON report")
		}
		return cfg, command.Usagef("--output: - is stdout, where the report goes anyway: name a file")
	}
	if err := checkOutputs(c, cfg, stdin); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// checkCounts checks cfg's --problems, --warmup and --format.
func checkCounts(cfg Config) error {
	switch {
	case cfg.Problems < 1:
		return command.Usagef("--problems: want at least 1, got %d", cfg.Problems)
	case cfg.Problems > MaxProblems:
		return command.Usagef("--problems: want at most %d (problems per sequence; EvaLearn's are 7), got %d", MaxProblems, cfg.Problems)
	case cfg.Warmup < 0:
		return command.Usagef("--warmup: want 0 or more, got %d", cfg.Warmup)
	case cfg.Format != FormatJSON && cfg.Format != FormatText:
		return command.Usagef("--format: unknown format %q (want %s or %s)%s", cfg.Format, FormatJSON, FormatText,
			english.DidYouMean(cfg.Format, []string{FormatJSON, FormatText}))
	}
	return nil
}

// configurePlot sets cfg's plot format, and whether the plot goes to stdout, warning of
// --plot-format without --plot.
func configurePlot(c *cli.Context, cfg *Config) error {
	var err error
	if cfg.Plot == "" && c.IsSet("plot-format") {
		fmt.Fprintf(c.App.ErrWriter, "qa-learncurve: warning: --plot-format%s is the plot's format; without --plot it does nothing\n",
			command.FromEnv(c, "plot-format"))
		if f := flagPlotFormat(c); f != "" && !slices.Contains(PlotFormats, f) { // refused all the same, as qa-score's --format
			return unknownPlotFormat(c)
		}
	}
	if cfg.Plot != "" {
		if cfg.PlotFormat, err = plotFormat(c, cfg.Plot); err != nil {
			return err
		}
	}
	cfg.PlotToStdout = cfg.Plot != "" && command.StdoutFile(cfg.Plot, c.App.Writer)
	return plotStdout(c, *cfg)
}

// checkOutputs refuses a JSON report written to stdout's file twice, an --output or --plot that
// is an input or is the other output, and one that cannot be written, before any work.
func checkOutputs(c *cli.Context, cfg Config, stdin io.Reader) error {
	if !cfg.PlotToStdout && cfg.Format == FormatJSON && command.StdoutFile(cfg.Output, c.App.Writer) {
		// The report would be written twice into one file: two JSON documents, no report.
		return command.Usagef("--output %s: is where stdout writes, which carries the JSON report anyway: name another file", cfg.Output)
	}
	outputs := [][2]string{{"--output", cfg.Output}, {"--plot", cfg.Plot}}
	for _, o := range outputs {
		if err := command.NotAnInput(o[0], o[1], c.Args().Slice(), stdin); err != nil {
			return err
		}
	}
	if err := command.DistinctOutputs(outputs); err != nil {
		return err
	}
	for _, o := range outputs { // written at the end: a typo found then would lose the report
		if err := command.OutputFolder(o[0], o[1]); err != nil {
			return err
		}
		if err := command.OutputWritable(o[0], o[1]); err != nil {
			return err // --plot is written after the report: found then, the report was out
		}
	}
	return nil
}
