package judge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
)

// config is one run of qa-judge, as its flags set it (agree's are agreeConfig): the inputs, the
// judge and its name, how records already judged are treated, and the run's limits.
type config struct {
	inputs         []string
	judge          *Judge
	name           string
	force          bool
	retryErrors    bool // --retry-errors
	allowSelfJudge bool
	concurrency    int
	strict         bool
	maxLine        int
	progress       bool
	dryRun         bool
	cache          *cache.Cache
	look           *cache.Look      // a dry run's --cache, read for the requests it answers; nil: none read
	strip          bool             // --think strip: the client strips the thinking from the replies
	budget         *model.Budget    // --max-cost, or nil
	transport      *model.Transport // the judge calls' (nil: no judge model), for its StopWarning
	maxCost        float64          // --max-cost, 0 for none
	routes         *routeUse        // --route in auto mode, or nil
	// bare is the default name a run without a model gives the judgments (MODE), when this run
	// has a model and the default name (MODE/MODEL): its judgments that failed for want of a
	// model are replaced (replaceFailedForModel). "" otherwise, with --name above all.
	bare string
}

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mode", Value: ModeAuto, EnvVars: []string{"QA_JUDGE_MODE"}, Usage: "judge protocol: " + strings.Join(Modes, ", ")},
		&cli.StringFlag{Name: "name", EnvVars: []string{"QA_JUDGE_NAME"}, Usage: "key under judgments (default MODE/MODEL, or MODE for a mode that calls no model or without --model; rules is named rules-approximate); the default MODE/MODEL replaces a judgment MODE that failed for want of a model; UTF-8 text with no white space at either end and no comma, which qa-judge agree --names could not pick, nor control characters"},
		&cli.StringFlag{Name: "provider", Value: "openai", EnvVars: []string{"QA_JUDGE_PROVIDER"}, Usage: "model provider: " + strings.Join(judgeProviders(), ", ")},
		&cli.StringFlag{Name: "model", EnvVars: []string{"QA_JUDGE_MODEL"}, Usage: "judge model (e.g. gpt-4o-2024-08-06, LongMemEval's official judge)"},
		&cli.StringFlag{Name: "base-url", EnvVars: []string{"QA_JUDGE_BASE_URL"}, Usage: "provider endpoint (default: the provider's)"},
		&cli.StringFlag{Name: "api-key-file", EnvVars: []string{"QA_JUDGE_API_KEY_FILE"}, Usage: "read the API key from `FILE` (default: the provider's usual environment variable)"},
		&cli.StringFlag{Name: "route", EnvVars: []string{"QA_JUDGE_ROUTE"}, Usage: "JSON `FILE` {\"dataset/type\"|\"dataset\"|\"*\": mode} laid over the auto table"},
		&cli.StringFlag{Name: "prompt", EnvVars: []string{"QA_JUDGE_PROMPT"}, Usage: "custom judge prompt `FILE` (sets mode custom: no --mode beside it)"},
		&cli.StringFlag{Name: "prompt-format", Value: FormatJSONScore, EnvVars: []string{"QA_JUDGE_PROMPT_FORMAT"}, Usage: "reply format of --prompt: json-score, label or yes-no"},
		command.ThinkFlag("QA_JUDGE_THINK", "what becomes of the thinking a reasoning judge writes into its reply (<think>…</think>): `MODE` strip (the text after </think> is parsed, and the judgment's raw keeps the reply whole; see REASONING JUDGES) or keep (the whole text is parsed)"),
		&cli.IntFlag{Name: "max-tokens", EnvVars: []string{"QA_JUDGE_MAX_TOKENS"}, Usage: "most tokens a judge reply may take, a reasoning model's thinking included, in every judge call (`N`; 0: each protocol's own, LongMemEval's 10 and none for the others); not the protocol's (a warning says so), but the way to judge with a reasoning model (see REASONING JUDGES)"},
		&cli.Float64Flag{Name: "temperature", EnvVars: []string{"QA_JUDGE_TEMPERATURE"}, DefaultText: "each protocol's", Usage: "sampling temperature of every judge call (`T`; unset: each protocol's own, EvaLearn's 0.2 and 0 for the others, and 0 for a --prompt); not the protocol's (a warning says so), but the way to judge with OpenAI's o1 and o4-mini and Claude models after Opus 4.6, which take only 1 (see REASONING JUDGES)"},
		&cli.StringFlag{Name: "max-tokens-field", Value: model.MaxTokensAuto, EnvVars: []string{"QA_JUDGE_MAX_TOKENS_FIELD"}, Usage: "openai only: the request member that carries a judge call's token budget (--max-tokens, or LongMemEval's 10), `NAME` auto, max_tokens or max_completion_tokens; auto sends max_completion_tokens to OpenAI's own API (its o-series and gpt-5 refuse max_tokens) and max_tokens to any other --base-url (vLLM, llama.cpp and Ollama read it); name max_completion_tokens for a compatible server that wants it, such as an o-series model behind Azure OpenAI"},
		&cli.StringFlag{Name: "gemini-safety", Value: gemini.DefaultSafety, EnvVars: []string{"QA_JUDGE_GEMINI_SAFETY"}, Usage: "googleai only: the safety `THRESHOLD` of every Gemini judge call, over the four harm categories langchaingo sets: " + strings.Join(gemini.SafetyLevels, ", ") + " (least blocked first); a judge prompt or reply blocked fails its judgment, not asked again"},
		&cli.IntFlag{Name: "num-ctx", EnvVars: []string{"QA_JUDGE_NUM_CTX"}, Usage: "ollama only: the judge model's context window in `TOKENS` (Ollama's num_ctx, sent with every judge call; 0: none sent, the server's, which may be as little as 2048 and cuts a longer prompt without an error)"},
		&cli.IntFlag{Name: "parse-retries", Value: 2, EnvVars: []string{"QA_JUDGE_PARSE_RETRIES"}, Usage: "times an unparsable reply is asked again"},
		&cli.BoolFlag{Name: "force", EnvVars: []string{"QA_JUDGE_FORCE"}, Usage: "judge records already judged under NAME again"},
		&cli.BoolFlag{Name: "retry-errors", EnvVars: []string{"QA_JUDGE_RETRY_ERRORS"}, Usage: "judge again the records whose judgment under NAME failed (error), and judge those not yet judged; the others pass through"},
		&cli.BoolFlag{Name: "allow-self-judge", EnvVars: []string{"QA_JUDGE_ALLOW_SELF_JUDGE"}, Usage: "allow the judge to be the provider and model that made the predictions"},
		// The model-call flags below have qa-predict's names, meanings and defaults (model.Setup);
		// only their environment variables differ, so a pipeline can set the two models apart.
		&cli.IntFlag{Name: "concurrency", Usage: "most calls in flight (`N`, 1 to 10000); output order is kept", Value: 4, EnvVars: []string{"QA_JUDGE_CONCURRENCY"}},
		&cli.Float64Flag{Name: "rpm", Usage: "most requests per minute (0: no limit)", EnvVars: []string{"QA_JUDGE_RPM"}},
		&cli.Float64Flag{Name: "tpm", Usage: "most tokens per minute, estimated (0: no limit)", EnvVars: []string{"QA_JUDGE_TPM"}},
		&cli.IntFlag{Name: "max-retries", Usage: "retries of a transient failure (408, 409, 425, 429, every 5xx but 501 and 505, timeouts, …; Retry-After honoured)", Value: 5, EnvVars: []string{"QA_JUDGE_MAX_RETRIES"}},
		&cli.DurationFlag{Name: "timeout", Usage: "per-attempt timeout (0: none)", Value: 2 * time.Minute, EnvVars: []string{"QA_JUDGE_TIMEOUT"}},
		&cli.DurationFlag{Name: "backoff", Usage: "first retry wait (doubled each retry, with jitter; 0: none, retry at once)", Value: 500 * time.Millisecond, EnvVars: []string{"QA_JUDGE_BACKOFF"}},
		&cli.StringFlag{Name: "cache", EnvVars: []string{"QA_JUDGE_CACHE"}, Usage: "SQLite reply cache `FILE` (keyed by the whole request: a changed prediction is never served a stale verdict)"},
		&cli.StringFlag{Name: "prices", Usage: "price `FILE` (JSON/YAML) merged over the built-in table", EnvVars: []string{"QA_JUDGE_PRICES"}},
		&cli.Float64Flag{Name: "max-cost", Usage: "make no new call once this run's replies have cost `USD` (0: no limit); the records left carry an error", EnvVars: []string{"QA_JUDGE_MAX_COST"}},
		&cli.Int64Flag{Name: "seed", Usage: "seed of retry jitter; also sent to openai and ollama judge models when set, unless 0 (langchaingo leaves a seed of 0 out; the benchmarks' judges send none), a re-ask of an unparsable reply sending the seed plus its sample number", Value: 1, EnvVars: []string{"QA_JUDGE_SEED"}},
		&cli.BoolFlag{Name: "dry-run", EnvVars: []string{"QA_JUDGE_DRY_RUN"}, Usage: "call no model: write each record's judge request, rule verdict or reason to pass as JSON lines, and count the requests and the input tokens of those --cache does not answer (see DRY RUN)"},
		command.ProgressFlag("QA_JUDGE_PROGRESS"),
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in `BYTES`"),
	}
}

