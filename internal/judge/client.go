package judge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
)

// warnNoModel warns of each model-call flag set, and of --cache, in a run that calls no model.
func (cfg *config) warnNoModel(c *cli.Context) {
	j := cfg.judge
	how := "--mode " + j.Mode
	if cfg.routes != nil {
		how = "--route " + cfg.routes.path + ", which routes every record to a rule"
	}
	// No cache is opened, nor checked (dry_run_cache_rules.txtar): the run has no use for
	// it, which the warning says.
	cachePath := c.String("cache")
	fs := append(modelFlags(j), modelFlag{"cache", cachePath, cachePath != ""})
	for _, f := range append(fs, callFlags(c)...) {
		if f.set {
			value := ""
			if f.value != "" {
				value = " " + f.value
			}
			fmt.Fprintf(c.App.ErrWriter, "qa-judge: warning: --%s%s%s does nothing with %s: no model is called\n",
				f.name, value, command.FromEnv(c, f.name), how)
		}
	}
}

// callFlags are the flags, set or not, that only a run calling a model reads, but for those of
// modelFlags and --cache: which model and how it is reached, how its calls are paced, retried,
// priced and seeded, how its replies are read, and whether it may be the predictions' own. A
// true/false flag's value is left out: it is set when true; a text flag is set when not empty.
func callFlags(c *cli.Context) []modelFlag {
	var fs []modelFlag
	for _, name := range []string{"provider", "base-url", "api-key-file", "parse-retries", "think", "rpm", "tpm",
		"max-retries", "timeout", "backoff", "prices", "max-cost", "seed", "gemini-safety"} {
		value := fmt.Sprint(c.Value(name))
		_, text := c.Value(name).(string)
		// The empty text (--prices=, a variable exported empty) sets nothing, under any mode.
		fs = append(fs, modelFlag{name, value, c.IsSet(name) && (!text || value != "")})
	}
	return append(fs, modelFlag{"allow-self-judge", "", c.Bool("allow-self-judge")})
}

// checkModel warns of --max-tokens and --temperature overriding the protocols' own, and checks
// the flags of a run that may call a model against its provider, and --max-cost against the
// prices.
func (cfg *config) checkModel(c *cli.Context) error {
	j := cfg.judge
	for _, w := range []string{maxTokensWarning(j, command.FromEnv(c, "max-tokens")), temperatureWarning(j, command.FromEnv(c, "temperature"))} {
		if w != "" {
			fmt.Fprintf(c.App.ErrWriter, "qa-judge: %s\n", w)
		}
	}
	if err := checkProvider(j.Provider); err != nil {
		return err
	}
	if _, err := command.NumCtx(c, "num-ctx", j.Provider); err != nil {
		return err
	}
	if _, err := gemini.SafetyFlag(c, "gemini-safety", j.Provider); err != nil {
		return err
	}
	if _, err := command.MaxTokensField(c, "max-tokens-field", j.Provider, model.MaxTokensFields); err != nil {
		return err
	}
	if cfg.maxCost > 0 && j.Model != "" { // checked before a dry run too, which refuses as the run does
		budget := model.Budget{Prices: j.Prices}
		for _, m := range []string{j.Model, prompt.LongMemEvalJudgeModel(j.Model)} {
			if !budget.Priced(m) {
				return command.Usagef("--max-cost: no price for model %q, so its spend cannot be counted (add it with --prices)", m)
			}
		}
	}
	return nil
}

// checkProvider refuses a --provider that cannot judge: one unknown, or the extractive
// baseline. It is refused in a run that calls no model too, as --max-tokens-field's value is.
func checkProvider(provider string) error {
	if slices.Contains(judgeProviders(), provider) {
		return nil
	}
	why := "want one of " + strings.Join(judgeProviders(), ", ")
	if provider == "extractive" {
		why = "extractive picks answers from a record's context and cannot judge; " + why
	}
	return command.Usagef("--provider: unknown provider %q (%s)%s", provider, why, model.ProviderHint(provider, judgeProviders(), "--base-url"))
}

// dryRunCache checks the --cache of a dry run, and opens it to read (cfg.look) when the run would
// call the model with it (a --model given).
func (cfg *config) dryRunCache(c *cli.Context) error {
	// No client or key: nothing is sent. The requests shown are those of a run with a model,
	// which would open --cache: it is checked as that run opens it, and read for the requests it
	// answers, but not written, nor a file left (cache.Check, cache.Look).
	p := c.String("cache")
	if p == "" {
		return nil
	}
	if err := cache.Check(p, command.OnForcedExitOf); err != nil {
		return command.FlagFile("--cache", err)
	}
	if cfg.judge.Model == "" { // the run calls no model, and reads no reply
		return nil
	}
	var err error
	cfg.look, err = cache.OpenLook(p, command.OnForcedExitOf)
	return command.FlagFile("--cache", err)
}

// connect builds the judge's client: the model's (newClient), wrapped by the --max-cost budget,
// the --cache and, when strip is set, the stripping of the thinking.
func (cfg *config) connect(ctx context.Context, c *cli.Context, strip bool) error {
	j := cfg.judge
	client, tr, err := newClient(ctx, c, j)
	if err != nil {
		return err
	}
	if cfg.maxCost > 0 {
		cfg.budget = &model.Budget{MaxUSD: cfg.maxCost, Prices: j.Prices} // its models are priced (above)
		client = cfg.budget.Wrap(client)
	}
	if p := c.String("cache"); p != "" {
		cc, err := cache.Open(p)
		if err != nil {
			return command.FlagFile("--cache", err)
		}
		cfg.cache = cc
		// An empty reply is an unparsable one, stored as those are, so that judging the
		// record again reads it and the samples after it to the verdict they reached.
		client = &cache.Client{Next: client, Cache: cc, KeepEmpty: true}
	}
	if strip { // from outside the cache, which keeps the replies as they came
		client = model.Thinking{Next: client}
	}
	j.Client = client
	cfg.transport = tr
	return nil
}

