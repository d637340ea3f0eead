package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/pkg/record"
)

const description = `qa-load reads benchmark files and writes one qapipe record per question as JSON Lines on
stdout. Input files are positional arguments; none or "-" means stdin, which needs --format.
Inputs may be gzip-compressed (known by their first bytes; a ".gz" suffix is ignored); a tar
archive (.tar, .tar.gz, .tgz) is refused by its header, to be extracted first, and other data that
is no text by its first bytes, saying what it is (zip, xz, bzip2, zstd, 7-Zip, gzip inside gzip,
Parquet, .xls, SQLite, Arrow, HDF5, pickle, .npy, PDF, PNG, JPEG, ELF, or any data with a NUL byte
in its first line).
Text must be UTF-8 (or UTF-16 or UTF-32 with its byte order mark): a JSONL line or CSV row that is
not is a bad item, a JSON document a failure, and so is a file in UTF-16 or UTF-32 without the mark.

Formats: hotpotqa (the official files, or the Hugging Face hotpot_qa export), squad (SQuAD v1.1
and v2.0: the official files, or the Hugging Face squad and squad_v2 exports, a question a line or
a JSON array of them, which load as the official files' questions do: an unanswerable question,
answers.text [], gets the answer "" and type no_answer, and the answered ones of an export that
holds one, or a row with is_impossible, type has_answer), cmrc2018 (its export too; it has no
unanswerable question and never reads is_impossible),
locomo, longmemeval, evalearn (the pair EvaLearn_Problem.json + EvaLearn_Sequence.json; given one,
the other is read from beside it under its name), evalearn-results (EvaLearn's results files), jsonl
and csv (generic, see --map; a row without an id gets FILE:LINE, FILE the file's base name, or
FILE:LINE:COLUMN when it starts on the line where the item before it in a JSON array ends; a csv
file's delimiter is a tab in a .tsv or .tab file, else the comma, tab or semicolon its header line
holds most of, so TSV loads as csv; warnings count their records that come out with no answers, with
the empty (unanswerable) answer "", or with Chinese characters and no lang: see --lang), records
(qapipe records as any stage writes them, passed through whole, prediction, judgments and scores
included: to select from a saved run; also a JSON array of records, as json.dump saves a list of
them, written one a line).
Without --format the format is detected from each file's name and first item, read whole (its first
line or object, or a JSON array's first item) up to 16 MiB; a first line with a schema and an id is
records, and so is a second one when the first is no JSON (a file cut at its start), and a JSON
array whose first item opens so.
longmemeval also reads LongMemEval's retrieval logs (its run_retrieval.py output): each entry's
ranking is kept as meta.retrieval_corpus_ids, for qa-predict --retriever flat-session or
flat-turn, and with --context full the ranked items' texts as meta.retrieval_texts, for its
--key-expansion readings.

Answers made by another tool load with their questions: a jsonl or csv record's prediction.text
is its field prediction, or the one --map prediction=SOURCE names (prediction_model=SOURCE gives
prediction.model; nothing else, such as usage or cost, is made up), for qa-score and qa-judge to
grade. It is a string or a number, a list or an object being a bad item; a record without it, or
with null there, has no prediction, and a csv cell left empty is the empty answer "", which
declines to answer (a warning counts either). With a prediction, prediction_score=SOURCE gives
prediction.score, for qa-score's auc and ranking metrics: a JSON number, in csv a decimal cell
(one left empty is no score; NaN, an infinity or other text is a bad item), and
prediction_supporting_facts=SOURCE gives HotpotQA's [[title, sentence index], ...], for sp_* and
joint_* (the gold ones are a record's field supporting_facts, which goes to meta). In csv a cell of
either holds them as JSON or as Python's str() of the list, as pandas' to_csv writes it
([['Title', 0]]); one left empty is none, and other text is a bad item. Gold facts, a generic
record's and a hotpotqa file's, are checked as qa-score reads them: ones that do not read (a
sentence index that is no integer, a string in place of the list) make a bad item naming the pair
at fault (supporting_facts[0][1]: want an integer), where qa-score would drop the record whole,
its answer's scores too; JSON null is none (in csv, a cell left empty). Facts without a
prediction text make a prediction of them alone, without an answer (a warning counts them), as
HotpotQA's prediction file gives an id's facts without its answer: sp_* score them.

--predictions FILE attaches the answers of a benchmark's official prediction file to its records by
id, the record's id after "DATASET:" (a generic record's whole id): SQuAD's and CMRC 2018's
{"qid": "answer"}, HotpotQA's {"answer": {...}, "sp": {...}} (its supporting facts too, an id's
facts without its answer making a prediction without a text, for sp_*; either part may be left
out, where hotpot_evaluate_v1.py stops with a KeyError) and
LongMemEval's JSON Lines of question_id and hypothesis. A line's autoeval_label, as evaluate_qa.py's
results (<hyp_file>.eval-results-<model>) add it, {"model": MODEL, "label": true|false}, becomes the
judgment qa-judge --mode longmemeval --model MODEL writes, longmemeval/MODEL (score 1 or 0, label
yes or no), so that qa-score --summary gives print_qa_metrics.py's figures without judging again; a
label that is not true or false makes a bad item of each record with its id that would take it,
naming the file's line, and a record that carries that judgment keeps it, unless it failed (as
qa-judge fails a record it had no prediction for), which the label replaces (warnings count both).
The file is read whole first (one that does not read is a usage error); a SQuAD-layout answer that
is no string is its str() for a CMRC 2018 record, as its script reads it, and makes another record
the selection keeps a bad item, as SQuAD's stops on it; a hypothesis that is no string is its str(),
as evaluate_qa.py puts it in the judge prompt. A record that carries a prediction keeps it (without
the file's autoeval_label, unless its answer is the hypothesis), and warnings count the records
written without one and the file's answers to no record read. qa-score leaves a record without one
unscored, as LongMemEval's scripts leave out a question with no hypothesis; SQuAD v1.1's, HotpotQA's
and CMRC 2018's score it 0, as qa-score --missing-as-zero does, and SQuAD v2.0's evaluate-v2.0.py
stops on it (a KeyError). LoCoMo's evaluate_qa.py writes no prediction file: its --out-file (the
samples again, each question with <model>_prediction and <model>_f1 for each --model run written to
it) loads as LoCoMo, and --locomo-model MODEL makes MODEL's answers the predictions, the others
staying in meta; a question without one has no prediction (a warning counts them: evaluate_qa.py's
stats count each 0, as qa-score --missing-as-zero does), and a MODEL no question has an answer of is
a usage error naming those the file has.

Selection happens in this order: --types, --shard, --sample, --limit. --shard i/n keeps the records
whose h mod n is i-1, h the first 8 bytes of SHA-256(id) read as a big-endian integer, so n
machines each take one part. --sample N keeps the N records with the smallest such h of the
seed (8 big-endian bytes) followed by the id, in input order: the same --seed gives the same
sample.

A bad input item is reported on stderr as FILE:LINE (id "x"): message, counted and skipped (an item
of a JSON array that does not begin its line, as in an array written on one line, is named by its
index in the array too: FILE:1 (id "x"): [36]: message; a LoCoMo question by its path, [0].qa[5]),
and qa-load exits 3 at the end; --strict stops at the first one (exit 1). An item whose question
is empty or only blanks is a bad item in jsonl, csv and evalearn (a model would be asked nothing);
in the other benchmarks' formats it loads, as their scripts score it, and a warning counts such
records (qa-predict makes each an error, with no call). When stderr is a terminal and stdout is
not, a progress bar of the bytes read goes to stderr.

Examples:
   qa-load hotpot_dev_distractor_v1.json > records.jsonl
   qa-load --types temporal,multi_hop --limit 50 locomo10.json > locomo.jsonl
   qa-load EvaLearn_Problem.json EvaLearn_Sequence.json > sequences.jsonl
   qa-load --map question=q,answers=gold,id=qid,type=category qa.csv > records.jsonl
   qa-load --map answers=gold,prediction=model_answer preds.csv | qa-score --summary - --format table
   qa-load --predictions predictions.json dev-v2.0.json | qa-score --summary - --format table
   qa-load --locomo-model gpt-4-turbo locomo10_qa.json | qa-score --summary - --format table
   qa-load --predictions hyp.jsonl.eval-results-gpt-4o longmemeval_s.json | qa-score --summary -
   qa-load --shard 1/4 --summary hotpot_dev_distractor_v1.json > part1.jsonl
   qa-load --format records --sample 10 --seed 7 preds.jsonl > sample.jsonl`

