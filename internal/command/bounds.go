package command

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/stats"
)

// MaxBootstrap bounds every --bootstrap (see stats.MaxResamples).
const MaxBootstrap = stats.MaxResamples

// Bootstrap returns the --bootstrap flag: a usage error unless it is 0 to MaxBootstrap.
func Bootstrap(c *cli.Context) (int, error) {
	return IntBetween(c, "bootstrap", 0, MaxBootstrap, "resamples")
}

// DefaultLevel is the confidence level of every command's bootstrap intervals unless --level
// sets another.
const DefaultLevel = 0.95

// LevelFlag returns the --level flag (QA_LEVEL), the confidence level of a command's bootstrap
// intervals; Level reads it. Its help text is every command's, as QA_LEVEL is.
func LevelFlag() *cli.Float64Flag {
	return &cli.Float64Flag{Name: "level", Value: DefaultLevel, EnvVars: []string{"QA_LEVEL"},
		Usage: "confidence `LEVEL` of the intervals (0.9: 90% intervals, the 5th and 95th percentiles)"}
}

// BootstrapFlag returns the --bootstrap flag (QA_BOOTSTRAP), the number of bootstrap resamples,
// value unless set; Bootstrap reads it. Its help text is every command's, as QA_BOOTSTRAP is.
func BootstrapFlag(value int) *cli.IntFlag {
	return &cli.IntFlag{Name: "bootstrap", Value: value, EnvVars: []string{"QA_BOOTSTRAP"},
		Usage: fmt.Sprintf("`N` bootstrap resamples for the confidence intervals (0: none; at most %d; fewer than "+
			"5/(1-LEVEL), 100 at 95%%, are warned of as too few to place the bounds)", MaxBootstrap)}
}

// BootstrapSeedFlag returns the --seed flag (QA_SEED) of a command whose only randomness is its
// bootstrap. Its help text is every such command's.
func BootstrapSeedFlag() *cli.Int64Flag {
	return &cli.Int64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}, Usage: "random `SEED` of the bootstrap"}
}

// Level returns the --level flag: a usage error unless it is between 0 and 1, both left out (a
// 0 or 100% interval is no interval; NaN is refused too).
func Level(c *cli.Context) (float64, error) {
	l := c.Float64("level")
	if !(l > 0 && l < 1) {
		return 0, Usagef("--level: want a number between 0 and 1, got %v%s", l, fromEnv(c, "level"))
	}
	return l, nil
}

// IntBetween returns the int flag name: a usage error unless it is lo to hi, counted in units
// (none when "").
func IntBetween(c *cli.Context, name string, lo, hi int, units string) (int, error) {
	n := c.Int(name)
	if n < lo || n > hi {
		if units != "" {
			units = " " + units
		}
		return 0, Usagef("--%s: want %d to %d%s, got %d%s", name, lo, hi, units, n, fromEnv(c, name))
	}
	return n, nil
}

// FloatBetween returns the float64 flag name: a usage error unless it is lo to hi, both
// included; NaN, which strconv reads and which passes every comparison, is refused too.
func FloatBetween(c *cli.Context, name string, lo, hi float64) (float64, error) {
	return FloatBetweenFor(c, name, lo, hi, "")
}

// FloatBetweenFor is FloatBetween for a range that is whose (a provider's, say), which the
// error names: `--temperature: want a number from 0 to 1 for anthropic, got 3`. An empty whose
// names none.
func FloatBetweenFor(c *cli.Context, name string, lo, hi float64, whose string) (float64, error) {
	v := c.Float64(name)
	if !(v >= lo && v <= hi) {
		if whose != "" {
			whose = " for " + whose
		}
		return 0, Usagef("--%s: want a number from %g to %g%s, got %v%s", name, lo, hi, whose, v, fromEnv(c, name))
	}
	return v, nil
}

