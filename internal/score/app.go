// Package score is the qa-score command: it fills each record's scores with the lexical metrics of
// pkg/metric and the benchmark-specific scores, and summarises them with bootstrap confidence
// intervals.
//
// Records stream through a bounded, ordered, concurrent map: workers decode the fields the metrics
// read, score, and splice the scores member into the input line, leaving every other byte as it
// was. The summary keeps per-group accumulators and, for its bootstrap intervals (none with
// --bootstrap 0), one float64 per record and metric, never the records.
//
// Corpus metrics (accuracy, precision/recall/F1, AUC, Pn, MRR/MAP, chunk F1, perplexity, corpus
// BLEU) are functions of the whole set, so they are summary-only: a worker extracts each record's
// few values (labels, group, score, loss, token count; chunk and BLEU counts already summed per
// record), each group adds them to its running figures (keeping them per record only for the
// intervals, and for auc and the query groups' metrics), and the summary computes the metrics
// with pkg/metric at the end (memory in corpus.go).
// Embedding metrics (sbert, bertscore_*) are per-record scores fetched in batches: the ordered
// emit stage holds --embed-batch scored records, fills their embedding scores with one call to
// internal/embedding, then encodes and writes them (embedding.go).
package score

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

const description = `qa-score reads records with prediction.text and answers and writes them back with scores filled in,
in input order. It can also summarise them: each metric's mean, count and a bootstrap confidence
interval (95%, or --level), overall and by record type (and by the values of any --by field:
meta.level, prediction.model, …), plus LoCoMo's per-category F1 and LongMemEval's judge accuracies,
with intervals too. The interval is the percentile bootstrap's: the 2.5th and 97.5th percentiles (at
--level L, the 50(1-L)th and 50(1+L)th, taken in decimal: 0.025 and 0.975 exactly, not the
0.025000000000000022 of (1-0.95)/2 in floating point) of the means of --bootstrap resamples of the
records, interpolated linearly as numpy's default computes them, to the last bit; the same for one
--seed on every machine (the records' order is part of the resample). A corpus metric's resamples
draw each record's sufficient statistics (its labels, score, counts or loss; for pn, pairwise_acc,
mrr and map each query group's) and finish the metric on them; a resample in which it is undefined
(auc with one class drawn) is left out, and where every one is (a few resamples of a few records) the
metric has no interval, with a warning to give a larger --bootstrap.
` + command.InputsHelp + `

--metrics picks the scores (comma-separated); by default every light metric that applies to a record
runs. A record whose prediction (or the judgment judge_score reads) has an error gets no scores; the
summary counts it separately and leaves it out unless --errors-as-zero. A record with no prediction
(none in qa-load --predictions' file) is unscored, so the means are over the answered questions, as
LongMemEval's scripts, which judge only the answers given, have them (the judgment qa-judge failed
for want of one is no error, judge_score leaving the record out); with --missing-as-zero the
summary counts it as 0 in em, f1, hotpot_*, sp_*, joint_*, cmrc_* and locomo_f1 (in the locomo
section too, category 5 included), as evaluate-v1.1.py, hotpot_evaluate_v1.py, cmrc2018_evaluate.py
and the stats of LoCoMo's evaluate_qa.py (analyze_aggr_acc, which has no place for a record without
a LoCoMo category: it stays out) score it (squad2_* and the others leave it out still:
evaluate-v2.0.py stops on it with a KeyError). A prediction without a text (HotpotQA's supporting
facts alone, as its prediction file gives an id's "sp" without its "answer"; a score alone) gives no
answer: the answer metrics and joint_* leave it out in the same way, and --missing-as-zero counts it
0 there, as it counts a prediction with gold facts and none of its own 0 in sp_* and joint_*, as
hotpot_evaluate_v1.py does. A selected metric that applies to a record but could not be computed (a
failed embedding call, a corpus metric's field that cannot be read, judge_score of a judgment whose
score is outside 0 to 1, a 1-5 rubric's, say) is reported with its record's FILE:LINE, exits 3, and is
named in the record's score_errors with the reason; a later run that computes the metric removes the
entry, and one that does not select it leaves it. When stderr is a terminal and the records do not
go to one too, a progress bar of the bytes read goes to stderr.

METRICS:
{metrics}
Notes: ROUGE uses rouge-score's tokenizer, which drops every non-ASCII character (so Chinese,
Japanese or Cyrillic text scores 0 there, exactly as in rouge-score); f1, hotpot_f1, ROUGE, BLEU
and METEOR score an unanswerable record (answers [""]) 0 whatever the prediction, a declining ""
too, as their scripts do (squad2_* score it 1); a summary warns of such records, and of Chinese
ones scored by metrics that split words at white space; cmrc_* run only on Chinese records (lang
zh, zho, cmn, …, zh-CN); locomo_f1 only on LoCoMo records (category from meta.category, else the
type); sp_* only when the prediction carries supporting_facts and meta.supporting_facts holds the
gold ones, joint_* when it carries an answer too.
LoCoMo category-5 questions get no reference metric (em, f1, ROUGE, BLEU, METEOR, CMRC,
embeddings): their gold is the adversarial answer, the trap the question sets, and LoCoMo and
MAGMA score them by whether the prediction declines, as locomo_f1 and the judges do.
LongMemEval's abstention accuracy is over "_abs" ids and meta.abstention true. A LoCoMo
category or an abstention flag that cannot be read makes the line bad, and so do supporting
facts, gold or predicted, when sp_* or joint_* is selected (else they are not read).
judge_score on EvaLearn records (dataset evalearn) reads a judgment that has no score as
qa-learncurve does: the judge's raw reply by EvaLearn's rule (EvaLearn's own results, qa-load
--format evalearn-results, hold the reply alone); a reply the rule reads no score from counts 0, as
in EvaLearn, with a warning. On other records only a judgment's score counts. A judgment's score
outside 0 to 1 is a metric error on every record, EvaLearn's too (qa-learncurve takes it as
EvaLearn's script takes an answer_score, right above 0, with a warning).
judge_score on LoCoMo records gets a locomo_judge section, by category: pooled over all records
(mem0's generate_scores.py), also without category 5; and averaged over conversations (from ids,
locomo:<sample_id>:<index>): each conversation's mean, then their mean, each conversation weighing
the same whatever its size, as MAGMA's test_fixed_memory.py prints over several samples; left out,
with a warning, when a record's id is not of that form.
The benchmark sections' intervals resample what each figure averages: a mean over records its
records; LongMemEval's task-averaged accuracy and the conversation-averaged means are stratified
bootstraps, each type's (each conversation's category's) records resampled among themselves and
their means averaged as the figure does (the conversations being the benchmark's design, not a
sample of them to draw).

Corpus metrics need --summary and appear only there (overall.metrics, each type's and --by
group's metrics, computed over its records alone, and a "corpus" section with the full reports
of all records; --format table also prints the per-class table and confusion matrix). Records
without a prediction, or whose prediction failed, take no part.
   Labels: gold from answers[0] (or --label-field, e.g. meta.label; a JSON number is read as its
   literal text), predicted from prediction.text (a prediction without a text, a score alone,
   gives no label and is left out of them). Without --label-map labels compare exactly.
   With it, a label is trimmed, lower-cased and looked up; a hit is replaced by the mapped
   value, a miss stays as trimmed (its own class); --labels and --pos-label name labels after the
   map (a name it maps to another label is warned of). Labels left unmapped (all of them without
   --label-map) that differ only in case or surrounding white space are warned of. Classes sort
   numerically when every label is an integer, else by code point ("10" < "2"). --zero-division
   sets a 0/0 ratio (sklearn's "warn" is 0).
   auc, pn, pairwise_acc, mrr, map use the number at --score-field; pn..map pair or rank the
   records of each --group-field group; relevance is the gold label when it is a number, else 1
   for --pos-label and 0 otherwise.
   chunk_*: one sentence per record, gold tags in the gold label field and predicted tags in
   prediction.text, separated by white space; a record whose tag counts differ is reported and
   left out (exit 3). Chunks are seqeval's (get_entities), conlleval's on BIO and IOB tags: a tag
   is its first character and the type after its first "-", so a tag without "-" is one too (NP:
   N of type P, where conlleval finds no chunk), and E- and S- end a chunk (conlleval has no S-).
   perplexity: --loss-field (summed negative log-likelihood, nats) and --tokens-field per record.
   corpus_bleu, gen_eval_bleu: every answer is a reference.
Embedding metrics (sbert, bertscore_*) call the server named by --embed-provider, --embed-model and
--embed-base-url (each a usage error, exit 2, when unset; the URL only for tei, as ollama and
openai have their own), --embed-batch records at a time, in input order; with --cache the
embeddings are stored and a rerun makes no call (processes sharing the file embed each text once
between them). The calls are made as qa-predict's are: at
most --embed-concurrency requests in flight (2), each attempt cut off after
--embed-timeout (2m), and a transient failure (HTTP 408, 409, 425, 429 and every 5xx but 501 and
505, timeouts, resets, closed connections) retried --embed-max-retries times (5) with backoff,
honouring Retry-After (a server never reached, max(8, 2×--embed-concurrency) calls in a row
refused and no reply yet, stops the calls, as do as many in a row answered the same 401, 402, 403
or 404, or a 400 or 429 that refuses the key or account whatever the request, and no success
yet: the batches left are "not made" in score_errors, as stderr says once); the key is read
from --embed-api-key-file, else QA_EMBED_API_KEY (or OPENAI_API_KEY for openai). A batch
whose call fails (sbert's, or bertscore's) leaves its records without that call's scores, the
other's kept, reports it, and exits 3; so does a batch in which a text's embedding is all zero or
holds null (a NaN the model produced: a failing server); each such record names the metrics it
lacks in score_errors. A request the server refuses for what it holds (HTTP 400, 413 or 422: a
text over the model's context, say) is made again in halves, down to single texts, so that only
the records of a text refused on its own go without that call's scores, each naming the text
(its prediction, or answer N), in later batches too, which do not send it again; a request
refused whole (its halves and its first text alone answered its very message, or two texts
asked for alone answered one message before any request was served) fails its batch, and,
until a request is served, so does a later one refused alike whose first text alone is too. An
empty prediction or reference, or one of white space only, is never sent: it counts as a zero
vector, so it scores 0 (BERTScore scores an empty sentence so; for bertscore_* a text is first
stripped of surrounding whitespace, as bert_score does), bertscore_* -b/(1-b) under a --baseline
b, as bert_score rescales it.
TEI's /embed_all gives the model's last layer, so bertscore_* equal bert_score's with num_layers
set to the model's depth, not its default inner layer for many models (roberta-large's 17 of 24).
For a RoBERTa or GPT-2 tokenizer (roberta-large, bert_score's English default) bert_score encodes a
text with a space before it (add_prefix_space), which TEI does not add, so that the first word is
another token: give --embed-prefix-space then (not for BERT's or a sentencepiece tokenizer), which
sends " " and the stripped text to /tokenize and /embed_all; it is not guessed from --embed-model,
which for tei only names the model, and the cache keys it. --baseline FILE takes the highest
layer's row of bert_score's tsv. TEI and ollama
cut a text over the model's maximum to it, as bert_score and sentence-transformers do, unsaid;
openai refuses it (above). --idf reads the input files twice (so they must be regular files, not
stdin or a pipe): the references first, for the idf table, fetched --embed-batch ×
--embed-concurrency references at a time, keeping their token ids only (without --cache the
references are embedded again when their records are scored); a call for it that fails leaves every
record without bertscore_*, as a failed batch leaves its records (a reference refused on its own is
named with the file:line and id of the first record holding it).

INTERRUPTING: the first SIGINT, SIGTERM or SIGHUP (Ctrl-C) makes no new embedding call but lets
those in flight end (for at most 2 minutes) and stores them (--cache); every record is still read,
scored and written, those whose call was not made without embedding scores (reported); then exit
130, without the summary or the mismatches (files already there stay as they were). So in a
pipeline qa-score passes on every record that an interrupted qa-predict or qa-judge before it
still writes. A second signal, or the 2 minutes passing, abandons the calls in flight: only the
records completed before the first unfinished one are written; when even those cannot be (a
stalled reader of stdout), a third signal, or 10 s more, ends the run without them. A SIGTERM or
SIGHUP within a second of either, or a SIGINT within 0.1 s of one, counts once (make and a closing
shell pass on the signal their process group got, and systemd's SendSIGHUP follows its SIGTERM
with a SIGHUP; timeout -s INT signals the command twice).

Examples:
   qa-score preds.jsonl > scored.jsonl
   qa-score --metrics f1,rougeL --summary - --format table preds.jsonl
   qa-score --summary summary.json --mismatches low.jsonl preds.jsonl > scored.jsonl
   qa-score --metrics classification,auc --label-map yes=1,no=0 --summary - --format table preds.jsonl
   qa-score --metrics sbert,bertscore_f1 --embed-provider tei --embed-model bge --embed-base-url http://127.0.0.1:8080 preds.jsonl`

