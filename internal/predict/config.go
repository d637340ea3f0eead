package predict

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/extractor"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// sampleSeed is the seed sample k sends for --seed seed (model.SampleSeed), or the error of a
// seed + k past the largest int: it would wrap round to a seed far below, another sample's.
func sampleSeed(seed, k int) (int, error) {
	s, ok := model.SampleSeed(seed, k)
	if !ok {
		return 0, fmt.Errorf("--seed %d + --sample-index %d is past the largest seed, %d", seed, k, math.MaxInt)
	}
	return s, nil
}

// unpriced refuses --max-cost when a model it would meter has no price, so that its spend could
// not be counted: the reader's, and the EvaLearn judge's when judgeModel (--judge-model) is given.
func (a *app) unpriced(judgeModel string) error {
	if a.maxCost <= 0 {
		return nil
	}
	b := model.Budget{Prices: a.prices}
	if !b.Priced(a.modelName) {
		return command.Usagef("--max-cost: no price for model %q, so its spend cannot be counted (add it with --prices)", a.modelName)
	}
	if judgeModel != "" && !b.Priced(judgeModel) {
		return command.Usagef("--max-cost: no price for the judge model %q, so its spend cannot be counted (add it with --prices)", judgeModel)
	}
	return nil
}

// configure reads and checks the flags into a, warning of those that do nothing, and, for a run
// that is not a dry run, builds its client.
func (a *app) configure(c *cli.Context) error {
	if err := a.configureModel(c); err != nil {
		return err
	}
	if err := a.configureLimits(c); err != nil {
		return err
	}
	if err := a.configureRequests(c); err != nil {
		return err
	}
	a.unused = newFlagUse(c, a.stderr, a.provider != "extractive")
	var err error
	if a.prices, err = model.LoadPrices(c.String("prices")); err != nil {
		return command.Usagef("--prices: %v", err)
	}
	if err := a.unpriced(c.String("judge-model")); err != nil {
		return err // before a dry run too, which refuses as the run does
	}
	if err := a.configureJudgeTemperature(c); err != nil {
		return err
	}
	if err := a.configureJudgeNumCtx(c); err != nil {
		return err
	}
	if a.dryRun {
		a.configureSequenceParams(c)
		if err := a.configureDryJudge(c); err != nil {
			return err
		}
		// No client or key: nothing is sent. --cache is checked as a run opens it, and read for
		// the requests it answers, but not written, nor a file left (cache.Check, cache.Look).
		if f := c.String("cache"); f != "" {
			if err := cache.Check(f, command.OnForcedExitOf); err != nil {
				return command.FlagFile("--cache", err)
			}
			var err error
			a.look, err = cache.OpenLook(f, command.OnForcedExitOf)
			return command.FlagFile("--cache", err)
		}
		return nil
	}
	return a.buildClient(c)
}

