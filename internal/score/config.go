package score

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/embedding"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/internal/textfile"
)

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
	byFrom        string   // " from QA_BY" when the variable set --by, for the warnings of its paths
}

func flags() []cli.Flag {
	return append(append([]cli.Flag{
		&cli.StringSliceFlag{Name: "metrics", KeepSpace: true, EnvVars: []string{"QA_METRICS"}, Usage: "comma-separated score `NAMES` (given again, they add up; default, and an empty value: every light metric that applies)"},
		&cli.StringFlag{Name: "judge", EnvVars: []string{"QA_JUDGE"}, Usage: "judgment that judge_score reads (default: each record's first judgment name in sorted order; a warning says when that differs between records, or when records carry others too; a name no record has, while records carry others, exits 3)"},
		&cli.StringFlag{Name: "summary", EnvVars: []string{"QA_SUMMARY"}, Usage: "write a summary to `FILE`, in --format's format, else the one its extension names (see --format; a FILE ending in .gz is gzip-compressed, its format named before: s.csv.gz is csv); - prints it on stdout instead of the records; a FILE that holds records is refused, not replaced"},
		&cli.StringFlag{Name: "format", EnvVars: []string{"QA_SUMMARY_FORMAT"}, Usage: "summary `FORMAT`: " + strings.Join(formats, ", ") + " (table and markdown round to four places, a figure of 1e9 or more in exponent form; csv writes exact figures; default: the one --summary's extension names, " + extensionsHelp() + ", else json)"},
		&cli.StringSliceFlag{Name: "by", EnvVars: []string{"QA_BY"}, Usage: "also break the summary down by the value of the record field at `PATH` (dotted, e.g. meta.level, prediction.model, dataset; repeat or separate by commas for several), grouped by its text: the number 1 and the string \"1\" are one group"},
		command.BootstrapFlag(stats.DefaultResamples),
		command.LevelFlag(),
		command.BootstrapSeedFlag(),
		&cli.BoolFlag{Name: "errors-as-zero", EnvVars: []string{"QA_ERRORS_AS_ZERO"}, Usage: "count records with prediction or judge errors as 0 in the summary's per-record metrics instead of leaving them out (the corpus metrics leave them out still), and list them in --mismatches, with their error"},
		&cli.BoolFlag{Name: "missing-as-zero", EnvVars: []string{"QA_MISSING_AS_ZERO"}, Usage: "count records without a prediction (or without the answer or the supporting facts a metric reads) as 0 in the summary's (and --mismatches') em, f1, hotpot_*, sp_*, joint_*, cmrc_* and locomo_f1 (and the locomo section), as evaluate-v1.1.py, hotpot_evaluate_v1.py, cmrc2018_evaluate.py and LoCoMo's evaluate_qa.py stats do (the other metrics leave them out: evaluate-v2.0.py stops on one)"},
		&cli.StringFlag{Name: "mismatches", EnvVars: []string{"QA_MISMATCHES"}, Usage: "write the low-scoring records (id, type if the record has one, question, gold, prediction (null for no answer), metric, score; for a LoCoMo category-5 question that the metric wants declined, wanted and trap, the adversarial answer, in gold's place; for sp_* and joint_*, gold_facts and predicted_facts too) as JSONL to `FILE` (gzip-compressed when it ends in .gz)"},
		&cli.StringFlag{Name: "mismatch-metric", Value: "f1", EnvVars: []string{"QA_MISMATCH_METRIC"}, Usage: "metric that --mismatches looks at"},
		&cli.Float64Flag{Name: "below", Value: 0.3, EnvVars: []string{"QA_BELOW"}, Usage: "--mismatches keeps records whose metric is below this"},
	}, corpusFlags()...), embedFlags()...)
}

