package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// unanswerableRule is MAGMA's category-5 rule data (magma/cat5_unanswerable.json).
type unanswerableRule struct {
	ExactMatch []string `json:"exact_match"`
	Substrings []string `json:"substrings"`
}

var magmaCat5 = sync.OnceValue(func() unanswerableRule {
	var r unanswerableRule
	if err := json.Unmarshal([]byte(prompt.Must(prompt.MAGMACat5).Text), &r); err != nil {
		panic(fmt.Sprintf("judge: embedded %s: %v", prompt.MAGMACat5, err))
	}
	return r
})

// Unanswerable is MAGMA's category-5 check: the prediction says the question cannot be answered if
// it is empty, or if text.strip().lower() equals one of the rule's exact phrases or contains one of
// its substrings (magma/cat5_unanswerable.json, in source order).
func Unanswerable(pred string) bool {
	return matchAbstention(pred, magmaCat5().ExactMatch, magmaCat5().Substrings)
}

// apostrophes writes the typographic apostrophes models often write (don’t) as the ASCII one the
// phrases are written with, for the approximate judge alone: MAGMA's own check takes its phrases
// as they are.
var apostrophes = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u02bc", "'", "\uff07", "'")

// approxAbstentions are the extra phrases the approximate rules judge accepts as an abstention.
var approxAbstentions = []string{
	"did not mention", "didn't mention", "never mentioned", "no mention", "not specified",
	"don't know", "do not know", "not sure", "cannot determine", "can't determine", "cannot be determined",
	"unable to", "i don't have", "i do not have", "there is no information", "no record", "not stated",
	"does not say", "doesn't say", "does not mention", "doesn't mention", "do not mention", "not answerable",
	"no answer",
	// Chinese, which the English phrases alone missed ("我不知道" scored wrong):
	"不知道", "不清楚", "不确定", "无法回答", "无法确定", "无法判断", "没有提到", "没有提及", "未提及", "未提到",
	"没有相关信息", "没有信息", "没有答案", "无答案", "不能回答",
	// and in traditional characters, as a zh-TW, zh-Hant or yue record writes them ("無法回答"
	// scored wrong); 資訊 is information there.
	"不確定", "無法回答", "無法確定", "無法判斷", "沒有提到", "沒有提及", "沒有相關信息", "沒有相關資訊", "沒有信息",
	"沒有資訊", "沒有答案", "無答案",
}

