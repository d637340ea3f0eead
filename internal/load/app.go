package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
)

const description = `qa-load reads benchmark files and writes one qapipe record per question as JSON Lines on
stdout. Input files are positional arguments; none or "-" means stdin, which needs --format.
Inputs may be gzip-compressed (known by their first bytes; a ".gz" suffix is ignored); a tar
archive (.tar, .tar.gz, .tgz) is refused by its header, to be extracted first.
Text must be UTF-8 (or UTF-16 with its byte order mark): a JSONL line or CSV row that is not is a
bad item, a JSON document a failure, and so is a file in UTF-16 without the mark.

Formats: hotpotqa, squad, cmrc2018, locomo, longmemeval, evalearn (the pair EvaLearn_Problem.json +
EvaLearn_Sequence.json; given one, the other is read from beside it under its name),
evalearn-results (EvaLearn's results files), jsonl and csv (generic, see --map; a row without an id
gets FILE:LINE, FILE the file's base name, or FILE:LINE:COLUMN when it starts on the line where the
item before it in a JSON array ends; a csv file's delimiter is the comma, tab or semicolon its
header line holds most of, so TSV loads as csv; warnings count their records that come out with no
answers, with the empty (unanswerable) answer "", or with Chinese characters and no lang: see
--lang), records (qapipe records as any stage writes them, passed through whole, prediction,
judgments and scores included: to select from a saved run). Without --format the format is detected
from each file's name and first bytes; a first line with a schema and an id is records, and so is a
second one when the first is no JSON (a file cut at its start).
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
([['Title', 0]]); one left empty is none, and other text is a bad item. Facts without a
prediction text make a prediction of them alone, without an answer (a warning counts them), as
HotpotQA's prediction file gives an id's facts without its answer: sp_* score them.

--predictions FILE attaches the answers of a benchmark's official prediction file to its records by
id, the record's id after "DATASET:" (a generic record's whole id): SQuAD's and CMRC 2018's
{"qid": "answer"}, HotpotQA's {"answer": {...}, "sp": {...}} (its supporting facts too, an id's
facts without its answer making a prediction without a text, for sp_*) and
LongMemEval's JSON Lines of question_id and hypothesis. The file is read whole first (one that does
not read is a usage error); a record that carries a prediction keeps it, and warnings count the
records written without one and the file's answers to no record read. qa-score leaves a record
without one unscored, as LongMemEval's scripts leave out a question with no hypothesis; SQuAD
v1.1's, HotpotQA's and CMRC 2018's score it 0, as qa-score --missing-as-zero does, and SQuAD
v2.0's evaluate-v2.0.py stops on it (a KeyError).

Selection happens in this order: --types, --shard, --sample, --limit. --shard i/n keeps the records
whose h mod n is i-1, h the first 8 bytes of SHA-256(id) read as a big-endian integer, so n
machines each take one part. --sample N keeps the N records with the smallest such h of the
seed (8 big-endian bytes) followed by the id, in input order: the same --seed gives the same
sample.

A bad input item is reported on stderr as FILE:LINE (id "x"): message, counted and skipped (an item
of a JSON array that does not begin its line, as in an array written on one line, is named by its
index in the array too: FILE:1 (id "x"): [36]: message), and qa-load exits 3 at the end; --strict
stops at the first one (exit 1). An item whose question is empty or only blanks is a bad item in
every format but records and evalearn-results: a model would be asked nothing. When stderr is a
terminal and stdout is not, a progress bar of the bytes read goes to stderr.

Examples:
   qa-load hotpot_dev_distractor_v1.json > records.jsonl
   qa-load --types temporal,multi_hop --limit 50 locomo10.json > locomo.jsonl
   qa-load EvaLearn_Problem.json EvaLearn_Sequence.json > sequences.jsonl
   qa-load --map question=q,answers=gold,id=qid,type=category qa.csv > records.jsonl
   qa-load --map answers=gold,prediction=model_answer preds.csv | qa-score --summary - --format table
   qa-load --predictions predictions.json dev-v2.0.json | qa-score --summary - --format table
   qa-load --shard 1/4 --summary hotpot_dev_distractor_v1.json > part1.jsonl
   qa-load --format records --sample 10 --seed 7 preds.jsonl > sample.jsonl`