// runFlags close the list of qa-score's flags: how the run scores and reads its input, as every
// command's list ends with --strict and --max-line.
func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "jobs", Value: min(runtime.GOMAXPROCS(0), maxJobs), DefaultText: "GOMAXPROCS, the CPUs this process may use", EnvVars: []string{"QA_JOBS"}, Usage: fmt.Sprintf("records scored concurrently, 1 to %d", maxJobs)},
		&cli.BoolFlag{Name: "strict", EnvVars: []string{"QA_STRICT"}, Usage: "stop at the first bad input line"},
		command.MaxLineFlag("longest input line accepted, in `BYTES`"),
	}
}

// corpusFlags configure the corpus metrics (classification, ranking, chunk, perplexity).
func corpusFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "label-field", EnvVars: []string{"QA_LABEL_FIELD"}, Usage: "dotted `PATH` of the gold label (e.g. meta.label; default answers[0])"},
		&cli.StringFlag{Name: "label-map", EnvVars: []string{"QA_LABEL_MAP"}, Usage: "map answers to labels: \"yes=1,no=0\" or a JSON object file; keys match trimmed, lower-cased labels"},
		&cli.StringFlag{Name: "average", Value: "macro", EnvVars: []string{"QA_AVERAGE"}, Usage: "precision/recall/f1_score average: " + strings.Join(averages, ", ")},
		&cli.StringFlag{Name: "zero-division", Value: "warn", EnvVars: []string{"QA_ZERO_DIVISION"}, Usage: "value of a ratio with a zero denominator: warn (sklearn's default: 0, and a class never predicted, or no record's gold, is warned of), 0 or 1 (without the warning)"},
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
		&cli.StringFlag{Name: "embed-provider", EnvVars: []string{"QA_EMBED_PROVIDER"}, Usage: "embedding server kind: " + strings.Join(embedding.Providers(), ", ") + " (API key from --embed-api-key-file, else QA_EMBED_API_KEY, or OPENAI_API_KEY for openai)"},
		&cli.StringFlag{Name: "embed-model", EnvVars: []string{"QA_EMBED_MODEL"}, Usage: "embedding model name, required (sent to openai and ollama; for tei, whose server serves one model, it names that model in --cache's keys)"},
		&cli.StringFlag{Name: "embed-base-url", EnvVars: []string{"QA_EMBED_BASE_URL"}, Usage: "embedding server `URL` (default: openai's " + model.OpenAIURL + ", ollama's " + model.OllamaURL + "; required for tei)"},
		&cli.StringFlag{Name: "embed-api-key-file", EnvVars: []string{"QA_EMBED_API_KEY_FILE"}, Usage: "read the embedding server's API key from `FILE` instead of the environment"},
		&cli.IntFlag{Name: "embed-batch", Value: embedding.DefaultBatch, EnvVars: []string{"QA_EMBED_BATCH"}, Usage: fmt.Sprintf("records per embedding batch (and texts per request, at most %d for openai), 1 to %d", embedding.MaxOpenAIInputs, embedding.MaxBatch)},
		&cli.IntFlag{Name: "embed-concurrency", Value: embedding.DefaultParallel, EnvVars: []string{"QA_EMBED_CONCURRENCY"}, Usage: "most embedding requests in flight (`N`, 1 to 10000)"},
		&cli.IntFlag{Name: "embed-max-retries", Value: embedding.DefaultMaxRetries, EnvVars: []string{"QA_EMBED_MAX_RETRIES"}, Usage: "retries of a transient embedding failure (408, 409, 425, 429, every 5xx but 501 and 505, timeouts, …; Retry-After honoured)"},
		&cli.DurationFlag{Name: "embed-timeout", Value: embedding.DefaultTimeout, EnvVars: []string{"QA_EMBED_TIMEOUT"}, Usage: "per-attempt timeout of an embedding request (0: none)"},
		&cli.BoolFlag{Name: "idf", EnvVars: []string{"QA_IDF"}, Usage: "weight BERTScore tokens by idf over all references (reads the input files twice: regular files, not stdin or a pipe)"},
		&cli.StringFlag{Name: "baseline", EnvVars: []string{"QA_BASELINE"}, Usage: "rescale BERTScore by a baseline: `VALUE`, \"P,R,F\", or a file (bert_score's tsv)"},
		&cli.BoolFlag{Name: "embed-prefix-space", EnvVars: []string{"QA_EMBED_PREFIX_SPACE"}, Usage: "send BERTScore's texts to TEI with a space before them, as bert_score encodes them for a RoBERTa or GPT-2 tokenizer (roberta-large, its English default; see above)"},
		&cli.StringFlag{Name: "cache", EnvVars: []string{"QA_CACHE"}, Usage: "SQLite cache `FILE` for embeddings (shared with qa-predict and qa-judge)"},
	}
}

