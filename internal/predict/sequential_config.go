package predict

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/model"
)

const sequentialHelp = `

Records that carry a sequence (qa-load --format evalearn) are solved as EvaLearn does: the positions
of a sequence strictly in order, each answer judged at once by EvaLearn's rubric judge
(--judge-provider, --judge-model; its reply parsed by EvaLearn's rule, re-asked --judge-parse-retries
times when unparsable; temperature 0.2, which OpenAI's o1 and o4-mini and Claude models after Opus
4.6 refuse: --judge-temperature 1 for them), and every earlier problem, answer, rubric and verdict
shown to the model as its history, with EvaLearn's system prompt for the sequence's type
(meta.sequence_type, which qa-load sets when a problem's type is another; else the record type: one
that is not a string fails the position). Temperature 0.2 and max_tokens 32000 are EvaLearn's
unless --temperature or --max-tokens is given, and --top-p and --top-k, which it sends none of, are
sent when given; --system and --template do not apply (a warning says so when no other record is
read). Different sequences run concurrently. A sequence's records must be contiguous in the input
(as qa-load writes them); a sequence id that reappears later makes those of its records still to
answer errors (those answered before pass through). A sequence without some of its earlier
positions (qa-load's --shard, --sample, --types and --limit pick records, not sequences) is
answered without them in its history, with a warning; a position below 1, none of EvaLearn's and
one qa-learncurve skips, is an error on its record, asked nothing. An empty or failed answer is an
error on its record and the later positions of its sequence are skipped (errors, never a silent
0), as are those after a verdict the judge could not give. Each record gets
judgments.evalearn. With --cache, a rerun after a crash replays the stored answers and verdicts, so
each sequence resumes where it stopped with the same history and no call is repeated. Interrupted
once, a sequence stops at its call in flight: an answer whose verdict is then not asked keeps its
text with the error "interrupted before its verdict was asked", the positions after it are
"skipped: interrupted", and --retry-errors over the output, with the cache, goes on from there. A
record passed through with a failed verdict still counts as an error; --retry-errors solves it
again (the verdict asked as new samples, not read back from the cache) and the positions after it,
as its dry run shows.`

// sequentialFlags are the flags of the judge used for sequences.
func sequentialFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "judge-provider", Usage: "provider `NAME` of the EvaLearn judge (default: --provider)", EnvVars: []string{"QA_PREDICT_JUDGE_PROVIDER"}},
		&cli.StringFlag{Name: "judge-model", Usage: "EvaLearn judge model `NAME` (needed for records with a sequence)", EnvVars: []string{"QA_PREDICT_JUDGE_MODEL"}},
		&cli.StringFlag{Name: "judge-base-url", Usage: "judge API base `URL` (default: --base-url when the providers agree)", EnvVars: []string{"QA_PREDICT_JUDGE_BASE_URL"}},
		&cli.StringFlag{Name: "judge-api-key-file", Usage: "read the judge's API key from `FILE` (default: --api-key-file when --judge-provider is --provider, else the judge provider's environment variable)", EnvVars: []string{"QA_PREDICT_JUDGE_API_KEY_FILE"}},
		&cli.IntFlag{Name: "judge-parse-retries", Usage: "times an unparsable verdict is asked again", Value: 2, EnvVars: []string{"QA_PREDICT_JUDGE_PARSE_RETRIES"}},
		&cli.IntFlag{Name: "judge-num-ctx", DefaultText: "--num-ctx when the judge calls --provider's server", Usage: "ollama only: the EvaLearn judge model's context window in `TOKENS` (Ollama's num_ctx; 0: none sent, the server's)", EnvVars: []string{"QA_PREDICT_JUDGE_NUM_CTX"}},
		&cli.Float64Flag{Name: "judge-temperature", DefaultText: "EvaLearn's 0.2", Usage: "temperature of the EvaLearn judge's calls (`T`); not EvaLearn's, but the way to judge with OpenAI's o1 and o4-mini and Claude models after Opus 4.6, which take only 1", EnvVars: []string{"QA_PREDICT_JUDGE_TEMPERATURE"}},
	}
}

