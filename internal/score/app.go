// Package score is the qa-score command: it fills each record's scores with the lexical metrics of
// pkg/metric and the benchmark-specific scores, and summarises them with bootstrap confidence
// intervals.
//
// Records stream through a bounded, ordered, concurrent map: workers decode the fields the metrics
// read, score, and splice the scores member into the input line, leaving every other byte as it
// was. The summary keeps per-group accumulators and one float64 per record and metric for the
// bootstrap, never the records.
//
// Corpus metrics (accuracy, precision/recall/F1, AUC, Pn, MRR/MAP, chunk F1, perplexity, corpus
// BLEU) are functions of the whole set, so they are summary-only: a worker extracts each record's
// few values (labels, group, score, loss, token count; chunk and BLEU counts already summed per
// record) and the summary computes them with pkg/metric at the end (memory in corpus.go).
// Embedding metrics (sbert, bertscore_*) are per-record scores fetched in batches: the ordered
// emit stage holds --embed-batch scored records, fills their embedding scores with one call to
// internal/embed, then encodes and writes them (embedding.go).
package score

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/embed"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

const description = `qa-score reads records with prediction.text and answers and writes them back
with scores filled in, in input order. It can also summarise them: each metric's mean, count and a
bootstrap confidence interval (95%, or --level), overall and by record type (and by the values of
any --by field: meta.level, prediction.model, …), plus LoCoMo's per-category F1 and LongMemEval's
judge accuracies. The interval is the percentile bootstrap's: the 2.5th and 97.5th percentiles (at
--level L, the 50(1-L)th and 50(1+L)th, taken in decimal: 0.025 and 0.975 exactly, not the
0.025000000000000022 of (1-0.95)/2 in floating point) of the means of --bootstrap resamples of the
records, interpolated linearly as numpy's default computes them, to the last bit; the same for one
--seed on every machine (the records' order is part of the resample). A corpus metric's resamples
draw each record's sufficient statistics (its labels, score, counts or loss; for pn, pairwise_acc,
mrr and map each query group's) and finish the metric on them; a resample in which it is undefined
(auc with one class drawn) is left out.

--metrics picks the scores (comma-separated); by default every light metric that applies to a record
runs. A record whose prediction (or the judgment judge_score reads) has an error gets no scores; the
summary counts it separately and leaves it out unless --errors-as-zero. A record with no prediction
(none in qa-load --predictions' file) is unscored, so the means are over the answered questions, as
LongMemEval's scripts, which judge only the answers given, have them; with --missing-as-zero the
summary counts it as 0 in em, f1, hotpot_*, sp_*, joint_* and cmrc_*, as evaluate-v1.1.py,
hotpot_evaluate_v1.py and cmrc2018_evaluate.py score it (squad2_* and the others leave it out still:
evaluate-v2.0.py stops on it with a KeyError). A prediction without a text (HotpotQA's supporting
facts alone, as its prediction file gives an id's "sp" without its "answer"; a score alone) gives no
answer: the answer metrics and joint_* leave it out in the same way, and --missing-as-zero counts it
0 there, as it counts a prediction with gold facts and none of its own 0 in sp_* and joint_*, as
hotpot_evaluate_v1.py does. A selected metric that applies to a record but could not be computed (a
failed embedding call, a corpus metric's field that cannot be read) is reported, exits 3, and is
named in the record's score_errors with the reason; a later run that computes the metric removes the
entry, and one that does not select it leaves it. When stderr is a terminal and the records do not
go to one too, a progress bar of the bytes read goes to stderr.

METRICS:
{metrics}
Notes: ROUGE uses rouge-score's tokenizer, which drops every non-ASCII character (so Chinese text
scores 0 there, exactly as in rouge-score); cmrc_* run only on Chinese records (lang zh);
locomo_f1 only on LoCoMo records (category from meta.category, else the type); sp_* only when
the prediction carries supporting_facts and meta.supporting_facts holds the gold ones, joint_*
when it carries an answer too.
LoCoMo category-5 questions get no reference metric (em, f1, ROUGE, BLEU, METEOR, CMRC,
embeddings): their gold is the adversarial answer, the trap the question sets, and LoCoMo and
MAGMA score them by whether the prediction declines, as locomo_f1 and the judges do.
LongMemEval's abstention accuracy is over "_abs" ids and meta.abstention true. A LoCoMo
category or an abstention flag that cannot be read makes the line bad, and so do supporting
facts, gold or predicted, when sp_* or joint_* is selected (else they are not read).
judge_score on EvaLearn records (dataset evalearn) reads a judgment that has no score as
qa-learncurve does: the judge's raw reply by EvaLearn's rule (EvaLearn's own results, qa-load
--format evalearn-results, hold the reply alone); a reply the rule reads no score from counts 0, as
in EvaLearn, with a warning. On other records only a judgment's score counts.
judge_score on LoCoMo records gets a locomo_judge section, by category: pooled over all records
(mem0's generate_scores.py), also without category 5; and averaged over conversations (from ids,
locomo:<sample_id>:<index>): each conversation's mean, then their mean, each conversation weighing
the same whatever its size, as MAGMA's test_fixed_memory.py prints over several samples; left out,
with a warning, when a record's id is not of that form.

Corpus metrics need --summary and appear only there (overall.metrics, each type's and --by
group's metrics, computed over its records alone, and a "corpus" section with the full reports
of all records; --format table also prints the per-class table and confusion matrix). Records
without a prediction, or whose prediction failed, take no part.
   Labels: gold from answers[0] (or --label-field, e.g. meta.label; a JSON number is read as its
   literal text), predicted from prediction.text. Without --label-map labels compare exactly.
   With it, a label is trimmed, lower-cased and looked up; a hit is replaced by the mapped
   value, a miss stays as trimmed (its own class). Classes sort numerically when every label is
   an integer, else by code point ("10" < "2"). --zero-division sets a 0/0 ratio (sklearn's
   "warn" is 0).
   auc, pn, pairwise_acc, mrr, map use the number at --score-field; pn..map pair or rank the
   records of each --group-field group; relevance is the gold label when it is a number, else 1
   for --pos-label and 0 otherwise.
   chunk_*: one sentence per record, gold tags in the gold label field and predicted tags in
   prediction.text, separated by white space; a record whose tag counts differ is reported and
   left out (exit 3).
   perplexity: --loss-field (summed negative log-likelihood, nats) and --tokens-field per record.
   corpus_bleu, gen_eval_bleu: every answer is a reference.
Embedding metrics (sbert, bertscore_*) call the server named by --embed-provider, --embed-model and
--embed-base-url (each a usage error, exit 2, when unset; the URL only for tei, as ollama and
openai have their own), --embed-batch records at a time, in input order; with --cache the
embeddings are stored and a rerun makes no call. The calls are made as qa-predict's are: at
most --embed-concurrency requests in flight (2), each attempt cut off after
--embed-timeout (2m), and a transient failure (HTTP 408, 409, 425, 429 and every 5xx but 501 and
505, timeouts, resets, closed connections) retried --embed-max-retries times (5) with backoff,
honouring Retry-After (a server never reached, max(8, 2×--embed-concurrency) calls in a row
refused and no reply yet, stops the calls, as do as many in a row answered the same 401, 403 or
404 and no success yet: the batches left are "not made" in score_errors, as stderr says once); the
key is read from --embed-api-key-file, else QA_EMBED_API_KEY (or OPENAI_API_KEY for openai). A
batch whose call fails (sbert's, or bertscore's) leaves its records without that call's scores, the
other's kept, reports it, and exits 3; so does a batch in which a text's embedding is all zero or
holds null (a NaN the model produced: a failing server); each such record names the metrics it
lacks in score_errors. An empty prediction
or reference is never sent: it counts as a zero vector, so it scores 0 (BERTScore scores an empty
sentence so; for bertscore_* a text is first stripped of surrounding whitespace, as bert_score
does), bertscore_* -b/(1-b) under a --baseline b, as bert_score rescales it.
--baseline FILE takes the highest layer's row of bert_score's tsv. --idf reads the input files
twice (so they must be regular files, not stdin or a pipe): the references first, for the idf
table, fetched --embed-batch × --embed-concurrency references at a time, keeping their token ids
only (without --cache the references are embedded again when their records are scored); a call
for it that fails leaves every record without bertscore_*, as a failed batch leaves its records.

INTERRUPTING: the first SIGINT, SIGTERM or SIGHUP (Ctrl-C) makes no new embedding call but lets
those in flight end (for at most 2 minutes) and stores them (--cache); every record is still read,
scored and written, those whose call was not made without embedding scores (reported); then exit
130, without the summary or the mismatches (files already there stay as they were). So in a
pipeline qa-score passes on every record that an interrupted qa-predict or qa-judge before it
still writes. A second signal, or the 2 minutes passing, abandons the calls in flight: only the
records completed before the first unfinished one are written; when even those cannot be (a
stalled reader of stdout), a third signal, or 10 s more, ends the run without them. A SIGTERM
within a second of another counts once (make passes on the SIGTERM its process group got).

Examples:
   qa-score preds.jsonl > scored.jsonl
   qa-score --metrics f1,rougeL --summary - --format table preds.jsonl
   qa-score --summary summary.json --mismatches low.jsonl preds.jsonl > scored.jsonl
   qa-score --metrics classification,auc --label-map yes=1,no=0 --summary - --format table preds.jsonl
   qa-score --metrics sbert,bertscore_f1 --embed-provider tei --embed-model bge --embed-base-url http://127.0.0.1:8080 preds.jsonl`