// parseConfig reads the flags into a config, checking them and warning of those that do nothing;
// for a run that calls a judge model it builds the client too.
func parseConfig(ctx context.Context, c *cli.Context) (*config, error) {
	cfg, err := newConfig(c)
	if err != nil {
		return nil, err
	}
	if err := cfg.parseMode(c); err != nil {
		return nil, err
	}
	if err := cfg.parseLimits(c); err != nil {
		return nil, err
	}
	strip, err := cfg.parseReplies(c)
	if err != nil {
		return nil, err
	}
	if err := cfg.parseName(c); err != nil {
		return nil, err
	}
	j := cfg.judge
	if !j.NeedsModel() {
		if err := checkProvider(j.Provider); err != nil {
			return nil, err
		}
		cfg.warnNoModel(c)
		j.Model = ""
		return cfg, nil
	}
	if err := cfg.checkModel(c); err != nil {
		return nil, err
	}
	if cfg.dryRun {
		cfg.strip = strip
		if err := cfg.dryRunCache(c); err != nil {
			return nil, err
		}
		return cfg, nil
	}
	if j.Model == "" {
		if j.Mode == ModeAuto || j.Mode == "" {
			return cfg, nil // records routed to an LLM protocol get an error saying so
		}
		return nil, command.Usagef("--model: mode %s needs a judge model", j.Mode)
	}
	if err := cfg.connect(ctx, c, strip); err != nil {
		return nil, err
	}
	return cfg, nil
}