// errLimit stops the reading once --limit records were written.
var errLimit = errors.New("limit reached")

// app holds one run of qa-load: its streams, its options and its tallies.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	format         string
	split          string
	lang           string
	context        string
	strict         bool
	opt            Options
	sel            Selection
	out            *record.Writer
	bad            int
	counts         map[[2]string]int
	bar            *progressbar.ProgressBar // bytes read, on a terminal
	generic        bool                     // the input being read is generic jsonl or csv
	generics       genericCount             // what its records lack
	read           int                      // the records read, before the selection
	ids            repeat.IDs               // their ids, to find repeats
	genericRepeat  bool                     // the first repeat is a generic record
	found          map[string]bool          // the --map sources some item has
	examined       bool                     // some item's fields were read (see Options.Found)
	preds          *Predictions             // --predictions, attached to the records read
	ctx            context.Context
}

// Run runs qa-load with args (args[0] is the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx, ids: repeat.IDs{Max: maxIDs}}
	cliApp := command.NewApp("qa-load", "turn benchmark files into qapipe records (JSONL)", description, stdout, stderr)
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
		&cli.StringFlag{Name: "types", Usage: "keep only these comma-separated `TYPES` (spaces around a name are ignored; a warning names any type no record has; when --limit stops the read, one near a type read)", EnvVars: []string{"QA_TYPES"}},
		&cli.StringFlag{Name: "split", Usage: "set the split field of every record", EnvVars: []string{"QA_SPLIT"}},
		&cli.StringFlag{Name: "lang", Usage: "set the lang field of every record to `LANG` (zh selects the Chinese metrics)", EnvVars: []string{"QA_LANG"}},
		&cli.StringFlag{Name: "map", Usage: "jsonl/csv field mapping `FIELD=SOURCE,...`, e.g. question=q,answers=gold,id=qid,type=category (a usage error for a file read in another format; a warning names any SOURCE no record has); in jsonl a SOURCE is a path, answers.text for the text list of an object answers (\\. is a dot within a name); a csv SOURCE names the column written so; prediction=, prediction_model=, prediction_score= and prediction_supporting_facts=SOURCE read answers made by another tool", EnvVars: []string{"QA_MAP"}},
		&cli.StringFlag{Name: "predictions", Usage: "attach the answers of an official prediction `FILE` to the records by id: SQuAD's and CMRC 2018's {\"qid\": \"answer\"}, HotpotQA's {\"answer\": {...}, \"sp\": {...}}, or LongMemEval's JSON Lines of question_id and hypothesis", EnvVars: []string{"QA_PREDICTIONS"}},
		&cli.StringFlag{Name: "context", Value: "full", Usage: "context to keep: full (passages with their raw turns, and a LongMemEval retrieval log's ranked texts), text (passages without raw turns: about half the size for LoCoMo and LongMemEval) or none", EnvVars: []string{"QA_CONTEXT"}},
		&cli.BoolFlag{Name: "summary", Usage: "print the number of records per dataset and type on stderr", EnvVars: []string{"QA_LOAD_SUMMARY"}},
		&cli.BoolFlag{Name: "strict", Usage: "stop at the first bad input item", EnvVars: []string{"QA_STRICT"}},
		command.MaxLineFlag("longest line of a JSON Lines input accepted, in bytes (a longer one is a bad item); a JSON array or object, one line of any length as HotpotQA's files are, is read an item at a time whatever its size, and CSV rows are not bounded"),
	}
}