// Run is the qa-score command. args includes the program name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	reg := registry()
	app := command.NewApp("qa-score", "score predictions and summarise the scores",
		strings.Replace(description, "{metrics}", metricsHelp(reg), 1), stdin, stdout, stderr)
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

// run scores the inputs and writes records, the summary and the mismatches.
func run(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	defer func() {
		if cfg.embed != nil && cfg.embed.cache != nil {
			for _, w := range cfg.embed.cache.Warnings() {
				fmt.Fprintf(stderr, "qa-score: warning: %s\n", w)
			}
		}
		if cerr := cfg.embed.close(); cerr != nil && err == nil {
			err = fmt.Errorf("cache: %w", cerr)
		}
	}()
	if err := cfg.checkOutputs(); err != nil {
		return err
	}
	if len(cfg.sel.embedMetrics()) == 0 && command.FilesOnly(cfg.inputs, stdin) {
		// Only the embedding metrics call a model, and no stage before has records left to pass
		// on: a first signal stops the run, rather than letting it score every record left in
		// its files (see interrupt.NoCalls).
		interrupt.NoCalls(ctx, "qa-score")
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
	files := guardOutputs(mismatches, summary)
	defer func() { err = settle(files, finished, err) }()
	if cfg.embed != nil {
		if err := cfg.embed.prepare(ctx, cfg.inputs, cfg.maxLine, newScorer(cfg.sel, cfg.judge)); err != nil {
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
	return tally{bad: e.bad, failed: e.agg.failed, firstFailed: e.firstFailed, zeroed: zeroed, metricErrors: e.agg.metricErrors,
		misnamed: e.sc.names.misnamed(cfg.judge), judge: cfg.judge, judgeFlag: cfg.judgeFlag}.err()
}

// process decodes and scores one line, and encodes it unless the embedding metrics are still to
// come; it runs in a worker.
func (cfg *config) process(sc *scorer, l line) result {
	rec, bad := decodeView(l, sc.facts)
	if bad != nil {
		return result{bad: bad, l: l} // l for its text: a file with no records is named by it (command.LeadingBad)
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
		return fmt.Errorf("--summary: %w", err)
	}
	return nil
}

// tally counts what makes a run that got to the end exit 3.
type tally struct {
	bad         int    // bad input lines
	failed      int    // records with a prediction or judge error
	firstFailed string // where the first of them is: FILE:LINE (id "x")
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

// failedPlace is what the count of failed records adds to say where the first is: " (" + lead +
// firstFailed + ")", or "" when it is not known.
func (t tally) failedPlace(lead string) string {
	if t.firstFailed == "" {
		return ""
	}
	return " (" + lead + t.firstFailed + ")"
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
		command.Count{N: t.failed, Singular: "record with a prediction or judge error not scored" + t.failedPlace("") + t.zeroNote(),
			Plural: "records with prediction or judge errors not scored" + t.failedPlace("the first: ") + t.zeroNote()},
		command.Count{N: t.misnamed, Singular: fmt.Sprintf("record with judgments has none named %q (%s): judge_score not scored", t.judge, judgeFlag(t.judgeFlag)),
			Plural: fmt.Sprintf("records with judgments have none named %q (%s): judge_score not scored", t.judge, judgeFlag(t.judgeFlag))},
	)
}
