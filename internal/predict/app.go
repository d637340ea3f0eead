// Package predict is the qa-predict command: it asks a model (or the offline extractive baseline)
// to answer every record and writes each record back with its prediction.
//
// The work is a pipeline.Map over the input records: at most --concurrency calls in flight, output
// in input order (a slow call holds back the output, not the calls after it, while its window of
// pipeline.WindowPerCall × --concurrency records has room), a failed call recorded as
// prediction.error without stopping the run.
package predict

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
)

const description = `qa-predict reads qapipe records (JSON Lines) and writes each one back with a prediction
from a model: openai (and any OpenAI-compatible server via --base-url: vLLM, llama.cpp, LM Studio,
Ollama's /v1), anthropic, ollama, googleai, or extractive, an offline baseline that picks a span of
the record's own context (BM25 over sentences) and needs no network.
` + command.InputsHelp + `

Keys are read only from OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY (or GEMINI_API_KEY), or
--api-key-file; they are never printed, cached or written into records.

The prompt is the benchmark's own for hotpotqa (AFlow), locomo (LoCoMo QA, with its category-2
suffix and category-5 options, and max_tokens 32 as its script sends unless --max-tokens is given;
see LOCOMO BATCHES for --batch-size) and longmemeval records, and a generic context+question
prompt for the rest; --template FILE (a Go text/template over the record) overrides it.
prompt_sha256 is the SHA-256 of the JSON array of the messages made, as a dry run writes them
(compact, < > & unescaped), but before openai's o1 and o3 get the system text in the first user
message (see README). A record whose question is empty or only blanks (which qa-load refuses,
but the records format passes on) is an error on its record, with no call made, as a built-in
prompt would ask nothing; a --template prompt is sent whatever the question.

locomo records are asked as LoCoMo's evaluate_qa.py asks for one of its --model names, given by
--locomo-variant: gpt-4-turbo, gpt-4, gpt-4-32k, gpt-3.5-turbo, gpt-3.5-turbo-4k, -8k, -12k or
-16k. The conversation is cut to fit the name's MAX_LENGTH (128000, 4096, 320000, 4096, 4000,
8000, 12000, 16000) in cl100k_base tokens, less 50 for the answer and the question's and
conversation start's tokens: sessions are taken oldest first and each one's turns newest first
until one does not fit, so the newest sessions are left out. For the gpt-3.5 names the query is
sent as a system message, not a user message (alone, which anthropic and googleai cannot send,
nor openai to o1 and o3, which get no system message: a usage error with them), and LoCoMo's
script calls gpt-3.5-turbo whatever the name (the model called here is --model, with a note when
it differs). auto, the default, is --model when it is one of these names; none sends the
conversation whole as a user message.

LOCOMO BATCHES: --batch-size N (N > 1) asks locomo records as evaluate_qa.py --batch-size N does
(LoCoMo's published runs: 10 for gpt-3.5, 20 for gpt-4-turbo): the questions of a conversation in
blocks at fixed places of its qa list (0 to N-1, N to 2N-1, …: a record's place is the index in its
id, locomo:<sample_id>:<index>, as qa-load writes it), the records of a block not yet predicted
asked in one call with LoCoMo's batch prompt, max_tokens N*50 unless --max-tokens is given, and the
conversation cut (--locomo-variant) to leave 50 tokens for each of N answers and the questions'. A
block's records must be contiguous in the input, as qa-load writes them; memory holds about
--concurrency blocks. The reply is read as LoCoMo's script reads it (its clean-up, the swap of
single quotes, json.loads, each question's number as a key, then its fallbacks): a reply the script
cannot read is an error on every record of the call, a question it cannot find there an error on
its record (but one of category 5, whose last fallback is the whole reply, read as an option's
letter or else kept lower-cased, as the script does), never an empty answer. Each record gets its
own prediction, with batch {first, index, size}; the call's usage, cost_usd and latency_ms are on
the first record asked alone, so that sums over records count the call once. Category-5 option
orders are drawn per record from --seed as for one question per call. A reply that answers none of
its questions (the script cannot read it, or finds none of them) is not kept in --cache, so
--retry-errors asks for it again; any other reply is cached as usual.

longmemeval records are asked as LongMemEval's reader asks (run_generation.py): --retriever,
--key-expansion, --reading, --history-format, --history-sessions and --user-only are its options.
The history holds every session (orig-session, the default), every turn as its own block
(orig-turn), the first --history-sessions sessions (flat-session) or rounds of a turn and the next
(flat-turn) that a retrieval log ranks (qa-load keeps its ranking in meta.retrieval_corpus_ids;
--key-expansion merge shows each one's retrieval text beside it, replace in its place), or nothing
(no-retrieval: the question alone). The reading is direct, con (step by step, the one its README
recommends) or con-separate: first one call per kept block asking for reading notes on it
(max_tokens 500; the notes are kept in prediction.notes, and usage, cost and attempts sum every
call), then con over the notes, shown as json. The reading call's max_tokens is 800, which its
script sends for every reading (its 500 for direct never applies), unless --max-tokens is given;
and the history is cut to its first --history-tokens o200k_base tokens before the prompt is filled
(the oldest part is kept, as upstream keeps it). auto is upstream's budget,
128000-max_tokens-1000, for gpt-4o, gpt-4o-2024-08-06 and gpt-4o-mini-2024-07-18 (gpt-4o-mini, as
run_generation.sh names it, counts as the latter; the model called is the one given); other models get
whole histories (with a warning for the open models of upstream's table, which it counts with
their own tokenizers).

Flags that shape one kind of record only are warned of at the end, with the records read, when
none of that kind was read: LongMemEval's options above without a longmemeval record,
--batch-size and --locomo-variant without a locomo record, --system and --template when every
record is a position of an EvaLearn sequence (see below); a flag some record used is not. Under
--template, whose prompt replaces LongMemEval's and LoCoMo's, their flags are warned of at once,
but --batch-size N (N > 1), whose batch prompt is LoCoMo's own, is a usage error. The extractive
baseline sends no prompt: all of these, --template and --system too, are warned of at once as
doing nothing with it (their values still checked), and its prompt_sha256 is that of the built-in
prompt with their defaults, as a run without them gives.

Transient failures (HTTP 408, 409, 425, 429 and every 5xx but 501 and 505, such as Cloudflare's
520 to 524, timeouts, resets, closed connections, truncated replies) are retried with exponential
backoff and jitter, honouring Retry-After (and the Gemini API's retryDelay, given in the body; for
a 429 without them, the reset of the OpenAI limit that ran out: x-ratelimit-reset-tokens when
x-ratelimit-remaining-requests says requests are left, else -requests, or the longer of the two;
at most 2m); every other status (400, 401, 404, context length; 501, 505) fails at once, as does a
429 for a quota no wait restores: OpenAI's insufficient_quota (an account out of credit) or a
Gemini quota per day. A reply's X-Should-Retry header (true or false) is obeyed first, as the
OpenAI and Anthropic SDKs obey it.
An error in the body of a 200 reply (OpenRouter's {"error": {"code": 502, ...}}, or one that ends
a Gemini stream that failed once begun) counts as its code; one without a code, such as Ollama's
{"error": "..."}, fails at once with its message. A reply whose finish_reason is "error" (OpenRouter,
vLLM) or "abort" (vLLM) is a failed generation, never an answer, whatever text it holds: retried as
its error's code would be (a 4xx is not), or as a 5xx when it gives none, it fails with "the server
ended the reply with finish_reason "error", a failed generation: error 502: ...", paid for.
A record whose call finally fails carries prediction.error and its attempts, and the exit code is 3;
the error ends with what to check when a key, the model name or the base URL is the likely cause,
and at the end stderr names each different error once, at its first record. A server never
reached stops the run's calls: once max(8, 2×--concurrency) calls in a row have failed after all
their retries with a refused connection, an unknown host or an unreachable network, and none was
ever answered, the records left carry "not called: server ... was never reached" (exit 3; stderr
says so once) and --retry-errors over the output makes their calls; after any reply, failures are
retried as above. So does a refused key, account, project or model name: as many calls in a row
ending with the same 401, 402, 403 or 404, or a reply that refuses the key or account whatever the
request (Gemini's 400 for a refused key or FAILED_PRECONDITION, Anthropic's 400 "Your credit
balance is too low", OpenAI's 429 insufficient_quota), none ever a success, leave "not called:
server ... refused every call so far with HTTP 401"; another 400 is that record's alone.
A reply with no text is the error "empty reply" (paid for: it counts against --max-cost; but see
EMPTY REPLIES). A prompt or reply that the provider's filters block is the error "prompt blocked
by Gemini: SAFETY" or "reply blocked by Gemini: RECITATION" (the API's blockReason or finishReason),
"reply blocked by OpenAI: content_filter" (its finish_reason before any text) or "reply blocked by
Anthropic: refusal" (its stop_reason before any text: Anthropic's safety classifiers stopped
Claude), paid for too, and not retried, as the same prompt is blocked again; text Gemini streamed
before the block is not kept. A reply without token usage (or with a count left out) keeps its
text with usage and cost_usd left empty, with a warning, and under --max-cost no further call is made;
replies cut at max_tokens or at the model's context window (Claude's model_context_window_exceeded),
or with text stopped by a content filter or as a refusal, are kept and counted in a warning; a cut
one marks the records read from it (every record of a LoCoMo batch; a LongMemEval record for its
reading call, not a note) with prediction.cut "max_tokens" or "context_window", so that
jq 'select(.prediction.cut)' finds them.
Records that already have a prediction are passed through untouched unless --force (a warning
counts those whose prediction another provider or model made, and one those whose prediction has
no text, such as HotpotQA's supporting facts alone, so no answer); those whose prediction failed still
count as errors (exit 3), and --retry-errors predicts them again. A record predicted again loses the
judgments, scores and score_errors it carried (they graded the old prediction), with a warning.

--cache FILE keeps every successful reply in SQLite, keyed by the hash of provider, base URL,
model, parameters, messages and sample index: a rerun makes no call twice. The extractive
baseline calls nothing, so only its EvaLearn judge's replies are cached: without --judge-model no
file is made (FILE is still checked, as in a dry run). Costs come from a
built-in price table (dated ` + model.PricesDate + `) or --prices FILE (JSON/YAML: model: {input: USD, output: USD}
per million tokens, and cached: USD for the prompt tokens the provider served from its prompt cache,
usage.cached_input_tokens, and cache_write: USD for those it wrote to it (Anthropic's),
usage.cache_write_input_tokens, which OpenAI's and Claude's models have in the table as their
providers list them; a dated or tagged version of a listed model takes its price, another suffix
such as -pro, or a minor version such as claude-opus-4-5, names another model); an unknown
model's cost_usd is left empty. Totals go to stderr, with the part of the cost the cache served
(not paid again). --max-cost USD makes no new call once the replies (the EvaLearn judge's too;
not those the cache serves) have cost USD at those prices: calls in flight finish, so a run may
end a little above it, and the records left carry the error "budget spent: ..." (exit 3; in an
EvaLearn sequence, the positions after the one refused carry "skipped: position N failed");
--retry-errors with a larger --max-cost goes on.
A model without a price cannot be metered: --max-cost then is a usage error.

REASONING MODELS: an open reasoning model (DeepSeek-R1 and its distills, Qwen3, QwQ) on a server
without a reasoning parser (vLLM, llama.cpp's llama-server, Ollama) writes its thinking into the
reply's text: "<think>\n…\n</think>\n\nParis", or "…\n</think>\n\nParis" when the chat template
put the opening tag in the prompt; Mistral's Magistral writes "[THINK]…[/THINK]Paris", and gpt-oss
"<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>Paris", read
by the same rules with their own tags (the analysis channel's opening and the final one's; a reply
is read by the pair whose opening tag starts it, or else whose closing tag comes last). Under
--think strip, the default, a reply that holds "</think>" and starts (after white space) with
"<think>" or holds no "<think>" at all is answered by the text after its last "</think>", leading
white space trimmed, and its thinking, without the tags, goes to prediction.reasoning; other text
is the answer whole. A reply with nothing after its thinking is the error "empty reply" (naming the
max_tokens that ran out when it stopped there); one that starts with "<think>" and holds no
"</think>" was cut in its thinking: the error "reply cut in its thinking: ...", which names the
max_tokens that ran out (LoCoMo's 32 are soon spent), paid for as an empty reply is, its thinking
so far in prediction.reasoning. Every reply is
read so: LoCoMo's batches (the thinking on the record that carries the call's usage), LongMemEval's
notes, EvaLearn's answers and its judge's verdicts (the history shows a verdict's text after its
thinking). Thinking that a server sends apart (vLLM --reasoning-parser, llama-server
--reasoning-format deepseek, DeepSeek's API: reasoning_content or reasoning; Ollama's thinking;
Claude's thinking blocks, Gemini's thought parts, Mistral's thinking parts) goes to
prediction.reasoning under either mode. --think keep leaves the text whole. --cache stores replies
as they came, so a rerun with the other --think reads them again without a call; a reply cut in its
thinking is stored too, and a larger --max-tokens asks again; one with nothing after its thinking is
not kept under strip, so --retry-errors asks for another, unless it stopped at max_tokens, where the
same request stops again: it is stored as a cut one is. One that stopped of itself is stored as the
answer "" under --empty-reply keep.

EMPTY REPLIES: by default (--empty-reply error) a reply with no text, or white space alone, is the
error "empty reply" on its record, never an answer: an outage, a refusal or a reply cut at max_tokens
would otherwise be scored as the model's answer. The benchmarks' scripts keep some of them:
LongMemEval's run_generation.py writes the stripped "" as the hypothesis, which evaluate_qa.py
judges; LoCoMo's evaluate_qa.py stores "" and scores it 0; EvaLearn's evaluate.py judges "" and
goes on with the sequence. --empty-reply keep (QA_EMPTY_REPLY=keep) does as they do, to reproduce
their figures: a reply that came whole and stopped of itself (OpenAI's and Ollama's stop, Anthropic's
end_turn or stop_sequence, Gemini's STOP) with no text, or nothing after its thinking under --think
strip, is the answer "" with no error, and a warning counts them (N replies were empty, kept as
""). A reply cut at max_tokens or in its thinking, refused, blocked by a filter, without choices
or candidates, or whose OpenAI-compatible content is null, left out or parts of blank text or none
(the OpenAI SDK's None or a list, on which LongMemEval's .strip() fails and skips the question), or
that is an Anthropic message without a text block or a Gemini candidate without parts (on which
LoCoMo's message.content[0].text and response.text fail) stays an error. A LongMemEval note so kept
is the note ""; EvaLearn's judge grades the answer "" and the sequence goes on with it in the
history; a LoCoMo batch's empty reply (--batch-size) is read as its script reads it, which finds no
answer in it: each of its records fails as for any unreadable reply. --cache stores a kept empty
reply, so that a rerun keeps it again without a call (a resumed EvaLearn sequence goes on with the
same history); a run under error reads it from there as the error "empty reply" and takes it out,
so that --retry-errors asks for another.

DRY RUN: --dry-run calls no model and needs no key. It writes, instead of the records, one JSON line
per record in input order: the requests predicting it would send (stage; model; max_tokens and
max_tokens_field (the member an openai call carries it in), temperature, top_p, top_k, seed,
gemini_safety (a googleai call's --gemini-safety) and the messages byte for byte, as the call
carries them; prompt_sha256, the prediction's; and input_tokens: the messages' tokens in the model's
tiktoken encoding, cl100k_base for gpt-4 and gpt-3.5, o200k_base for the rest, and for a call to
OpenAI's own API (openai at api.openai.com, the default) or Azure OpenAI's (a base URL at
RESOURCE.openai.azure.com) the chat format's, as its usage.prompt_tokens counts them: each message's
role and 3 tokens more (4 for gpt-3.5-turbo-0301) and 3 priming the reply; to other providers and
servers, whose chat templates differ, the text's alone, an estimate), and in "then" the calls whose
prompts hold replies not yet given (LongMemEval's reading call over its notes; EvaLearn's judge, and
a sequence's later positions, shown only from the first one left to answer); or already_predicted,
or the error predicting would record. A LoCoMo batch's request (--batch-size) is on the line of its
first question asked, whose asks names the records it asks; their lines name that record in
asked_with. The extractive provider reads no prompt, so it has no dry run. stderr counts the
requests and their input tokens by model (after the count, its encoding, "with the chat format's
tokens" where it has them), priced as above (input only; "no price" for a model without one), with a
warning when that alone is over --max-cost. A --cache FILE the run could not open is refused as the
run refuses it (exit 2), but none is made or written: the dry run reads it, marks "cached": true the
requests it holds a reply for (which the run is served with no call, by the run's own keys), and
counts and prices only the others; where it holds the student's reply to a position of a sequence,
the judge's request on it is shown too (stage judge), and the sequence goes on as the run goes on
from the verdict it holds, up to the first call it does not hold. A dry run's exit code is the
run's: 3 when the run would fail a record without a call (it could not be prompted, it has no rubric
for its EvaLearn judge, or a failed position skips it), or would pass through with a failed
prediction (or, in a sequence, a failed verdict), which --retry-errors asks again, or the reply the
cache serves would fail it (an empty one; under --think strip, one cut in or empty after its
thinking; a LoCoMo batch's without its answer; EvaLearn's judge's, empty or unparsable to the last
re-ask).`

