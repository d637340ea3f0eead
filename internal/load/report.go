package load

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/pkg/record"
)

// warnUnmatchedTypes warns of the --types names that no record has, with the types the records
// have; whole says every item was read. When --limit stopped the read, a type not yet seen may
// come later in the file, so only a name near a type seen (a misspelt "multihop" for
// "multi_hop"), which most likely names none, is warned of, as one no record read has.
func (a *app) warnUnmatchedTypes(whole bool) {
	types, others := a.sel.Unmatched()
	if !whole {
		for _, t := range types {
			if s := english.Suggest(t, others); s != "" {
				fmt.Fprintf(a.stderr, "qa-load: warning: --types%s: no record read (before --limit stopped the read) has type %q%s\n", a.typesFrom, t, english.Hint(s))
			}
		}
		return
	}
	if len(types) == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: --types%s: no record has type %s", a.typesFrom, command.QuotedList(types))
	// Records without a type are said to have none, not listed as having the type "".
	named := slices.DeleteFunc(slices.Clone(others), func(t string) bool { return t == "" })
	switch untyped := len(named) < len(others); {
	case len(named) > 0 && untyped:
		fmt.Fprintf(a.stderr, " (the records' types: %s; some records have none)", command.QuotedList(named))
	case len(named) > 0:
		fmt.Fprintf(a.stderr, " (the records' types: %s)", command.QuotedList(named))
	case untyped:
		fmt.Fprint(a.stderr, " (the records have no type)")
	}
	if len(types) == 1 {
		fmt.Fprint(a.stderr, english.DidYouMean(types[0], named))
	}
	fmt.Fprintln(a.stderr)
}

// warnPredictions warns of the records written without a prediction, --predictions having no
// answer for them (qa-score leaves them unscored, or with --missing-as-zero counts them 0 where
// the benchmark's script does), or with HotpotQA's supporting facts alone, of those
// written that kept the prediction they carried (and of them, those left without the file's
// autoeval_label), of those that kept the judgment their autoeval_label makes (and of those whose
// judgment of that name had failed, which the label replaced), and, when every item was read (whole), of the file's predictions for ids no record has.
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
		left := ""
		if p.LabelsLeft > 0 {
			left = fmt.Sprintf(" (%d of them without the file's autoeval_label, which judged its hypothesis, not the prediction kept)", p.LabelsLeft)
		}
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s carried a prediction already, kept in place of the one in %s%s\n",
			p.Kept, english.Count(p.Written, "record", "records"), p.Name, left)
	}
	if p.KeptJudgments > 0 {
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s carried the judgment that %s autoeval_label in %s makes already, kept in place of it (the first: %s)\n",
			p.KeptJudgments, english.Count(p.Written, "record", "records"), english.Form(p.KeptJudgments, "its", "their"), p.Name, p.FirstKeptJudgment)
	}
	if p.ReplacedFailed > 0 {
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s carried the judgment that %s autoeval_label in %s makes, failed, which the label replaced (the first: %s)\n",
			p.ReplacedFailed, english.Count(p.Written, "record", "records"), english.Form(p.ReplacedFailed, "its", "their"), p.Name, p.FirstReplacedFailed)
	}
	if n, first := p.Unused(); n > 0 && whole {
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s in %s %s the id of no record read (the first: %q): answers to another split or file?\n",
			n, english.Count(p.Len(), "prediction", "predictions"), p.Name, english.Form(n, "has", "have"), first)
	}
}

// emptyGold reports whether rec, read from a benchmark's file, has the empty answer "" alone as
// its gold where its benchmark marks no question unanswerable so (SQuAD v2.0's are, type
// no_answer): a gold answer left empty in the file, which every stage after takes for a question
// to decline, where the benchmark's script scores it as an answer.
func emptyGold(rec *record.Record) bool {
	return len(rec.Answers) == 1 && rec.Answers[0] == "" && rec.Type != "no_answer"
}