// configureModel reads which model answers (--provider, --model, --base-url, checking the
// judge's too) and the plain settings of the run, and checks the provider and the model: the
// extractive baseline, the default, takes no --model and makes no dry run.
func (a *app) configureModel(c *cli.Context) error {
	a.provider, a.modelName = c.String("provider"), c.String("model")
	var err error
	if a.baseURL, err = command.BaseURL(c, "base-url"); err != nil {
		return err
	}
	if _, err := command.BaseURL(c, "judge-base-url"); err != nil {
		return err
	}
	a.temperature, a.maxTokens, a.system = c.Float64("temperature"), c.Int("max-tokens"), c.String("system")
	if a.system != "" && textnorm.Strip(a.system) == "" {
		// White space alone was sent as a system message, which says nothing, and which a
		// provider may refuse on every call (Anthropic's text blocks must hold more).
		return command.Usagef("--system%s: white space alone: give a message, or \"\" for none", command.FromEnv(c, "system"))
	}
	a.force, a.retryErrors = c.Bool("force"), c.Bool("retry-errors")
	a.dryRun, a.maxCost = c.Bool("dry-run"), c.Float64("max-cost")
	if !slices.Contains(model.Providers, a.provider) {
		return command.Usagef("--provider: unknown provider %q (want one of %s)%s", a.provider, strings.Join(model.Providers, ", "),
			model.ProviderHint(a.provider, model.Providers, "--base-url"))
	}
	if _, err := a.judgeProvider(c); err != nil {
		return err // before a dry run too, which builds no judge
	}
	if a.provider == "extractive" && a.dryRun {
		return command.Usagef("--dry-run: the provider is extractive (the default), which reads no prompt and calls nothing; give the --provider and --model to show and price")
	}
	if a.provider == "extractive" && a.modelName != "" && !c.IsSet("provider") {
		// "--model gpt-4o" alone would be answered offline, with exit 0: a run meant for the
		// model, whose records would all be the baseline's.
		return command.Usagef("--model %s%s: no --provider is given, and the default, extractive, is the offline baseline, which asks no model; give --provider (%s) to ask it, or leave --model out for the baseline",
			a.modelName, command.FromEnv(c, "model"), strings.Join(slices.DeleteFunc(slices.Clone(model.Providers), func(p string) bool { return p == "extractive" }), ", "))
	}
	if a.provider == "extractive" && !c.IsSet("provider") {
		warnSamplingUnused(c, a.stderr)
	}
	if a.provider == "extractive" {
		if a.modelName != "" {
			// --provider extractive named: the model is not asked.
			fmt.Fprintf(a.stderr, "qa-predict: warning: --model %s%s does nothing: the provider is extractive%s, the offline baseline, which asks no model; give another --provider to ask it\n",
				a.modelName, command.FromEnv(c, "model"), command.FromEnv(c, "provider"))
		}
		a.modelName = extractor.Name
	} else if a.modelName == "" {
		return command.Usagef("--model is required with --provider %s", a.provider)
	}
	return nil
}

// samplingFlags set how a model answers (and whether Gemini blocks it), which the extractive
// baseline does not ask.
var samplingFlags = []string{"temperature", "top-p", "top-k", "stop", "num-ctx", "max-tokens", "gemini-safety"}

// warnSamplingUnused warns of the samplingFlags set in a run that names no --provider: the
// default, extractive, asks no model, so a run meant for one (its --provider forgotten, and its
// --model, whose absence is no error then) would be answered offline with no other word. Named
// (--provider extractive), the baseline ignores them quietly, as its --help says.
func warnSamplingUnused(c *cli.Context, stderr io.Writer) {
	var set []string
	for _, f := range samplingFlags {
		if c.IsSet(f) {
			set = append(set, "--"+f+command.FromEnv(c, f))
		}
	}
	if len(set) > 0 {
		fmt.Fprintf(stderr, "qa-predict: warning: %s %s nothing: no --provider is given, and the default, extractive, is the offline baseline, which asks no model; give --provider and --model to ask one\n",
			english.List(set), english.Form(len(set), "does", "do"))
	}
}

// configureLimits reads and checks --concurrency and --max-line, the flags that may not be
// negative, and --temperature against the provider's range, warning when it is not sent.
func (a *app) configureLimits(c *cli.Context) error {
	var err error
	if a.concurrency, err = command.Concurrency(c, "concurrency"); err != nil {
		return err
	}
	a.tally.provider, a.tally.model = a.provider, a.modelName
	if a.maxLine, err = command.MaxLine(c); err != nil {
		return err
	}
	if err := command.NotNegative(c, "max-retries", "max-tokens", "rpm", "tpm", "timeout", "backoff", "temperature", "max-cost",
		"history-sessions", "sample-index", "judge-parse-retries", "judge-temperature"); err != nil {
		return err
	}
	// Refused here, the dry run's too, not by the provider at the first call.
	hi, bounded := model.MaxTemperature(a.provider, a.baseURL)
	if _, err := command.Temperature(c, "temperature", hi, bounded, a.provider); err != nil {
		return err
	}
	if c.IsSet("temperature") {
		if w := model.UnsentTemperature("--temperature", a.temperature, command.FromEnv(c, "temperature"), a.provider, c.String("model")); w != "" {
			fmt.Fprintf(a.stderr, "qa-predict: warning: %s\n", w)
		}
	}
	return nil
}