// errLimit stops the reading once --limit records were written.
var errLimit = errors.New("limit reached")

// app holds one run of qa-load: its streams, its options and its tallies.
type app struct {
	stdin           io.Reader
	stdout, stderr  io.Writer
	format          string
	split           string
	lang            string
	context         string
	strict          bool
	opt             Options
	sel             Selection
	out             *record.Writer
	bad             int
	counts          map[[2]string]int
	bar             *progressbar.ProgressBar // bytes read, on a terminal
	generic         bool                     // the input being read is generic jsonl or csv
	generics        genericCount             // what its records lack
	benchmark       bool                     // the input being read is a benchmark's file
	benchmarkRead   int                      // the records written from benchmarks' files
	emptyGold       int                      // of them, those whose gold is "" alone (emptyGold)
	emptyGoldFirst  string                   // the first of them
	squadNoGold     int                      // of them, SQuAD questions without answers, read as v1.1's (squadNoGold)
	squadNoGoldAt   string                   // the first of them: FILE:LINE (id "ID")
	blankQuestions  int                      // of them, those whose question is blank (blankQuestion)
	blankFirst      string                   // the first of them: FILE:LINE (id "ID")
	noPassage       int                      // of them, those a model would read no passage for (noPassage)
	noPassageFirst  string                   // the first of them: FILE:LINE (id "ID")
	lmeRead         int                      // the LongMemEval records written
	lmeOdd          int                      // of them, those whose type is none of LongMemEval's six
	lmeOddFirst     [2]string                // the first of them: its id and type
	locomoRead      int                      // the LoCoMo records written
	locomoAnswers   int                      // of them, those with no prediction and evaluate_qa.py's answers in meta (with --locomo-model: with no prediction)
	locomoFirst     string                   // the first of them (with --locomo-model)
	locomoKeys      map[string]bool          // those answers' meta keys (<model>_prediction)
	locomoMoreKeys  bool                     // more keys than locomoKeys keeps (maxLoCoMoKept)
	locomoAsked     int                      // the LoCoMo questions read, with --locomo-model
	locomoModels    map[string]bool          // the models whose answers they carry (<model>_prediction), but --locomo-model's
	locomoMore      bool                     // more models than locomoModels keeps (maxLoCoMoKept)
	locomoSeen      bool                     // some question carries --locomo-model's answer
	locomoModelFrom string                   // " from QA_LOCOMO_MODEL" when the variable set --locomo-model
	read            int                      // the records read, before the selection
	ids             repeat.IDs               // their ids, to find repeats
	genericRepeat   bool                     // the first repeat is a generic record
	found           map[string]bool          // the --map sources some item has
	typesFrom       string                   // " from QA_TYPES" likewise
	examined        bool                     // some item's fields were read (see Options.Found)
	preds           *Predictions             // --predictions, attached to the records read
	other           otherFormat              // the bad items of a file --format reads as another's
	detected        map[string]detection     // without --format, the files' formats (detectFiles, detectFormat)
	ctx             context.Context
}