// maxJobs is the most --jobs: scoring is bound by the CPU, so workers beyond the cores gain
// nothing, and each costs memory before any record is read (a mistyped --jobs 100000000 took
// 24 GB and was killed).
const maxJobs = 1024

// config is everything the flags decide.
type config struct {
	inputs       []string
	sel          *selection
	judge        string
	judgeFlag    string // how messages name where judge came from: "--judge", "--judge from QA_JUDGE"
	summary      string
	format       string
	reps         int
	seed         uint64
	level        float64 // --level of the intervals
	errorsAsZero bool
	// missingAsZero: --missing-as-zero (scorer.missingAsZero).
	missingAsZero bool
	mismatches    string
	mismatch      *mismatchRule
	strict        bool
	jobs          int
	maxLine       int
	corpus        *corpusConfig
	embed         *embedStage
	by            byFields // --by, with a summary only
}

// Run is the qa-score command. args includes the program name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	reg := registry()
	app := command.NewApp("qa-score", "score predictions and summarise the scores",
		strings.Replace(description, "{metrics}", metricsHelp(reg), 1), stdout, stderr)
	app.Flags = append(flags(), runFlags()...)
	app.Action = func(c *cli.Context) error {
		cfg, err := parseConfig(c, reg, stdin)
		if err != nil {
			return err
		}
		return run(c.Context, cfg, stdin, stdout, stderr)
	}
	return command.Execute(ctx, app, args)
}