// configureRequests reads what every request carries and how the records are asked: sampling,
// --think, the sample's seed, --max-tokens, the --template, and the LongMemEval and LoCoMo
// settings.
func (a *app) configureRequests(c *cli.Context) error {
	if err := a.configureSampling(c); err != nil {
		return err
	}
	var err error
	if a.strip, err = command.Think(c); err != nil {
		return err
	}
	switch v := c.String("empty-reply"); v {
	case "error", "keep":
		a.keepEmpty = v == "keep"
	default:
		return command.Usagef("--empty-reply: want error or keep, not %q%s%s", v, command.FromEnv(c, "empty-reply"),
			english.DidYouMean(v, []string{"error", "keep"}))
	}
	a.sample = c.Int("sample-index")
	if c.IsSet("seed") {
		s, err := sampleSeed(int(c.Int64("seed")), a.sample)
		if err != nil {
			return command.Usagef("%v", err)
		}
		a.seed = &s
	}
	a.maxTokensSet = c.IsSet("max-tokens")
	if a.prompts, err = newPrompter(c.String("template"), c.Int64("seed")); err != nil {
		return command.Usagef("--template: %v", err) // checked whatever the provider
	}
	if a.provider == "extractive" {
		a.prompts.custom, a.system = nil, "" // no --batch-size error for a --template dropped
	}
	if err := a.configureReader(c); err != nil {
		return err
	}
	if err := a.configureLoCoMo(c.String("locomo-variant")); err != nil {
		return err
	}
	if err := a.configureBatch(c.Int("batch-size")); err != nil {
		return err
	}
	if a.provider == "extractive" {
		// The baseline reads the record, not a prompt: a template that fails on a record would
		// fail its answer, and one that works would change nothing; so would the reader's,
		// LoCoMo's and the batches' settings (a history a retriever cannot build, a
		// conversation cut to a variant's budget, counted as if it were sent). Their values
		// checked, they are dropped with a warning, and the prompt_sha256 of its predictions
		// is the built-in prompt's with LongMemEval's and LoCoMo's defaults, as without them.
		if set := givenFlags(c, promptFlags...); len(set) > 0 {
			fmt.Fprintf(a.stderr, "qa-predict: warning: %s %s nothing: the provider is extractive%s, the offline baseline, which sends no prompt\n",
				english.List(set), english.Form(len(set), "does", "do"), command.FromEnv(c, "provider"))
		}
		a.prompts, a.locomoBatch = builtinPrompts(a.prompts.seed, a.stderr), 1
	}
	return nil
}

// promptFlags only shape the prompt, which the extractive baseline does not send: with it they
// do nothing, and are warned of.
var promptFlags = append(append([]string{"template", "system"}, longMemEvalFlags...), locomoFlags...)

// builtinPrompts is the prompter of the built-in prompts with LongMemEval's and LoCoMo's defaults
// (the flags' defaults for the extractive baseline: no history budget or LoCoMo variant, which
// it does not have), reporting on stderr, whose prompts are rendered for their prompt_sha256 only.
func builtinPrompts(seed int64, stderr io.Writer) *prompter {
	p, _ := newPrompter("", seed) // no file to read
	p.stderr, p.unsent = stderr, true
	p.history.Retriever, p.history.KeyExpansion = prompt.RetrieverSession, "none"
	return p
}