// warnEmptyGold warns of the benchmark records whose gold is the empty answer alone (emptyGold).
func (a *app) warnEmptyGold() {
	if a.emptyGold == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s the empty answer \"\" as %s gold (the first: id %q), which marks a question unanswerable: only a prediction empty once normalised (\"\" or \".\", say) can match it, and f1, hotpot_f1, cmrc_f1, locomo_f1, ROUGE, BLEU and METEOR score even that 0\n",
		a.emptyGold, english.Count(a.benchmarkRead, "benchmark record", "benchmark records"), english.Form(a.emptyGold, "has", "have"), english.Form(a.emptyGold, "its", "their"), a.emptyGoldFirst)
}

// squadNoGold reports whether rec is a SQuAD question with no gold answers: "answers": [] in a
// question read as SQuAD v1.1's (see squadVersion), as a test file whose answers are withheld has
// it, which qa-score leaves unscored where evaluate-v2.0.py scores it as unanswerable. Those
// before a file's first question with is_impossible are this warning's alone: squadVersion's
// counts the answered ones, so that no question is named by both.
func squadNoGold(rec *record.Record) bool {
	return rec.Dataset == "squad" && len(rec.Answers) == 0
}

// warnSQuADNoGold warns of the SQuAD questions with no gold answers (squadNoGold): where qapipe
// differs from evaluate-v2.0.py, and how to have them scored as it scores them.
func (a *app) warnSQuADNoGold() {
	if a.squadNoGold == 0 {
		return
	}
	n := a.squadNoGold
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s no gold answers (the first: %s): a SQuAD question with no answers "+
		"(\"answers\": [], or none) is read as SQuAD v1.1's (the layout of a test file that withholds its answers) unless "+
		"its file has \"version\": \"v2.0\" before \"data\" or an is_impossible (of any value) on it or on a question "+
		"before it (a file's questions are read as v2.0's from its first with is_impossible on): qa-score "+
		"leaves %s unscored, where evaluate-v2.0.py scores %s unanswerable, against \"\", in its NoAns (and "+
		"evaluate-v1.1.py stops on one it has an answer for); to have %s scored so, put \"version\": \"v2.0\" before "+
		"\"data\" in the file, or give its first question without answers \"is_impossible\": true\n",
		n, english.Count(a.benchmarkRead, "benchmark record", "benchmark records"), english.Form(n, "has", "have"), a.squadNoGoldAt,
		english.Form(n, "it", "them"), english.Form(n, "it as", "them as"), english.Form(n, "it", "them"))
}

// blankQuestion reports whether rec's question is empty or only blanks (emptyQuestion): a
// benchmark's item that its script scores (or judges) as it is, so that it loads, where a generic
// row or an EvaLearn problem is a bad item.
func blankQuestion(rec *record.Record) bool { return emptyQuestion("", rec.Question) != nil }

// warnBlankQuestions warns of the benchmark records whose question is blank: a model would be
// asked nothing (qa-predict makes each an error on its record, with no call), but their answers
// count in the benchmark's figures, over all its questions.
func (a *app) warnBlankQuestions() {
	if a.blankQuestions == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s a blank question (the first: %s), loaded as the benchmark's script scores %s: qa-predict makes %s an error, with no call\n",
		a.blankQuestions, english.Count(a.benchmarkRead, "benchmark record", "benchmark records"), english.Form(a.blankQuestions, "has", "have"),
		a.blankFirst, english.Form(a.blankQuestions, "it", "them"), english.Form(a.blankQuestions, "it", "each"))
}

// noPassage reports whether rec, read from SQuAD's or CMRC 2018's file, is a question to answer
// from a paragraph whose "context" is missing, null or blank: the benchmark's script never reads
// it, so the item loads, but a model would be asked it with nothing to read. A record with a
// prediction already (--predictions) asks no model. (A HotpotQA item without "context" is a
// question of its own, which a model may be asked closed-book.)
func noPassage(rec *record.Record) bool {
	switch rec.Dataset {
	case "squad", "cmrc2018":
	default:
		return false
	}
	if rec.Prediction != nil {
		return false
	}
	return !slices.ContainsFunc(rec.Context, func(p record.Passage) bool { return strings.TrimSpace(p.Text) != "" })
}