// Run runs qa-load with args (args[0] is the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx, ids: repeat.IDs{Max: maxIDs}}
	cliApp := command.NewApp("qa-load", "turn benchmark files into qapipe records (JSONL)", description, stdin, stdout, stderr)
	cliApp.Flags = flags()
	cliApp.Action = a.action
	return command.Execute(ctx, cliApp, args)
}

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Usage: "input format: " + strings.Join(Formats(), ", "), EnvVars: []string{"QA_FORMAT"}},
		&cli.IntFlag{Name: "limit", Usage: "write at most `N` records (0: all)", EnvVars: []string{"QA_LIMIT"}},
		&cli.IntFlag{Name: "sample", Usage: "keep a deterministic sample of `N` records (see --seed; 0: all)", EnvVars: []string{"QA_SAMPLE"}},
		&cli.Int64Flag{Name: "seed", Usage: "seed of --sample", Value: 1, EnvVars: []string{"QA_SEED"}},
		&cli.StringFlag{Name: "shard", Usage: "keep part `i/n` of a split by id hash", EnvVars: []string{"QA_SHARD"}},
		&cli.StringSliceFlag{Name: "types", KeepSpace: true, Usage: "keep only these comma-separated `TYPES` (given again, they add up; spaces around a name are ignored; a warning names any type no record has; when --limit stops the read, one near a type read)", EnvVars: []string{"QA_TYPES"}},
		&cli.StringFlag{Name: "split", Usage: "set the split field of every record", EnvVars: []string{"QA_SPLIT"}},
		&cli.StringFlag{Name: "lang", Usage: "set the lang field of every record to `LANG` (zh selects the Chinese metrics)", EnvVars: []string{"QA_LANG"}},
		&cli.StringSliceFlag{Name: "map", Usage: "jsonl/csv field mapping `MAP`, FIELD=SOURCE,..., e.g. question=q,answers=gold,id=qid,type=category (given again, its mappings add up; a usage error for a file read in another format; a warning names any SOURCE no record has, but a csv header without the question's column, question=SOURCE's or question, fails the file); in jsonl a SOURCE is a path, answers.text for the text list of an object answers, resps[0][0] for the first item of the first list in the list resps ([-1] the last; a path through a list leaves its top-level field whole in meta; \\. is a dot within a name, \\[ a bracket); a csv SOURCE names the column written so, escapes left out; in either, \\, is a comma within a name and \\\\ a backslash; prediction=, prediction_model=, prediction_score= and prediction_supporting_facts=SOURCE read answers made by another tool", EnvVars: []string{"QA_MAP"}},
		&cli.StringFlag{Name: "predictions", Usage: "attach the answers of an official prediction `FILE` to the records by id: SQuAD's and CMRC 2018's {\"qid\": \"answer\"}, HotpotQA's {\"answer\": {...}, \"sp\": {...}}, or LongMemEval's JSON Lines of question_id and hypothesis (an autoeval_label, as evaluate_qa.py's results give it, becoming the judgment longmemeval/MODEL)", EnvVars: []string{"QA_PREDICTIONS"}},
		&cli.StringFlag{Name: "locomo-model", Usage: "make the answers of the `MODEL` run of LoCoMo's evaluate_qa.py, each question's member MODEL_prediction in its --out-file, the LoCoMo records' predictions (prediction.model MODEL; MODEL_f1 stays in meta); a file with no question that has one is an error naming the models it has", EnvVars: []string{"QA_LOCOMO_MODEL"}},
		&cli.StringFlag{Name: "context", Value: "full", Usage: "context to keep: full (passages with their raw turns, and a LongMemEval retrieval log's ranked texts), text (passages without raw turns: about half the size for LoCoMo and LongMemEval) or none", EnvVars: []string{"QA_CONTEXT"}},
		&cli.BoolFlag{Name: "summary", Usage: "print the number of records per dataset and type on stderr", EnvVars: []string{"QA_LOAD_SUMMARY"}},
		&cli.BoolFlag{Name: "strict", Usage: "stop at the first bad input item", EnvVars: []string{"QA_STRICT"}},
		command.MaxLineFlag("longest line of a JSON Lines input accepted, in `BYTES` (a longer one is a bad item); a JSON array or object, one line of any length as HotpotQA's files are, is read an item at a time whatever its size; a CSV row longer than it, all its lines and line end counted, stops the load"),
	}
}

