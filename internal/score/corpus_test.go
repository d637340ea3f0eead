package score

import (
	"math"
	"slices"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestTakesPart: a labelled record counts as scored only when a selected label metric reads it;
// one whose prediction has no text (a score alone) gives no predicted label, so the
// classification metrics do not read it.
func TestTakesPart(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		want                   []string
		score                  float64
		grouped, noText, takes bool
	}{
		{[]string{"accuracy"}, nan, false, false, true},
		{[]string{"f1_score", "mrr"}, nan, false, false, true},
		{[]string{"accuracy"}, 0.3, false, true, false},
		{[]string{"accuracy", "auc"}, 0.3, false, true, true},
		{[]string{"accuracy", "auc"}, nan, false, true, false},
		{[]string{"auc"}, nan, true, false, false},
		{[]string{"auc"}, 0.3, false, false, true},
		{[]string{"mrr", "map"}, 0.3, false, false, false},
		{[]string{"mrr", "map"}, 0.3, true, false, true},
		{[]string{"pn", "pairwise_acc"}, nan, true, false, false},
		{[]string{"pairwise_acc"}, 0, true, false, true},
		{[]string{"auc", "pn"}, 0.9, false, false, true},
	} {
		cfg := &corpusConfig{want: c.want}
		l := &labelled{gold: "1", pred: "1", hasText: !c.noText, score: c.score, grouped: c.grouped}
		if got := cfg.takesPart(l); got != c.takes {
			t.Errorf("%v, score %v, grouped %v, no text %v: takesPart = %v, want %v", c.want, c.score, c.grouped, c.noText, got, c.takes)
		}
	}
}

// TestLabelOrder: labels (and query groups) that are all integers sort as the integers they are,
// past 2^63 too, as the README says; one that is not an integer sorts them all by code point.
func TestLabelOrder(t *testing.T) {
	for _, c := range []struct {
		labels  []string
		numeric bool
		sorted  []string
	}{
		{[]string{"10", "2", "-3"}, true, []string{"-3", "2", "10"}},
		{[]string{"18446744073709551616", "10", "2"}, true, []string{"2", "10", "18446744073709551616"}},
		{[]string{"-99999999999999999999", "0", "+7"}, true, []string{"-99999999999999999999", "0", "+7"}},
		{[]string{"10", "2", "x"}, false, []string{"10", "2", "x"}},
		{[]string{"10", "2", "1.5"}, false, []string{"1.5", "10", "2"}},
		{[]string{"10", "2", ""}, false, []string{"", "10", "2"}},
		{[]string{"10", "2", "-"}, false, []string{"-", "10", "2"}},
		{[]string{"1_0", "2"}, false, []string{"1_0", "2"}},
	} {
		o := labelOrder(c.labels)
		if got := o.Sorted(c.labels); o.Numeric != c.numeric || !slices.Equal(got, c.sorted) {
			t.Errorf("labelOrder(%q): numeric %v, sorted %q; want %v, %q", c.labels, o.Numeric, got, c.numeric, c.sorted)
		}
	}
}

// TestGoldLabel: without --label-field the gold label is answers[0], the first of several; a
// record without answers has none.
func TestGoldLabel(t *testing.T) {
	cfg := &corpusConfig{want: []string{"accuracy"}}
	for _, c := range []struct {
		answers []string
		want    string
		ok      bool
	}{{[]string{"pos", "neg"}, "pos", true}, {[]string{"neg"}, "neg", true}, {nil, "", false}} {
		if got, ok, bad := cfg.gold(&record.Record{ID: "q", Answers: c.answers}, nil); got != c.want || ok != c.ok || bad {
			t.Errorf("gold(answers %q) = %q, %v, want %q, %v", c.answers, got, ok, c.want, c.ok)
		}
	}
}

// TestBleuCountsCase: corpus BLEU compares the split() tokens of the prediction and of every
// answer as exact strings, as NLTK's corpus_bleu compares the lists it is given (golden cases
// bleu-0046 and bleu-0047): case alone costs a match, while blanks only separate tokens.
func TestBleuCountsCase(t *testing.T) {
	for _, tc := range []struct {
		pred    string
		answers []string
		want    []int
	}{
		{"The Cat sat", []string{"the CAT sat", "x"}, []int{1, 0, 0, 0}},
		{"the cat sat", []string{"the cat sat", "x"}, []int{3, 2, 1, 0}},
		{" the\tcat\u3000sat ", []string{"the cat  sat"}, []int{3, 2, 1, 0}},
		{"The Cat sat", []string{"x", "The Cat sat"}, []int{3, 2, 1, 0}},
	} {
		c := newBleuCounts(tc.pred, tc.answers, 4)
		if !slices.Equal(c.Numerators, tc.want) {
			t.Errorf("newBleuCounts(%q, %q).Numerators = %v, want %v", tc.pred, tc.answers, c.Numerators, tc.want)
		}
	}
}

// TestRelevance: a gold label is a relevance when it is a number as a score is one (a finite
// decimal, blanks around it ignored, as Python's float() takes " 1"), else --pos-label's 1 or 0.
func TestRelevance(t *testing.T) {
	for _, tt := range []struct {
		gold string
		want float64
	}{
		{"2", 2}, {"0.5", 0.5}, {" 1", 1}, {"1 ", 1}, {"-1", -1}, {"0", 0},
		{"yes", 1}, {"no", 0}, // --pos-label yes
		{"NaN", 0}, {"Infinity", 0}, {"0x1p0", 0}, {"1,5", 0}, {"", 0},
	} {
		if got := relevance(tt.gold, "yes"); got != tt.want {
			t.Errorf("relevance(%q, yes) = %v, want %v", tt.gold, got, tt.want)
		}
	}
}