// warnNoPassage warns of the SQuAD and CMRC 2018 records with no passage to read (noPassage).
func (a *app) warnNoPassage() {
	if a.noPassage == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s no passage text (the first: %s): qa-predict asks %s with no text to read, as it asks every question under --context none\n",
		a.noPassage, english.Count(a.benchmarkRead, "benchmark record", "benchmark records"), english.Form(a.noPassage, "has", "have"),
		a.noPassageFirst, english.Form(a.noPassage, "its question", "their questions"))
}

// warnLongMemEvalTypes warns of the LongMemEval records whose question_type is none of
// LongMemEval's six (or missing): its judge has no prompt for them (evaluate_qa.py raises), and
// its task-averaged accuracy has no place for them.
func (a *app) warnLongMemEvalTypes() {
	if a.lmeOdd == 0 {
		return
	}
	id, typ := a.lmeOddFirst[0], a.lmeOddFirst[1]
	first := fmt.Sprintf("question_type %q", typ)
	if typ == "" {
		first = "without one"
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s no question_type of LongMemEval's six (the first: id %q, %s): qa-judge's longmemeval protocol has no prompt for %s, and qa-score's task-averaged accuracy leaves %s out\n",
		a.lmeOdd, english.Count(a.lmeRead, "LongMemEval record", "LongMemEval records"), english.Form(a.lmeOdd, "has", "have"),
		id, first, english.Form(a.lmeOdd, "it", "them"), english.Form(a.lmeOdd, "it", "them"))
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
		// the field by its name, without the escapes its source is written with (\. \, \\)
		fmt.Fprintf(a.stderr, "qa-load: warning: --map %s=%s%s: %s a field %q\n", f, a.opt.Map[f], a.opt.MapFrom, has, column(a.opt.Map[f]))
	}
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
	// squadEmpty counts, of those without answers, the unanswerable questions of a SQuAD export
	// read as jsonl (squadExportEmpty), which --map cannot give the answer "".
	squadEmpty int
}

// squadExportEmpty reports whether rec, a generic record without answers read with the mapping
// m, is an unanswerable question of a Hugging Face export of SQuAD read as jsonl: its answers
// mapped from OBJ.text, an empty list, and OBJ, left in meta, holding answer_start.
func squadExportEmpty(rec *record.Record, m Mapping) bool {
	obj, ok := strings.CutSuffix(m.source("answers"), ".text")
	if !ok {
		return false
	}
	var rest struct {
		AnswerStart []jsonRaw `json:"answer_start"`
	}
	raw, ok := rec.Meta[obj]
	return ok && jsonUnmarshal(raw, &rest) == nil && rest.AnswerStart != nil && len(rest.AnswerStart) == 0
}

