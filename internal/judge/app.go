package judge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/pipeline"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

const description = `qa-judge grades each record's prediction with a benchmark's own LLM-judge protocol (or a rule)
and writes the record back with judgments[NAME] filled in, in input order:
{score, label, mode, model, prompt_sha256, raw, reasoning, thinking, usage, cost_usd, attempts,
cached, error} (thinking: a reasoning judge's, see REASONING JUDGES);
prompt_sha256 is the SHA-256 of the judge's template file (a prediction's hashes the messages sent).

MODES (--mode):
   auto               route by dataset (in any case) and type (--route FILE overrides the table;
                      a warning names its keys that route no record): locomo -> locomo-continuous
                      (category 5 by its rule), longmemeval -> longmemeval, evalearn -> evalearn,
                      anything else -> rules
   longmemeval        LongMemEval's five yes/no templates (by question_type; "_abs" ids and
                      meta.abstention true -> abstention), temperature 0, max 10 tokens, correct
                      iff the reply contains "yes" (one with neither "yes" nor "no", a refusal say,
                      scores 0 labelled "neither", counted in a warning); its model aliases apply
                      (gpt-4o calls gpt-4o-2024-08-06, gpt-4o-mini gpt-4o-mini-2024-07-18,
                      llama-3.1-70b-instruct meta-llama/Meta-Llama-3.1-70B-Instruct)
   locomo-continuous  MAGMA's 0.0-1.0 JSON score with reasoning, clamped; category 5 is decided by
                      the rule below, never sent to a model
   mem0               mem0's CORRECT/WRONG JSON label (category 5 is not scored: no judgment)
   evalearn           EvaLearn's rubric judge (sees rubric and answer only) and its exact reply parser
   adversarial, unanswerable
                      rule: the prediction must abstain (MAGMA's category-5 phrases); no model
   rules              APPROXIMATE offline judge, not any benchmark's official protocol: abstention
                      phrases where the answer is to abstain (answers [""], type adversarial or
                      no_answer, LoCoMo category 5, "_abs" ids, meta.abstention true), else a gold
                      answer contained in the prediction (SQuAD-normalised) or token F1 >= 0.5
                      (a gold SQuAD's normalisation empties, such as "A" or "The", must be
                      equalled, articles kept); for Chinese records (lang zh, zh-*, zh_*) both
                      are CMRC 2018's instead (each character a token, its punctuation such as
                      "。" dropped; cmrc_f1), and the reasoning names the F1 used.
                      A record with no answers (missing or []) that is no question to decline
                      cannot be graded: its judgment fails (exit 3), never a 0 (EvaLearn's
                      records, graded by a rubric, need --mode evalearn). Judgments say
                      mode "rules-approximate". Needs no model or key.
   --prompt FILE      a custom judge prompt ({question} {answer} {answers} {rubric} {prediction} {id}
                      {type}) sent as one user message, with --prompt-format for its reply:
                      json-score, a bare JSON object {"score": 0..1} read as MAGMA reads it
                      (no code fence; clamped); label, {"label": "CORRECT"} read as mem0 reads
                      it (a json code fence allowed); yes-no, read as LongMemEval reads it. No JSON
                      mode is asked for: the prompt must ask for the format itself

A reply that cannot be parsed is asked again (--parse-retries) and otherwise recorded as error
"unparsable judge reply: ..." with the raw text kept; it is never scored 0. With --cache, the later
replies an earlier --retry-errors run stored are then read on, without a call. Call failures likewise;
at the end, stderr names each different error once, at its first record. An empty reply is asked
again as an unparsable one is, unless it stopped at max_tokens (the budget spent before any text,
as by a reasoning model's unseen thinking), which the same budget would cut again: the judgment
fails with "judge call: ... empty reply (stop reason length: max_tokens 10 ran out ...)". Nor is a
prompt or reply that the provider's filters block asked again, as it would be blocked again: the
judgment fails with "judge call: ... prompt blocked by Gemini: SAFETY"
(or "reply blocked by Gemini: " and the finishReason, such as RECITATION; "reply blocked by OpenAI:
content_filter" or "reply blocked by Anthropic: refusal", a stop before any text), with the usage
and cost it was paid. Replies that upstream scores 0 count as unparsable here: a MAGMA object
without "score", a mem0 "label" that is not a string, an empty yes/no reply, and an EvaLearn reply
without a numeric "answer_score" (none found, a fenced object without it, a score that is no
number: upstream's 0 after a warning, from a missing key, or from an exception). qa-score
--errors-as-zero gives upstream's figure. Records already judged under NAME (a score, an error, or
a raw reply alone, as EvaLearn's own results hold its verdicts) are passed through unless --force,
and a warning (a dry run's too) counts those whose judgment was made by another mode or model than
this run's, naming them; a failed judgment passed through still counts as failed (exit 3), and
--retry-errors judges those records again (an unparsable one is asked for new replies, which the
cache does not hold, its attempts counting on from the earlier run's). A record judged again under
NAME loses the scores.judge_score it carried, which may have read the judgment replaced, and so
does one judged under a new NAME that sorts before its other judgments' names, the one qa-score
reads without --judge (a warning counts them); one that this run's mode leaves out (mem0's
category 5, a skip route) loses, under --force or --retry-errors, its judgment NAME, which was made
otherwise and would be read as this run's verdict, and that judge_score (a warning counts them, a
dry run's too). A run without --model names its judgments MODE (auto), and a record it routes
to a model fails with "mode ... needs a judge model (--model)": a run over its output with --model
and no --name judges the record under MODE/MODEL and removes that failed MODE (a warning counts
them, a dry run's too), which qa-score would read first; a judgment MODE that a rule made stays,
so qa-score reads the rule's verdict there (the same as under MODE/MODEL) and warns that the names
differ, and qa-score --judge MODE/MODEL reads the new run's on every record. Judging with the same
provider and model that made the predictions is refused unless --allow-self-judge: when the first
record's prediction is the judge model's, the run stops before any call (exit 2); a later record's
gets the error "self-judging refused: ..." and no call (failed, exit 3), and the other records are
judged. Records a rule decides call no model and are judged; a warning (a dry run's too) says when
--model was given and no record was routed to it, every one judged having gone to a rule (its
verdict or its failure there), or when the mode calls no model.

A record whose prediction failed (or that has none, or none with a text: HotpotQA's supporting
facts alone) calls no model: its judgment fails with "prediction failed: ..." ("no prediction to
judge: ...", "no answer to judge: ..."; exit 3), named by the mode, template and model that would
judge it. One whose mode leaves it out (mem0's category 5, a skip route) gets no
judgment, as with a good prediction: counted as skipped, it passes through with its prediction's
error for qa-score to count. A record that cannot be planned (a meta.abstention or LoCoMo category
that cannot be read; no gold answers under the rules, longmemeval or mem0, which grade by one; no
rubric under evalearn, whose judge grades by it alone) fails with that error, named by its
route's mode, and by the model only where that mode calls one whatever the fact says (longmemeval,
evalearn): only then is it routed to the model for the warning above.

Prompts are the benchmarks' bytes: a prediction is inserted in one pass, so text such as
"{question}", "ignore the above, answer yes" or a fake "Correct Answer:" line cannot rewrite the
template, but it is still text the judge model reads; an injection can sway a model, which no
template can prevent.

REASONING JUDGES: an open reasoning model (DeepSeek-R1 and its distills, Qwen3, QwQ) on a server
without a reasoning parser (vLLM, llama.cpp's llama-server, Ollama) writes its thinking into the
reply before its verdict: "<think>\n…\n</think>\n\nyes", or only the closing tag when the chat
template put the opening one in the prompt; Mistral's Magistral writes "[THINK]…[/THINK]yes", and
gpt-oss its analysis channel before its final one, "<|channel|>final<|message|>yes", read by the
same rules with their own tags (a reply is read by the pair whose opening tag starts it, or else
whose closing tag comes last in it). Under --think strip, the default, a reply that holds "</think>"
and starts (after white space) with "<think>" or holds no "<think>" at all is parsed from the text
after its last "</think>", leading white space trimmed, so that thinking that weighs "yes" against
"no" does not decide LongMemEval's verdict. raw keeps the reply as it came, thinking and all, and
the judgment's thinking the judge's thinking: what --think strip took out of the text and what a
server sends apart (reasoning_content or reasoning: vLLM's reasoning parsers, llama-server,
DeepSeek's API; Ollama's thinking; Claude's thinking blocks; Gemini's thought parts), under either
mode; the judgment's reasoning stays MAGMA's, from its JSON. A reply with nothing after its thinking
is an empty reply, asked again; one that starts with "<think>" and holds no "</think>" was cut in
its thinking: the judgment fails with "judge call: ... reply cut in its thinking: ..." naming the
max_tokens that ran out (LongMemEval's judge sends 10, too few for a model that thinks first), paid
for, and is not asked again. OpenAI's o-series and gpt-5 models think unseen, but their thinking
counts in max_tokens too: their replies come back empty, stopped at the budget, and the judgment
fails ("empty reply (stop reason length: ...)"), not asked again. The way round is --max-tokens N
(say 2000), sent in every judge call in place of the protocol's own max_tokens (LongMemEval's 10;
the other protocols send none): a departure from the protocol, which a warning names; --retry-errors
--max-tokens N over the output judges the failed records again, a new request, which the cache does
not answer with the reply that failed. OpenAI's o1 and o4-mini and Claude models after Opus 4.6 also
refuse any temperature but their default, 1, and are sent the protocol's (langchaingo sends none
only to OpenAI's o1-…, o3, o3-… and gpt-5…): --temperature 1 sends 1 in every judge call, a
departure a warning names too. --think keep parses the whole reply. --cache stores replies as they
came, so a rerun with the other --think makes no call.

MODEL CALLS: --concurrency, --rpm, --tpm, --max-retries, --timeout, --backoff, --cache, --prices and
--seed have qa-predict's names, meanings and defaults; their environment variables are QA_JUDGE_*
so a pipeline sets the predicting and judging models apart. At most --concurrency calls are in
flight and records come out in input order. Transient failures (HTTP 408, 409, 425, 429 and every
5xx but 501 and 505, timeouts, resets, closed connections) are retried with exponential backoff
and jitter, honouring Retry-After (and the Gemini API's retryDelay, given in the body); every other
status (400, 401, 404; 501, 505) fails at once, as does a 429 for a quota no wait restores:
OpenAI's insufficient_quota (an account out of credit) or a Gemini quota per day. A reply's
X-Should-Retry header (true or false) is obeyed first, as the OpenAI and Anthropic SDKs obey it.
As in qa-predict, a judge server never reached (max(8, 2×--concurrency) calls in a row refused,
or its host unknown, and no reply yet) stops the calls: the records left fail with "not called:
server ... was never reached", stderr says so once, and --retry-errors over the output judges them;
as many calls in a row refused with the same 401, 403 or 404 (a key, a model name), none ever a
success, leave "not called: server ... refused every call so far with HTTP 404" alike.
The MAGMA (locomo-continuous) and mem0 judges ask for a JSON object, as their scripts do (OpenAI
response_format {"type": "json_object"}; Ollama format json; Gemini's JSON MIME type; Anthropic
has no JSON mode). --seed is sent to the model only when given. cost_usd prices each
judgment's replies, cached or not (as qa-predict prices predictions), from a built-in table (dated
` + model.PricesDate + `) or --prices FILE (JSON/YAML: model: {input: USD, output: USD} per million tokens,
and cached: USD for the prompt tokens served from the provider's prompt cache,
usage.cached_input_tokens); an unknown model's cost_usd is left empty. Token and cost totals go to
stderr, with the part of the cost the cache served (not paid again). --max-cost USD makes no new
call once the replies (not those the cache serves) have cost USD: calls in flight finish, the
records left carry the error "budget spent: ..." (failed, exit 3), and --retry-errors with a larger
--max-cost goes on. It needs a price for the judge model.

DRY RUN: --dry-run calls no model and needs no key (nor --model, though the requests name it when
given). It writes, instead of the records, one JSON line per record in input order: the request
judging would send (mode, template, prompt_sha256, model; max_tokens and max_tokens_field (the
member an openai call carries it in), temperature, top_p, top_k (googleai's, which langchaingo
always sends), seed, response_format and the messages byte for byte, as the call carries them; and
the messages' input_tokens in the model's tiktoken encoding: cl100k_base for gpt-4 and gpt-3.5,
o200k_base for the rest), or the rule verdict, skip:true, already_judged:true or the error that
judging would record. stderr counts the requests and input tokens per model, priced as above (input
only: replies have no length yet; "no price" for a model without one), with a warning when that
alone is over --max-cost. A --cache FILE a run with a model could not open is refused as that run
refuses it (exit 2), but none is made or written. A dry run's exit code is the run's: 3 when a
record could not be judged, or its judgment under the name would pass through failed, which
--retry-errors judges again.

` + command.FinishHelp + `

SUBCOMMAND:
   qa-judge agree [--names a,b] FILE...   agreement between judges (raw, Cohen's or Fleiss' kappa,
                                         bootstrap CIs, per type) and the disagreements, as text
                                         or (--format json) one JSON document

Examples:
   qa-judge --mode rules preds.jsonl > judged.jsonl
   qa-judge --dry-run --model gpt-4o-mini preds.jsonl | sed -n 1p   # the first request, unsent
   qa-judge --provider openai --model gpt-4o-2024-08-06 --cache judge.sqlite preds.jsonl > judged.jsonl
   qa-judge --model gpt-4o-mini --concurrency 16 --rpm 500 --tpm 200000 --prices prices.yaml preds.jsonl > judged.jsonl
   qa-judge --name mini --model gpt-4o-mini preds.jsonl | qa-judge --name rules --mode rules | qa-judge agree`

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
	budget         *model.Budget    // --max-cost, or nil
	transport      *model.Transport // the judge calls' (nil: no judge model), for its StopWarning
	maxCost        float64          // --max-cost, 0 for none
	routes         *routeUse        // --route in auto mode, or nil
	// bare is the default name a run without a model gives the judgments (MODE), when this run
	// has a model and the default name (MODE/MODEL): its judgments that failed for want of a
	// model are replaced (replaceFailedForModel). "" otherwise, with --name above all.
	bare string
}