// parseWeights reads 1 to 4 comma-separated non-negative weights, each a finite decimal number
// as number flags read theirs (command.ParseDecimal). Its errors follow the flag's name.
func parseWeights(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) > 4 { // strings.Split gives at least one part
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

// emptyClass returns command.EmptyItem's error for a comma-separated --labels value l that holds
// an empty class among its classes ("x,,y", "x,"), with the JSON list that names an empty class:
// such a class was taken as one, and warned of as a class no record has.
func emptyClass(l string) error {
	if strings.HasPrefix(strings.TrimSpace(l), "[") {
		return nil // a JSON list, which names an empty class on purpose
	}
	items := strings.Split(l, ",")
	err := command.EmptyItem("labels", l, items, "class")
	if err == nil {
		return nil
	}
	quoted := make([]string, len(items))
	for i, it := range items {
		b, _ := json.Marshal(it)
		quoted[i] = string(b)
	}
	return command.Usagef("%v (a JSON list names one: [%s])", err, strings.Join(quoted, ", "))
}

// parseCorpus reads the corpus metrics' flags.
func parseCorpus(c *cli.Context, sel *selection) (*corpusConfig, error) {
	cc := &corpusConfig{want: sel.corpus, average: c.String("average"), posLabel: c.String("pos-label"), posLabelGiven: c.IsSet("pos-label")}
	if !slices.Contains(averages, cc.average) {
		return nil, command.Usagef("--average: unknown average %q (want one of %s)%s", cc.average, strings.Join(averages, ", "),
			english.DidYouMean(cc.average, averages))
	}
	cc.zeroDivWarn = c.String("zero-division") == "warn"
	switch c.String("zero-division") {
	case "0", "warn":
	case "1":
		cc.zeroDiv = 1
	default:
		return nil, command.Usagef("--zero-division: want warn, 0 or 1, not %q", c.String("zero-division"))
	}
	if l := c.String("labels"); l != "" {
		if !slices.ContainsFunc(sel.corpus, func(n string) bool { return slices.Contains(metricGroups["classification"], n) }) {
			fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --labels%s picks the classes of accuracy, precision, recall and f1_score; without one of them in --metrics it does nothing\n",
				command.FromEnv(c, "labels"))
		}
		if err := emptyClass(l); err != nil {
			return nil, err
		}
		classes, err := parseClasses(l)
		if err != nil {
			return nil, command.Usagef("--labels: %v", err)
		}
		cc.classes = classes
	}
	w := c.String("bleu-weights")
	if err := command.EmptyItem("bleu-weights", w, strings.Split(w, ","), "weight"); err != nil {
		return nil, err
	}
	ws, err := parseWeights(w)
	if err != nil {
		return nil, command.Usagef("--bleu-weights: %v%s", err, command.FromEnv(c, "bleu-weights"))
	}
	cc.bleuWeights = ws
	if m := c.String("label-map"); strings.Contains(m, "=") { // inline pairs, not a file's name
		if err := command.EmptyItem("label-map", m, strings.Split(m, ","), "pair"); err != nil {
			return nil, err
		}
	}
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
	warnUnreadCorpus(c, sel.corpus)
	warnMappedNames(c, cc)
	return cc, nil
}