func flags() []cli.Flag {
	return append(append([]cli.Flag{
		&cli.StringFlag{Name: "metrics", EnvVars: []string{"QA_METRICS"}, Usage: "comma-separated score names (default: every light metric that applies)"},
		&cli.StringFlag{Name: "judge", EnvVars: []string{"QA_JUDGE"}, Usage: "judgment that judge_score reads (default: each record's first judgment name in sorted order; a warning says when that differs between records, or when records carry others too; a name no record has, while records carry others, exits 3)"},
		&cli.StringFlag{Name: "summary", EnvVars: []string{"QA_SUMMARY"}, Usage: "write a summary to `FILE`, in --format's format, else the one its extension names (see --format); - prints it on stdout instead of the records"},
		&cli.StringFlag{Name: "format", EnvVars: []string{"QA_SUMMARY_FORMAT"}, Usage: "summary `FORMAT`: " + strings.Join(formats, ", ") + " (table and markdown round to four places; csv writes exact figures; default: the one --summary's extension names, " + extensionsHelp() + ", else json)"},
		&cli.StringSliceFlag{Name: "by", EnvVars: []string{"QA_BY"}, Usage: "also break the summary down by the value of the record field at `PATH` (dotted, e.g. meta.level, prediction.model, dataset; repeat or separate by commas for several), grouped by its text: the number 1 and the string \"1\" are one group"},
		&cli.IntFlag{Name: "bootstrap", Value: stats.DefaultResamples, EnvVars: []string{"QA_BOOTSTRAP"}, Usage: "bootstrap resamples for the confidence intervals (0: none; at most 1000000; fewer than 5/(1-LEVEL), 100 at 95%, are warned of as too few to place the bounds)"},
		command.LevelFlag("confidence `LEVEL` of the intervals (0.9: 90% intervals, the 5th and 95th percentiles)"),
		&cli.Int64Flag{Name: "seed", Value: 1, EnvVars: []string{"QA_SEED"}, Usage: "random seed of the bootstrap"},
		&cli.BoolFlag{Name: "errors-as-zero", EnvVars: []string{"QA_ERRORS_AS_ZERO"}, Usage: "count records with prediction or judge errors as 0 in the summary's per-record metrics instead of leaving them out (the corpus metrics leave them out still)"},
		&cli.BoolFlag{Name: "missing-as-zero", EnvVars: []string{"QA_MISSING_AS_ZERO"}, Usage: "count records without a prediction (or without the answer or the supporting facts a metric reads) as 0 in the summary's em, f1, hotpot_*, sp_*, joint_* and cmrc_*, as evaluate-v1.1.py, hotpot_evaluate_v1.py and cmrc2018_evaluate.py do (the other metrics leave them out: evaluate-v2.0.py stops on one)"},
		&cli.StringFlag{Name: "mismatches", EnvVars: []string{"QA_MISMATCHES"}, Usage: "write the low-scoring records (id, type, question, gold, prediction, metric, score; for a LoCoMo category-5 question that the metric wants declined, wanted and trap, the adversarial answer, in gold's place) as JSONL to `FILE`"},
		&cli.StringFlag{Name: "mismatch-metric", Value: "f1", EnvVars: []string{"QA_MISMATCH_METRIC"}, Usage: "metric that --mismatches looks at"},
		&cli.Float64Flag{Name: "below", Value: 0.3, EnvVars: []string{"QA_BELOW"}, Usage: "--mismatches keeps records whose metric is below this"},
	}, corpusFlags()...), embedFlags()...)
}

// runFlags close the list of qa-score's flags: how the run scores and reads its input, as every
// command's list ends with --strict and --max-line.
func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "jobs", Value: min(runtime.GOMAXPROCS(0), maxJobs), EnvVars: []string{"QA_JOBS"}, Usage: fmt.Sprintf("records scored concurrently, 1 to %d (unless set, the CPUs this process may use: GOMAXPROCS)", maxJobs)},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in bytes"),
	}
}