// TestAUCLabels: without --pos-label, auc warns of gold labels that scikit-learn's roc_curve
// refuses without a pos_label: one other than 0, 1 and -1 (the first of them named), or 0 and -1
// together; 0/1 and -1/1 are its binary labels, and --pos-label given says which is positive.
// TestPosTwinWarning: the warning of gold labels that differ from --pos-label in case or white
// space alone counts the records of the metric that holds the most of them (auc takes records
// without a query group too), and leaves out a twin that is a number equal to --pos-label, which
// the query groups' metrics read as the relevance it is.
func TestPosTwinWarning(t *testing.T) {
	type rec struct {
		gold    string
		grouped bool
	}
	for _, c := range []struct {
		pos  string
		want []string
		recs []rec
		warn string
	}{
		{"yes", []string{"auc", "mrr"}, []rec{{"Yes", false}, {"Yes", false}, {"Yes", true}, {"no", true}},
			`auc, mrr: 3 records have a gold label that differs from --pos-label "yes" only in case or surrounding white space (the first: "Yes"): labels compare exactly, so they are negative (relevance 0); --label-map joins them (yes=yes)`},
		{"yes", []string{"mrr"}, []rec{{" yes", true}, {"Yes", false}},
			`mrr: 1 record has a gold label that differs from --pos-label "yes" only in case or surrounding white space (the first: " yes"): labels compare exactly, so it is negative (relevance 0); --label-map joins them (yes=yes)`},
		{"1", []string{"mrr"}, []rec{{" 1", true}, {"0", true}}, ""},
		// An ungrouped record is no part of mrr: the first named is the first counted.
		{"yes", []string{"mrr"}, []rec{{"Yes", false}, {" yes", true}},
			`mrr: 1 record has a gold label that differs from --pos-label "yes" only in case or surrounding white space (the first: " yes"): labels compare exactly, so it is negative (relevance 0); --label-map joins them (yes=yes)`},
	} {
		a := newCorpusGroup(&corpusConfig{want: c.want, posLabel: c.pos}, false)
		for i, r := range c.recs {
			a.addLabelled(&labelled{gold: r.gold, group: "g", grouped: r.grouped, hasText: true, score: float64(i)})
		}
		if got := a.posTwinWarning(); got != c.warn {
			t.Errorf("--pos-label %q, %v, records %v: posTwinWarning() = %q, want %q", c.pos, c.want, c.recs, got, c.warn)
		}
	}
}

func TestAUCLabels(t *testing.T) {
	const tail = ` and --pos-label is not given: the records labelled "1" are the positives and every other label a negative (scikit-learn's roc_curve refuses such labels without a pos_label); give --pos-label to say which label is positive`
	const spelt = ` and --pos-label is not given: the records labelled "1" are the positives and every other label a negative, a label being compared as its text (scikit-learn's roc_curve, given numbers or booleans, reads 1.0 and true as 1); give --pos-label to say which label is positive`
	for _, c := range []struct {
		golds []string
		given bool
		want  string
	}{
		{[]string{"0", "1", "1"}, false, ""},
		{[]string{"-1", "1"}, false, ""},
		{[]string{"1", "1"}, false, ""},
		{[]string{"0", "-1", "1"}, false, "auc: the gold labels are 0, -1 and perhaps 1, not 0/1 nor -1/1" + tail},
		{[]string{"-1", "0"}, false, "auc: the gold labels are 0, -1 and perhaps 1, not 0/1 nor -1/1" + tail},
		{[]string{"0", "-1", "1"}, true, ""},
		{[]string{"1", "yes", "0", "no"}, false, `auc: 2 records have a gold label other than 0, 1 and -1 (the first: "yes")` + tail},
		{[]string{"2", "-1", "0"}, false, `auc: 1 record has a gold label other than 0, 1 and -1 (the first: "2")` + tail},
		{[]string{"yes", "no"}, true, ""},
		// A JSON number or boolean that is 1, 0 or -1 spelt otherwise is its text, no match for
		// "1", where scikit-learn, given the numbers, reads 1.0 and true as 1 and refuses nothing.
		{[]string{"1.0", "0.0", "1.0"}, false, `auc: 3 records have a gold label other than 0, 1 and -1 (the first: "1.0")` + spelt},
		{[]string{"true", "false"}, false, `auc: 2 records have a gold label other than 0, 1 and -1 (the first: "true")` + spelt},
		{[]string{"1.0", "yes"}, false, `auc: 2 records have a gold label other than 0, 1 and -1 (the first: "1.0")` + tail},
		// A word anywhere among them, not only the last such label, makes the refusal the reason.
		{[]string{"yes", "1.0"}, false, `auc: 2 records have a gold label other than 0, 1 and -1 (the first: "yes")` + tail},
		{[]string{"-1.0", "1"}, false, `auc: 1 record has a gold label other than 0, 1 and -1 (the first: "-1.0")` + spelt},
	} {
		cfg := &corpusConfig{want: []string{"auc"}, posLabel: "1", posLabelGiven: c.given}
		a := newCorpusGroup(cfg, false)
		for i, g := range c.golds {
			a.addLabelled(&labelled{gold: g, hasText: true, score: float64(i)})
		}
		if got := a.aucLabels(); got != c.want {
			t.Errorf("golds %q, --pos-label given %v: aucLabels() = %q, want %q", c.golds, c.given, got, c.want)
		}
	}
}