func parseEmbed(c *cli.Context, cfg *config) error {
	batch, err := command.IntBetween(c, "embed-batch", 1, embedding.MaxBatch, "records")
	if err != nil {
		return err
	}
	if !slices.Contains(cfg.sel.embedMetrics(), embedding.BERTScore) {
		warnUnreadBERTScore(c)
	}
	// QA_CACHE names one file for the whole pipeline, so only a --cache typed here is warned of.
	if c.IsSet("cache") && command.FromEnv(c, "cache") == "" && len(cfg.sel.embedMetrics()) == 0 {
		fmt.Fprintln(c.App.ErrWriter, "qa-score: warning: --cache holds embeddings; without sbert or a bertscore metric in --metrics it does nothing")
	}
	// Refused with no embedding metric selected too, as qa-judge refuses an unknown --provider
	// with a mode that calls no model: a misspelt name is wrong whatever the metrics.
	provider := c.String("embed-provider")
	if provider != "" && !slices.Contains(embedding.Providers(), provider) {
		return command.Usagef("--embed-provider %q%s: want one of %s%s", provider, command.FromEnv(c, "embed-provider"),
			strings.Join(embedding.Providers(), ", "), english.DidYouMean(provider, embedding.Providers()))
	}
	warnUnreadEmbed(c, cfg.sel.embedMetrics())
	parallel, err := command.Concurrency(c, "embed-concurrency")
	if err != nil {
		return err
	}
	if err := command.NotNegative(c, "embed-max-retries", "embed-timeout"); err != nil {
		return err
	}
	embedURL, err := command.BaseURL(c, "embed-base-url")
	if err != nil {
		return err
	}
	ec := embedding.Config{Provider: provider, Model: c.String("embed-model"), BaseURL: embedURL, KeyFile: command.Origin(c, "embed-api-key-file"),
		Batch: batch, Parallel: parallel, MaxRetries: c.Int("embed-max-retries"), Timeout: c.Duration("embed-timeout"),
		PrefixSpace: c.Bool("embed-prefix-space")}
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
	if err := command.EmptyItems(c, "metrics", "name"); err != nil {
		return nil, err
	}
	sel, err := selectMetrics(reg, command.List(c, "metrics"))
	if err != nil {
		return nil, command.Usagef("--metrics: %v", err)
	}
	if err := cfg.parseSummary(c); err != nil {
		return nil, err
	}
	cfg.sel = sel
	warnUnreadJudge(c, sel)
	warnUnreadMissing(c, sel, cfg.summary, cfg.mismatches)
	if cfg.jobs, err = command.IntBetween(c, "jobs", 1, maxJobs, ""); err != nil {
		return nil, err
	}
	if cfg.maxLine, err = command.MaxLine(c); err != nil {
		return nil, err
	}
	if err := cfg.checkOutputNames(c, stdin); err != nil {
		return nil, err
	}
	if err := cfg.parseMismatchRule(c, sel); err != nil {
		return nil, err
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

// parseSummary reads --format and --by into cfg, warning of each when there is no --summary
// for it to shape (--by is then dropped), and refuses an unknown format.
func (cfg *config) parseSummary(c *cli.Context) error {
	var err error
	if c.IsSet("format") && cfg.summary == "" {
		fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --format%s is the summary's format; without --summary it does nothing (the records are JSON Lines)\n",
			command.FromEnv(c, "format"))
	}
	cfg.format = summaryFormat(c, cfg.summary)
	warnZeroFlags(c, cfg.summary, cfg.mismatches)
	warnIntervalFlags(c, cfg.summary)
	if by := command.Values(c, "by"); len(by) > 0 { // --by "" adds nothing, as --metrics "" does
		if cfg.by, err = parseBy(by); err != nil {
			return command.Usagef("--by: %v", err)
		}
		cfg.byFrom = command.FromEnv(c, "by")
		if cfg.summary == "" {
			fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --by%s breaks the summary down; without --summary it does nothing\n", command.FromEnv(c, "by"))
			cfg.by = nil
		}
	}
	switch {
	case !slices.Contains(formats, cfg.format):
		return command.Usagef("--format: unknown format %q (want one of %s)%s", cfg.format, strings.Join(formats, ", "),
			english.DidYouMean(cfg.format, formats))
	}
	return nil
}

// keeping is what the aggregator keeps for the summary: nothing without one, the values only for
// its intervals.
func (cfg *config) keeping() keeping {
	switch {
	case cfg.summary == "":
		return keepCounts
	case cfg.reps == 0:
		return keepFigures
	}
	return keepValues
}

// intervalFlags shape the summary's confidence intervals, and nothing else.
var intervalFlags = []string{"bootstrap", "level", "seed"}

// warnIntervalFlags warns of the intervalFlags given on the command line without a summary for
// them to shape, but for --bootstrap 0, which asks for no intervals, as such a run computes none.
// Their variables are not warned of: QA_BOOTSTRAP, QA_LEVEL and QA_SEED are read by qa-learncurve
// (and QA_SEED by qa-predict and qa-judge) too, so a pipeline that exports one for those sets it
// here as well, to no fault of its own.
func warnIntervalFlags(c *cli.Context, summary string) {
	if summary != "" {
		return
	}
	var set []string
	for _, f := range intervalFlags {
		if c.IsSet(f) && command.FromEnv(c, f) == "" && (f != "bootstrap" || c.Int(f) != 0) {
			set = append(set, "--"+f)
		}
	}
	if len(set) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: %s %s the summary's confidence intervals; without --summary %s nothing\n", english.List(set),
			english.Form(len(set), "shapes", "shape"), english.Form(len(set), "it does", "they do"))
	}
}