// newConfig reads the flags that need no checking into a config and its judge, and checks
// --base-url and --mode.
func newConfig(c *cli.Context) (*config, error) {
	baseURL, err := command.BaseURL(c, "base-url")
	if err != nil {
		return nil, err
	}
	j := &Judge{Mode: c.String("mode"), Provider: c.String("provider"), Model: c.String("model"),
		BaseURL: baseURL, ParseRetries: c.Int("parse-retries"), Routes: DefaultRoutes()}
	cfg := &config{inputs: c.Args().Slice(), judge: j, force: c.Bool("force"), retryErrors: c.Bool("retry-errors"), allowSelfJudge: c.Bool("allow-self-judge"),
		strict: c.Bool("strict"), progress: c.Bool("progress"),
		dryRun: c.Bool("dry-run"), maxCost: c.Float64("max-cost")}
	if !contains(Modes, j.Mode) {
		return nil, command.Usagef("--mode: unknown mode %q (want one of %s)%s", j.Mode, strings.Join(Modes, ", "), english.DidYouMean(j.Mode, Modes))
	}
	return cfg, nil
}

// parseMode reads --route and --prompt (with --prompt-format), which a judge's mode depends on,
// and drops the routes when the mode routes nothing.
func (cfg *config) parseMode(c *cli.Context) error {
	j := cfg.judge
	if p := c.String("route"); p != "" {
		r, keys, err := LoadRoutes(p)
		if err != nil {
			return command.Usagef("--route: %v", err)
		}
		j.Routes, cfg.routes = r, newRouteUse(p, r, keys)
	}
	if err := parsePrompt(c, j); err != nil {
		return err
	}
	if cfg.routes != nil && j.Mode != ModeAuto {
		how := "--mode " + j.Mode
		if j.Mode == ModeCustom {
			how = "a --prompt judge"
		}
		fmt.Fprintf(c.App.ErrWriter, "qa-judge: warning: --route %s does nothing with %s: only --mode auto routes\n", cfg.routes.path, how)
		cfg.routes = nil
	}
	return nil
}