func (a *app) configure(c *cli.Context) error {
	a.format, a.split, a.lang, a.strict = c.String("format"), c.String("split"), c.String("lang"), c.Bool("strict")
	contexts := []string{"full", "text", "none"}
	if a.context = c.String("context"); !slices.Contains(contexts, a.context) {
		return command.Usagef("--context: %q is not one of full, text, none%s", a.context, english.DidYouMean(a.context, contexts))
	}
	if a.format != "" && !slices.Contains(Formats(), a.format) {
		return command.Usagef("--format: %v %q (want one of %s)%s", ErrUnknownFormat, a.format, strings.Join(Formats(), ", "),
			english.DidYouMean(a.format, Formats()))
	}
	m, err := ParseMap(c.String("map"))
	if err != nil {
		return command.Usagef("--map: %v", err)
	}
	a.opt.Map = m
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
	if t := c.String("types"); t != "" {
		if a.sel.Types = ParseTypes(t); len(a.sel.Types) == 0 {
			return command.Usagef("--types %q names no type", t)
		}
	}
	a.sel.Limit, a.sel.Sample, a.sel.Seed = c.Int("limit"), c.Int("sample"), c.Int64("seed")
	if f := c.String("predictions"); f != "" {
		if a.preds, err = ReadPredictions(f); err != nil {
			return command.Usagef("--predictions: %v", err)
		}
	}
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
	if a.bar != nil {
		a.bar.Finish()
		fmt.Fprintln(a.stderr)
	}
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
	a.generics.warn(a.stderr, a.opt.Map)
	a.warnRepeats()
	a.warnUnmatchedTypes(whole)
	a.warnPredictions(whole)
	if a.bad > 0 {
		return &command.BadRecordsError{N: a.bad, Singular: "bad input item skipped", Plural: "bad input items skipped"}
	}
	return nil
}

// warnUnmatchedTypes warns of the --types names that no record has, with the types the records
// have; whole says every item was read. When --limit stopped the read, a type not yet seen may
// come later in the file, so only a name near a type seen (a misspelt "multihop" for
// "multi_hop"), which most likely names none, is warned of, as one no record read has.
func (a *app) warnUnmatchedTypes(whole bool) {
	types, others := a.sel.Unmatched()
	if !whole {
		for _, t := range types {
			if s := english.Suggest(t, others); s != "" {
				fmt.Fprintf(a.stderr, "qa-load: warning: --types: no record read (before --limit stopped the read) has type %q%s\n", t, english.Hint(s))
			}
		}
		return
	}
	if len(types) == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: --types: no record has type %s", command.QuotedList(types))
	if len(others) > 0 {
		fmt.Fprintf(a.stderr, " (the records' types: %s)", command.QuotedList(others))
	}
	if len(types) == 1 {
		fmt.Fprint(a.stderr, english.DidYouMean(types[0], others))
	}
	fmt.Fprintln(a.stderr)
}

// warnPredictions warns of the records written without a prediction, --predictions having no
// answer for them (qa-score leaves them unscored, or with --missing-as-zero counts them 0 where
// the benchmark's script does), or with HotpotQA's supporting facts alone, of those
// read that kept the prediction they carried, and, when every item was read (whole), of the file's predictions for ids no record has.
func (a *app) warnPredictions(whole bool) {
	p := a.preds
	if p == nil {
		return
	}
	if p.Missing > 0 && p.FactsAlone > 0 {
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s no answer in %s (the first: id %q; %d with supporting facts alone, which sp_* score): qa-score leaves %s answer unscored (--missing-as-zero counts %s 0 where the benchmark's script does), qa-judge fails %s\n",
			p.Missing, english.Count(p.Written, "record", "records"), english.Form(p.Missing, "has", "have"), p.Name, p.FirstMissing, p.FactsAlone,
			english.Form(p.Missing, "its", "their"), english.Form(p.Missing, "it", "them"), english.Form(p.Missing, "it", "them"))
	} else if p.Missing > 0 {
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s no prediction in %s (the first: id %q): qa-score leaves %s unscored (--missing-as-zero counts %s 0 where the benchmark's script does), qa-judge fails %s\n",
			p.Missing, english.Count(p.Written, "record", "records"), english.Form(p.Missing, "has", "have"), p.Name, p.FirstMissing,
			english.Form(p.Missing, "it", "them"), english.Form(p.Missing, "it", "them"), english.Form(p.Missing, "it", "them"))
	}
	if p.Kept > 0 {
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s carried a prediction already, kept in place of the one in %s\n",
			p.Kept, english.Count(a.read, "record", "records"), p.Name)
	}
	if n, first := p.Unused(); n > 0 && whole {
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s in %s %s the id of no record read (the first: %q): answers to another split or file?\n",
			n, english.Count(p.Len(), "prediction", "predictions"), p.Name, english.Form(n, "has", "have"), first)
	}
}