// examples closes qa-predict's --help: the offline baseline, a dry run, and the calls a real run
// makes (internal/examples runs each, the calls as dry runs).
const examples = `Examples:
   qa-predict --provider extractive records.jsonl > preds.jsonl   # offline: a span of each record's context
   qa-predict --dry-run --provider openai --model gpt-4o-mini records.jsonl | sed -n 1p   # the first request, unsent
   qa-predict --provider openai --model gpt-4o-mini --cache run.sqlite --max-cost 5 records.jsonl > preds.jsonl
   qa-predict --provider openai --model gpt-4o-mini --cache run.sqlite --retry-errors preds.jsonl > retried.jsonl
   qa-predict --provider openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B --concurrency 16 records.jsonl > preds.jsonl
   qa-load EvaLearn_Problem.json EvaLearn_Sequence.json | qa-predict --provider openai --model gpt-4o-mini --judge-model gpt-4o > solved.jsonl`

// Run runs qa-predict with args (args[0] is the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr}).execute(ctx, args)
}

// execute is Run for a, whose streams (and, in tests, sleep) are set.
func (a *app) execute(ctx context.Context, args []string) error {
	cliApp := command.NewApp("qa-predict", "answer every record with a model (JSONL in, JSONL out)", description+sequentialHelp+"\n\n"+command.FinishHelp+"\n\n"+examples, a.stdin, a.stdout, a.stderr)
	cliApp.Flags = slices.Concat(flags(), sequentialFlags(), runFlags())
	cliApp.Action = a.action
	return command.Execute(ctx, cliApp, args)
}

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "provider", Usage: "`NAME`: " + strings.Join(model.Providers, ", "), Value: "extractive", EnvVars: []string{"QA_PROVIDER"}},
		&cli.StringFlag{Name: "model", Usage: "model `NAME` (required except for extractive)", EnvVars: []string{"QA_MODEL"}},
		&cli.StringFlag{Name: "base-url", Usage: "API base `URL` (default: the provider's; e.g. http://127.0.0.1:8000/v1 for vLLM)", EnvVars: []string{"QA_BASE_URL"}},
		&cli.Float64Flag{Name: "temperature", Usage: "sampling temperature, at most 2 for openai's API and googleai, 1 for anthropic (give 1 to OpenAI's o1 and o4-mini and to Claude models after Opus 4.6, which refuse any other); unless set, records with a sequence (EvaLearn) get EvaLearn's 0.2", Value: 0, EnvVars: []string{"QA_TEMPERATURE"}},
		&cli.Float64Flag{Name: "top-p", Usage: "nucleus sampling: sample from the likeliest tokens whose probabilities add up to `P`, 0 to 1 (0: none sent, the provider's default, which for googleai is langchaingo's 0.95); anthropic, ollama and googleai only, as langchaingo sends openai none", EnvVars: []string{"QA_TOP_P"}},
		&cli.IntFlag{Name: "top-k", Usage: "sample from the `K` likeliest tokens (0: none sent, the provider's default, which for googleai is langchaingo's 3); ollama and googleai only, as langchaingo sends openai and anthropic none", EnvVars: []string{"QA_TOP_K"}},
		&cli.GenericFlag{Name: "stop", Value: &stopFlag{}, Usage: "stop generating at `TEXT`, which the answer leaves out (repeat for several; \\n, \\t, \\\\ and \\uXXXX read as Go reads them in a string, so --stop '\\n' ends an answer at its first line break); every prediction call carries it, to every provider, EvaLearn's student's too but not its judge's; QA_STOP gives one", EnvVars: []string{"QA_STOP"}},
		&cli.StringFlag{Name: "max-tokens-field", Value: model.MaxTokensAuto, Usage: "openai only: the request member that carries a call's token budget, `NAME` auto, max_tokens or max_completion_tokens; auto sends max_completion_tokens to OpenAI's own API (its o-series and gpt-5 refuse max_tokens) and max_tokens to any other --base-url (vLLM, llama.cpp and Ollama read it); name max_completion_tokens for a compatible server that wants it, such as an o-series model behind Azure OpenAI", EnvVars: []string{"QA_MAX_TOKENS_FIELD"}},
		&cli.StringFlag{Name: "gemini-safety", Value: gemini.DefaultSafety, Usage: "googleai only: the safety `THRESHOLD` of every Gemini call (this run's and its EvaLearn judge's), over the four harm categories langchaingo sets: " + strings.Join(gemini.SafetyLevels, ", ") + " (least blocked first); a prompt or reply blocked fails the record (\"prompt blocked by Gemini: SAFETY\", \"reply blocked by Gemini: SAFETY\")", EnvVars: []string{"QA_GEMINI_SAFETY"}},
		&cli.IntFlag{Name: "num-ctx", Usage: "ollama only: the model's context window in `TOKENS` (Ollama's num_ctx, sent with every call; 0: none sent, the server's, which may be as little as 2048 and cuts a longer prompt without an error)", EnvVars: []string{"QA_NUM_CTX"}},
		&cli.IntFlag{Name: "max-tokens", Usage: "most tokens to generate (0: provider default, which for anthropic and googleai is langchaingo's 2048; unless set, longmemeval records get 800 and locomo records 32, or 50 for each of --batch-size's questions, as their scripts send, but not under --template, whose prompt is not theirs; records with a sequence, EvaLearn's 32000)", EnvVars: []string{"QA_MAX_TOKENS"}},
		&cli.StringFlag{Name: "reading", Value: "direct", Usage: "longmemeval records: LongMemEval's reading `METHOD`: direct, con (step by step; the one its README recommends) or con-separate (notes on each session first)", EnvVars: []string{"QA_READING"}},
		&cli.StringFlag{Name: "retriever", Value: "orig-session", Usage: "longmemeval records: what the history shows (LongMemEval's retriever_type): `NAME` orig-session (every session; alias full-history-session), orig-turn (every turn as its own block; full-history-turn), flat-session or flat-turn (the sessions or rounds a retrieval log ranks, meta.retrieval_corpus_ids), oracle-session or oracle-turn (as orig-*, but keeping the first blocks) or no-retrieval (the question alone)", EnvVars: []string{"QA_RETRIEVER"}},
		&cli.StringFlag{Name: "key-expansion", Value: "none", Usage: "longmemeval records read from a retrieval log: its retrieval texts (the facts or summaries an expanded index holds) `HOW`: none, merge (beside each block) or replace (in place of each block) (LongMemEval's merge_key_expansion_into_value)", EnvVars: []string{"QA_KEY_EXPANSION"}},
		&cli.StringFlag{Name: "history-format", Value: "json", Usage: "longmemeval records: sessions in `FORMAT` json (LongMemEval's default) or nl (role: content lines)", EnvVars: []string{"QA_HISTORY_FORMAT"}},
		&cli.IntFlag{Name: "history-sessions", Usage: "longmemeval records: keep the last `N` sessions, or turns with orig-turn, or the first N with oracle-* and flat-* (LongMemEval's topk_context; 0: all, as its recommended 1000)", EnvVars: []string{"QA_HISTORY_SESSIONS"}},
		&cli.BoolFlag{Name: "user-only", Usage: "longmemeval records: keep only the user's turns of the history", EnvVars: []string{"QA_USER_ONLY"}},
		&cli.StringFlag{Name: "history-tokens", Value: "auto", Usage: "longmemeval records: keep the first `N` o200k_base tokens of the chat history, as LongMemEval's reader does; auto: its budget for the model, none: keep it whole", EnvVars: []string{"QA_HISTORY_TOKENS"}},
		&cli.StringFlag{Name: "locomo-variant", Value: "auto", Usage: "locomo records: ask as LoCoMo's script asks for its --model `NAME` (gpt-4-turbo, gpt-4, gpt-4-32k, gpt-3.5-turbo, gpt-3.5-turbo-4k, -8k, -12k, -16k): the conversation cut to that name's token limit, and for the gpt-3.5 names the query as a system message; auto: --model when it is one of these, none: the whole conversation as a user message", EnvVars: []string{"QA_LOCOMO_VARIANT"}},
		&cli.IntFlag{Name: "batch-size", Value: 1, Usage: "locomo records: ask the questions of a conversation `N` at a time in one call, as LoCoMo's evaluate_qa.py --batch-size N (its published runs: 10 for gpt-3.5, 20 for gpt-4-turbo), in blocks at fixed places of its qa list, max_tokens N*50, the reply read as its script reads it (see LOCOMO BATCHES)", EnvVars: []string{"QA_BATCH_SIZE"}},
		&cli.StringFlag{Name: "system", Usage: "system message `TEXT` (\"\": none; white space alone is a usage error)", EnvVars: []string{"QA_SYSTEM"}},
		command.ThinkFlag("QA_THINK", "what becomes of the thinking a reasoning model writes into its reply (<think>…</think>): `MODE` strip (the answer is the text after </think>, the thinking goes to prediction.reasoning; see REASONING MODELS) or keep (the text whole, as it came)"),
		&cli.StringFlag{Name: "empty-reply", Value: "error", Usage: "what a reply with no text is, `MODE` error (the error \"empty reply\" on its record) or keep (the answer \"\", as LongMemEval's and LoCoMo's scripts keep it, when the reply stopped of itself; one cut at max_tokens, refused, blocked, with a null content or no choices stays an error; see EMPTY REPLIES)", EnvVars: []string{"QA_EMPTY_REPLY"}},
		&cli.StringFlag{Name: "api-key-file", Usage: "read the API key from `FILE` instead of the environment", EnvVars: []string{"QA_API_KEY_FILE"}},
		&cli.IntFlag{Name: "concurrency", Usage: "most calls in flight (`N`, 1 to 10000); output order is kept", Value: 4, EnvVars: []string{"QA_CONCURRENCY"}},
		&cli.Float64Flag{Name: "rpm", Usage: "most requests per minute, the EvaLearn judge's included (0: no limit)", EnvVars: []string{"QA_RPM"}},
		&cli.Float64Flag{Name: "tpm", Usage: "most tokens per minute, estimated, the EvaLearn judge's included (0: no limit)", EnvVars: []string{"QA_TPM"}},
		&cli.IntFlag{Name: "max-retries", Usage: "retries of a transient failure (408, 409, 425, 429, every 5xx but 501 and 505, timeouts, …; Retry-After honoured)", Value: 5, EnvVars: []string{"QA_MAX_RETRIES"}},
		&cli.DurationFlag{Name: "timeout", Usage: "per-attempt timeout (0: none)", Value: 2 * time.Minute, EnvVars: []string{"QA_TIMEOUT"}},
		&cli.DurationFlag{Name: "backoff", Usage: "first retry wait (doubled each retry, with jitter; 0: none, retry at once)", Value: 500 * time.Millisecond, EnvVars: []string{"QA_BACKOFF"}},
		&cli.StringFlag{Name: "cache", Usage: "SQLite reply cache `FILE`", EnvVars: []string{"QA_CACHE"}},
		&cli.StringFlag{Name: "prices", Usage: "price `FILE` (JSON/YAML) merged over the built-in table", EnvVars: []string{"QA_PRICES"}},
		&cli.Float64Flag{Name: "max-cost", Usage: "make no new call once this run's replies (the EvaLearn judge's included) have cost `USD` (0: no limit); the records left carry an error", EnvVars: []string{"QA_MAX_COST"}},
		&cli.BoolFlag{Name: "force", Usage: "predict again records that already have a prediction", EnvVars: []string{"QA_FORCE"}},
		&cli.BoolFlag{Name: "retry-errors", Usage: "predict again the records whose prediction failed (prediction.error), and those not yet predicted; the others pass through", EnvVars: []string{"QA_RETRY_ERRORS"}},
		&cli.StringFlag{Name: "template", Usage: "prompt template `FILE` (Go text/template over the record)", EnvVars: []string{"QA_TEMPLATE"}},
		&cli.IntFlag{Name: "sample-index", Usage: "for repeated sampling (temperature > 0): this run's sample number `K`; each K has its own cache entries for the answers (not the EvaLearn judge's verdicts, whose request is the same), and is sent --seed+K when --seed is sent, so runs with K = 0, 1, … give independent answers instead of one cached or seeded reply", EnvVars: []string{"QA_SAMPLE_INDEX"}},
		&cli.Int64Flag{Name: "seed", Usage: "seed of retry jitter and LoCoMo option order; also sent to openai and ollama models when set (the reader's; not the EvaLearn judge's, whose requests are EvaLearn's own), unless 0 (langchaingo leaves a seed of 0 out), plus --sample-index", Value: 1, EnvVars: []string{"QA_SEED"}},
		&cli.BoolFlag{Name: "dry-run", Usage: "call no model: write each record's requests (prompts byte for byte) as JSON lines, and count and price the input of those --cache does not answer (see DRY RUN)", EnvVars: []string{"QA_DRY_RUN"}},
	}
}