// add counts rec, a generic record read with the mapping m. A prediction attached from
// --predictions' file (attached) is not counted as one of the record's fields: the file's own
// warnings count the records it gave none.
func (c *genericCount) add(rec *record.Record, m Mapping, attached bool) {
	c.read++
	if _, ok := rec.Meta[m.source("prediction_score")]; ok && rec.Prediction == nil {
		c.scoreAlone++ // a score without a prediction to go with (by default its field's name)
	}
	if strings.TrimSpace(rec.Lang) == "" && (hasHan(rec.Question) || slices.ContainsFunc(rec.Answers, hasHan)) {
		c.noLang++
	}
	if len(rec.Answers) == 1 && rec.Answers[0] == "" {
		c.emptyAnswer++
	}
	switch {
	case attached:
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
	if squadExportEmpty(rec, m) && exportFormat(rec) == "squad" { // CMRC 2018 has no unanswerable question
		c.squadEmpty++
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

// answerNames are names datasets give their gold answers, most likely first (HotpotQA,
// TriviaQA and Natural Questions' exports call the field "answer").
var answerNames = []string{"answer", "gold_answers", "gold_answer", "golden_answers", "golden_answer", "ground_truths",
	"ground_truth", "correct_answers", "correct_answer", "expected_answer", "expected", "references", "reference",
	"targets", "target", "label", "gold"}

// answerLike returns the first of fields (shown as fieldName shows them) that answerNames names,
// in their order, ignoring case, or "".
func answerLike(fields []string) string {
	for _, n := range answerNames {
		if i := slices.IndexFunc(fields, func(f string) bool { return strings.EqualFold(f, n) }); i >= 0 {
			return fields[i]
		}
	}
	return ""
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0x2E80 && unicode.Is(unicode.Han, r) })
}

// warn says on w what the records lack, if anything, and how to give it.
func (c *genericCount) warn(w io.Writer, m Mapping, from string) {
	read := english.Count(c.read, "jsonl/csv record", "jsonl/csv records")
	if c.noAnswers > 0 {
		why := fmt.Sprintf("no field %q, or an empty list", m.source("answers"))
		if g := m.takenBy("answers"); g != "" {
			why = fmt.Sprintf("--map %s=answers%s makes field \"answers\" the %s", g, from, g)
		}
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s no answers (%s)", c.noAnswers, read, english.Form(c.noAnswers, "has", "have"), why)
		if c.squadEmpty > 0 {
			// --map cannot give them the answer "": the squad format does
			what := english.Form(c.squadEmpty, "an unanswerable question", "unanswerable questions")
			of := fmt.Sprintf("%d of them %s", c.squadEmpty, english.Form(c.squadEmpty, "is", "are"))
			if c.squadEmpty == c.noAnswers {
				of = english.Form(c.noAnswers, "it is", "they are")
			}
			fmt.Fprintf(w, "; %s %s of a SQuAD v2.0 export (%s []), which qa-load reads without --format (or with "+
				"--format squad) as evaluate-v2.0.py scores %s, with the answer \"\" and type no_answer", of, what, m.source("answers"),
				english.Form(c.squadEmpty, "it", "them"))
		}
		if c.squadEmpty < c.noAnswers {
			fmt.Fprint(w, "; if they are under another name, give --map answers=FIELD")
		}
		if f := answerLike(c.fields); f != "" && c.squadEmpty < c.noAnswers {
			fmt.Fprintf(w, ", as --map answers=%s if field %q holds them", f, f)
		}
		if len(c.fields) > 0 {
			fmt.Fprintf(w, " (the other fields of record %q: %s)", c.firstID, strings.Join(c.fields, ", "))
		}
		fmt.Fprintln(w)
	}
	if c.emptyAnswer > 0 {
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s the empty answer \"\", which marks a question unanswerable: only a prediction empty once normalised (\"\" or \".\", say) can match it, and f1, hotpot_f1, cmrc_f1, locomo_f1, ROUGE, BLEU and METEOR score even that 0 (an answer cell left empty reads so)\n",
			c.emptyAnswer, read, english.Form(c.emptyAnswer, "has", "have"))
	}
	if c.predicted > 0 && c.unpredicted > 0 {
		fmt.Fprintf(w, "qa-load: warning: %d of %s %s no prediction (no field %q, or null), where the others have one: qa-score leaves them unscored, qa-judge fails them, and qa-predict would answer them\n",
			c.unpredicted, read, english.Form(c.unpredicted, "has", "have"), m.source("prediction"))
	}
	// Supporting facts make a prediction of their own (factsAlone), so a record with them has one.
	// A score goes with a prediction: mapped by --map, or met under its default name.
	if src, mapped := m["prediction_score"]; (mapped || c.scoreAlone > 0) && c.read > 0 && c.predicted == 0 {
		what := fmt.Sprintf("--map prediction_score=%s%s", src, from)
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
// naming the first by file, line and id, with the causes qa-score's warning guesses too
// (repeat.Causes) and the advice that fits: for a generic file, an id for each row (the ids are
// held as hashes alone, which cannot tell a repeat within a file, an id column that is not
// unique, from one across files); else, that files that overlap repeat every id they share.
func (a *app) warnRepeats() {
	n := a.ids.Count()
	if n == 0 {
		return
	}
	advice := "two files that hold the same questions (a sample and the set it came from) repeat every id they share"
	if a.genericRepeat {
		advice = "give each row its own id (a row without one gets FILE:LINE, FILE the file's base name, which files of one name in two folders repeat)"
	}
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s the id of an earlier record (%s%s): an id names one question, and qa-score warns of repeats (%s?); %s\n",
		n, english.Count(a.read, "record", "records"), english.Form(n, "repeats", "repeat"), english.Form(n, "", "the first: "), a.ids.First().Place(), repeat.Causes, advice)
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

// maxLoCoMoKeys bounds the answer keys warnLoCoMoAnswers names, and the models locomoModelFound
// names: the first of them in sorted order, whatever order a question's members come in.
const maxLoCoMoKeys = 8

// maxLoCoMoKept bounds the answer keys and the models kept to be named (and a suggestion made
// from), so that a file with a member of its own on each question takes no memory for each; a
// file has a few runs' (with --use-rag a model's modes and top-k, one each).
const maxLoCoMoKept = 1000

// firstNamed returns the first maxLoCoMoKeys of names, in sorted order, joined by commas, with "…"
// after them when there are more (or more than were kept, more).
func firstNamed(names []string, more bool) string {
	if len(names) > maxLoCoMoKeys {
		names, more = names[:maxLoCoMoKeys], true
	}
	list := strings.Join(names, ", ")
	if more {
		list += ", …"
	}
	return list
}

// evaluateQAModel returns the model whose answer LoCoMo's evaluate_qa.py stores in a question's
// member key, <model>_prediction (with --use-rag <model>_<rag mode>_top_<k>_prediction, whose
// model is all before _prediction), and whether key is one.
func evaluateQAModel(key string) (string, bool) {
	model, ok := strings.CutSuffix(key, "_prediction")
	return model, ok && model != ""
}

// countLoCoMoAnswers counts rec, a LoCoMo record, in the warning of answers left in meta: the
// output file of LoCoMo's evaluate_qa.py holds each --model's answer in a question's member
// <model>_prediction (its F1 in <model>_f1), which the format keeps in meta, as any member it
// does not read, and does not take for the prediction unless --locomo-model names the model: the
// file holds as many as the runs that wrote to it, and which one is meant cannot be told. With
// --locomo-model it counts the records without a prediction, those whose question has no answer
// of that model.
func (a *app) countLoCoMoAnswers(rec *record.Record) {
	a.locomoRead++
	if rec.Prediction != nil {
		return
	}
	if a.opt.LoCoMoModel != "" {
		if a.locomoAnswers++; a.locomoAnswers == 1 {
			a.locomoFirst = rec.ID
		}
		return
	}
	found := false
	for k := range rec.Meta {
		if _, ok := evaluateQAModel(k); ok {
			found = true
			if a.locomoKeys == nil {
				a.locomoKeys = map[string]bool{}
			}
			if len(a.locomoKeys) < maxLoCoMoKept || a.locomoKeys[k] {
				a.locomoKeys[k] = true
			} else {
				a.locomoMoreKeys = true
			}
		}
	}
	if found {
		a.locomoAnswers++
	}
}

// warnLoCoMoAnswers warns of the LoCoMo records without a prediction that carry evaluate_qa.py's
// answers in meta (countLoCoMoAnswers): qa-score would find no prediction on them and say to run
// qa-predict; the warning names the members and --locomo-model. With --locomo-model it warns of
// the records that have no answer of its model: qa-score leaves them unscored, where upstream's
// stats (analyze_aggr_acc) count such a question in its category, adding nothing, as qa-score
// --missing-as-zero counts them.
func (a *app) warnLoCoMoAnswers() {
	if a.locomoAnswers == 0 {
		return
	}
	if m := a.opt.LoCoMoModel; m != "" {
		if !a.locomoSeen {
			return // locomoModelFound's error says it
		}
		fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s no answer of %s (member %s absent or null; the first: id %q), so no prediction: qa-score leaves %s unscored, where evaluate_qa.py's stats count %s in its category as 0 (qa-score --missing-as-zero does)\n",
			a.locomoAnswers, english.Count(a.locomoRead, "LoCoMo record", "LoCoMo records"), english.Form(a.locomoAnswers, "has", "have"),
			m, strconv.Quote(m+"_prediction"), a.locomoFirst, english.Form(a.locomoAnswers, "it", "them"),
			english.Form(a.locomoAnswers, "it", "each"))
		return
	}
	keys := slices.Sorted(maps.Keys(a.locomoKeys))
	names := make([]string, len(keys))
	models := make([]string, len(keys))
	for i, k := range keys {
		names[i] = "meta." + k
		models[i], _ = evaluateQAModel(k)
	}
	list := firstNamed(names, a.locomoMoreKeys)
	fmt.Fprintf(a.stderr, "qa-load: warning: %d of %s %s answers of LoCoMo's evaluate_qa.py, left in meta (%s), and %s no prediction: to score one model's, make them the predictions with --locomo-model %s\n",
		a.locomoAnswers, english.Count(a.locomoRead, "LoCoMo record", "LoCoMo records"), english.Form(a.locomoAnswers, "carries", "carry"), list, english.Form(a.locomoAnswers, "has", "have"), shellWord(models[0]))
}

// locomoQuestion takes in the meta of a LoCoMo question read, with --locomo-model: whether it
// holds that model's answer, and else the models whose answers it holds (evaluateQAModel).
func (a *app) locomoQuestion(meta map[string]jsonRaw) {
	a.locomoAsked++
	for k := range meta {
		m, ok := evaluateQAModel(k)
		switch {
		case !ok:
		case m == a.opt.LoCoMoModel:
			a.locomoSeen = true
		case a.locomoModels[m] || len(a.locomoModels) < maxLoCoMoKept:
			if a.locomoModels == nil {
				a.locomoModels = map[string]bool{}
			}
			a.locomoModels[m] = true
		default:
			a.locomoMore = true
		}
	}
}

// locomoModelFound returns the usage error of a --locomo-model whose answers no LoCoMo question
// read holds, naming the models whose answers they do hold: a name misspelt, or a run with
// --use-rag, whose members are named <model>_<rag mode>_top_<k>, would leave every record without
// a prediction.
func (a *app) locomoModelFound() error {
	m := a.opt.LoCoMoModel
	if m == "" || a.locomoSeen {
		return nil
	}
	if a.locomoAsked == 0 {
		return command.Usagef("--locomo-model%s %s: no LoCoMo question was read, so none has its answer (it takes them from the output file of LoCoMo's evaluate_qa.py, read as locomo)", a.locomoModelFrom, shellWord(m))
	}
	models := slices.Sorted(maps.Keys(a.locomoModels))
	if len(models) == 0 {
		return command.Usagef("--locomo-model%s %s: no LoCoMo question read has an answer of %s (member %s), nor of any model: the file is not one that LoCoMo's evaluate_qa.py wrote (its --out-file)", a.locomoModelFrom, shellWord(m), m, strconv.Quote(m+"_prediction"))
	}
	list := firstNamed(models, a.locomoMore)
	return command.Usagef("--locomo-model%s %s: no LoCoMo question read has an answer of %s (member %s); the questions have answers of %s%s", a.locomoModelFrom, shellWord(m), m, strconv.Quote(m+"_prediction"), english.Form(len(models), "the model", "the models"), " "+list+english.DidYouMean(m, models))
}

// shellWord returns s as a shell word, to give in a command line: as it is when it holds nothing
// the shell reads otherwise, else in single quotes.
func shellWord(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._-+/:,=@%", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