// parsePrompt checks --prompt-format and loads the --prompt file, if any, making j a custom judge;
// a --mode set beside it is refused, as --prompt is the mode, but for one of the two typed over
// the other's variable (promptOverMode).
func parsePrompt(c *cli.Context, j *Judge) error {
	// The value is checked even without --prompt, as --max-tokens-field's is without a model.
	if f := c.String("prompt-format"); !slices.Contains(CustomFormats, f) {
		return command.Usagef("--prompt-format: unknown format %q%s (want %s, %s or %s)%s", f, command.FromEnv(c, "prompt-format"),
			FormatJSONScore, FormatLabel, FormatYesNo, english.DidYouMean(f, CustomFormats))
	}
	if c.IsSet("prompt-format") && c.String("prompt") == "" {
		fmt.Fprintf(c.App.ErrWriter, "qa-judge: warning: --prompt-format%s is the reply format of a --prompt judge; without --prompt it does nothing\n",
			command.FromEnv(c, "prompt-format"))
	}
	if p := c.String("prompt"); p != "" {
		use, err := promptOverMode(c, j.Mode)
		if err != nil || !use {
			return err
		}
		cu, err := LoadCustom(p, c.String("prompt-format"))
		if err != nil {
			return command.Usagef("--prompt: %v", err)
		}
		if n := len(cu.Unknown); n > 0 {
			what := "an unknown placeholder, sent as written"
			if n > 1 {
				what = "unknown placeholders, sent as written"
			}
			fmt.Fprintf(c.App.ErrWriter, "qa-judge: warning: --prompt %s: %s: %s (the placeholders are {%s})\n",
				p, strings.Join(cu.Unknown, ", "), what, strings.Join(customPlaceholders, "} {"))
		}
		j.Custom, j.Mode = cu, ModeCustom
	}
	return nil
}

// promptOverMode reports whether the --prompt set is the judge, a --mode beside it being refused:
// --prompt is a mode of its own (custom), so the two are two judges asked for at once. As any
// flag typed beats its variable, the one of the two typed on the command line beats the other's
// QA_JUDGE_* variable (a QA_JUDGE_MODE exported in a shell profile does not refuse a --prompt
// typed), with a warning that the variable does nothing; set both by the command line, or both by
// their variables, they are refused.
func promptOverMode(c *cli.Context, mode string) (bool, error) {
	if !c.IsSet("mode") {
		return true, nil
	}
	modeEnv, promptEnv := command.FromEnv(c, "mode"), command.FromEnv(c, "prompt")
	switch {
	case modeEnv != "" && promptEnv == "":
		fmt.Fprintf(c.App.ErrWriter, "qa-judge: warning: --mode %s%s does nothing with --prompt typed, which sets the mode, custom\n", mode, modeEnv)
		return true, nil
	case modeEnv == "" && promptEnv != "":
		fmt.Fprintf(c.App.ErrWriter, "qa-judge: warning: --prompt %s%s does nothing with --mode %s typed, which it would replace\n", c.String("prompt"), promptEnv, mode)
		return false, nil
	case modeEnv != "":
		return false, command.Usagef("--mode %s%s and --prompt %s%s: --prompt sets the mode, custom, a judge of its own prompt; unset one of the two variables, or type --mode or --prompt, which beats its variable",
			mode, modeEnv, c.String("prompt"), promptEnv)
	}
	return false, command.Usagef("--mode %s: --prompt sets the mode, custom, a judge of its own prompt; give --mode or --prompt, not both", mode)
}