// corpusFlags configure the corpus metrics (classification, ranking, chunk, perplexity).
func corpusFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "label-field", EnvVars: []string{"QA_LABEL_FIELD"}, Usage: "dotted `PATH` of the gold label (e.g. meta.label; default answers[0])"},
		&cli.StringFlag{Name: "label-map", EnvVars: []string{"QA_LABEL_MAP"}, Usage: "map answers to labels: \"yes=1,no=0\" or a JSON object file; keys match trimmed, lower-cased labels"},
		&cli.StringFlag{Name: "average", Value: "macro", EnvVars: []string{"QA_AVERAGE"}, Usage: "precision/recall/f1_score average: " + strings.Join(averages, ", ")},
		&cli.StringFlag{Name: "zero-division", Value: "0", EnvVars: []string{"QA_ZERO_DIVISION"}, Usage: "value of a ratio with a zero denominator: 0 (sklearn's \"warn\") or 1"},
		&cli.StringFlag{Name: "labels", EnvVars: []string{"QA_LABELS"}, Usage: "comma-separated classes, in order, that precision/recall/f1_score and the per-class table use (sklearn's labels=; default: every label seen; a class no record has is warned of), or a JSON list of them for classes holding a comma or empty ([\"\", \"a,b\"])"},
		&cli.StringFlag{Name: "bleu-weights", Value: "0.25,0.25,0.25,0.25", EnvVars: []string{"QA_BLEU_WEIGHTS"}, Usage: "corpus_bleu weights, one per n-gram order (1 to 4); gen_eval_bleu needs uniform ones"},
		&cli.StringFlag{Name: "pos-label", Value: "1", EnvVars: []string{"QA_POS_LABEL"}, Usage: "positive class for --average binary, auc, and non-numeric relevance"},
		&cli.StringFlag{Name: "group-field", Value: "meta.group", EnvVars: []string{"QA_GROUP_FIELD"}, Usage: "`PATH` of the query group for pn, pairwise_acc, mrr, map"},
		&cli.StringFlag{Name: "score-field", Value: "prediction.score", EnvVars: []string{"QA_SCORE_FIELD"}, Usage: "`PATH` of the positive-class score for auc, pn, pairwise_acc, mrr, map"},
		&cli.StringFlag{Name: "loss-field", Value: "prediction.loss", EnvVars: []string{"QA_LOSS_FIELD"}, Usage: "`PATH` of a record's summed loss (nats) for perplexity"},
		&cli.StringFlag{Name: "tokens-field", Value: "prediction.tokens", EnvVars: []string{"QA_TOKENS_FIELD"}, Usage: "`PATH` of a record's token count for perplexity"},
	}
}

// embedFlags configure the embedding metrics. The API key comes only from the environment or
// from --embed-api-key-file; the calls take qa-predict's --concurrency, --max-retries and
// --timeout under --embed-* names, with the defaults the embedding calls always had.
func embedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "embed-provider", EnvVars: []string{"QA_EMBED_PROVIDER"}, Usage: "embedding server kind: " + strings.Join(embed.Providers(), ", ") + " (API key from --embed-api-key-file, else QA_EMBED_API_KEY, or OPENAI_API_KEY for openai)"},
		&cli.StringFlag{Name: "embed-model", EnvVars: []string{"QA_EMBED_MODEL"}, Usage: "embedding model name, required (sent to openai and ollama; for tei, whose server serves one model, it names that model in --cache's keys)"},
		&cli.StringFlag{Name: "embed-base-url", EnvVars: []string{"QA_EMBED_BASE_URL"}, Usage: "embedding server `URL` (default: openai's " + model.OpenAIURL + ", ollama's " + model.OllamaURL + "; required for tei)"},
		&cli.StringFlag{Name: "embed-api-key-file", EnvVars: []string{"QA_EMBED_API_KEY_FILE"}, Usage: "read the embedding server's API key from `FILE` instead of the environment"},
		&cli.IntFlag{Name: "embed-batch", Value: embed.DefaultBatch, EnvVars: []string{"QA_EMBED_BATCH"}, Usage: fmt.Sprintf("records per embedding batch (and texts per request, at most %d for openai), 1 to %d", embed.MaxOpenAIInputs, embed.MaxBatch)},
		&cli.IntFlag{Name: "embed-concurrency", Value: embed.DefaultParallel, EnvVars: []string{"QA_EMBED_CONCURRENCY"}, Usage: "most embedding requests in flight (`N`, 1 to 10000)"},
		&cli.IntFlag{Name: "embed-max-retries", Value: embed.DefaultMaxRetries, EnvVars: []string{"QA_EMBED_MAX_RETRIES"}, Usage: "retries of a transient embedding failure (429, 500, 502, 503, 504, timeouts, …; Retry-After honoured)"},
		&cli.DurationFlag{Name: "embed-timeout", Value: embed.DefaultTimeout, EnvVars: []string{"QA_EMBED_TIMEOUT"}, Usage: "per-attempt timeout of an embedding request (0: none)"},
		&cli.BoolFlag{Name: "idf", EnvVars: []string{"QA_IDF"}, Usage: "weight BERTScore tokens by idf over all references (reads the input files twice: regular files, not stdin or a pipe)"},
		&cli.StringFlag{Name: "baseline", EnvVars: []string{"QA_BASELINE"}, Usage: "rescale BERTScore by a baseline: `VALUE`, \"P,R,F\", or a file (bert_score's tsv)"},
		&cli.StringFlag{Name: "cache", EnvVars: []string{"QA_CACHE"}, Usage: "SQLite cache `FILE` for embeddings (shared with qa-predict and qa-judge)"},
	}
}