// warnUnfound warns of each --map source that no item read has, likely misspelt; whole says
// every item was read (not stopped by --limit). When no item's fields could be read (every line
// not UTF-8, say) it says nothing: the items' errors say why, and no source is known missing.
func (a *app) warnUnfound(whole bool) {
	if !a.examined {
		return
	}
	has := "no record has"
	if !whole {
		has = "no record read has"
	}
	for _, f := range a.opt.Map.unfound(a.found) {
		fmt.Fprintf(a.stderr, "qa-load: warning: --map %s=%s: %s a field %q\n", f, a.opt.Map[f], has, a.opt.Map[f])
	}
}

// loadAll loads every input in the order given; the files of the evalearn pair are loaded
// together, where the first of them is given.
//
// Note: the pair was loaded before every other file, so that qa-load a.jsonl EvaLearn_Problem.json
// EvaLearn_Sequence.json wrote EvaLearn's records first, and --limit took them in a.jsonl's place.
func (a *app) loadAll(files []string) error {
	var pair []string
	for _, f := range files {
		if a.format == "evalearn" || a.format == "" && f != "-" && detectFile(f) == "evalearn" {
			pair = append(pair, f)
		}
	}
	if slices.Contains(pair, "-") {
		return command.Usagef("format evalearn reads two files, not stdin")
	}
	for _, f := range files {
		switch {
		case len(pair) > 0 && f == pair[0]:
			if err := a.loadEvaLearn(pair); err != nil {
				return err
			}
		case slices.Contains(pair, f):
		default:
			if err := a.loadFile(f); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *app) loadFile(name string) error {
	var count io.Writer
	if a.bar != nil {
		count = a.bar
	}
	return command.OpenInputs([]string{name}, a.stdin, count, func(in Input) error {
		br := bufio.NewReaderSize(in.R, detectHead)
		in.R = br
		// The first read finds a file that is no text (a tar or zip archive, a damaged gzip
		// file), which every format is to say the same of, naming the file.
		if _, err := br.Peek(1); err != nil && err != io.EOF {
			return command.ReadError(in.DisplayName(), 0, err)
		}
		if first, _ := br.Peek(4); utf16Order(first) != "" {
			return fmt.Errorf("%s: %s text without a byte order mark, not UTF-8: convert it first (iconv -f %s -t UTF-8 FILE)",
				in.DisplayName(), utf16Order(first), utf16Order(first))
		}
		format := a.format
		if format == "" {
			head, err := br.Peek(detectHead)
			format = Detect(name, head)
			if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
				if format == "" {
					return command.ReadError(in.DisplayName(), 0, err)
				}
				// A gzip file cut short within the head is loaded up to the cut, as a longer
				// one is, and its error names the last line read whole. bufio.Reader returns a
				// read error once, to this Peek: the loader is given it again after the head.
				in.R = io.MultiReader(bytes.NewReader(bytes.Clone(head)), errReader{err})
			}
			if format == "" {
				if len(bytes.TrimSpace(head)) == 0 { // a download that failed, say: --format would load nothing
					return command.Usagef("%s: the file is empty, so its format cannot be detected; use --format", name)
				}
				return command.Usagef("%s: cannot detect the format (its first bytes hold no benchmark's fields, and its name ends in none of .jsonl, .ndjson, .csv, .tsv); use --format (one of %s)", name, strings.Join(Formats(), ", "))
			}
			// A pipe, whose format loadAll and mapApplies could not read ahead.
			if format == "evalearn" {
				return command.Usagef("%s is an EvaLearn file, read with its pair by name, which a pipe cannot be: name the two files", name)
			}
			if err := a.mapFits(name, format); err != nil {
				return err
			}
		}
		load, err := LoaderFor(format)
		if err != nil {
			return command.Usagef("--format: %v", err)
		}
		if a.format != "" {
			a.warnOtherFormat(in.DisplayName(), br, name != "-" && isRegular(name))
		}
		a.generic = format == "jsonl" || format == "csv"
		return load(in, a.opt, a.emitter(in.DisplayName()))
	})
}

// warnOtherFormat warns when a file that --format names a benchmark's (or records) holds, by
// its first bytes, another benchmark's fields: its items would be bad ones, each lacking the
// fields of the format given ('missing field "_id"'), with no word of what the file is. The
// generic formats, jsonl and csv, are left alone: giving them over a benchmark's file is how its
// fields are mapped by hand. SQuAD's layout is also CMRC 2018's (not its first one).
//
// It looks at the 64 kB head of a regular file (file), as detection does: its first line alone
// would be a lone "[" in an indented file (LoCoMo's, EvaLearn's), whose fields come after it.
// From a pipe it looks at what has come once the first line is in (firstLines), so that records
// read from a slow pipe come out as they are read and not once 64 kB are there.
func (a *app) warnOtherFormat(name string, br *bufio.Reader, file bool) {
	if a.format == "jsonl" || a.format == "csv" {
		return
	}
	head := firstLines(br)
	if file {
		head, _ = br.Peek(detectHead) // a read error comes again to the loader, after the head
	}
	seen := Detect("", head) // the content alone, not the name
	// SQuAD's layout is CMRC 2018's too, but CMRC's first layout (a JSON array of context_text
	// and qas) the squad format does not read.
	layout := map[string]bool{"squad": true, "cmrc2018": true}
	squadLayout := bytes.Contains(head, []byte(`"paragraphs"`))
	if seen == "" || seen == a.format || layout[seen] && layout[a.format] && squadLayout {
		return
	}
	detected := " (named without --format, a file's format is detected)"
	if name == "stdin" {
		detected = ""
	}
	article := "a"
	if strings.HasPrefix(seen, "evalearn") {
		article = "an"
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %s looks like %s %s file by its fields, and --format %s reads it as %s%s\n",
		name, article, seen, a.format, a.format, detected)
}

func (a *app) loadEvaLearn(files []string) error {
	probs, seqs, err := EvaLearnPair(files)
	if _, ok := errors.AsType[*textfile.FormatError](err); ok {
		return err // a file that is no text: no fault of the command line's
	}
	if err != nil {
		return command.Usagef("%v", err)
	}
	pf, err := os.Open(probs)
	if err != nil {
		return err
	}
	defer pf.Close()
	sf, err := os.Open(seqs)
	if err != nil {
		return err
	}
	defer sf.Close()
	a.generic = false // a jsonl or csv file read before it left it set
	sequences := Input{Name: seqs, R: textfile.NewReader(sf)}
	return EvaLearn(Input{Name: probs, R: textfile.NewReader(pf)}, sequences, a.opt, a.emitter(sequences.DisplayName()))
}

// mapApplies returns a usage error when --map is given and a file is read in a format it does
// not apply to (a benchmark's, or records): the mapping would be ignored, and a generic file
// whose name says hotpotqa, say, would be misread without a word. A file detectFile cannot read
// ahead (a pipe) is checked by loadFile once its format is known.
func (a *app) mapApplies(files []string) error {
	for _, f := range files {
		format := a.format
		if format == "" {
			format = detectFile(f)
		}
		if err := a.mapFits(f, format); err != nil {
			return err
		}
	}
	return nil
}

// mapFits returns mapApplies' usage error for the file name read in format, if --map is given
// and format is a known one other than jsonl and csv.
func (a *app) mapFits(name, format string) error {
	if len(a.opt.Map) > 0 && format != "" && format != "jsonl" && format != "csv" {
		return command.Usagef("--map maps the fields of jsonl and csv files, and %s is read as %s (give --format jsonl or csv to map it)", name, format)
	}
	return nil
}

// detectFile detects the format of a named regular file from its name and first bytes, or gives
// "" for any other: a named pipe (bash's <(…), /dev/fd/63) or a device can be read once only, by
// its loader, which detects the format from the stream as it reads it.
func detectFile(name string) string {
	if !isRegular(name) {
		return ""
	}
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	head, _ := bufio.NewReaderSize(textfile.NewReader(f), detectHead).Peek(detectHead)
	return Detect(name, head)
}

// isRegular reports whether name is a regular file, which can be read ahead without waiting on a
// writer, unlike a pipe or a device.
func isRegular(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// emitter returns the Emit every loader calls, for records read from the file named: it
// reports bad items and passes records to the selection.
func (a *app) emitter(file string) Emit {
	return func(rec *record.Record, line int, bad error) error { return a.emit(rec, file, line, bad) }
}

// emit takes in one record, read at file:line, or one bad item.
func (a *app) emit(rec *record.Record, file string, line int, bad error) error {
	if err := a.ctx.Err(); err != nil {
		return err
	}
	if bad != nil {
		if a.strict {
			return bad // the run stops, exit 1, as every command's --strict does
		}
		a.bad++
		fmt.Fprintf(a.stderr, "qa-load: %v\n", bad)
		return nil
	}
	if a.split != "" {
		rec.Split = a.split
	}
	if a.lang != "" {
		rec.Lang = a.lang
	}
	a.read++
	if a.preds != nil {
		a.preds.Attach(rec)
	}
	if a.ids.Add(rec.ID, file, line) && a.ids.Count() == 1 {
		a.genericRepeat = a.generic
	}
	if a.generic {
		a.generics.add(rec, a.opt.Map)
	}
	trimContext(rec, a.context)
	more, err := a.sel.Add(rec, a.write)
	if err == nil && !more {
		err = errLimit
	}
	return err
}

// genericCount counts the generic records read without what the stages after qa-load need and
// nothing would point out before scoring, after the model calls were paid for: answers (a field
// named otherwise than --map says leaves every one empty), and a language on Chinese text (the
// Chinese metrics run only on lang zh).
type genericCount struct {
	read, noAnswers, noLang int
	emptyAnswer             int // answers [""]: unanswerable, or an answer cell left empty
	predicted, unpredicted  int // with a prediction (--map prediction), and without one
	emptyPrediction         int // the prediction "": it declines, or a prediction cell left empty
	factsAlone              int // of the predicted, those with supporting facts and no text
	scoreAlone              int // of the unpredicted, those whose field prediction_score went to meta
	firstID                 string
	fields                  []string // the unmapped fields of the first record without answers
}

func (c *genericCount) add(rec *record.Record, m Mapping) {
	c.read++
	if _, ok := rec.Meta[m.source("prediction_score")]; ok && rec.Prediction == nil {
		c.scoreAlone++ // a score without a prediction to go with (by default its field's name)
	}
	if rec.Lang == "" && (hasHan(rec.Question) || slices.ContainsFunc(rec.Answers, hasHan)) {
		c.noLang++
	}
	if len(rec.Answers) == 1 && rec.Answers[0] == "" {
		c.emptyAnswer++
	}
	switch {
	case rec.Prediction == nil:
		c.unpredicted++
	case !rec.Prediction.HasText():
		c.factsAlone++
		c.predicted++
	case rec.Prediction.Text == "":
		c.emptyPrediction++
		fallthrough
	default:
		c.predicted++
	}
	if len(rec.Answers) > 0 { // [""] is an answer: the question has none (unanswerable)
		return
	}
	if c.noAnswers++; c.noAnswers == 1 {
		c.firstID = rec.ID
		for k := range rec.Meta {
			c.fields = append(c.fields, k)
		}
		slices.Sort(c.fields)
		for i, f := range c.fields {
			c.fields[i] = fieldName(f)
		}
	}
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0x2E80 && unicode.Is(unicode.Han, r) })
}