// modelFlag is a flag that sets how the judge model is called, as a warning names it.
type modelFlag struct {
	name, value string
	set         bool
}

// modelFlags are j's flags that only a call of a model uses: --model, --max-tokens,
// --temperature, --num-ctx and --max-tokens-field, each with whether it is set.
func modelFlags(j *Judge) []modelFlag {
	fs := []modelFlag{
		{"model", j.Model, j.Model != ""},
		{"max-tokens", fmt.Sprint(j.MaxTokens), j.MaxTokens > 0},
		{"temperature", "", j.Temperature != nil},
		{"num-ctx", fmt.Sprint(j.NumCtx), j.NumCtx > 0},
		{"max-tokens-field", j.MaxTokensField, j.MaxTokensField != model.MaxTokensAuto},
	}
	if j.Temperature != nil {
		fs[2].value = fmt.Sprintf("%g", *j.Temperature)
	}
	return fs
}

// maxTokensWarning says that j's --max-tokens replaces the max_tokens of the protocols j may
// call a model with, naming each one's own; "" when --max-tokens is not set or no protocol is
// called (a custom prompt is no protocol's). origin is " from QA_X" when the flag's variable set
// it.
func maxTokensWarning(j *Judge, origin string) string {
	if j.MaxTokens == 0 {
		return ""
	}
	return departureWarning(j, fmt.Sprintf("--max-tokens %d%s", j.MaxTokens, origin), "max_tokens", func(mode string) (string, bool) {
		p, ok := protocolCalls[mode]
		if p.maxTokens == 0 {
			return "none", ok
		}
		return fmt.Sprint(p.maxTokens), ok
	})
}

// temperatureWarning says that j's --temperature replaces the temperature of the protocols j
// may call a model with, naming each one's own, or that it does nothing with a model langchaingo
// sends no temperature (OpenAI's o1-…, o3, o3-…, gpt-5…); "" when --temperature is not set or no
// protocol is called. origin is " from QA_X" when the flag's variable set it.
func temperatureWarning(j *Judge, origin string) string {
	if j.Temperature == nil {
		return ""
	}
	if w := model.UnsentTemperature("--temperature", *j.Temperature, origin, j.Provider, j.Model); w != "" {
		return "warning: " + w
	}
	return departureWarning(j, fmt.Sprintf("--temperature %g%s", *j.Temperature, origin), "temperature", func(mode string) (string, bool) {
		p, ok := protocolCalls[mode]
		return fmt.Sprintf("%g", p.temperature), ok
	})
}

// departureWarning says that flag replaces the setting (named what) of the protocols j may call
// a model with (all those its routes name, in auto mode), naming each one's own value, which own
// gives with false for a mode that is no protocol calling a model; "" when there is none.
func departureWarning(j *Judge, flag, what string, own func(mode string) (string, bool)) string {
	modes := []string{j.Mode}
	if j.Mode == ModeAuto || j.Mode == "" {
		modes = slices.Sorted(maps.Values(j.Routes))
	}
	var values []string
	for _, m := range slices.Compact(modes) {
		if v, ok := own(m); ok {
			values = append(values, m+" "+v)
		}
	}
	if len(values) == 0 {
		return ""
	}
	whose := english.Form(len(values), "the protocol's", "the protocols'")
	return fmt.Sprintf("warning: %s replaces %s own %s (%s) in every judge call: the judgments depart from %s",
		flag, whose, what, strings.Join(values, ", "), english.Form(len(values), "the protocol", "the protocols"))
}

// judgeProviders lists the providers a judge can call: qa-predict's, but for its offline
// extractive baseline, which reads no prompt.
func judgeProviders() []string {
	return slices.DeleteFunc(slices.Clone(model.Providers), func(p string) bool { return p == "extractive" })
}

// newClient builds the judge's client exactly as qa-predict builds its own (model.Setup).
// Its transport is returned too, for the warning of calls it stopped making.
func newClient(ctx context.Context, c *cli.Context, j *Judge) (model.Client, *model.Transport, error) {
	key, err := model.APIKey(j.Provider, c.String("api-key-file"), os.Getenv)
	if err != nil {
		return nil, nil, command.Usagef("--api-key-file: %v", err)
	}
	s := model.Setup{Provider: j.Provider, BaseURL: j.BaseURL, APIKey: key,
		Concurrency: c.Int("concurrency"), RPM: c.Float64("rpm"), TPM: c.Float64("tpm"),
		MaxRetries: c.Int("max-retries"), Timeout: c.Duration("timeout"), Backoff: c.Duration("backoff"),
		Seed: uint64(c.Int64("seed")), Names: model.HintNames{KeyFileFlag: command.Origin(c, "api-key-file")},
		Gemini: gemini.WithSafety(j.GeminiSafety)} // qa-judge reaches googleai through package gemini, which model does not link
	s.Transport = s.NewTransport()
	client, err := s.Client(ctx)
	if errors.Is(err, model.ErrNoKey) {
		return nil, nil, command.Usagef("%v", err)
	}
	if err != nil {
		return nil, nil, command.Usagef("--provider: %v", err)
	}
	return client, s.Transport, nil
}