// parseWeights reads 1 to 4 comma-separated non-negative weights, each a finite decimal number
// as number flags read theirs (command.ParseDecimal). Its errors follow the flag's name.
func parseWeights(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 1 || len(parts) > 4 {
		return nil, fmt.Errorf("want 1 to 4 weights, got %d", len(parts))
	}
	ws := make([]float64, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		w, err := command.ParseDecimal(p)
		if err != nil {
			return nil, err
		}
		if w < 0 {
			return nil, fmt.Errorf("want a non-negative number, got %q", p)
		}
		ws[i] = w
	}
	return ws, nil
}

// parseCorpus reads the corpus metrics' flags.
func parseCorpus(c *cli.Context, sel *selection) (*corpusConfig, error) {
	cc := &corpusConfig{want: sel.corpus, average: c.String("average"), posLabel: c.String("pos-label")}
	if !slices.Contains(averages, cc.average) {
		return nil, command.Usagef("--average: unknown average %q (want one of %s)%s", cc.average, strings.Join(averages, ", "),
			english.DidYouMean(cc.average, averages))
	}
	switch c.String("zero-division") {
	case "0", "warn":
	case "1":
		cc.zeroDiv = 1
	default:
		return nil, command.Usagef("--zero-division: want 0 or 1, not %q", c.String("zero-division"))
	}
	if l := c.String("labels"); l != "" {
		if !slices.ContainsFunc(sel.corpus, func(n string) bool { return slices.Contains(metricGroups["classification"], n) }) {
			fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --labels%s picks the classes of accuracy, precision, recall and f1_score; without one of them in --metrics it does nothing\n",
				command.FromEnv(c, "labels"))
		}
		classes, err := parseClasses(l)
		if err != nil {
			return nil, command.Usagef("--labels: %v", err)
		}
		cc.classes = classes
	}
	ws, err := parseWeights(c.String("bleu-weights"))
	if err != nil {
		return nil, command.Usagef("--bleu-weights: %v%s", err, command.FromEnv(c, "bleu-weights"))
	}
	cc.bleuWeights = ws
	if cc.labels, err = parseLabelMap(c.String("label-map")); err != nil {
		return nil, command.Usagef("--label-map: %v", err)
	}
	if p := c.String("label-field"); p != "" {
		if cc.labelPath, err = parsePath(p); err != nil {
			return nil, command.Usagef("--label-field: %v", err)
		}
	}
	for _, f := range []struct {
		flag string
		dst  *fieldPath
	}{{"group-field", &cc.groupPath}, {"score-field", &cc.scorePath}, {"loss-field", &cc.lossPath}, {"tokens-field", &cc.tokensPath}} {
		if *f.dst, err = parsePath(c.String(f.flag)); err != nil {
			return nil, command.Usagef("--%s: %v", f.flag, err)
		}
	}
	return cc, nil
}

func parseEmbed(c *cli.Context, cfg *config) error {
	batch, err := command.IntBetween(c, "embed-batch", 1, embed.MaxBatch, "records")
	if err != nil {
		return err
	}
	if (c.IsSet("baseline") || c.Bool("idf")) && !slices.Contains(cfg.sel.embedMetrics(), embed.BERTScore) {
		fmt.Fprintln(c.App.ErrWriter, "qa-score: warning: --baseline and --idf rescale and weight BERTScore; without bertscore_p, bertscore_r or bertscore_f1 in --metrics they do nothing")
	}
	// QA_CACHE names one file for the whole pipeline, so only a --cache typed here is warned of.
	if c.IsSet("cache") && command.FromEnv(c, "cache") == "" && len(cfg.sel.embedMetrics()) == 0 {
		fmt.Fprintln(c.App.ErrWriter, "qa-score: warning: --cache holds embeddings; without sbert or a bertscore metric in --metrics it does nothing")
	}
	parallel, err := command.Concurrency(c, "embed-concurrency")
	if err != nil {
		return err
	}
	if err := command.NotNegative(c, "embed-max-retries", "embed-timeout"); err != nil {
		return err
	}
	provider := c.String("embed-provider")
	embedURL, err := command.BaseURL(c, "embed-base-url")
	if err != nil {
		return err
	}
	ec := embed.Config{Provider: provider, Model: c.String("embed-model"), BaseURL: embedURL, KeyFile: command.Origin(c, "embed-api-key-file"),
		Batch: batch, Parallel: parallel, MaxRetries: c.Int("embed-max-retries"), Timeout: c.Duration("embed-timeout")}
	if len(cfg.sel.embedMetrics()) > 0 { // the key file is read only for a run that sends it
		if ec.APIKey, err = apiKey(provider, c.String("embed-api-key-file")); err != nil {
			return err
		}
	}
	st, err := newEmbedStage(cfg.sel, ec, c.String("cache"), c.String("baseline"), c.Bool("idf"), cfg.inputs)
	cfg.embed = st
	return err
}