// warn says on w what the records lack, if anything, and how to give it.
func (c *genericCount) warn(w io.Writer, m Mapping) {
	read := english.Count(c.read, "jsonl/csv record", "jsonl/csv records")
	if c.noAnswers > 0 {
		why := fmt.Sprintf("no field %q, or an empty list", m.source("answers"))
		if g := m.takenBy("answers"); g != "" {
			why = fmt.Sprintf("--map %s=answers makes field \"answers\" the %s", g, g)
		}
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s no answers (%s); if they are under another name, give --map answers=FIELD",
			c.noAnswers, read, english.Form(c.noAnswers, "has", "have"), why)
		if len(c.fields) > 0 {
			fmt.Fprintf(w, " (the other fields of record %q: %s)", c.firstID, strings.Join(c.fields, ", "))
		}
		fmt.Fprintln(w)
	}
	if c.emptyAnswer > 0 {
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s the empty answer \"\", which marks a question unanswerable: only an empty prediction matches it (an answer cell left empty reads so)\n",
			c.emptyAnswer, read, english.Form(c.emptyAnswer, "has", "have"))
	}
	if c.predicted > 0 && c.unpredicted > 0 {
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s no prediction (no field %q, or null), where the others have one: qa-score leaves them unscored, qa-judge fails them, and qa-predict would answer them\n",
			c.unpredicted, read, english.Form(c.unpredicted, "has", "have"), m.source("prediction"))
	}
	// Supporting facts make a prediction of their own (factsAlone), so a record with them has one.
	// A score goes with a prediction: mapped by --map, or met under its default name.
	if src, mapped := m["prediction_score"]; (mapped || c.scoreAlone > 0) && c.read > 0 && c.predicted == 0 {
		what := fmt.Sprintf("--map prediction_score=%s", src)
		if !mapped {
			src = m.source("prediction_score")
			what = fmt.Sprintf("%d of %s %s field %q, a prediction's score", c.scoreAlone, read, english.Form(c.scoreAlone, "has", "have"), src)
		}
		fmt.Fprintf(w, "qa-load: warning: %s: no record has a prediction (no field %q, or null), and a score is read only with one (without it, field %q goes to meta); give --map prediction=FIELD\n",
			what, m.source("prediction"), src)
	}
	if c.factsAlone > 0 {
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s supporting facts (field %q) and no prediction text (no field %q, or null): a prediction without an answer, for sp_*; qa-score leaves %s answer unscored (--missing-as-zero counts it 0, as hotpot_evaluate_v1.py does) and qa-judge fails %s\n",
			c.factsAlone, read, english.Form(c.factsAlone, "has", "have"), m.source("prediction_supporting_facts"), m.source("prediction"),
			english.Form(c.factsAlone, "its", "their"), english.Form(c.factsAlone, "it", "them"))
	}
	if c.emptyPrediction > 0 {
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s the empty prediction \"\", an answer that declines, scored as one (a prediction cell left empty reads so)\n",
			c.emptyPrediction, read, english.Form(c.emptyPrediction, "has", "have"))
	}
	if c.noLang > 0 {
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s Chinese characters but no lang: the Chinese metrics (cmrc_em, cmrc_f1) run only on lang zh; if the text is Chinese, give --lang zh or --map lang=FIELD\n",
			c.noLang, read, english.Form(c.noLang, "holds", "hold"))
	}
}