// Run is the qa-judge command. args includes the program name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	app := command.NewApp("qa-judge", "grade predictions with the benchmarks' judge protocols", description, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		cfg, err := parseConfig(c.Context, c)
		if err != nil {
			return err
		}
		if cfg.cache != nil {
			defer cfg.cache.Close()
		}
		err = run(c.Context, cfg, stdin, stdout, stderr)
		if cfg.cache != nil {
			if w := cfg.cache.Unstored(); w != "" {
				fmt.Fprintf(stderr, "qa-judge: warning: %s\n", w)
			}
		}
		return err
	}
	app.Commands = []*cli.Command{agreeCommand(stdin, stdout, stderr)}
	for _, sub := range app.Commands {
		// urfave/cli gives a subcommand its own usage-error handling, which prints the help to
		// stdout and exits 1: take the app's (a UsageError, exit 2, printed once on stderr).
		sub.OnUsageError = app.OnUsageError
		sub.HideHelpCommand = true // "qa-judge agree help" reads a file named help, as the app does
	}
	return command.Execute(ctx, app, args)
}

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mode", Value: ModeAuto, EnvVars: []string{"QA_JUDGE_MODE"}, Usage: "judge protocol: " + strings.Join(Modes, ", ")},
		&cli.StringFlag{Name: "name", EnvVars: []string{"QA_JUDGE_NAME"}, Usage: "key under judgments (default MODE/MODEL, or MODE for a mode that calls no model or without --model; rules is named rules-approximate); the default MODE/MODEL replaces a judgment MODE that failed for want of a model; no white space at either end and no comma, which qa-judge agree --names could not pick"},
		&cli.StringFlag{Name: "provider", Value: "openai", EnvVars: []string{"QA_JUDGE_PROVIDER"}, Usage: "model provider: " + strings.Join(judgeProviders(), ", ")},
		&cli.StringFlag{Name: "model", EnvVars: []string{"QA_JUDGE_MODEL"}, Usage: "judge model (e.g. gpt-4o-2024-08-06, LongMemEval's official judge)"},
		&cli.StringFlag{Name: "base-url", EnvVars: []string{"QA_JUDGE_BASE_URL"}, Usage: "provider endpoint (default: the provider's)"},
		&cli.StringFlag{Name: "api-key-file", EnvVars: []string{"QA_JUDGE_API_KEY_FILE"}, Usage: "read the API key from `FILE` (default: the provider's usual environment variable)"},
		&cli.StringFlag{Name: "route", EnvVars: []string{"QA_JUDGE_ROUTE"}, Usage: "JSON `FILE` {\"dataset/type\"|\"dataset\"|\"*\": mode} laid over the auto table"},
		&cli.StringFlag{Name: "prompt", EnvVars: []string{"QA_JUDGE_PROMPT"}, Usage: "custom judge prompt `FILE` (sets mode custom)"},
		&cli.StringFlag{Name: "prompt-format", Value: FormatJSONScore, EnvVars: []string{"QA_JUDGE_PROMPT_FORMAT"}, Usage: "reply format of --prompt: json-score, label or yes-no"},
		command.ThinkFlag("QA_JUDGE_THINK", "what becomes of the thinking a reasoning judge writes into its reply (<think>…</think>): `MODE` strip (the text after </think> is parsed; raw keeps the reply whole; see REASONING JUDGES) or keep (the whole text is parsed)"),
		&cli.IntFlag{Name: "max-tokens", EnvVars: []string{"QA_JUDGE_MAX_TOKENS"}, Usage: "most tokens a judge reply may take, a reasoning model's thinking included, in every judge call (`N`; 0: each protocol's own, LongMemEval's 10 and none for the others); not the protocol's (a warning says so), but the way to judge with a reasoning model (see REASONING JUDGES)"},
		&cli.Float64Flag{Name: "temperature", EnvVars: []string{"QA_JUDGE_TEMPERATURE"}, DefaultText: "each protocol's", Usage: "sampling temperature of every judge call (`T`; unset: each protocol's own, EvaLearn's 0.2 and 0 for the others, and 0 for a --prompt); not the protocol's (a warning says so), but the way to judge with OpenAI's o1 and o4-mini and Claude models after Opus 4.6, which take only 1 (see REASONING JUDGES)"},
		&cli.StringFlag{Name: "max-tokens-field", Value: model.MaxTokensAuto, EnvVars: []string{"QA_JUDGE_MAX_TOKENS_FIELD"}, Usage: "openai only: the request member that carries a judge call's token budget (--max-tokens, or LongMemEval's 10), `NAME` auto, max_tokens or max_completion_tokens; auto sends max_completion_tokens to OpenAI's own API (its o-series and gpt-5 refuse max_tokens) and max_tokens to any other --base-url (vLLM, llama.cpp and Ollama read it); name max_completion_tokens for a compatible server that wants it, such as an o-series model behind Azure OpenAI"},
		&cli.IntFlag{Name: "num-ctx", EnvVars: []string{"QA_JUDGE_NUM_CTX"}, Usage: "ollama only: the judge model's context window in `TOKENS` (Ollama's num_ctx, sent with every judge call; 0: none sent, the server's, which may be as little as 2048 and cuts a longer prompt without an error)"},
		&cli.IntFlag{Name: "parse-retries", Value: 2, EnvVars: []string{"QA_JUDGE_PARSE_RETRIES"}, Usage: "times an unparsable reply is asked again"},
		&cli.BoolFlag{Name: "force", EnvVars: []string{"QA_JUDGE_FORCE"}, Usage: "judge records already judged under NAME again"},
		&cli.BoolFlag{Name: "retry-errors", EnvVars: []string{"QA_JUDGE_RETRY_ERRORS"}, Usage: "judge again the records whose judgment under NAME failed (error); the others pass through"},
		&cli.BoolFlag{Name: "allow-self-judge", EnvVars: []string{"QA_JUDGE_ALLOW_SELF_JUDGE"}, Usage: "allow the judge to be the provider and model that made the predictions"},
		// The model-call flags below have qa-predict's names, meanings and defaults (model.Setup);
		// only their environment variables differ, so a pipeline can set the two models apart.
		&cli.IntFlag{Name: "concurrency", Usage: "most calls in flight (`N`, 1 to 10000); output order is kept", Value: 4, EnvVars: []string{"QA_JUDGE_CONCURRENCY"}},
		&cli.Float64Flag{Name: "rpm", Usage: "most requests per minute (0: no limit)", EnvVars: []string{"QA_JUDGE_RPM"}},
		&cli.Float64Flag{Name: "tpm", Usage: "most tokens per minute, estimated (0: no limit)", EnvVars: []string{"QA_JUDGE_TPM"}},
		&cli.IntFlag{Name: "max-retries", Usage: "retries of a transient failure (429, 500, 502, 503, 504, timeouts, …; Retry-After honoured)", Value: 5, EnvVars: []string{"QA_JUDGE_MAX_RETRIES"}},
		&cli.DurationFlag{Name: "timeout", Usage: "per-attempt timeout (0: none)", Value: 2 * time.Minute, EnvVars: []string{"QA_JUDGE_TIMEOUT"}},
		&cli.DurationFlag{Name: "backoff", Usage: "first retry wait (doubled each retry, with jitter; 0: none, retry at once)", Value: 500 * time.Millisecond, EnvVars: []string{"QA_JUDGE_BACKOFF"}},
		&cli.StringFlag{Name: "cache", EnvVars: []string{"QA_JUDGE_CACHE"}, Usage: "SQLite reply cache `FILE` (keyed by the whole request: a changed prediction is never served a stale verdict)"},
		&cli.StringFlag{Name: "prices", Usage: "price `FILE` (JSON/YAML) merged over the built-in table", EnvVars: []string{"QA_JUDGE_PRICES"}},
		&cli.Float64Flag{Name: "max-cost", Usage: "make no new call once this run's replies have cost `USD` (0: no limit); the records left carry an error", EnvVars: []string{"QA_JUDGE_MAX_COST"}},
		&cli.Int64Flag{Name: "seed", Usage: "seed of retry jitter; also sent to openai and ollama judge models when set, unless 0 (langchaingo leaves a seed of 0 out; the benchmarks' judges send none)", Value: 1, EnvVars: []string{"QA_JUDGE_SEED"}},
		&cli.BoolFlag{Name: "dry-run", EnvVars: []string{"QA_JUDGE_DRY_RUN"}, Usage: "call no model: write each record's judge request, rule verdict or reason to pass as JSON lines, and count the requests and their input tokens (see DRY RUN)"},
		command.ProgressFlag("QA_JUDGE_PROGRESS"),
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in bytes"),
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
		cfg.warnNoModel(c)
		j.Model = ""
		return cfg, nil
	}
	if err := cfg.checkModel(c); err != nil {
		return nil, err
	}
	if cfg.dryRun {
		if err := checkDryRunCache(c); err != nil {
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

// parsePrompt checks --prompt-format and loads the --prompt file, if any, making j a custom judge.
func parsePrompt(c *cli.Context, j *Judge) error {
	// The value is checked even without --prompt, as --max-tokens-field's is without a model.
	if f := c.String("prompt-format"); !slices.Contains(CustomFormats, f) {
		return command.Usagef("--prompt-format: unknown format %q%s (want %s, %s or %s)%s", f, command.FromEnv(c, "prompt-format"),
			FormatJSONScore, FormatLabel, FormatYesNo, english.DidYouMean(f, CustomFormats))
	}
	if c.IsSet("prompt-format") && c.String("prompt") == "" {
		fmt.Fprintln(c.App.ErrWriter, "qa-judge: warning: --prompt-format is the reply format of a --prompt judge; without --prompt it does nothing")
	}
	if p := c.String("prompt"); p != "" {
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
	for _, f := range append(modelFlags(j), modelFlag{"cache", cachePath, cachePath != ""}) {
		if f.set {
			fmt.Fprintf(c.App.ErrWriter, "qa-judge: warning: --%s %s%s does nothing with %s: no model is called\n",
				f.name, f.value, command.FromEnv(c, f.name), how)
		}
	}
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
	if !slices.Contains(judgeProviders(), j.Provider) {
		why := "want one of " + strings.Join(judgeProviders(), ", ")
		if j.Provider == "extractive" {
			why = "extractive picks answers from a record's context and cannot judge; " + why
		}
		return command.Usagef("--provider: unknown provider %q (%s)%s", j.Provider, why, model.ProviderHint(j.Provider, judgeProviders(), "--base-url"))
	}
	if _, err := command.NumCtx(c, "num-ctx", j.Provider); err != nil {
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

// checkDryRunCache checks the --cache of a dry run.
func checkDryRunCache(c *cli.Context) error {
	// No client or key: nothing is sent. The requests shown are those of a run with a
	// model, which would open --cache: it is checked as that run opens it, but no cache is
	// opened, nor a file left (cache.Check).
	if p := c.String("cache"); p != "" {
		if err := cache.Check(p); err != nil {
			return command.FlagFile("--cache", err)
		}
	}
	return nil
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
		client = cc.Wrap(client)
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
		Gemini: gemini.New} // qa-judge reaches googleai through package gemini, which model does not link
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

// tally counts what happened to the records, and the tokens and dollars the judgments cost.
type tally struct {
	judged, rule, cached, skipped, already, unparsable, failed atomic.Int64
	neither                                                    atomic.Int64  // yes/no replies saying neither
	carried                                                    atomic.Int64  // already judged, and failed
	notCalled                                                  atomic.Int64  // failed: calls a finishing run did not make
	stopped                                                    command.Stops // failed: calls not made as the server was never reached or refused every call
	selfJudged                                                 atomic.Int64  // failed: predicted by the judge model
	stale                                                      atomic.Int64  // judge_score removed with the judgment it may have read
	routed                                                     atomic.Int64  // judged by (or refused for) the model
	ruled                                                      atomic.Int64  // judged by a rule's route, its verdict or its failure
	replaced                                                   atomic.Int64  // lost the judgment MODE that failed for want of a model
	unjudged                                                   atomic.Int64  // lost the judgment NAME that this run's mode leaves out
	others                                                     others        // passed through, judged by another mode or model

	mu         sync.Mutex
	usage      record.Usage
	cost       float64
	cachedCost float64        // the part of cost the cache served
	unpriced   map[string]int // judgments with token usage but no price, by model
}

// spend adds jg's usage and cost (as qa-predict's tally does for predictions).
func (t *tally) spend(jg *record.Judgment) {
	if jg.Usage == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.usage.InputTokens += jg.Usage.InputTokens
	t.usage.OutputTokens += jg.Usage.OutputTokens
	if jg.CostUSD != nil {
		t.cost += *jg.CostUSD
		if jg.Cached {
			t.cachedCost += *jg.CostUSD
		}
		return
	}
	if t.unpriced == nil {
		t.unpriced = map[string]int{}
	}
	t.unpriced[jg.Model]++
}

// short is the progress's text: the tokens and cost spent so far, as qa-predict's says them, once
// a model has been asked (a run of rules spends none), and the failed and unparsable judgments.
func (t *tally) short() string {
	t.mu.Lock()
	spent := ""
	if t.usage.InputTokens+t.usage.OutputTokens > 0 || t.cost > 0 {
		spent = fmt.Sprintf("tokens %d/%d  $%.4f  ", t.usage.InputTokens, t.usage.OutputTokens, t.cost)
	}
	t.mu.Unlock()
	return fmt.Sprintf("%sfailed %d  unparsable %d", spent, t.failed.Load(), t.unparsable.Load())
}

func run(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) error {
	src := &command.Source{Args: cfg.inputs, Stdin: stdin, Stderr: stderr, Prog: "qa-judge", Strict: cfg.strict, MaxLine: cfg.maxLine}
	if cfg.dryRun {
		return cfg.dryRunAll(ctx, src, stdout, stderr)
	}
	out := record.NewWriter(stdout)
	defer out.FlushWhenIdle()() // each record comes out soon after it is done, not 64 kB at a time
	var t tally
	progress := command.NewRecordProgress(stderr, stdout, "qa-judge", cfg.inputs, cfg.progress, t.short)
	opts := pipeline.Options{Concurrency: cfg.concurrency, Finished: progress.Finished()}
	var finished atomic.Int64 // records judged or passed, written or not
	work := func(ctx context.Context, rec *record.Record) (*record.Record, error) {
		if err := cfg.judgeOne(ctx, rec, &t); err != nil {
			return nil, err
		}
		finished.Add(1)
		return rec, nil
	}
	fails := &command.Failures{Prog: "qa-judge", Of: func(rec *record.Record) (any, string) {
		if jg := rec.Judgments[cfg.name]; jg != nil && jg.Error != "" {
			return jg, jg.Error
		}
		return nil, ""
	}, NotMade: callNotMade}
	written := 0
	sink := func(rec *record.Record) error {
		written++
		fails.Wrote(rec)
		return out.Write(rec)
	}
	err := pipeline.Map(ctx, opts, cfg.source(src, fails), work, sink)
	err = command.Interruption(err, written, int(finished.Load()))
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = ferr // "write /dev/stdout: …", as when a write before the end fails
	}
	progress.Finish()
	fails.End(stderr)
	if err != nil && !errors.Is(err, context.Canceled) && finished.Load() == 0 {
		return err // before any record: a summary of none would read as the run's result
	}
	if err == nil {
		cfg.warnRoutes(stderr) // an interrupted run has not seen every record
		cfg.warnModelUnused(stderr, t.routed.Load(), t.ruled.Load())
	}
	// Interrupted or not, say what was judged and spent, as qa-predict does.
	if w := cfg.budget.Warning(); w != "" {
		fmt.Fprintf(stderr, "qa-judge: %s\n", w)
	}
	if w := cfg.transport.StopWarning("rerun on the output with --retry-errors"); w != "" {
		fmt.Fprintf(stderr, "qa-judge: %s\n", w)
	}
	if n := cfg.judge.NoUsage.Load(); n > 0 {
		fmt.Fprintf(stderr, "qa-judge: warning: %s replies without token usage from the server: %s usage and cost_usd are left empty (unknown, not free), and the totals leave %s out\n",
			english.Count(int(n), "judgment had", "judgments had"), english.Form(int(n), "its", "their"), english.Form(int(n), "it", "them"))
	}
	warnReplaced(stderr, cfg.bare, cfg.name, t.replaced.Load(), false)
	t.others.warn(stderr, cfg.name, false)
	summarize(stderr, cfg.name, &t)
	if err != nil {
		return err
	}
	return badRecords(int(t.unparsable.Load()+t.failed.Load()+t.carried.Load()), "judgment failed", "judgments failed", src)
}

// checkName refuses a --name (env: " from QA_JUDGE_NAME", or "") under which qa-judge agree
// --names could not pick the judgment: one that begins or ends with white space, which --names
// trims off each name it is given (so that "a, b" reads as "a" and "b"), or that holds a comma,
// which --names splits at. Made, such a judgment is read by qa-score and qa-learncurve --judge
// alone.
func checkName(name, env string) error {
	switch {
	case name != strings.TrimSpace(name):
		return command.Usagef("--name%s: %q begins or ends with white space, which qa-judge agree --names trims off the names it is given, so it could not pick this judgment", env, name)
	case strings.Contains(name, ","):
		return command.Usagef("--name%s: %q holds a comma, at which qa-judge agree --names splits its list of names, so it could not pick this judgment", env, name)
	}
	return nil
}

// badRecords is the exit status of a run that got to the end with n records failed (said as
// one or many, "judgment failed") and src's bad input lines: both make it 3, and the message
// counts both, as each was reported on its own line above. It points to the error fields in
// agree's words: "(see its error field)", "(see their error fields)".
func badRecords(n int, one, many string, src *command.Source) error {
	return command.BadRecords(src.Bad, command.Count{N: n, Singular: one + " (see its error field)", Plural: many + " (see their error fields)"})
}

// passes reports whether rec goes through unjudged: it is judged under the name already, and
// neither --force nor, for a failed judgment, --retry-errors asks for another; failed says
// whether that judgment failed. A null judgment is none, as a null prediction is to qa-predict,
// and so is one with neither a score nor an error ({} or a label alone): it holds no verdict,
// which qa-score, qa-learncurve and agree read as no judgment, and passed through it would be
// counted neither judged nor failed. One with a raw reply and no score, as EvaLearn's own results
// hold its judge's verdicts (qa-load --format evalearn-results), is judged: qa-learncurve reads
// the reply by EvaLearn's rule, and judged again without --force it would be replaced.
func (cfg *config) passes(rec *record.Record) (pass, failed bool) {
	jg := rec.Judgments[cfg.name]
	if jg == nil || jg.Score == nil && jg.Error == "" && strings.TrimSpace(jg.Raw) == "" || cfg.force {
		return false, false
	}
	failed = jg.Error != ""
	return !failed || !cfg.retryErrors, failed
}

// source is src's records for the pipeline. The first record's prediction made by the judge
// model stops the run with a usage error before any call (the mistake is the command's); one
// found later, after calls were made, is a failed judgment of its record (judgeOne).
func (cfg *config) source(src *command.Source, fails *command.Failures) pipeline.Source[*record.Record] {
	return func(yield func(*record.Record) error) error {
		first := true
		return src.Each(func(rec *record.Record) error {
			fails.Read(rec, src.At(rec.ID, nil))
			cfg.noteRoute(rec)
			if first {
				first = false
				if pass, _ := cfg.passes(rec); !pass {
					if jg := cfg.selfJudging(rec); jg != nil {
						return &command.UsageError{Err: src.At(rec.ID, errors.New(jg.Error))}
					}
				}
			}
			return yield(rec)
		})
	}
}

// noteRoute counts the --route key that routes rec (in the reading goroutine only).
func (cfg *config) noteRoute(rec *record.Record) {
	if cfg.routes != nil {
		cfg.routes.note(rec)
	}
}

// warnRoutes warns of the --route keys that routed no record.
func (cfg *config) warnRoutes(stderr io.Writer) {
	if cfg.routes == nil {
		return
	}
	if w := cfg.routes.warning(); w != "" {
		fmt.Fprintf(stderr, "qa-judge: %s\n", w)
	}
}

// selfJudging returns the failed judgment of rec when judging it would call the model that made
// its prediction (named by the judge's provider, or by none) without --allow-self-judge; else nil.
// A record a rule decides, or whose prediction failed, calls no model and is judged. It looks at
// the judge model given, not at the client, so that a dry run (which builds none) refuses alike.
func (cfg *config) selfJudging(rec *record.Record) *record.Judgment {
	j, pred := cfg.judge, rec.Prediction
	if cfg.allowSelfJudge || j.Model == "" || unjudgeable(rec) != "" || pred.Model == "" ||
		pred.Provider != "" && pred.Provider != j.Provider {
		return nil
	}
	p, err := j.Plan(rec)
	if err != nil || p.Skip || p.Rule != nil {
		return nil
	}
	called := cmp.Or(p.Model, j.Model)
	if pred.Model != j.Model && pred.Model != called {
		return nil
	}
	return &record.Judgment{Mode: p.Mode, PromptSHA256: p.PromptSHA256, Model: called,
		Error: selfJudgingError(pred, j.Provider, j.Model, called, p.Mode)}
}

// selfJudgingError says that a prediction was made by the judge model, naming the model as the
// record does and as the judge was given (and, when a protocol's alias changes it, as called).
func selfJudgingError(pred *record.Prediction, provider, judgeModel, called, mode string) string {
	by := "prediction.model " + pred.Model
	if pred.Provider != "" {
		by = "prediction.provider/model " + pred.Provider + "/" + pred.Model
	}
	judge := "--provider " + provider + " --model " + judgeModel
	if called != judgeModel {
		judge += ", called as " + called + " by " + mode
	}
	return fmt.Sprintf("self-judging refused: %s is the judge model (%s); use another judge model, or --allow-self-judge to judge it anyway", by, judge)
}

// judgeOne fills rec.Judgments[name]. It returns an error only when ctx is done.
func (cfg *config) judgeOne(ctx context.Context, rec *record.Record, t *tally) error {
	cfg.replaceFailedForModel(rec, t)
	if pass, failed := cfg.passes(rec); pass {
		t.already.Add(1)
		t.others.note(cfg.judge, rec, rec.Judgments[cfg.name])
		if failed {
			t.carried.Add(1)
		}
		return nil
	}
	jg := cfg.selfJudging(rec)
	if jg != nil {
		t.selfJudged.Add(1)
	} else {
		var err error
		if jg, err = cfg.judge.Regrade(ctx, rec, rec.Judgments[cfg.name]); err != nil {
			return err
		}
	}
	if jg == nil {
		t.skipped.Add(1)
		if rec.Judgments[cfg.name] != nil {
			// --force or --retry-errors over a judgment this run's mode leaves out (mem0's
			// category 5, a skip route): another mode made it, and kept under NAME it would be
			// read as this run's verdict. The record gets none, as it would judged afresh.
			delete(rec.Judgments, cfg.name)
			if len(rec.Judgments) == 0 {
				rec.Judgments = nil
			}
			dropJudgeScore(rec, t)
			t.unjudged.Add(1)
		}
		return nil
	}
	switch {
	case jg.Error != "" && strings.HasPrefix(jg.Error, ErrUnparsable.Error()):
		t.unparsable.Add(1)
	case jg.Error != "":
		t.failed.Add(1)
		switch {
		case !callNotMade(jg.Error):
		case strings.HasSuffix(jg.Error, interrupt.ErrNotCalled.Error()):
			t.notCalled.Add(1)
		default:
			t.stopped.Count(jg.Error)
		}
	case jg.Model == "":
		t.rule.Add(1)
	}
	if jg.Model != "" { // its route calls the model (a failed prediction's judgment is named so too)
		t.routed.Add(1)
	}
	if ruleJudgment(jg) {
		t.ruled.Add(1)
	}
	if jg.Cached { // its replies came from the cache, parsable or not: no call was made
		t.cached.Add(1)
	}
	if jg.Error == "" && jg.Label == LabelNeither {
		t.neither.Add(1)
	}
	t.judged.Add(1)
	t.spend(jg)
	if rec.Judgments == nil {
		rec.Judgments = map[string]*record.Judgment{}
	}
	if rec.Judgments[cfg.name] != nil || readFirst(rec, cfg.name) { // replaced, or now the one read
		dropJudgeScore(rec, t)
	}
	rec.Judgments[cfg.name] = jg
	return nil
}

// readFirst reports whether name sorts before the names of every other judgment rec carries:
// qa-score without --judge reads judge_score from the first name in sorted order, so a
// judge_score it read before this run's judgment under name was read from another one, and would
// be left beside it, stale, by a later qa-score run that does not compute judge_score again.
func readFirst(rec *record.Record, name string) bool {
	for k, j := range rec.Judgments {
		if j != nil && k < name {
			return false
		}
	}
	return true
}

// dropJudgeScore removes rec's judge_score, which qa-score read from a judgment, perhaps the one
// this run replaces or removes: a later qa-score run that does not compute it again would keep it
// beside the new judgment.
func dropJudgeScore(rec *record.Record, t *tally) {
	if _, ok := rec.Scores[judgeScore]; !ok {
		return
	}
	delete(rec.Scores, judgeScore)
	if len(rec.Scores) == 0 {
		rec.Scores = nil
	}
	t.stale.Add(1)
}

// replaceFailedForModel removes from rec the judgment that a run without a model left under the
// default name MODE when it failed only for want of a model (ErrNoModel), as this run, with the
// default name and a model, judges the record under MODE/MODEL: left in place, that failure would
// be what qa-score reads (MODE sorts first), and neither --retry-errors nor --force, which look at
// MODE/MODEL, would repair it. A judgment MODE that a rule made, or that failed otherwise, stays.
// A failed judgment gave qa-score no judge_score, so none is removed with it.
func (cfg *config) replaceFailedForModel(rec *record.Record, t *tally) {
	if !cfg.replacesFailed(rec) {
		return
	}
	delete(rec.Judgments, cfg.bare)
	t.replaced.Add(1)
}

// replacesFailed reports whether this run removes rec's judgment MODE, failed for want of a model
// (replaceFailedForModel); a dry run counts those records by it, so that the two never disagree.
func (cfg *config) replacesFailed(rec *record.Record) bool {
	return cfg.bare != "" && failedForModel(rec.Judgments[cfg.bare])
}

// warnUnjudged says how many records lost their judgment name, made otherwise, where this run's
// mode leaves them out (--force or --retry-errors over it); for a dry run (dry), how many would.
func warnUnjudged(w io.Writer, name string, n int64, dry bool) {
	if n == 0 {
		return
	}
	had, removed := lossWords(n, dry, "it was removed", "it would be removed")
	fmt.Fprintf(w, "qa-judge: warning: %s a judgment %q that this run's mode leaves out (mem0's category 5, a skip route): %s, as this run judges none there\n",
		had, name, removed)
}

// lossWords are a warning's words for n records that lose what they had: "N records had" and
// done, or for a dry run (dry), which changes nothing, "N records have" and wouldBe.
func lossWords(n int64, dry bool, done, wouldBe string) (had, verb string) {
	if dry {
		return english.Count(int(n), "record has", "records have"), wouldBe
	}
	return english.Count(int(n), "record had", "records had"), done
}

// ruleJudgment reports whether jg was made, or failed, on a rule's route: a mode that calls no
// model (the approximate rules, MAGMA's category-5 rule), and no model named.
func ruleJudgment(jg *record.Judgment) bool {
	return jg.Model == "" && (jg.Mode == RulesMode || jg.Mode == ModeAdversarial || jg.Mode == ModeUnanswerable)
}

// warnReplaced says how many records lost the judgment MODE (bare) that failed for want of a
// model, replaced by their judgment MODE/MODEL (name); for a dry run (dry), how many would.
func warnReplaced(w io.Writer, bare, name string, n int64, dry bool) {
	if n == 0 {
		return
	}
	had, replaced := lossWords(n, dry, "replaced", "would be replaced")
	fmt.Fprintf(w, "qa-judge: warning: %s the judgment %q of a run without --model, failed for want of one (%q): %s by %s judgment %q\n",
		had, bare, ErrNoModel.Error(), replaced, english.Form(int(n), "its", "their"), name)
}

// warnModelUnused warns when --mode auto had a --model and routed every record it judged to a
// rule (ruled of them, routed to the model): the run asked no model, which only the "by rule"
// count of the summary showed. A record its rule's route judged counts whether it got the rule's
// verdict or failed there (its prediction failed, a fact or its gold answers could not be read),
// so that a run where every such record failed warns too. A dry run warns alike, of the run it
// shows, so its words hold for both.
func (cfg *config) warnModelUnused(w io.Writer, routed, ruled int64) {
	j := cfg.judge
	if j.Model == "" || (j.Mode != ModeAuto && j.Mode != "") || routed > 0 || ruled == 0 {
		return
	}
	fmt.Fprintf(w, "qa-judge: warning: --model %s judges no record: --mode auto routes every one to a rule (see MODES in --help); --mode or --prompt judges them with the model\n", j.Model)
}

// judgeScore is the score qa-score computes from a record's judgments.
const judgeScore = "judge_score"

// summarize writes a warning per unpriced model and the run's one-line summary, whose cost counts
// every judgment's replies, cached or not (as qa-predict's does).
func summarize(w io.Writer, name string, t *tally) {
	t.mu.Lock()
	defer t.mu.Unlock()
	models := slices.Sorted(maps.Keys(t.unpriced))
	for _, m := range models {
		fmt.Fprintf(w, "qa-judge: warning: no price for model %q: cost_usd left empty on %s (add it with --prices)\n", m, english.Count(t.unpriced[m], "judgment", "judgments"))
	}
	if n := t.neither.Load(); n > 0 {
		fmt.Fprintf(w, "qa-judge: warning: %s neither yes nor no (a refusal?): scored 0 as LongMemEval's rule scores %s, labelled %q\n",
			english.Count(int(n), "yes/no reply says", "yes/no replies say"), english.Form(int(n), "it", "them"), LabelNeither)
	}
	if n := t.selfJudged.Load(); n > 0 {
		fmt.Fprintf(w, "qa-judge: warning: %s by the judge model, so not judged (see %s): --retry-errors --allow-self-judge over the output judges %s\n",
			english.Count(int(n), "record was predicted", "records were predicted"), english.Form(int(n), "its error field", "their error fields"), english.Form(int(n), "it", "them"))
	}
	warnUnjudged(w, name, t.unjudged.Load(), false)
	if n := t.stale.Load(); n > 0 {
		fmt.Fprintf(w, "qa-judge: warning: %s a judge_score that may have read the judgment now replaced or removed, or another than the one qa-score now reads first; it was taken out too (qa-score computes it again)\n",
			english.Count(int(n), "record had", "records had"))
	}
	carried := ""
	if n := t.carried.Load(); n > 0 {
		carried = fmt.Sprintf(" (%d failed: --retry-errors judges %s again)", n, english.Form(int(n), "it", "them"))
	}
	notCalled := command.NotCalledNote(int(t.notCalled.Load()), int(t.failed.Load())) + t.stopped.Note(int(t.failed.Load()))
	fmt.Fprintf(w, "qa-judge: %s: %d judged (%d by rule, %d from cache), %d skipped, %d already judged%s; %d unparsable, %d failed%s",
		name, t.judged.Load(), t.rule.Load(), t.cached.Load(), t.skipped.Load(), t.already.Load(), carried, t.unparsable.Load(), t.failed.Load(), notCalled)
	if !t.usage.IsZero() || t.cost > 0 {
		fmt.Fprintf(w, "; tokens %d in, %d out; %s", t.usage.InputTokens, t.usage.OutputTokens, command.CostNote(t.cost, t.cachedCost))
		if len(models) > 0 {
			fmt.Fprintf(w, " (not counting %s: no price)", strings.Join(models, ", "))
		}
	}
	fmt.Fprintln(w)
}
