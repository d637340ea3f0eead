package score

import (
	"math"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// scorer turns one record into its scores. It is safe for concurrent use: it holds only
// configuration, and a count of judgment names behind a lock.
type scorer struct {
	sel   *selection
	judge string
	// names counts the judgment names judge_score read, or with --judge the names records carry
	// (its only mutable state).
	names *judgeNames
	// judged is whether judge_score is selected: only then does a judge error fail a record.
	judged bool
	// facts is whether a supporting-fact score is selected (selection.readsFacts).
	facts bool
	// missingAsZero (--missing-as-zero) has a record without a prediction count 0 in the summary
	// where its benchmark's script scores it 0 (family.missing).
	missingAsZero bool
	// order lists the indices of the selected names in sorted name order (the order scores are
	// written in).
	order []int
	// twins: the pairs of families computed together (see item.twins).
	twins twins
	// memberSize bounds the length of the scores member encode writes, for values of up to 24
	// bytes: `,"scores":{}` and `"name":value,` for every selected name.
	memberSize int
	// latin lists the indices of the selected names whose tokenizers read English (latinMetrics).
	latin []int
	// blank lists the indices of the selected names that score an unanswerable record 0 whatever
	// its prediction (blankMetrics); rouge those of the ROUGE scores.
	blank, rouge []int
}

// latinMetrics are the metrics whose tokenizers read English text: rouge-score drops every
// character that is not ASCII, and NLTK's BLEU and METEOR, and SQuAD's and HotpotQA's F1 (with
// HotpotQA's precision and recall), split at white space alone, so that on Chinese text they give
// 0, or read a sentence as one word (the F1 of "村雨城游戏" against "村雨城" is 0, its cmrc_f1 0.75).
// The exact matches are left out: a Chinese answer matches as a whole string there.
var latinMetrics = []string{"f1", "squad2_f1", "hotpot_f1", "hotpot_prec", "hotpot_recall",
	"rouge1", "rouge2", "rougeL", "rouge1_nostem", "rouge2_nostem", "rougeL_nostem",
	"bleu1", "bleu2", "bleu4", "meteor", "meteor_nosyn"}

// blankMetrics are the metrics that score a record whose every gold answer is "", an
// unanswerable question (answers [""]), 0 whatever its prediction, the empty one that declines
// too, as their scripts do: a token F1 with no gold token is 0 (evaluate-v1.1.py's, HotpotQA's,
// CMRC's and LoCoMo's), and so are ROUGE, BLEU and METEOR against an empty reference. em,
// hotpot_em, cmrc_em and SQuAD v2.0's squad2_em and squad2_f1 score the declining answer 1.
var blankMetrics = []string{"f1", "hotpot_f1", "hotpot_prec", "hotpot_recall",
	"rouge1", "rouge2", "rougeL", "rouge1_nostem", "rouge2_nostem", "rougeL_nostem",
	"bleu1", "bleu2", "bleu4", "meteor", "meteor_nosyn", "cmrc_f1", "locomo_f1"}

// rougeMetrics are the ROUGE scores, whose tokenizer keeps ASCII letters and digits alone.
var rougeMetrics = []string{"rouge1", "rouge2", "rougeL", "rouge1_nostem", "rouge2_nostem", "rougeL_nostem"}

// indices returns the indices in sel of those of names it selects.
func (sel *selection) indices(names []string) []int {
	var ks []int
	for _, name := range names {
		if k := sel.index(name); k >= 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

func newScorer(sel *selection, judge string) *scorer {
	order := make([]int, len(sel.names))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(sel.names[a], sel.names[b]) })
	size := len(`,"scores":{}`)
	for _, name := range sel.names {
		size += len(name) + 28
	}
	latin, blank, rouge := sel.indices(latinMetrics), sel.indices(blankMetrics), sel.indices(rougeMetrics)
	return &scorer{sel: sel, judge: judge, latin: latin, names: &judgeNames{}, judged: sel.index("judge_score") >= 0, facts: sel.readsFacts(), order: order, memberSize: size,
		blank: blank, rouge: rouge,
		twins: twins{rouge: sel.hasFamily("rouge1") && sel.hasFamily("rouge1_nostem"),
			meteor: sel.hasFamily("meteor") && sel.hasFamily("meteor_nosyn")}}
}

// outcome is what the summary and the mismatch file need from one scored record: a few strings
// and one float per selected metric, never the record itself.
type outcome struct {
	typ    string
	failed bool
	// unpredicted: the record has no prediction (qa-score run before qa-predict, say);
	// unjudged: it has one but no judgment, and judge_score is selected (before qa-judge);
	// unjudgedBare: unjudged, and it has no gold answers either.
	unpredicted, unjudged, unjudgedBare bool
	// judgeless: it has a prediction, judge_score is selected, and it carries no judgment that
	// judge_score reads: none, or none of the name --judge gives (it may carry others).
	judgeless bool
	// vals[k] is the value of sel.names[k]: NaN when the metric does not apply; for a failed
	// record, 0 where it would have applied (used only with --errors-as-zero).
	vals []float64
	// missing lists the k whose sel.names[k] the summary counts as 0 for this record, which has no
	// prediction, or one without the answer or the supporting facts that the metric reads
	// (--missing-as-zero); its vals stay NaN, so that the record gets no such score.
	missing []int
	// zeroable lists, without --missing-as-zero, the k that it would put in missing: the metrics
	// whose benchmark's script scores this record 0, where qa-score leaves it out.
	zeroable []int
	dataset  string
	// model is the prediction's model (prediction.model), "" for none: the summary warns when
	// the records it pools hold the answers of more than one.
	model     string
	locomoCat int // LoCoMo category number, 0 when unknown
	// locomoConv is a LoCoMo record's conversation, read from its id (locomoConversation); ""
	// when the id gives none.
	locomoConv string
	abstention bool // LongMemEval abstention question (record.Abstention)
	// factsUnpredicted: the record has gold supporting facts and a prediction without any, which
	// hotpot_evaluate_v1.py scores 0 where qa-score has no sp/joint scores (see Summary.warnings);
	// not set under --missing-as-zero, which counts them 0 as the script does.
	factsUnpredicted bool
	// answerUnpredicted: the record has gold answers and a prediction of supporting facts alone,
	// no answer, which hotpot_evaluate_v1.py scores 0 ("missing answer") where qa-score has no
	// answer or joint scores (see Summary.warnings); not set under --missing-as-zero.
	answerUnpredicted bool
	// uncategorised: a LoCoMo record (dataset locomo) whose category neither meta.category nor its
	// type gives, which locomo_f1 and the LoCoMo sections leave out (see Summary.warnings).
	uncategorised bool
	// chineseLatin: a Chinese record (lang zh) that a metric of latinMetrics scored.
	chineseLatin bool
	// blankIn lists the indices of the metrics of blankMetrics that scored the record, when its
	// every gold answer is "" (an unanswerable question): they score it 0 whatever its prediction.
	blankIn []int
	// unreadGold: a record of another language than Chinese (which chineseLatin counts) with gold
	// answers, not all "", that hold no ASCII letter or digit, all that rouge-score's tokenizer
	// keeps, so that the ROUGE scores it got are 0 whatever its prediction.
	unreadGold bool
	// corpus is the record's part in the corpus metrics.
	corpus corpusFacts
	// unread says why the EvaLearn judge reply judge_score read held no score by EvaLearn's
	// rule (it scored 0, as upstream counts it); "" when it did, or when no reply was read.
	unread string
	// embedFailed: the embedding call for this record's batch failed, so it has no embedding score.
	embedFailed bool
	// judgeRange says why judge_score, selected, gave the record no value: the score of the
	// judgment it reads is outside 0 to 1 (item.outOfRange); a metric error, in errs too.
	judgeRange string
	// errs says, by metric name, why a selected metric that applies to the record was not
	// computed (a failed embedding call, a corpus metric's field that cannot be read, a judge
	// score out of range): the record's score_errors.
	errs map[string]string
	// by holds the record's values at the --by paths (with a summary only); byKnown, for one of
	// an input's first lines without a value at some path, the paths it has values at.
	by      []byValue
	byKnown []string
}

// setError records why the selected metric name, which applies to the record, was not computed.
func (o *outcome) setError(name, msg string) {
	if o.errs == nil {
		o.errs = map[string]string{}
	}
	o.errs[name] = msg
}

// score computes the selected metrics that apply to rec and returns the outcome; encode writes
// them into the record's line.
func (s *scorer) score(rec *record.Record) outcome {
	it := &item{rec: rec, judge: s.judge, twins: s.twins}
	o := outcome{typ: rec.Type, dataset: strings.ToLower(rec.Dataset), vals: make([]float64, len(s.sel.names))}
	for k := range o.vals {
		o.vals[k] = math.NaN()
	}
	predFailed := rec.Prediction != nil && rec.Prediction.Error != ""
	o.unpredicted = rec.Prediction == nil
	if !o.unpredicted {
		o.model = rec.Prediction.Model
	}
	// A failed judgment of a record without a prediction ("no prediction to judge", as qa-judge
	// fails it) says only that the prediction is missing: the record is unpredicted, not failed,
	// so that --missing-as-zero counts it 0 as it did before qa-judge ran.
	o.failed = s.failedRecord(rec)
	o.unjudged = !o.unpredicted && s.judged && len(rec.Judgments) == 0
	o.unjudgedBare = o.unjudged && len(rec.Answers) == 0
	o.judgeless = !o.unpredicted && s.judged && it.judgment() == nil
	o.factsUnpredicted = !o.failed && !o.unpredicted && rec.Prediction.SupportingFacts == nil && gradesFacts(rec) && !s.missingAsZero
	s.countJudgeNames(it)
	var categorised bool
	o.locomoCat, categorised = locomoCategory(rec)
	o.uncategorised = rec.InDataset("locomo") && !categorised
	it.locomoCat = o.locomoCat
	o.answerUnpredicted = !o.failed && !o.unpredicted && !it.answered() && rec.Prediction.SupportingFacts != nil && it.hasGold() && !s.missingAsZero
	if o.locomoCat > 0 {
		o.locomoConv = locomoConversation(rec.ID)
	}
	if rec.InDataset("longmemeval") {
		o.abstention, _ = rec.Abstention() // decodeView has turned away an unreadable meta.abstention
	}
	if s.judged && !o.failed {
		_, _, o.unread = it.verdict()
	}
	s.fill(it, &o, predFailed)
	if s.judged && !o.failed {
		if o.judgeRange = it.outOfRange(); o.judgeRange != "" {
			o.vals[s.sel.index("judge_score")] = math.NaN()
			o.setError("judge_score", o.judgeRange)
		}
	}
	if len(s.latin) > 0 && !o.failed && rec.IsChinese() {
		o.chineseLatin = slices.ContainsFunc(s.latin, func(k int) bool { return !math.IsNaN(o.vals[k]) })
	}
	if o.failed {
		return o
	}
	scored := func(k int) bool { return !math.IsNaN(o.vals[k]) }
	switch {
	case blankGold(rec.Answers):
		locomo := s.sel.index("locomo_f1")
		for _, k := range s.blank {
			// locomo_f1 of a category-5 question reads no gold: it looks for a declining answer.
			if scored(k) && (k != locomo || o.locomoCat != 5) {
				o.blankIn = append(o.blankIn, k)
			}
		}
	case !rec.IsChinese() && slices.ContainsFunc(s.rouge, scored) &&
		!slices.ContainsFunc(s.rouge, func(k int) bool { return o.vals[k] > 0 }) && !slices.ContainsFunc(rec.Answers, rougeReads):
		o.unreadGold = true
	}
	return o
}

// blankGold reports whether answers are those of an unanswerable question: one or more, each "".
func blankGold(answers []string) bool {
	return len(answers) > 0 && !slices.ContainsFunc(answers, func(a string) bool { return a != "" })
}

// rougeReads reports whether rouge-score's tokenizer finds a token in text.
func rougeReads(text string) bool { return len(textnorm.RougeTokens(text, false)) > 0 }

// countJudgeNames counts the judgment name judge_score reads from the record (and the others it
// passes over), or with --judge the names a record without that judgment carries.
func (s *scorer) countJudgeNames(it *item) {
	rec := it.rec
	switch {
	case !s.judged:
	case s.judge == "":
		if name := it.judgmentName(); name != "" {
			s.names.add(name, false)
			if len(rec.Judgments) > 1 {
				for other, j := range rec.Judgments {
					if j != nil && other != name {
						s.names.pass(other)
					}
				}
			}
		}
	case rec.Judgments[s.judge] != nil:
		s.names.add(s.judge, true)
	default:
		others := false
		for name, j := range rec.Judgments {
			if j != nil {
				s.names.add(name, false)
				others = true
			}
		}
		if others {
			s.names.miss()
		}
	}
}

// fill puts the value of every selected family that applies to the record into o: 0 for a
// failed record, nothing for a batched family (embedStage fills those), and the slots a missing
// part zeroes under --missing-as-zero into o.missing.
func (s *scorer) fill(it *item, o *outcome, predFailed bool) {
	var buf [8]float64
	for f, fam := range s.sel.families {
		slots := s.sel.slots[f]
		if !fam.applies(it) {
			// Not applying where the benchmark's script scores the record is what it lacks: no
			// prediction, or one without the part this family reads (an answer, facts). A failed
			// prediction is an error, not a missing one: it is 0 there as in every family that
			// applies, counted where --errors-as-zero counts the record.
			if fam.missing != nil && fam.missing(it) {
				for _, k := range slots {
					switch {
					case k < 0:
					case !s.missingAsZero:
						if !predFailed {
							o.zeroable = append(o.zeroable, k)
						}
					case predFailed:
						o.vals[k] = 0
					default:
						o.missing = append(o.missing, k)
					}
				}
			}
			continue
		}
		if o.failed {
			for _, k := range slots {
				if k >= 0 {
					o.vals[k] = 0
				}
			}
			continue
		}
		if fam.batched {
			continue // filled by embedStage
		}
		out := buf[:len(fam.names)]
		fam.score(it, out)
		for i, k := range slots {
			if k >= 0 {
				o.vals[k] = out[i]
			}
		}
	}
}

// write merges the values into the scores the record came with; a failed record gets none of the
// selected scores (a stale value from an earlier run is removed rather than left to look current).
// The errors of the selected metrics, corpus ones included, replace those the record came with;
// the others' are kept, as their scores are.
func (s *scorer) write(rec *record.Record, o outcome) {
	for _, names := range [][]string{s.sel.names, s.sel.corpus} {
		for _, name := range names {
			delete(rec.ScoreErrors, name)
		}
	}
	for name, msg := range o.errs {
		if rec.ScoreErrors == nil {
			rec.ScoreErrors = make(map[string]string, len(o.errs))
		}
		rec.ScoreErrors[name] = msg
	}
	if len(rec.ScoreErrors) == 0 {
		rec.ScoreErrors = nil
	}
	for k, name := range s.sel.names {
		v := o.vals[k]
		if o.failed || math.IsNaN(v) {
			delete(rec.Scores, name)
			continue
		}
		if rec.Scores == nil {
			rec.Scores = make(map[string]float64, len(s.sel.names))
		}
		rec.Scores[name] = v
	}
	if len(rec.Scores) == 0 {
		rec.Scores = nil
	}
}

// failedRecord reports whether rec's prediction failed, or, with judge_score selected, the
// judgment it reads did: such a record is scored by no metric. A failed judgment of a record
// without a prediction ("no prediction to judge", as qa-judge fails it) says only that the
// prediction is missing: the record is unpredicted, not failed.
func (s *scorer) failedRecord(rec *record.Record) bool {
	switch {
	case rec.Prediction == nil:
		return false
	case rec.Prediction.Error != "":
		return true
	}
	return s.judged && judgeFailed(&item{rec: rec, judge: s.judge})
}

// judgeFailed reports whether the judgment judge_score reads carries an error.
func judgeFailed(it *item) bool {
	j := it.judgment()
	return j != nil && j.Error != ""
}