// configureSequences reads the judge flags and builds the judge client (sharing the retrying
// transport and the cache).
func (a *app) configureSequences(c *cli.Context) error {
	a.configureSequenceParams(c)
	s := &a.seq
	name := c.String("judge-model")
	if name == "" {
		return nil
	}
	provider, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	baseURL := a.judgeBaseURL(c, provider)
	client, err := a.judgeClient(c, provider, baseURL)
	if err != nil {
		return err
	}
	s.judge = a.evaLearnJudge(c, client, provider, baseURL)
	return nil
}

// configureDryJudge builds, for a dry run with --judge-model, the judge a run would ask, with no
// client: the dry run makes its requests as the run makes them, and reads --cache for their
// replies (judge.Judge.DryRegrade).
func (a *app) configureDryJudge(c *cli.Context) error {
	if c.String("judge-model") == "" {
		return nil
	}
	provider, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	a.seq.judge = a.evaLearnJudge(c, nil, provider, a.judgeBaseURL(c, provider))
	return nil
}

// evaLearnJudge is EvaLearn's rubric judge of --judge-model at provider's baseURL, asking client
// (nil in a dry run).
func (a *app) evaLearnJudge(c *cli.Context, client model.Client, provider, baseURL string) *judge.Judge {
	return &judge.Judge{Client: client, Provider: provider, BaseURL: baseURL, Model: c.String("judge-model"), Mode: judge.ModeEvaLearn,
		ParseRetries: c.Int("judge-parse-retries"), Prices: a.prices, Temperature: a.judgeTemperature, NumCtx: a.judgeNumCtx,
		GeminiSafety: a.geminiSafety}
}

// configureJudgeTemperature reads --judge-temperature (a.judgeTemperature; nil leaves EvaLearn's
// judge its own), refused as the provider would refuse it, before a dry run too, and warned of
// when langchaingo sends the judge's model no temperature. Without --judge-model it is not read.
func (a *app) configureJudgeTemperature(c *cli.Context) error {
	name := c.String("judge-model")
	if name == "" || !c.IsSet("judge-temperature") {
		return nil
	}
	provider, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	hi, ok := model.MaxTemperature(provider, a.judgeBaseURL(c, provider))
	t, err := command.Temperature(c, "judge-temperature", hi, ok, provider)
	if err != nil {
		return err
	}
	a.judgeTemperature = &t
	if w := model.UnsentTemperature("--judge-temperature", t, command.FromEnv(c, "judge-temperature"), provider, name); w != "" {
		fmt.Fprintf(a.stderr, "qa-predict: warning: %s\n", w)
	}
	return nil
}

// configureJudgeNumCtx reads --judge-num-ctx (a.judgeNumCtx), refused for a judge provider other
// than ollama, before a dry run too; unset, the judge gets --num-ctx when it calls the reader's
// server (its provider, at --base-url), whose model it may well be. Without --judge-model only its
// value is checked, as --num-ctx's always is: a negative window is a usage error either way.
func (a *app) configureJudgeNumCtx(c *cli.Context) error {
	if c.String("judge-model") == "" {
		_, err := command.IntBetween(c, "judge-num-ctx", 0, math.MaxInt32, "tokens")
		return err
	}
	provider, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	if !c.IsSet("judge-num-ctx") {
		// The same server however its URL is written: a trailing slash, the default spelled
		// out, a host in capitals (cache.KeyEndpoint, as the cache keys it).
		if provider == a.provider && cache.KeyEndpoint(provider, a.judgeBaseURL(c, provider)) == cache.KeyEndpoint(provider, a.baseURL) {
			a.judgeNumCtx = a.numCtx
		}
		return nil
	}
	a.judgeNumCtx, err = command.NumCtx(c, "judge-num-ctx", provider)
	return err
}

// judgeBaseURL is the EvaLearn judge's server: --judge-base-url, else --base-url when the judge
// has the reader's provider.
func (a *app) judgeBaseURL(c *cli.Context, provider string) string {
	if !c.IsSet("judge-base-url") && provider == a.provider {
		return a.baseURL
	}
	return c.String("judge-base-url")
}