func (a *app) configure(c *cli.Context) error {
	a.format, a.split, a.lang, a.strict = c.String("format"), c.String("split"), c.String("lang"), c.Bool("strict")
	for _, name := range []string{"split", "lang"} {
		// JSON holds no such byte: every record would carry another value, U+FFFD in its place,
		// which the same text given to a later stage's --by would not find.
		if v := c.String(name); !utf8.ValidString(v) {
			return command.Usagef("--%s%s: %q is not UTF-8 text: every record would be given another %s, U+FFFD in place of each byte that is not", name, command.FromEnv(c, name), v, name)
		}
	}
	contexts := []string{"full", "text", "none"}
	if a.context = c.String("context"); !slices.Contains(contexts, a.context) {
		return command.Usagef("--context: %q is not one of full, text, none%s", a.context, english.DidYouMean(a.context, contexts))
	}
	if a.format != "" && !slices.Contains(Formats(), a.format) {
		return command.Usagef("--format: %v %q (want one of %s)%s", ErrUnknownFormat, a.format, strings.Join(Formats(), ", "),
			english.DidYouMean(a.format, Formats()))
	}
	for _, v := range c.StringSlice("map") {
		if err := command.EmptyItem("map", v, splitPairs(v), "mapping"); err != nil {
			return err
		}
	}
	m, err := ParseMap(command.List(c, "map"))
	if err != nil {
		return command.Usagef("--map: %v", err)
	}
	a.opt.Map, a.opt.MapFrom = m, command.FromEnv(c, "map")
	if len(m) > 0 {
		a.found = make(map[string]bool)
		a.opt.Found = func(has func(string) bool) {
			a.examined = true
			for _, src := range a.opt.Map {
				if has(src) {
					a.found[src] = true
				}
			}
		}
	}
	if s := c.String("shard"); s != "" {
		if a.sel.Shard, err = ParseShard(s); err != nil {
			return command.Usagef("--shard: %v", err)
		}
	}
	if err := command.EmptyItems(c, "types", "type"); err != nil {
		return err
	}
	if t := command.List(c, "types"); t != "" {
		if a.sel.Types = ParseTypes(t); len(a.sel.Types) == 0 {
			return command.Usagef("--types %q names no type", t)
		}
		a.typesFrom = command.FromEnv(c, "types")
	}
	a.sel.Limit, a.sel.Sample, a.sel.Seed = c.Int("limit"), c.Int("sample"), c.Int64("seed")
	if a.opt.LoCoMoModel = c.String("locomo-model"); a.opt.LoCoMoModel != "" {
		a.locomoModelFrom = command.FromEnv(c, "locomo-model")
		a.opt.LoCoMoRead = a.locomoQuestion
	}
	if f := c.String("predictions"); f != "" {
		if a.preds, err = ReadPredictions(f); err != nil {
			return command.Usagef("--predictions: %v", err)
		}
	}
	a.opt.Warn = func(msg string) { fmt.Fprintf(a.stderr, "qa-load: warning: %s\n", msg) }
	if a.opt.MaxLine, err = command.MaxLine(c); err != nil {
		return err
	}
	return command.NotNegative(c, "limit", "sample")
}

