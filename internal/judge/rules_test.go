package judge

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestRulesVerdict: the approximate rules judge's verdicts, with the reasoning each gives. English
// is compared by SQuAD's normalisation and token F1, Chinese (lang zh, zh-*, zh_*) by CMRC 2018's
// tokens and F1, which keep "北京。" and "答案是北京" from missing gold "北京". A question to
// decline wants an abstention; a record with no gold answers at all that is no such
// question is an error (errNoAnswers), never a verdict: answers [""] is what marks a question
// unanswerable.
func TestRulesVerdict(t *testing.T) {
	correct := func(why string) Verdict { return Verdict{Score: 1, Label: "correct", Reasoning: why} }
	wrong := func(why string) Verdict { return Verdict{Score: 0, Label: "wrong", Reasoning: why} }
	declines, answersIt := correct("abstains, as expected"), wrong("answers a question that should be declined")
	meta := func(key, raw string) map[string]json.RawMessage {
		return map[string]json.RawMessage{key: json.RawMessage(raw)}
	}
	tests := []struct {
		name string
		rec  record.Record
		pred string
		want Verdict
		err  error
	}{
		// English: SQuAD-normalised containment, else SQuAD token F1.
		{name: "contained", rec: record.Record{Answers: []string{"Barack Obama"}}, pred: "It was Obama, Barack Obama.",
			want: correct(`contains gold "Barack Obama"`)},
		{name: "contained after normalising", rec: record.Record{Answers: []string{"The Paris"}}, pred: "paris!",
			want: correct(`contains gold "The Paris"`)},
		{name: "words only, not inside a word", rec: record.Record{Answers: []string{"art"}}, pred: "a party",
			want: wrong("no gold contained, token F1 0.000 < 0.5")},
		{name: "token F1", rec: record.Record{Answers: []string{"the Eiffel Tower in Paris"}}, pred: "Eiffel Tower, Paris",
			want: correct("token F1 0.857 >= 0.5")},
		{name: "wrong", rec: record.Record{Answers: []string{"London"}}, pred: "Manchester",
			want: wrong("no gold contained, token F1 0.000 < 0.5")},
		{name: "best of the golds", rec: record.Record{Answers: []string{"London", "Manchester United"}}, pred: "Manchester",
			want: correct("token F1 0.667 >= 0.5")},
		{name: "token F1 of 0.5 exactly", rec: record.Record{Answers: []string{"red bus"}}, pred: "red car",
			want: correct("token F1 0.500 >= 0.5")},
		{name: "english lang", rec: record.Record{Lang: "en", Answers: []string{"Paris"}}, pred: "Paris.",
			want: correct(`contains gold "Paris"`)},
		// A gold that SQuAD's normalisation empties must be equalled, articles kept.
		{name: "gold an article, equalled", rec: record.Record{Answers: []string{"A"}}, pred: "a",
			want: correct(`equals gold "A", which SQuAD's normalisation empties`)},
		{name: "gold an article, punctuation around", rec: record.Record{Answers: []string{"(A)"}}, pred: "A.",
			want: correct(`equals gold "(A)", which SQuAD's normalisation empties`)},
		{name: "gold an article, in a sentence", rec: record.Record{Answers: []string{"A"}}, pred: "A cat",
			want: wrong("no gold contained, token F1 0.000 < 0.5")},
		{name: "gold an article, another letter", rec: record.Record{Answers: []string{"A"}}, pred: "B",
			want: wrong("no gold contained, token F1 0.000 < 0.5")},
		{name: "gold an article, empty prediction", rec: record.Record{Answers: []string{"The"}}, pred: "",
			want: wrong("no gold contained, token F1 0.000 < 0.5")},
		{name: "gold two articles", rec: record.Record{Answers: []string{"the a"}}, pred: "The  A!",
			want: correct(`equals gold "the a", which SQuAD's normalisation empties`)},
		{name: "gold punctuation", rec: record.Record{Answers: []string{"+"}}, pred: " + ",
			want: correct(`equals gold "+", which SQuAD's normalisation empties`)},
		{name: "gold punctuation, other", rec: record.Record{Answers: []string{"+"}}, pred: "-",
			want: wrong("no gold contained, token F1 0.000 < 0.5")},
		{name: "gold blank, empty prediction", rec: record.Record{Answers: []string{" "}}, pred: "", err: errBlankAnswers},
		{name: "golds blank, same prediction", rec: record.Record{Answers: []string{" ", "\u3000\t"}}, pred: " ", err: errBlankAnswers},
		{name: "zh, gold blank", rec: record.Record{Lang: "zh", Answers: []string{"\u3000"}}, pred: "北京", err: errBlankAnswers},
		{name: "gold blank beside a real gold", rec: record.Record{Answers: []string{" ", "Paris"}}, pred: "Paris",
			want: correct(`contains gold "Paris"`)},
		{name: "gold blank beside an empty one", rec: record.Record{Answers: []string{" ", ""}}, pred: "Paris", err: errBlankAnswers},
		{name: "gold an article beside a real gold", rec: record.Record{Answers: []string{"A", "Apple"}}, pred: "an apple",
			want: correct(`contains gold "Apple"`)},

		// Chinese: CMRC 2018's tokens (each character one, its punctuation dropped) and its F1.
		{name: "zh, full stop", rec: record.Record{Lang: "zh", Answers: []string{"北京"}}, pred: "北京。",
			want: correct(`contains gold "北京" (CMRC-normalised)`)},
		{name: "zh, after a word", rec: record.Record{Lang: "zh", Answers: []string{"北京"}}, pred: "是北京",
			want: correct(`contains gold "北京" (CMRC-normalised)`)},
		{name: "zh, in a sentence", rec: record.Record{Lang: "zh", Answers: []string{"北京"}}, pred: "答案是北京",
			want: correct(`contains gold "北京" (CMRC-normalised)`)},
		{name: "zh, punctuation in the gold", rec: record.Record{Lang: "zh", Answers: []string{"《红楼梦》"}}, pred: "是红楼梦。",
			want: correct(`contains gold "《红楼梦》" (CMRC-normalised)`)},
		{name: "zh, latin words", rec: record.Record{Lang: "zh", Answers: []string{"iPhone 6"}}, pred: "是iPhone 6。",
			want: correct(`contains gold "iPhone 6" (CMRC-normalised)`)},
		{name: "zh, a number between characters", rec: record.Record{Lang: "zh", Answers: []string{"2018"}}, pred: "在2018年",
			want: correct(`contains gold "2018" (CMRC-normalised)`)},
		{name: "zh, not inside a latin word", rec: record.Record{Lang: "zh", Answers: []string{"2018"}}, pred: "在12018年",
			want: wrong("no gold contained, CMRC F1 0.000 < 0.5")},
		{name: "zh, gold punctuation alone", rec: record.Record{Lang: "zh", Answers: []string{"。"}}, pred: " 。",
			want: correct(`equals gold "。", which CMRC's normalisation empties`)},
		{name: "zh, gold punctuation alone, other", rec: record.Record{Lang: "zh", Answers: []string{"。"}}, pred: "，",
			want: wrong("no gold contained, CMRC F1 0.000 < 0.5")},
		{name: "zh, CMRC F1", rec: record.Record{Lang: "zh", Answers: []string{"北京大学"}}, pred: "北京大",
			want: correct("CMRC F1 0.857 >= 0.5")},
		{name: "zh, CMRC F1 below", rec: record.Record{Lang: "zh", Answers: []string{"北京大学"}}, pred: "北京的大学",
			want: wrong("no gold contained, CMRC F1 0.444 < 0.5")},
		{name: "zh, best of the golds", rec: record.Record{Lang: "zh", Answers: []string{"上海", "北京大学"}}, pred: "北京大",
			want: correct("CMRC F1 0.857 >= 0.5")},
		{name: "zh, unrelated", rec: record.Record{Lang: "zh", Answers: []string{"北京"}}, pred: "上海",
			want: wrong("no gold contained, CMRC F1 0.000 < 0.5")},
		{name: "zh-CN", rec: record.Record{Lang: "zh-CN", Answers: []string{"北京"}}, pred: "北京。",
			want: correct(`contains gold "北京" (CMRC-normalised)`)},
		{name: "zh_TW", rec: record.Record{Lang: "zh_TW", Answers: []string{"北京"}}, pred: "答案是北京",
			want: correct(`contains gold "北京" (CMRC-normalised)`)},
		{name: "Chinese without lang: SQuAD's rules", rec: record.Record{Answers: []string{"北京"}}, pred: "北京。",
			want: wrong("no gold contained, token F1 0.000 < 0.5")},
		{name: "zh, answers [\"\"]", rec: record.Record{Lang: "zh", Answers: []string{""}}, pred: "北京", want: answersIt},
		{name: "zh, answers [\"\"], declines", rec: record.Record{Lang: "zh", Answers: []string{""}}, pred: "我不知道。", want: declines},
		{name: "zh, no_answer, not mentioned", rec: record.Record{Lang: "zh-CN", Type: "no_answer", Answers: []string{""}}, pred: "文中没有提到", want: declines},
		{name: "zh-TW, cannot answer", rec: record.Record{Lang: "zh-TW", Answers: []string{""}}, pred: "無法回答。", want: declines},
		{name: "zh-Hant, not mentioned", rec: record.Record{Lang: "zh-Hant", Type: "no_answer", Answers: []string{""}}, pred: "文中沒有提到", want: declines},
		{name: "yue, no information", rec: record.Record{Lang: "yue", Answers: []string{""}}, pred: "沒有相關資訊", want: declines},
		{name: "zh-TW, not sure", rec: record.Record{Lang: "zh-TW", Answers: []string{""}}, pred: "我不確定", want: declines},
		{name: "zh phrase, any record", rec: record.Record{Answers: []string{""}}, pred: "我不知道", want: declines},
		{name: "zh, no answers", rec: record.Record{Lang: "zh"}, pred: "北京", err: errNoAnswers},

		// Questions to decline.
		{name: "answers [\"\"], declines", rec: record.Record{Answers: []string{""}}, pred: "I do not know", want: declines},
		{name: "answers [\"\"], answers", rec: record.Record{Answers: []string{""}}, pred: "Paris", want: answersIt},
		{name: "every answer empty", rec: record.Record{Answers: []string{"", ""}}, pred: "", want: declines},
		{name: "no_answer, curly apostrophe", rec: record.Record{Type: "no_answer", Answers: []string{""}}, pred: "I don\u2019t know.", want: declines},
		{name: "no_answer, curly apostrophe, didn't", rec: record.Record{Type: "no_answer", Answers: []string{""}}, pred: "Caroline didn\u2019t mention it.", want: declines},
		{name: "no_answer, does not mention", rec: record.Record{Type: "no_answer", Answers: []string{""}}, pred: "The conversation does not mention this.", want: declines},
		{name: "no_answer, do not have", rec: record.Record{Type: "no_answer", Answers: []string{""}}, pred: "I do not have that information.", want: declines},
		{name: "squad v2 no_answer", rec: record.Record{Type: "no_answer", Answers: []string{""}}, pred: "Paris", want: answersIt},
		{name: "longmemeval _abs", rec: record.Record{ID: "longmemeval:x_abs", Answers: []string{"You never mentioned a dog"}}, pred: "Rex", want: answersIt},

		// No answers at all: declining is wanted only where the record says so.
		{name: "no answers", rec: record.Record{ID: "q1"}, pred: "Paris", err: errNoAnswers},
		{name: "no answers, declines", rec: record.Record{ID: "q1", Answers: []string{}}, pred: "I do not know", err: errNoAnswers},
		{name: "evalearn rubric, no answers", rec: record.Record{Dataset: "evalearn", Rubric: "Full marks for 4.", Answers: []string{}}, pred: "4",
			err: errNoAnswers},
		{name: "no answers, adversarial type", rec: record.Record{Type: "adversarial"}, pred: "Not mentioned", want: declines},
		{name: "no answers, no_answer type", rec: record.Record{Type: "no_answer", Answers: []string{}}, pred: "Paris", want: answersIt},
		{name: "no answers, meta.abstention", rec: record.Record{Meta: meta("abstention", "true")}, pred: "Rex", want: answersIt},
		{name: "no answers, locomo category 5", rec: record.Record{Dataset: "locomo", Meta: meta("category", "5")}, pred: "no information available",
			want: declines},
		{name: "no answers, locomo category 4", rec: record.Record{Dataset: "locomo", Meta: meta("category", "4")}, pred: "Paris",
			err: errNoAnswers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RulesVerdict(&tt.rec, tt.pred)
			if err != tt.err {
				t.Fatalf("RulesVerdict(%q, %q) error = %v, want %v", tt.rec.Answers, tt.pred, err, tt.err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(record.Judgment{})); d != "" {
				t.Errorf("RulesVerdict(%q, %q) (-want +got):\n%s", tt.rec.Answers, tt.pred, d)
			}
		})
	}
}

func TestContainsRun(t *testing.T) {
	for _, tt := range []struct {
		tokens, run []string
		want        bool
	}{
		{[]string{"答", "案", "是", "北", "京"}, []string{"北", "京"}, true},
		{[]string{"北", "京"}, []string{"北", "京"}, true},
		{[]string{"北", "的", "京"}, []string{"北", "京"}, false}, // in order, but not one after another
		{[]string{"北"}, []string{"北", "京"}, false},
		{nil, []string{"北"}, false},
		{[]string{"在", "12018", "年"}, []string{"2018"}, false},
	} {
		if got := containsRun(tt.tokens, tt.run); got != tt.want {
			t.Errorf("containsRun(%q, %q) = %v, want %v", tt.tokens, tt.run, got, tt.want)
		}
	}
}
