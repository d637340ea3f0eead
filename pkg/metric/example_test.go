package metric_test

import (
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/pkg/metric"
)

// METEOR matches words in three stages: exact ("the", "parked", "outside"), Porter stem ("is"
// and "was" share none), then WordNet synonyms of the stems: "car" and "auto" share a synset.
// The first call with synonyms loads the embedded WordNet table (see PrepareMETEOR).
func ExampleMETEOR() {
	refs := []string{"the auto is parked outside the house"}
	pred := "The car was parked outside"
	fmt.Printf("%.4f\n", metric.METEOR(pred, refs, true))
	fmt.Printf("%.4f\n", metric.METEOR(pred, refs, false))
	// Output:
	// 0.4642
	// 0.3758
}

// METEORBoth gives both scores for the price of one alignment. Against the first reference,
// "child" matches "kid" only as a synonym, which also joins "a child" into one chunk.
func ExampleMETEORBoth() {
	syn, plain := metric.METEORBoth("She is a child", []string{"she was a kid", "a young girl"})
	fmt.Printf("%.4f %.4f\n", syn, plain)
	// Output: 0.6389 0.2500
}

// The three scripts that share SQuAD's normaliser part ways on the edge cases: an empty answer
// to an unanswerable question is right for SQuAD v2.0 alone, and HotpotQA gives a yes/no answer
// no partial credit.
func ExampleSquadAll() {
	for _, tc := range []struct {
		pred string
		refs []string
	}{
		{"Denver Broncos", []string{"the Denver Broncos", "Broncos"}},
		{"", []string{""}},
		{"yes", []string{"yes indeed"}},
	} {
		s := metric.SquadAll(tc.pred, tc.refs)
		fmt.Printf("%q: %+v\n", tc.pred, s)
	}
	// Output:
	// "Denver Broncos": {EM:1 F1:1 Squad2EM:1 Squad2F1:1 HotpotEM:1 HotpotF1:1}
	// "": {EM:1 F1:0 Squad2EM:1 Squad2F1:1 HotpotEM:1 HotpotF1:0}
	// "yes": {EM:0 F1:0.6666666666666666 Squad2EM:0 Squad2F1:0.6666666666666666 HotpotEM:0 HotpotF1:0}
}

// SQuAD v2.0 drops the references that normalise to nothing; with none left the question is
// unanswerable, and only an answer that normalises to nothing ("the" does) scores 1.
func ExampleSquad2F1() {
	fmt.Println(metric.Squad2F1("", []string{"", " "}), metric.SquadF1("", []string{"", " "}))
	fmt.Println(metric.Squad2F1("Paris", nil), metric.Squad2F1("the", []string{""}))
	// Output:
	// 1 0
	// 0 1
}

// Corpus BLEU sums the clipped n-gram matches of every segment before dividing, so it is not the
// mean of sentence BLEU scores.
func ExampleCorpusBLEU() {
	hyps := [][]string{
		strings.Fields("the cat is on the mat"),
		strings.Fields("there is a dog in the garden"),
	}
	refs := [][][]string{
		{strings.Fields("the cat is on the mat"), strings.Fields("a cat sits on the mat")},
		{strings.Fields("a dog is in the garden")},
	}
	r, _, _ := metric.CorpusBLEU(hyps, refs, []float64{0.5, 0.5})
	fmt.Printf("BLEU-2 %.4f BP %.4f matches %v of %v\n", r.BLEU, r.BP, r.Numerators, r.Denominators)
	// Output: BLEU-2 0.8193 BP 1.0000 matches [12 8] of [13 11]
}