// buildClient builds the client of a run that is not a dry run: the provider's (configureClient),
// wrapped by the --max-cost budget, the --cache and the stripping of the thinking; then the
// sequences' settings.
func (a *app) buildClient(c *cli.Context) error {
	if err := a.configureClient(c); err != nil {
		return err
	}
	if a.maxCost > 0 {
		a.budget = &model.Budget{MaxUSD: a.maxCost, Prices: a.prices} // its models are priced (unpriced)
		a.client = a.budget.Wrap(a.client)
	}
	if err := a.configureCache(c); err != nil {
		return err
	}
	a.client = a.thinking(a.client)
	if a.keepEmpty {
		a.client = emptyKept{next: a.client, tally: &a.tally}
	}
	return a.configureSequences(c)
}

// configureCache opens --cache and wraps the client with it, or only checks it when nothing
// would be stored.
func (a *app) configureCache(c *cli.Context) error {
	// The extractive baseline calls nothing, and its answers change with qapipe's versions, which
	// no key names: only the models' replies (its EvaLearn judge's too) are cached. Without a
	// judge nothing is: --cache is checked, as a dry run checks it, but no file is made, where an
	// empty cache was left.
	var err error
	switch f := c.String("cache"); {
	case f == "":
	case a.provider == "extractive" && c.String("judge-model") == "":
		if err := cache.Check(f, command.OnForcedExitOf); err != nil {
			return command.FlagFile("--cache", err)
		}
	default:
		if a.store, err = cache.Open(f); err != nil {
			return command.FlagFile("--cache", err)
		}
		if a.provider != "extractive" {
			// Under --empty-reply keep an empty reply that stopped of itself is an answer,
			// and stored as one, so that a rerun (a resumed EvaLearn sequence's history) is
			// answered as this run was.
			a.client = &cache.Client{Next: a.client, Cache: a.store, KeepEmpty: a.keepEmpty}
		}
	}
	return nil
}

// thinking is client with its replies read for a reasoning model's thinking under --think strip
// (model.Thinking), from outside the cache, which keeps them as they came but for a reply with
// nothing after its thinking, so that --retry-errors asks for another (unless --empty-reply keep
// keeps it as the answer ""); client as it is under --think keep, and for the extractive baseline, whose spans of the record's own text are no model's
// reply.
func (a *app) thinking(client model.Client) model.Client {
	if !a.strip || a.provider == "extractive" {
		return client
	}
	th := model.Thinking{Next: client, KeepStopped: a.keepEmpty}
	if a.store != nil {
		th.Forget = a.store.Forget
	}
	return th
}

// configureLoCoMo sets how locomo records are asked from --locomo-variant: the model setting of
// LoCoMo's script named (auto: --model when it is one), or none. A note is kept for the first
// LoCoMo record when the setting's script calls another model than --model.
func (a *app) configureLoCoMo(name string) error {
	p := a.prompts
	switch name {
	case "none":
		return nil
	case "auto":
		if v, ok := prompt.LoCoMoVariantNamed(a.modelName); ok {
			p.locomo = &v
		}
	default:
		v, ok := prompt.LoCoMoVariantNamed(name)
		if !ok {
			return command.Usagef("--locomo-variant: want auto, none or one of %s, not %q%s", strings.Join(prompt.LoCoMoVariantNames(), ", "), name,
				english.DidYouMean(name, append([]string{"auto", "none"}, prompt.LoCoMoVariantNames()...)))
		}
		p.locomo = &v
	}
	if v := p.locomo; v != nil && v.Role == "system" && model.NoSystemMessage(a.provider, a.modelName) {
		how := "--locomo-variant " + name
		if name == "auto" {
			how = "--model " + a.modelName + " (--locomo-variant auto)"
		}
		return command.Usagef("%s: LoCoMo's script sends the %s setting's query as a system message alone, which --provider openai cannot send to %s (langchaingo puts a system message's text into the first user message for o1 and o3 names, and there is none, so the request would have no message); call another model, or give --locomo-variant none or a gpt-4 setting",
			how, v.Name, a.modelName)
	}
	if v := p.locomo; v != nil && v.Role == "system" && (a.provider == "anthropic" || a.provider == "googleai") {
		how := "--locomo-variant " + name
		if name == "auto" {
			how = "--model " + a.modelName + " (--locomo-variant auto)"
		}
		why := "Anthropic's Messages API takes system text apart and wants at least one message"
		if a.provider == "googleai" {
			why = "langchaingo's Gemini client refuses a lone system message"
		}
		return command.Usagef("%s: LoCoMo's script sends the %s setting's query as a system message alone, which --provider %s cannot send (%s); call it through --provider openai or an OpenAI-compatible server, or give --locomo-variant none or a gpt-4 setting",
			how, v.Name, a.provider, why)
	}
	if v := p.locomo; v != nil && v.Model != a.modelName && a.provider != "extractive" {
		p.locomoNote = fmt.Sprintf("qa-predict: note: LoCoMo's script calls %s for its %s setting; this run calls %s, the --model given", v.Model, v.Name, a.modelName)
	}
	return nil
}