func parseConfig(c *cli.Context, reg []*family, stdin io.Reader) (*config, error) {
	cfg := &config{inputs: c.Args().Slice(), judge: c.String("judge"), judgeFlag: "--judge" + command.FromEnv(c, "judge"), summary: c.String("summary"),
		reps: c.Int("bootstrap"), seed: uint64(c.Int64("seed")),
		errorsAsZero: c.Bool("errors-as-zero"), missingAsZero: c.Bool("missing-as-zero"), mismatches: c.String("mismatches"),
		strict: c.Bool("strict")}
	var err error
	if cfg.reps, err = command.Bootstrap(c); err != nil {
		return nil, err
	}
	if cfg.level, err = command.Level(c); err != nil {
		return nil, err
	}
	sel, err := selectMetrics(reg, c.String("metrics"))
	if err != nil {
		return nil, command.Usagef("--metrics: %v", err)
	}
	if c.IsSet("format") && cfg.summary == "" {
		fmt.Fprintln(c.App.ErrWriter, "qa-score: warning: --format is the summary's format; without --summary it does nothing (the records are JSON Lines)")
	}
	cfg.format = summaryFormat(c, cfg.summary)
	if by := c.StringSlice("by"); len(by) > 0 {
		if cfg.by, err = parseBy(by); err != nil {
			return nil, command.Usagef("--by: %v", err)
		}
		if cfg.summary == "" {
			fmt.Fprintln(c.App.ErrWriter, "qa-score: warning: --by breaks the summary down; without --summary it does nothing")
			cfg.by = nil
		}
	}
	cfg.sel = sel
	switch {
	case !slices.Contains(formats, cfg.format):
		return nil, command.Usagef("--format: unknown format %q (want one of %s)%s", cfg.format, strings.Join(formats, ", "),
			english.DidYouMean(cfg.format, formats))
	}
	if cfg.jobs, err = command.IntBetween(c, "jobs", 1, maxJobs, ""); err != nil {
		return nil, err
	}
	if cfg.maxLine, err = command.MaxLine(c); err != nil {
		return nil, err
	}
	if cfg.mismatches == "-" { // it would make a file named "-"
		return nil, command.Usagef("--mismatches: - would mix them with the records (or the summary) on stdout: name a file, such as /dev/stderr")
	}
	if cfg.summary != "-" && command.StdoutFile(cfg.mismatches, c.App.Writer) {
		// Written as the records are, line among line; before a summary printed in their place
		// (--summary -), they stand apart. A file named by its own name that stdout was
		// redirected to (--mismatches m.jsonl > m.jsonl) is written through stdout too.
		return nil, command.Usagef("--mismatches: %s would mix them with the records on stdout, line among line: name a file, such as /dev/stderr (with --summary -, which prints no records, they come before the summary)", cfg.mismatches)
	}
	outputs := [][2]string{{"--summary", cfg.summary}, {"--mismatches", cfg.mismatches}}
	for _, o := range outputs {
		if err := command.NotAnInput(o[0], o[1], cfg.inputs, stdin); err != nil {
			return nil, err
		}
	}
	if err := command.DistinctOutputs(outputs); err != nil {
		return nil, err
	}
	if cfg.mismatches == "" {
		var set []string
		for _, f := range []string{"mismatch-metric", "below"} {
			if c.IsSet(f) {
				set = append(set, "--"+f+command.FromEnv(c, f))
			}
		}
		if len(set) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: %s %s the records --mismatches writes; without --mismatches %s nothing\n",
				strings.Join(set, " and "), english.Form(len(set), "chooses", "choose"), english.Form(len(set), "it does", "they do"))
		}
	}
	if cfg.mismatches != "" {
		name := c.String("mismatch-metric")
		k := sel.index(name)
		if k < 0 && slices.Contains(sel.corpus, name) {
			return nil, command.Usagef("--mismatch-metric: %s is a corpus metric, computed over all records: no record has a score of its own to compare with --below", name)
		}
		if k < 0 {
			return nil, command.Usagef("--mismatch-metric: %q is not among the selected metrics (%s)%s", name, strings.Join(sel.names, ", "),
				english.DidYouMean(name, sel.names))
		}
		// --below is finite: command.Execute refuses NaN, below which no score is, as it is read.
		cfg.mismatch = &mismatchRule{metric: name, index: k, below: c.Float64("below"), judge: cfg.judge}
	}
	if cfg.corpus, err = parseCorpus(c, sel); err != nil {
		return nil, err
	}
	if len(sel.corpus) > 0 && cfg.summary == "" {
		return nil, command.Usagef("--metrics: %s: corpus metrics are computed over all records and reported only in the summary: add --summary FILE (or -)", strings.Join(sel.corpus, ", "))
	}
	if err := parseEmbed(c, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// run scores the inputs and writes records, the summary and the mismatches.
func run(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	defer func() {
		if cerr := cfg.embed.close(); cerr != nil && err == nil {
			err = fmt.Errorf("cache: %w", cerr)
		}
	}()
	if err := cfg.checkOutputs(); err != nil {
		return err
	}
	if cfg.sel.hasFamily("meteor") {
		// The WordNet table loads while the first records are awaited (from qa-predict or
		// qa-judge upstream, say), or while --idf reads the references, instead of when the
		// first METEOR score is asked for.
		go metric.PrepareMETEOR()
	}
	summary, mismatches, err := cfg.openOutputs(stdout, stderr)
	if err != nil {
		return err
	}
	finished := false // the run got to its end
	for _, f := range guardOutputs(mismatches, summary) {
		defer func() { err = f.settle(finished, err) }()
	}
	if cfg.embed != nil {
		if err := cfg.embed.prepare(ctx, cfg.inputs, cfg.maxLine); err != nil {
			return err
		}
	}
	e := newEmitter(ctx, cfg, stdout, stderr, mismatches)
	defer e.out.FlushWhenIdle()() // records that come slowly (from qa-predict) go out as they are scored
	if e.mm != nil {
		defer e.mm.FlushWhenIdle()() // stopped before the file is closed (defers run last first)
	}
	if err := e.streamAll(stdin, stdout); err != nil {
		return err
	}
	judges, replies := e.warnEnd()
	zeroed := 0
	if cfg.summary != "" {
		if zeroed, err = e.summarize(summary, judges, replies, stdout); err != nil {
			return err
		}
	}
	finished = true
	return tally{bad: e.bad, failed: e.agg.failed, zeroed: zeroed, metricErrors: e.agg.metricErrors,
		misnamed: e.sc.names.misnamed(cfg.judge), judge: cfg.judge, judgeFlag: cfg.judgeFlag}.err()
}

// checkOutputs fails when the --summary or --mismatches file cannot be made or written: they are
// written at the end, so it is found out before any work.
func (cfg *config) checkOutputs() error {
	for _, o := range [][2]string{{"--summary", cfg.summary}, {"--mismatches", cfg.mismatches}} {
		if err := command.OutputFolder(o[0], o[1]); err != nil {
			return err
		}
		if err := command.OutputWritable(o[0], o[1]); err != nil {
			return err // written at the end: found then, the records were out
		}
	}
	return nil
}

// openOutputs opens the --summary file (not for -) and the --mismatches file as replacements of
// what is there, each nil when not asked for.
func (cfg *config) openOutputs(stdout, stderr io.Writer) (summary, mismatches *command.Replacement, err error) {
	if cfg.summary != "" && cfg.summary != "-" {
		// Opened before the work, so that a path that cannot be written fails at once, and put
		// in place only when the run gets to its end: a failed run leaves the file that was
		// there (none, or an older summary that make sees is out of date), not an empty one.
		if summary, err = command.ReplaceOutput(cfg.summary, stdout, stderr); err != nil {
			return nil, nil, fmt.Errorf("--summary: %w", err)
		}
	}
	if cfg.mismatches != "" {
		if mismatches, err = command.ReplaceOutput(cfg.mismatches, stdout, stderr); err != nil {
			if summary != nil {
				summary.Abort()
			}
			return nil, nil, fmt.Errorf("--mismatches: %w", err)
		}
	}
	return summary, mismatches, nil
}

// outputFile is an output file of a run, settled when the run ends.
type outputFile struct {
	r       *command.Replacement
	what    string // how messages name it
	release func() // stops catching a broken stdout for it
}

// guardOutputs returns the opened output files among mismatches and summary, in that order,
// catching a broken stdout while a regular file among them is unfinished.
func guardOutputs(mismatches, summary *command.Replacement) []outputFile {
	var fs []outputFile
	for _, o := range []outputFile{{r: mismatches, what: "mismatches"}, {r: summary, what: "summary"}} {
		if o.r == nil {
			continue
		}
		o.release = func() {}
		if o.r.Regular() {
			// A reader of the records that goes away (| head -1) would end the process at a
			// write, leaving the file unfinished: the write fails instead, and main ends the
			// process with SIGPIPE once the file is done with. (A run ended before it returns,
			// by a second interrupt while it waits on a slow input, runs no deferred call: the
			// file is aborted then too, by ReplaceOutput's own cleanup.)
			o.release = command.CatchBrokenStdout()
		}
		fs = append(fs, o)
	}
	return fs
}

// settle puts the file in place when the run finished and removes it otherwise, then stops
// catching a broken stdout for it. It returns err, or when that is nil the error of putting
// the file in place.
func (o outputFile) settle(finished bool, err error) error {
	if finished {
		if cerr := o.r.Commit(); cerr != nil && err == nil {
			err = fmt.Errorf("%s: %w", o.what, cerr)
		}
	} else {
		o.r.Abort()
	}
	o.release()
	return err
}

// process decodes and scores one line, and encodes it unless the embedding metrics are still to
// come; it runs in a worker.
func (cfg *config) process(sc *scorer, l line) result {
	rec, bad := decodeView(l, sc.facts)
	if bad != nil {
		return result{bad: bad}
	}
	r := result{o: sc.score(rec), l: l, rec: rec}
	if cfg.by != nil {
		var err error
		if r.o.by, r.o.byKnown, err = cfg.by.values(l.data, l.no <= byKnownLines); err != nil {
			return result{bad: &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}}
		}
	}
	if cfg.corpus != nil {
		var err error
		if r.o.corpus, err = cfg.corpus.extract(l.data, rec); err != nil {
			return result{bad: &record.Error{File: l.file, Line: l.no, ID: rec.ID, Err: err}}
		}
		for _, p := range r.o.corpus.problems {
			for _, m := range p.metrics {
				r.o.setError(m, p.msg)
			}
		}
	}
	if cfg.embed != nil {
		return r
	}
	return cfg.finish(sc, r)
}