func (a *app) action(c *cli.Context) error {
	if err := a.configure(c); err != nil {
		return err
	}
	files := c.Args().Slice()
	if len(files) == 0 {
		files = []string{"-"}
	}
	if a.format == "" && slices.Contains(files, "-") {
		return command.Usagef("reading stdin needs --format (one of %s); or name the benchmark files: qa-load FILE ...", strings.Join(Formats(), ", "))
	}
	if a.format == "" {
		a.detected = detectFiles(files)
	}
	if err := a.mapApplies(files); err != nil {
		return err
	}
	if c.Bool("summary") {
		a.counts = make(map[[2]string]int)
	}
	a.out = record.NewWriter(a.stdout)
	defer a.out.FlushWhenIdle()() // records read from a slow pipe come out as they are read
	a.bar = command.ByteProgress(a.stderr, a.stdout, files)
	err := a.loadAll(files)
	if err == nil {
		err = a.ctx.Err() // a signal during the last read: no record came after it to notice
	}
	command.EndBar(a.stderr, a.bar)
	whole := err == nil // every record was offered to the selection
	if errors.Is(err, errLimit) {
		err = nil
	}
	if err == nil {
		err = a.sel.Flush(a.write)
	}
	if ferr := a.out.Flush(); err == nil && ferr != nil {
		err = ferr // "write /dev/stdout: …", as when a write before the end fails
	}
	if err != nil {
		return err
	}
	a.printSummary()
	a.warnUnfound(whole)
	a.generics.warn(a.stderr, a.opt.Map, a.opt.MapFrom)
	a.warnRepeats()
	a.warnUnmatchedTypes(whole)
	a.warnPredictions(whole)
	a.warnEmptyGold()
	a.warnSQuADNoGold()
	a.warnBlankQuestions()
	a.warnNoPassage()
	a.warnLongMemEvalTypes()
	a.warnLoCoMoAnswers()
	if err := a.locomoModelFound(); err != nil {
		return err
	}
	if a.bad > 0 {
		return &command.BadRecordsError{N: a.bad, Singular: "bad input item skipped", Plural: "bad input items skipped"}
	}
	return nil
}

// emitter returns the Emit every loader calls, for records read from the file named: it
// reports bad items and passes records to the selection.
func (a *app) emitter(file string) Emit {
	return func(rec *record.Record, line int, bad error) error { return a.emit(rec, file, line, bad) }
}

// skip reports bad, a bad item, and counts it; under --strict it stops the run.
func (a *app) skip(bad error) error {
	if a.strict {
		return bad // the run stops, exit 1, as every command's --strict does
	}
	a.bad++
	if a.other.active() {
		return a.other.skip(bad)
	}
	fmt.Fprint(a.stderr, command.Message("qa-load", bad))
	return nil
}