func matchAbstention(pred string, exact, subs []string) bool {
	if pred == "" {
		return true
	}
	s := textnorm.Lower(textnorm.Strip(pred))
	for _, e := range exact {
		if s == e {
			return true
		}
	}
	for _, p := range subs {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// RulesMode is the mode written into judgments of the approximate rule judge, so no one mistakes
// them for a benchmark's official judge.
const RulesMode = "rules-approximate"

// errNoAnswers is the rules judge's error on a record with no gold answers (answers missing or
// []) that is no question to decline: it has nothing to compare the prediction with.
//
// Note: taking such a record as unanswerable, as answers [""] is, would score a right answer 0
// and "I do not know" 1 without a word, on a HotpotQA test item (its answer withheld) or an
// EvaLearn problem (graded by its rubric) say.
var errNoAnswers = errors.New(`no gold answers (answers is missing or [], where an unanswerable question's is [""]): ` +
	`the rules judge needs them to grade a prediction; a record graded by its rubric, as EvaLearn's are, needs --mode evalearn`)

// expectsAbstention reports whether the right answer to rec is to decline: LoCoMo adversarial
// (category 5), an abstention question (record.Abstention: LongMemEval's _abs), or an
// unanswerable record (answers [""], or every answer ""). An unreadable meta.category or
// meta.abstention is an error, and so is a record with no answers at all that is none of these
// (errNoAnswers), or one whose answers are all blank (errBlankAnswers).
func expectsAbstention(rec *record.Record) (bool, error) {
	abs, err := rec.Abstention()
	if err != nil {
		return false, err
	}
	if abs || rec.Type == "adversarial" || rec.Type == "no_answer" {
		return true, nil
	}
	if rec.InDataset("locomo") {
		cat, _, err := rec.LoCoMoCategory()
		if err != nil {
			return false, err
		}
		if cat == 5 {
			return true, nil
		}
	}
	if len(rec.Answers) == 0 {
		return false, errNoAnswers
	}
	empty, blank := true, true
	for _, a := range rec.Answers {
		empty = empty && a == ""
		blank = blank && textnorm.Strip(a) == ""
	}
	if !empty && blank {
		return false, errBlankAnswers
	}
	return empty, nil
}

// errBlankAnswers is the rules judge's error on a record whose gold answers are all blank, white
// space alone, and not all "": no prediction could match them, so every one would be scored 0
// without a word, where [""] marks a question to decline (a CSV cell holding a space, say).
var errBlankAnswers = errors.New(`every gold answer is white space alone: the rules judge has nothing to grade a prediction against; ` +
	`an unanswerable question's answers are [""]`)

// RulesVerdict is the offline approximate judge: for a question whose answer is to abstain, the
// prediction must abstain (MAGMA's phrases plus a few more); otherwise it is correct if a gold
// answer's normalised words occur in the normalised prediction, or its F1 with some gold answer is
// at least 0.5. Words and F1 are SQuAD v1.1's, or CMRC 2018's for a Chinese record
// (record.IsChinese), whose characters SQuAD's normalisation would keep as one word with their
// full-width punctuation. It fails on a record whose kind cannot be read, and on one with no gold
// answers that is no question to decline (expectsAbstention).
func RulesVerdict(rec *record.Record, pred string) (Verdict, error) {
	abs, err := expectsAbstention(rec)
	if err != nil {
		return Verdict{}, err
	}
	switch {
	case abs:
		r := magmaCat5()
		if matchAbstention(apostrophes.Replace(pred), r.ExactMatch, append(append([]string{}, r.Substrings...), approxAbstentions...)) {
			return Verdict{Score: 1, Label: "correct", Reasoning: "abstains, as expected"}, nil
		}
		return Verdict{Score: 0, Label: "wrong", Reasoning: "answers a question that should be declined"}, nil
	case rec.IsChinese():
		return cmrcVerdict(rec.Answers, pred), nil
	}
	return squadVerdict(rec.Answers, pred), nil
}

// squadVerdict is the rules' verdict on pred by SQuAD v1.1's normalisation and token F1. A gold
// that SQuAD's normalisation empties, all articles or punctuation (a multiple-choice "A", "The"),
// would match no prediction by either test, and every prediction by a looser containment (nearly
// every English sentence holds an "a"): the prediction must equal it instead, lowered, with
// punctuation dropped and articles kept (textnorm.SquadWords), or stripped and lowered when it is
// punctuation alone.
func squadVerdict(golds []string, pred string) Verdict {
	p := " " + textnorm.SquadNormalize(pred) + " "
	for _, g := range golds {
		n := textnorm.SquadNormalize(g)
		if n != "" && strings.Contains(p, " "+n+" ") {
			return Verdict{Score: 1, Label: "correct", Reasoning: fmt.Sprintf("contains gold %q", g)}
		}
		if n == "" && g != "" && equalWhole(g, pred) {
			return Verdict{Score: 1, Label: "correct", Reasoning: fmt.Sprintf("equals gold %q, which SQuAD's normalisation empties", g)}
		}
	}
	return f1Verdict("token F1", metric.SquadF1(pred, golds)) // the best over the golds
}

// equalWhole reports whether pred equals gold, a text SQuAD's normalisation empties: by their
// words with articles kept (textnorm.SquadWords), or, when gold has none, stripped and lowered
// (equalStripped).
func equalWhole(gold, pred string) bool {
	if w := textnorm.SquadWords(gold); w != "" {
		return textnorm.SquadWords(pred) == w
	}
	return equalStripped(gold, pred)
}

// equalStripped reports whether pred equals gold, stripped and lowered: a gold of punctuation
// alone ("。", ".") is met by that punctuation. A gold of blanks alone is met by nothing: it is
// no answer to compare with, nor the empty answer that declines (a record whose golds are all
// blank is an error, errBlankAnswers).
func equalStripped(gold, pred string) bool {
	g := textnorm.Lower(textnorm.Strip(gold))
	return g != "" && textnorm.Lower(textnorm.Strip(pred)) == g
}

// cmrcVerdict is the rules' verdict on pred by CMRC 2018's tokens (metric.CMRCSegment: lowercased,
// its punctuation dropped, each Chinese character a token) and its F1 (metric.CMRCF1), for Chinese
// records.
func cmrcVerdict(golds []string, pred string) Verdict {
	p := metric.CMRCSegment(pred)
	for _, g := range golds {
		n := metric.CMRCSegment(g)
		if len(n) > 0 && containsRun(p, n) {
			return Verdict{Score: 1, Label: "correct", Reasoning: fmt.Sprintf("contains gold %q (CMRC-normalised)", g)}
		}
		if len(n) == 0 && g != "" && equalStripped(g, pred) { // as squadVerdict takes such a gold
			return Verdict{Score: 1, Label: "correct", Reasoning: fmt.Sprintf("equals gold %q, which CMRC's normalisation empties", g)}
		}
	}
	return f1Verdict("CMRC F1", metric.CMRCF1(pred, golds)) // the best over the golds
}

// f1Verdict is the verdict when no gold is contained: correct when f1, the F1 named by name, is
// at least 0.5.
func f1Verdict(name string, f1 float64) Verdict {
	if f1 >= 0.5 {
		return Verdict{Score: 1, Label: "correct", Reasoning: fmt.Sprintf("%s %.3f >= 0.5", name, f1)}
	}
	return Verdict{Score: 0, Label: "wrong", Reasoning: fmt.Sprintf("no gold contained, %s %.3f < 0.5", name, f1)}
}

// containsRun reports whether the tokens of run occur in tokens, one after another: the token
// sequences' counterpart of a substring that starts and ends at word boundaries.
func containsRun(tokens, run []string) bool {
	for i := 0; i+len(run) <= len(tokens); i++ {
		if slices.Equal(tokens[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

func shaHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