// zeroFlags are the flags that say how the summary (and the mismatches, which list what it counts
// low) counts records without a score of their own: without --summary or --mismatches, which
// nothing else reads them for, they do nothing, as --format and --by do not, and a run that gives
// one is told so rather than left to think its failures count as 0.
var zeroFlags = []string{"errors-as-zero", "missing-as-zero"}

// warnZeroFlags warns of the zeroFlags set without a summary or mismatches for them to shape,
// each named with the variable its value came from, if any, as the corpus metrics' flags are.
func warnZeroFlags(c *cli.Context, summary, mismatches string) {
	if summary != "" || mismatches != "" {
		return
	}
	var set []string
	for _, f := range zeroFlags {
		if c.IsSet(f) {
			set = append(set, "--"+f+command.FromEnv(c, f))
		}
	}
	if len(set) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: %s %s how the summary and the mismatches count records; without --summary or --mismatches %s nothing\n", english.List(set),
			english.Form(len(set), "sets", "set"), english.Form(len(set), "it does", "they do"))
	}
}

// checkOutputNames refuses a --mismatches file that would be written among the records on
// stdout, and a --summary or --mismatches file that is an input or is the other output.
func (cfg *config) checkOutputNames(c *cli.Context, stdin io.Reader) error {
	if cfg.mismatches == "-" { // it would make a file named "-"
		return command.Usagef("--mismatches: - would mix them with the records (or the summary) on stdout: name a file, such as /dev/stderr")
	}
	if cfg.summary != "-" && command.StdoutFile(cfg.mismatches, c.App.Writer) {
		// Written as the records are, line among line; before a summary printed in their place
		// (--summary -), they stand apart. A file named by its own name that stdout was
		// redirected to (--mismatches m.jsonl > m.jsonl) is written through stdout too.
		return command.Usagef("--mismatches: %s would mix them with the records on stdout, line among line: name a file, such as /dev/stderr (with --summary -, which prints no records, they come before the summary)", cfg.mismatches)
	}
	outputs := [][2]string{{"--summary", cfg.summary}, {"--mismatches", cfg.mismatches}}
	for _, o := range outputs {
		if err := command.NotAnInput(o[0], o[1], cfg.inputs, stdin); err != nil {
			return err
		}
	}
	if !command.ThroughStream(cfg.summary, c.App.Writer, c.App.ErrWriter) && holdsRecords(cfg.summary) {
		// qa-score --summary preds.jsonl, qa-load's switch --summary taken for qa-score's, which
		// names a file: the summary would replace the records, and stdin be read instead. One
		// written through a stream or a descriptor (--summary /dev/stdout >> log.jsonl) comes
		// after what the file holds, and replaces nothing.
		//
		// Note: such a file of records was refused, exit 2, saying the summary would replace it.
		return command.Usagef("--summary: %s holds records (as qa-load's records format reads them), which the summary would replace: --summary names the summary's file (--summary - prints it); remove the file first to replace it", cfg.summary)
	}
	return command.DistinctOutputs(outputs)
}