func ExampleClassify() {
	yTrue := []string{"cat", "dog", "dog", "bird", "cat", "dog"}
	yPred := []string{"cat", "dog", "cat", "bird", "dog", "dog"}
	r := metric.Classify(yTrue, yPred, metric.PRFOptions{})
	fmt.Printf("accuracy %.4f\n", r.Accuracy)
	for i, l := range r.Labels {
		fmt.Printf("%s P %.4f R %.4f F1 %.4f support %d\n",
			l, r.Precision[i], r.Recall[i], r.F1[i], r.Support[i])
	}
	fmt.Printf("macro F1 %.4f weighted F1 %.4f\n", r.Macro.F1, r.Weighted.F1)
	fmt.Println(r.CMLabels, r.Confusion)
	// Output:
	// accuracy 0.6667
	// bird P 1.0000 R 1.0000 F1 1.0000 support 1
	// cat P 0.5000 R 0.5000 F1 0.5000 support 2
	// dog P 0.6667 R 0.6667 F1 0.6667 support 3
	// macro F1 0.7222 weighted F1 0.6667
	// [bird cat dog] [[1 0 0] [0 1 1] [0 1 2]]
}

// The curve starts at a threshold above every score (the maximum plus 1), as scikit-learn's does.
func ExampleROCCurve() {
	r := metric.ROCCurve([]float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true})
	fmt.Println(r.FPR, r.TPR, r.Thresholds)
	fmt.Println(r.AUC())
	// Output:
	// [0 0 0.5 0.5 1] [0 0.5 0.5 1 1] [1.8 0.8 0.4 0.35 0.1]
	// 0.75
}

func ExampleRank() {
	queries := []string{"q1", "q1", "q1", "q2", "q2"}
	labels := []float64{0, 1, 1, 1, 0}
	scores := []float64{0.9, 0.8, 0.1, 0.3, 0.7}
	r := metric.Rank(queries, labels, scores, func(a, b string) bool { return a < b })
	for _, q := range r.Queries {
		fmt.Printf("%s RR %.4f AP %.4f\n", q.Query, q.RR, q.AP)
	}
	fmt.Printf("MRR %.4f MAP %.4f\n", r.MRR, r.MAP)
	// Output:
	// q1 RR 0.5000 AP 0.5833
	// q2 RR 0.5000 AP 0.5000
	// MRR 0.5000 MAP 0.5417
}

// Losses are per-record sums of negative log-likelihoods in nats.
func ExamplePerplexity() {
	r := metric.Perplexity([]float64{12.5, 30.25, 7.0}, []int{5, 12, 3})
	fmt.Printf("%d tokens, %.4f nats a token, perplexity %.4f (%d)\n",
		r.WordCount, r.AveLoss, r.PPL, r.PPLInt)
	// Output: 20 tokens, 2.4875 nats a token, perplexity 12.0312 (12)
}

// A tie (0.5 against 0.5) counts as a wrong pair.
func ExampleCountPairs() {
	c := metric.CountPairs([]float64{0.9, 0.4, 0.7, 0.5}, []float64{0.1, 0.6, 0.2, 0.5})
	acc, _ := c.Accuracy()
	pn, _ := c.PN(1e6)
	fmt.Printf("%+v accuracy %.2f PN %.1f ties skipped %.1f\n", c, acc, pn, c.PNTiesSkipped())
	// Output: {Pairs:4 Right:2 Wrong:2 Ties:1} accuracy 0.50 PN 1.0 ties skipped 2.0
}

// A chunk counts as correct only when its type and both its ends match: the predicted MISC
// chunk starts one token early.
func ExampleEvalChunks() {
	gold := [][]string{{"O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"}, {"B-PER", "I-PER", "O"}}
	pred := [][]string{{"O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"}, {"B-PER", "I-PER", "O"}}
	r := metric.EvalChunks(gold, pred)
	acc, _ := r.TokenAccuracy()
	fmt.Printf("%+v token accuracy %.1f\n", r.Total.PRF(), acc)
	for _, t := range r.Types {
		fmt.Printf("%s %+v\n", t, r.PerType[t])
	}
	// Output:
	// {Precision:0.5 Recall:0.5 F1:0.5} token accuracy 0.8
	// MISC {Label:1 Infer:1 Correct:0}
	// PER {Label:1 Infer:1 Correct:1}
}