// parseLimits reads and checks the numbers that bound the run and its calls: --concurrency,
// --max-line, --max-tokens (and --max-tokens-field), --num-ctx, --temperature and those that
// may not be negative.
func (cfg *config) parseLimits(c *cli.Context) error {
	j := cfg.judge
	var err error
	if cfg.concurrency, err = command.Concurrency(c, "concurrency"); err != nil {
		return err
	}
	if cfg.maxLine, err = command.MaxLine(c); err != nil {
		return err
	}
	if err := command.NotNegative(c, "parse-retries", "max-tokens", "max-retries", "rpm", "tpm", "timeout", "backoff", "max-cost"); err != nil {
		return err
	}
	j.MaxTokens = c.Int("max-tokens")
	if j.MaxTokensField, err = command.MaxTokensField(c, "max-tokens-field", "", model.MaxTokensFields); err != nil {
		return err // the value, whether or not a model is called; the provider below
	}
	if j.NumCtx, err = command.IntBetween(c, "num-ctx", 0, math.MaxInt32, "tokens"); err != nil {
		return err
	}
	if j.GeminiSafety, err = gemini.SafetyFlag(c, "gemini-safety", "googleai"); err != nil {
		return err // the value, whether or not a model is called; the provider in checkModel
	}
	if c.IsSet("temperature") {
		hi, ok := model.MaxTemperature(j.Provider, j.BaseURL)
		t, err := command.Temperature(c, "temperature", hi, ok, j.Provider)
		if err != nil {
			return err
		}
		j.Temperature = &t
	}
	return nil
}

// parseReplies reads how the judge's replies are read, priced and seeded: --think (whether the
// thinking is stripped, returned), --prices and --seed.
func (cfg *config) parseReplies(c *cli.Context) (strip bool, err error) {
	j := cfg.judge
	if strip, err = command.Think(c); err != nil {
		return false, err
	}
	prices, err := model.LoadPrices(c.String("prices"))
	if err != nil {
		return false, command.Usagef("--prices: %v", err)
	}
	j.Prices = prices
	if c.IsSet("seed") {
		s := int(c.Int64("seed"))
		j.Seed = &s
	}
	return strip, nil
}

// parseName sets the judgments' name: --name, checked, else the default from the mode and the
// model (see config.bare).
func (cfg *config) parseName(c *cli.Context) error {
	j := cfg.judge
	cfg.name = c.String("name")
	if err := checkName(cfg.name, command.FromEnv(c, "name")); err != nil {
		return err
	}
	if cfg.name == "" {
		cfg.name = j.Mode
		if j.Mode == ModeRules {
			cfg.name = RulesMode
		}
		if j.NeedsModel() && j.Model != "" {
			cfg.bare = cfg.name
			cfg.name += "/" + j.Model
		}
	}
	return nil
}

// checkName refuses a --name (env: " from QA_JUDGE_NAME", or "") under which qa-judge agree
// --names could not pick the judgment: one that begins or ends with white space, which --names
// trims off each name it is given (so that "a, b" reads as "a" and "b"), or that holds a comma,
// which --names splits at; and one that is not UTF-8, which a record's JSON cannot hold as it
// is (the judgment went under another name, U+FFFD in place of its bytes, and a rerun with the
// same --name judged every record again, as no judgment of that name was found). Made, such a
// judgment is read by qa-score and qa-learncurve --judge alone. A name that holds a control
// character or a line separator inside it (white space at its ends is refused as such) is refused
// too: the summary that names it on stderr would read as two lines, or be drawn as the terminal
// takes the character.
func checkName(name, env string) error {
	switch {
	case name != strings.TrimSpace(name):
		return command.Usagef("--name%s: %q begins or ends with white space, which qa-judge agree --names trims off the names it is given, so it could not pick this judgment", env, name)
	case strings.Contains(name, ","):
		return command.Usagef("--name%s: %q holds a comma, at which qa-judge agree --names splits its list of names, so it could not pick this judgment", env, name)
	case strings.ContainsFunc(name, breaksLine):
		return command.Usagef("--name%s: %q holds a control character or a line separator, which would break the lines of the run's summary and warnings that name the judgment", env, name)
	case !utf8.ValidString(name):
		return command.Usagef("--name%s: %q is not UTF-8 text: the judgment would be written under another name, U+FFFD in place of each byte that is not, which this --name given to qa-score, qa-learncurve or qa-judge again would not find", env, name)
	}
	return nil
}

// breaksLine reports whether r is a control character (C0, DEL or C1) or a line or paragraph
// separator, which a name printed on a line of text must not hold.
func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