// maxIDs bounds the ids held to find repeats (16 MB of hashes), so that memory stops growing with
// the input: past it, a record is checked against the first maxIDs ids only.
const maxIDs = 1 << 20

// warnRepeats warns of the records read that repeat an earlier record's id, in every format,
// naming the first by file, line and id, with the likely cause: a generic file's id column that
// is not unique (or a generic file given twice: the ids are held as hashes alone, which cannot
// tell a repeat within a file from one across files), else a file given twice or files that
// overlap.
func (a *app) warnRepeats() {
	n := a.ids.Count()
	if n == 0 {
		return
	}
	cause := "a file given twice, or two files that hold the same questions (a sample and the set it came from), repeat every id they share"
	if a.genericRepeat {
		cause = "give each row its own id (a row without one gets FILE:LINE, FILE the file's base name, which files of one name in two folders repeat), and each file once"
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s the id of an earlier record (%s%s): an id names one question, and qa-score warns of repeats as of an input given twice; %s\n",
		n, english.Count(a.read, "record", "records"), english.Form(n, "repeats", "repeat"), english.Form(n, "", "the first: "), a.ids.First().Place(), cause)
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

func (a *app) write(rec *record.Record) error {
	if a.preds != nil {
		a.preds.Count(rec)
	}
	if a.counts != nil {
		a.counts[[2]string{rec.Dataset, rec.Type}]++
	}
	return a.out.Write(rec)
}

// printSummary prints the records per dataset and type, sorted, on stderr.
func (a *app) printSummary() {
	if a.counts == nil {
		return
	}
	keys := make([][2]string, 0, len(a.counts))
	total := 0
	for k, n := range a.counts {
		keys = append(keys, k)
		total += n
	}
	slices.SortFunc(keys, func(x, y [2]string) int {
		return strings.Compare(x[0]+"\x00"+x[1], y[0]+"\x00"+y[1])
	})
	tw := cell.NewColumns(a.stderr, cell.Left)
	fmt.Fprintln(tw, "dataset\ttype\trecords")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", dash(k[0]), dash(k[1]), a.counts[k])
	}
	fmt.Fprintf(tw, "total\t\t%d\n", total)
	tw.Flush()
}