// finish encodes a scored result and its mismatch entry.
func (cfg *config) finish(sc *scorer, r result) result {
	var err error
	if cfg.summary != "-" { // with --summary - the records are not written
		if r.out, err = sc.encode(r.l.data, r.rec, r.o); err != nil {
			return result{bad: &record.Error{File: r.l.file, Line: r.l.no, ID: r.rec.ID, Err: err}}
		}
	}
	if cfg.mismatch != nil {
		if r.mismatch, err = cfg.mismatch.line(r.rec, r.o); err != nil {
			return result{bad: &record.Error{File: r.l.file, Line: r.l.no, ID: r.rec.ID, Err: err}}
		}
	}
	if !sameBuf(r.out, r.l.data) {
		putBuf(r.l.data) // decoded, and not the output line: done with
	}
	r.l.data = nil
	return r
}

// writeSummary writes the summary to its file f (stdout for -) and its warnings to stderr.
func (cfg *config) writeSummary(s *Summary, f io.Writer, stdout, stderr io.Writer) error {
	for _, w := range s.Warnings {
		fmt.Fprintf(stderr, "qa-score: warning: %s\n", w)
	}
	if cfg.summary == "-" {
		return s.write(stdout, cfg.format)
	}
	if err := s.write(f, cfg.format); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return nil
}