// judgeProvider is the EvaLearn judge's provider: --judge-provider, else --provider. A
// --judge-provider no judge can call is a usage error whether or not a record needs the judge;
// --provider's extractive, which calls no model, is one only when --judge-model asks for a judge.
func (a *app) judgeProvider(c *cli.Context) (string, error) {
	p := c.String("judge-provider")
	if p == "" {
		if a.provider == "extractive" && c.String("judge-model") != "" {
			return "", command.Usagef("--judge-model: the judge's provider is --provider's, extractive, which calls no model: give --judge-provider (one of %s)", strings.Join(judgeProviders(), ", "))
		}
		return a.provider, nil
	}
	if !slices.Contains(judgeProviders(), p) {
		return "", command.Usagef("--judge-provider: %q is no provider a judge can call (want one of %s)%s", p, strings.Join(judgeProviders(), ", "),
			model.ProviderHint(p, judgeProviders(), "--judge-base-url"))
	}
	return p, nil
}

// judgeHintNames are the flags a failed judge call's hint names: --judge-provider when given, and
// --judge-api-key-file, unless the judge has the reader's provider (sameProvider) and its key came
// from --api-key-file or the reader's variables, as when --judge-api-key-file is not given. A key
// file named by a variable (QA_PREDICT_JUDGE_API_KEY_FILE, QA_API_KEY_FILE) is named by it.
func judgeHintNames(c *cli.Context, sameProvider bool) model.HintNames {
	var names model.HintNames
	if c.String("judge-provider") != "" {
		names.ProviderFlag = "--judge-provider"
	}
	switch {
	case c.String("judge-api-key-file") != "":
		names.KeyFileFlag = command.Origin(c, "judge-api-key-file")
	case !sameProvider:
		names.KeyFileFlag = "--judge-api-key-file"
	default:
		names.KeyFileFlag = command.Origin(c, "api-key-file")
	}
	return names
}

// judgeProviders lists the providers a judge can call: all but the extractive baseline.
func judgeProviders() []string {
	return slices.DeleteFunc(slices.Clone(model.Providers), func(p string) bool { return p == "extractive" })
}

// configureSequenceParams sets the student request's temperature and max_tokens, EvaLearn's unless
// --temperature or --max-tokens is given, and notes the --judge-model name.
func (a *app) configureSequenceParams(c *cli.Context) {
	s := &a.seq
	s.temperature, s.maxTokens, s.judgeModel = evaLearnTemperature, evaLearnMaxTokens, c.String("judge-model")
	if c.IsSet("temperature") {
		s.temperature = a.temperature
	}
	if c.IsSet("max-tokens") {
		s.maxTokens = a.maxTokens
	}
}

// judgeClient builds the judge's client: its key from --judge-api-key-file, else (same provider)
// --api-key-file, else the provider's environment variables; qa-predict's retrying transport; the cache.
func (a *app) judgeClient(c *cli.Context, provider, baseURL string) (model.Client, error) {
	var key string
	var err error
	switch f := c.String("judge-api-key-file"); {
	case f != "":
		if key, err = model.APIKey(provider, f, os.Getenv); err != nil {
			return nil, command.Usagef("--judge-api-key-file: %v", err)
		}
	case provider == a.provider:
		key, err = apiKey(provider, c.String("api-key-file"))
	default:
		key, err = apiKey(provider, "")
	}
	if err != nil {
		return nil, err
	}
	if key == "" && !model.KeyOptional(provider, baseURL) {
		return nil, command.Usagef("no API key for the judge (%s): set %s or use --judge-api-key-file", provider, strings.Join(model.KeyEnv[provider], " or "))
	}
	js := a.setup(c, provider, baseURL, key)
	js.Names = judgeHintNames(c, provider == a.provider)
	// The reader's transport and --tpm limiter (nil, with the extractive baseline: new ones), so
	// that --rpm and --tpm bound the run's calls, the judge's included, as --max-cost does.
	js.Transport, js.Tokens = a.transport, a.tokens
	client, err := js.Client(c.Context)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	if a.budget != nil { // the judge model is priced (unpriced)
		client = a.budget.Wrap(client) // one budget for the reader and its judge
	}
	if a.store != nil {
		// An empty verdict is an unparsable one, stored as those are (see qa-judge).
		client = &cache.Client{Next: client, Cache: a.store, KeepEmpty: true}
	}
	if a.strip {
		client = model.Thinking{Next: client}
	}
	return client, nil
}