// holdsRecords reports whether path is a regular file that opens as a file of records does
// (format.Records), as no summary qa-score writes does. Its head is read as qa-load's detection
// reads it (format.Head) and the stages read it (textfile.NewReader): records gzip-compressed, in
// UTF-16 or after a byte order mark are records too.
//
// Note: the file's raw bytes were looked at, so that qa-score --summary preds.jsonl.gz wrote the
// summary over compressed records (as over ones PowerShell wrote in UTF-16), exit 0.
func holdsRecords(path string) bool {
	if path == "" || path == "-" {
		return false
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false // opening a FIFO would wait for its writer
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, _, _ := format.Head(bufio.NewReaderSize(textfile.NewReader(f), format.HeadSize))
	return format.Records(head)
}

// parseMismatchRule sets cfg.mismatch from --mismatch-metric and --below, which must name a
// per-record metric among sel, when --mismatches is given; without it, it warns of either flag set.
func (cfg *config) parseMismatchRule(c *cli.Context, sel *selection) error {
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
		return nil
	}
	name := c.String("mismatch-metric")
	k := sel.index(name)
	if k < 0 && slices.Contains(sel.corpus, name) {
		return command.Usagef("--mismatch-metric: %s is a corpus metric, computed over all records: no record has a score of its own to compare with --below", name)
	}
	if k < 0 && len(sel.names) == 0 {
		perRecord := registryNames(registry())
		if !slices.Contains(perRecord, name) {
			return command.Usagef("--mismatch-metric: %q is no per-record metric%s", name, english.DidYouMean(name, perRecord))
		}
		return command.Usagef("--mismatches: the selected %s (%s) %s, computed over all records: no record has a score of its own for --mismatch-metric %s to compare with --below; add %s to --metrics",
			english.Form(len(sel.corpus), "metric", "metrics"), strings.Join(sel.corpus, ", "), english.Form(len(sel.corpus), "is a corpus metric", "are corpus metrics"), name, name)
	}
	if k < 0 && !c.IsSet("mismatch-metric") {
		// The user named no metric: say that this one is the default, and how to choose another.
		choice := "one of them"
		if len(sel.names) == 1 {
			choice = sel.names[0]
		}
		return command.Usagef("--mismatches: --mismatch-metric's default, %s, is not among the selected metrics (%s): give --mismatch-metric %s, or add %s to --metrics",
			name, strings.Join(sel.names, ", "), choice, name)
	}
	if k < 0 {
		return command.Usagef("--mismatch-metric: %q is not among the selected metrics (%s)%s", name, strings.Join(sel.names, ", "),
			english.DidYouMean(name, sel.names))
	}
	// --below is finite: command.Execute refuses NaN, below which no score is, as it is read.
	cfg.mismatch = &mismatchRule{metric: name, index: k, below: c.Float64("below"), judge: cfg.judge,
		errorsAsZero: cfg.errorsAsZero, missingAsZero: cfg.missingAsZero}
	return nil
}