// Temperature returns the float64 flag name, a sampling temperature: a usage error when it is
// NaN or negative, or, when bounded, above hi, the highest whose (a provider) takes
// (model.MaxTemperature), so that a temperature out of range is refused before any call.
func Temperature(c *cli.Context, name string, hi float64, bounded bool, whose string) (float64, error) {
	if err := NotNegative(c, name); err != nil {
		return 0, err
	}
	if bounded {
		return FloatBetweenFor(c, name, 0, hi, whose)
	}
	return c.Float64(name), nil
}

// NumCtx returns the int flag name, a context window in tokens for an Ollama model (its
// num_ctx), 0 for none: a usage error when it is negative or past 32 bits (Ollama's server holds
// it in an int32 field of its runner), or when a call to provider carries no such option, which
// only Ollama's API has (model.Request.SentNumCtx), so that it is not given for nothing. The
// extractive baseline, which ignores --temperature, ignores it too.
func NumCtx(c *cli.Context, name, provider string) (int, error) {
	n, err := IntBetween(c, name, 0, math.MaxInt32, "tokens")
	if err != nil || n == 0 || provider == "ollama" || provider == "extractive" {
		return n, err
	}
	return 0, Usagef("--%s %d%s: only an Ollama server is sent a context window (num_ctx), not %s; set another server's on the server itself (vLLM's --max-model-len, llama-server's --ctx-size)",
		name, n, fromEnv(c, name), provider)
}

// MaxTokensField returns the string flag name, the member an OpenAI call carries its token budget
// in: one of fields (model.MaxTokensFields, auto first; empty is auto), else a usage error; and a
// usage error when it names a member (not auto) for a call to provider other than openai, whose
// API has its own (Anthropic's max_tokens, Ollama's num_predict, Gemini's maxOutputTokens), so
// that it is not given for nothing. The extractive baseline, which sends nothing, ignores it, and
// a provider of "" checks the value alone.
func MaxTokensField(c *cli.Context, name, provider string, fields []string) (string, error) {
	f := c.String(name)
	if f == "" { // an empty variable, QA_MAX_TOKENS_FIELD= say: the default
		f = fields[0]
	}
	if !slices.Contains(fields, f) {
		return "", Usagef("--%s: want one of %s, not %q%s%s", name, strings.Join(fields, ", "), f, fromEnv(c, name), english.DidYouMean(f, fields))
	}
	if f == fields[0] || provider == "openai" || provider == "extractive" || provider == "" {
		return f, nil
	}
	return "", Usagef("--%s %s%s: only OpenAI's API takes the token budget under either name; a call to %s sends it under the one name its API has",
		name, f, fromEnv(c, name), provider)
}

// MaxConcurrency bounds every --concurrency. The pipeline makes its window of slots, several for
// each call in flight (pipeline.WindowPerCall), before any record is read (a mistyped 100000000
// took 800 MB at once when it kept one), and no provider serves that many calls from one client.
const MaxConcurrency = 10_000

// Concurrency returns the int flag name, a --concurrency (qa-score's --embed-concurrency): a
// usage error unless it is 1 to MaxConcurrency.
func Concurrency(c *cli.Context, name string) (int, error) {
	return IntBetween(c, name, 1, MaxConcurrency, "calls in flight")
}

// NotNegative returns a usage error naming the first of the flags names (int, int64, float64 or
// duration flags) whose value is negative, and that value, or NaN: strconv reads "NaN", and a NaN --max-cost or
// --temperature passes every comparison, so it would turn the budget off or reach the provider.
func NotNegative(c *cli.Context, names ...string) error {
	for _, n := range names {
		negative := false
		switch v := c.Value(n).(type) {
		case int:
			negative = v < 0
		case int64:
			negative = v < 0
		case float64:
			if math.IsNaN(v) {
				return Usagef("--%s: want a number, got NaN%s", n, fromEnv(c, n))
			}
			negative = v < 0
		case time.Duration:
			negative = v < 0
		default:
			panic(fmt.Sprintf("NotNegative: flag --%s holds a %T", n, v))
		}
		if negative { // the value shown, as other bad values are, and where it came from
			return Usagef("--%s: must not be negative, got %v%s", n, c.Value(n), fromEnv(c, n))
		}
	}
	return nil
}