// dash is a dataset's or type's name as the summary's table shows it: "-" when it is empty, else
// as qa-score's summary names a group (cell.Value: Go-quoted when a line break, a tab, white space
// at an end or another unprintable character would blur the row), and "-" itself quoted.
func dash(s string) string {
	switch s {
	case "":
		return "-"
	case "-":
		return strconv.Quote(s)
	}
	return cell.Value(s)
}

// utf16Order returns "UTF-16LE" or "UTF-16BE" when head, the first 4 bytes of a text, are two
// ASCII characters in UTF-16 of that byte order, else "". Text in UTF-16 with its byte order mark
// is decoded (textfile.NewReader); without one (iconv -t UTF-16LE writes none) it was read as
// UTF-8 holding NUL bytes, which no benchmark file or JSON text begins with: every line was a bad
// item ("invalid character '\x00'"), or a CSV header's names read " a n s w e r s".
func utf16Order(head []byte) string {
	ascii := func(c byte) bool { return c != 0 && c < utf8.RuneSelf }
	switch {
	case len(head) < 4:
		return ""
	case ascii(head[0]) && head[1] == 0 && ascii(head[2]) && head[3] == 0:
		return "UTF-16LE"
	case head[0] == 0 && ascii(head[1]) && head[2] == 0 && ascii(head[3]):
		return "UTF-16BE"
	}
	return ""
}

// errReader returns its error from every Read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