// emit takes in one record, read at file:line, or one bad item.
func (a *app) emit(rec *record.Record, file string, line int, bad error) error {
	if err := a.ctx.Err(); err != nil {
		return err
	}
	if bad != nil {
		return a.skip(bad)
	}
	if err := metaTooDeep(rec); err != nil {
		return a.skip(&record.Error{File: file, Line: line, ID: rec.ID, Err: err})
	}
	a.other.record()
	if a.split != "" {
		rec.Split = a.split
	}
	if a.lang != "" {
		rec.Lang = a.lang
	}
	a.read++
	var kept Kept
	attached := false
	if a.preds != nil {
		had := rec.Prediction != nil
		kept = a.preds.Attach(rec)
		attached = !had && rec.Prediction != nil
	}
	if a.ids.Add(rec.ID, file, line) && a.ids.Count() == 1 {
		a.genericRepeat = a.generic
	}
	trimContext(rec, a.context)
	if !a.sel.Passes(rec) {
		return nil
	}
	if a.preds != nil {
		// A record of this run whose answer in the file cannot be read is a bad item, as one
		// whose line cannot be: no part of the sample or the limit.
		if err := a.preds.Refused(rec); err != nil {
			return a.skip(&record.Error{File: file, Line: line, ID: rec.ID, Err: err})
		}
	}
	more, err := a.sel.Take(rec, Origin{File: file, Line: line, Generic: a.generic, Benchmark: a.benchmark, Kept: kept, Attached: attached}, a.write)
	if err == nil && !more {
		err = errLimit
	}
	return err
}

// trimContext drops the raw turns (text) or the whole context (none) of rec, and with either
// the texts of a LongMemEval retrieval log's ranked items.
func trimContext(rec *record.Record, mode string) {
	if mode != "full" {
		delete(rec.Meta, "retrieval_texts")
	}
	switch mode {
	case "none":
		rec.Context = nil
	case "text":
		ctx := make([]record.Passage, len(rec.Context))
		for i, p := range rec.Context {
			p.Extra = nil
			ctx[i] = p
		}
		rec.Context = ctx
	}
}

// write writes rec, which the selection keeps, counting it in the warnings of what the records
// written lack: one that --types, --shard or --sample leaves out is asked of no model, and each
// part of a sharded run warns of its own.
func (a *app) write(rec *record.Record, from Origin) error {
	if a.preds != nil {
		a.preds.Count(rec, from.Kept)
	}
	if from.Generic {
		a.generics.add(rec, a.opt.Map, from.Attached)
	}
	if from.Benchmark {
		a.countBenchmark(rec, from)
	}
	if a.counts != nil {
		a.counts[[2]string{rec.Dataset, rec.Type}]++
	}
	return a.out.Write(rec)
}

// countBenchmark counts rec, a benchmark's record read from from, in the warnings of blank
// questions, empty golds, missing passages, LongMemEval types and LoCoMo answers left in meta.
func (a *app) countBenchmark(rec *record.Record, from Origin) {
	a.benchmarkRead++
	if emptyGold(rec) {
		if a.emptyGold++; a.emptyGold == 1 {
			a.emptyGoldFirst = rec.ID
		}
	}
	if squadNoGold(rec) {
		if a.squadNoGold++; a.squadNoGold == 1 {
			a.squadNoGoldAt = fmt.Sprintf("%s:%d (id %q)", from.File, from.Line, rec.ID)
		}
	}
	if blankQuestion(rec) {
		if a.blankQuestions++; a.blankQuestions == 1 {
			a.blankFirst = fmt.Sprintf("%s:%d (id %q)", from.File, from.Line, rec.ID)
		}
	}
	if a.context != "none" && noPassage(rec) {
		if a.noPassage++; a.noPassage == 1 {
			a.noPassageFirst = fmt.Sprintf("%s:%d (id %q)", from.File, from.Line, rec.ID)
		}
	}
	if rec.Dataset == "locomo" {
		a.countLoCoMoAnswers(rec)
	}
	if rec.Dataset == "longmemeval" {
		a.lmeRead++
		if !slices.Contains(record.LongMemEvalTypes, rec.Type) {
			if a.lmeOdd++; a.lmeOdd == 1 {
				a.lmeOddFirst = [2]string{rec.ID, rec.Type}
			}
		}
	}
}