// tally counts what makes a run that got to the end exit 3.
type tally struct {
	bad    int // bad input lines
	failed int // records with a prediction or judge error
	// zeroed counts the failed records the summary counts as 0 (--errors-as-zero): they still
	// get no scores of their own.
	zeroed       int
	metricErrors int // records that lost a metric they should have had
	// misnamed counts the records with judgments none of which is named judge (--judge): as
	// qa-learncurve has it, a report with no judge_score at all, read under a name no record
	// has, is no clean run.
	misnamed  int
	judge     string
	judgeFlag string // "--judge", or "--judge from QA_JUDGE"
}

// judgeFlag is how a message names where the --judge name came from: flag, else "--judge".
func judgeFlag(flag string) string {
	if flag == "" {
		return "--judge"
	}
	return flag
}

// zeroNote is what the count of failed records adds when the summary counts some as 0.
func (t tally) zeroNote() string {
	switch {
	case t.zeroed == 0:
		return ""
	case t.zeroed == t.failed:
		return " (counted as 0 in the summary: --errors-as-zero)"
	}
	return fmt.Sprintf(" (%d counted as 0 in the summary: --errors-as-zero)", t.zeroed)
}

// err is the exit status of the run: nil, or a BadRecordsError whose message names every kind of
// problem the run had, counted, the bad lines first (see command.BadRecords).
func (t tally) err() error {
	return command.BadRecords(t.bad,
		command.Count{N: t.metricErrors, Singular: "record with metric errors (see the messages above) not fully scored", Plural: "records with metric errors (see the messages above) not fully scored"},
		command.Count{N: t.failed, Singular: "record with a prediction or judge error not scored" + t.zeroNote(), Plural: "records with prediction or judge errors not scored" + t.zeroNote()},
		command.Count{N: t.misnamed, Singular: fmt.Sprintf("record with judgments has none named %q (%s): judge_score not scored", t.judge, judgeFlag(t.judgeFlag)),
			Plural: fmt.Sprintf("records with judgments have none named %q (%s): judge_score not scored", t.judge, judgeFlag(t.judgeFlag))},
	)
}