// runFlags close the list of qa-predict's flags, after EvaLearn's judge's: how the run reports
// and reads its input, as every command's list ends with --strict and --max-line.
func runFlags() []cli.Flag {
	return []cli.Flag{
		command.ProgressFlag("QA_PREDICT_PROGRESS"),
		&cli.BoolFlag{Name: "strict", Usage: "stop at the first bad input line", EnvVars: []string{"QA_STRICT"}},
		command.MaxLineFlag("longest input line accepted, in `BYTES`"),
	}
}

// app holds one run of qa-predict.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	provider, modelName, baseURL string
	temperature                  float64
	topP                         *float64 // --top-p, nil for none (sampling.go)
	topK                         *int     // --top-k, nil for none
	stop                         []string // --stop's sequences, nil for none
	numCtx                       int      // --num-ctx, 0 for none
	geminiSafety                 string   // --gemini-safety, a gemini.SafetyLevels
	maxTokensField               string   // --max-tokens-field (model.Request.MaxTokensField)
	maxTokens                    int
	maxTokensSet                 bool // --max-tokens given: it replaces LongMemEval's 500 or 800
	system                       string
	seed                         *int
	sample                       int // --sample-index: part of every request, so of its cache key
	force                        bool
	retryErrors                  bool // --retry-errors
	concurrency                  int
	maxLine                      int     // --max-line
	dryRun                       bool    // --dry-run: no client, no calls
	maxCost                      float64 // --max-cost, 0 for none
	locomoBatch                  int     // --batch-size: LoCoMo's questions asked per call (locomo.go)
	strip                        bool    // --think strip: replies are read by model.Thinking
	keepEmpty                    bool    // --empty-reply keep: an empty reply that stopped of itself is the answer "" (emptyKept)

	client    model.Client
	budget    *model.Budget // --max-cost, or nil
	transport *model.Transport
	tokens    *model.Limiter // --tpm's, shared with the EvaLearn judge; nil: no limit
	// sleep is the wait of --rpm, --tpm and retries (model.Setup.Sleep): nil, a timer; tests
	// inject one that records the waits.
	sleep func(ctx context.Context, d time.Duration) error
	// now is the clock a prediction's latency_ms is read from: nil, the system's; tests inject one
	// that steps by a known amount.
	now     func() time.Time
	prices  model.Prices
	prompts *prompter
	store   *cache.Cache
	look    *cache.Look // a dry run's --cache, read for the requests it answers; nil: none named
	tally   tally
	seq     sequencer // records with a sequence (sequential.go)
	// unused counts the records read against the flags set that only some records use
	// (unused.go); nil counts nothing.
	unused *flagUse
	// judgeTemperature is --judge-temperature, the EvaLearn judge's; nil for EvaLearn's own.
	judgeTemperature *float64
	// judgeNumCtx is --judge-num-ctx, the EvaLearn judge's context window; 0 for none sent.
	judgeNumCtx int
}

func (a *app) action(c *cli.Context) error {
	if err := a.configure(c); err != nil {
		return err
	}
	if a.store != nil {
		defer a.store.Close()
	}
	defer a.look.Close()
	err := a.run(c.Context, c)
	if a.store != nil {
		for _, w := range a.store.Warnings() {
			fmt.Fprintf(a.stderr, "qa-predict: warning: %s\n", w)
		}
	}
	return err
}