// maxBatchSize is the largest --batch-size: 50 tokens for each question, its max_tokens and what
// its budget takes from the conversation's, stay far from the largest int.
const maxBatchSize = math.MaxInt / (2 * 50)

// configureBatch sets how many of a conversation's LoCoMo questions are asked per call.
func (a *app) configureBatch(n int) error {
	switch {
	case n < 1:
		return command.Usagef("--batch-size: want a number of questions of at least 1, not %d", n)
	case n > maxBatchSize:
		// Its max_tokens, n×50, and the conversation's budget, less n×50, would wrap round.
		return command.Usagef("--batch-size: want at most %d questions, not %d (its max_tokens, 50 for each, would pass the largest integer)", maxBatchSize, n)
	case n > 1 && a.prompts.custom != nil:
		return command.Usagef("--batch-size: LoCoMo's batched prompt is its own, and --template replaces the prompt")
	}
	a.locomoBatch = n
	return nil
}

// genLength is the max_tokens of LongMemEval's reader: --max-tokens when given, else the 800
// that run_generation.py sends for either reading.
func (a *app) genLength() int {
	if a.maxTokensSet {
		return a.maxTokens
	}
	return prompt.LongMemEvalGenLength
}

func (a *app) configureClient(c *cli.Context) error {
	if a.provider == "extractive" {
		a.client = &extractor.Client{}
		return nil
	}
	key, err := apiKey(a.provider, c.String("api-key-file"))
	if err != nil {
		return err
	}
	s := a.setup(c, a.provider, a.baseURL, key)
	a.transport, a.tokens = s.NewTransport(), s.NewTokens()
	s.Transport, s.Tokens = a.transport, a.tokens
	a.client, err = s.Client(c.Context)
	if errors.Is(err, model.ErrNoKey) {
		return command.Usagef("%v", err)
	}
	return err
}

// setup is the model-call configuration of the flags, shared with qa-judge (model.Setup).
func (a *app) setup(c *cli.Context, provider, baseURL, key string) model.Setup {
	return model.Setup{Provider: provider, BaseURL: baseURL, APIKey: key, Concurrency: a.concurrency,
		RPM: c.Float64("rpm"), TPM: c.Float64("tpm"), MaxRetries: c.Int("max-retries"),
		Timeout: c.Duration("timeout"), Backoff: c.Duration("backoff"), Seed: uint64(c.Int64("seed")), Sleep: a.sleep,
		Names:  model.HintNames{KeyFileFlag: command.Origin(c, "api-key-file")},
		Gemini: gemini.WithSafety(a.geminiSafety)} // qa-predict reaches googleai through package gemini, which model does not link
}

// apiKey reads the key from file (trimmed), else from the provider's usual environment variables.
func apiKey(provider, file string) (string, error) {
	key, err := model.APIKey(provider, file, os.Getenv)
	if err != nil {
		return "", command.Usagef("--api-key-file: %v", err)
	}
	return key, nil
}
