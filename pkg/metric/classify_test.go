package metric

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// jsonLabels turns labels back into JSON values of their original kind.
func jsonLabels(ls []string, numeric bool) []any {
	out := make([]any, len(ls))
	for i, l := range ls {
		if numeric {
			out[i] = json.Number(l)
		} else {
			out[i] = l
		}
	}
	return out
}

func nullable(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}

func TestClassifyGolden(t *testing.T) { checkClassify(t, goldenCases(t, "accuracy_prf.jsonl")) }

// checkClassify compares every figure exactly: they are scikit-learn's to the last bit.
func checkClassify(t *testing.T, cases []classCase) {
	checkCasesWithin(t, 0, cases, func(t *testing.T, c classCase) map[string]any {
		yTrue, num1 := labelList(t, c.Input["y_true"])
		yPred, num2 := labelList(t, c.Input["y_pred"])
		opt := PRFOptions{Order: LabelOrder{Numeric: num1 || num2}, PosLabel: labelValue(t, c.Params["pos_label"])}
		if l := c.Params["labels"]; string(l) != "null" {
			opt.Labels, _ = labelList(t, l)
		}
		if string(c.Params["zero_division"]) == "1" {
			opt.ZeroDivision = 1
		}
		r := Classify(yTrue, yPred, opt)
		numeric := opt.Order.Numeric
		got := map[string]any{
			"accuracy": r.Accuracy,
			"per_class": map[string]any{"labels": jsonLabels(r.Labels, numeric), "tp": r.TP,
				"predicted": r.Predicted, "support": r.Support, "precision": r.Precision,
				"recall": r.Recall, "f1": r.F1},
			"macro": r.Macro, "micro": r.Micro, "weighted": r.Weighted,
			"f1_of_macro_pr": r.F1OfMacroPR, "binary": r.Binary,
			"cm_labels": jsonLabels(r.CMLabels, numeric), "confusion_matrix": r.Confusion,
		}
		return got
	})
}

func TestAUCGolden(t *testing.T) { checkAUC(t, goldenCases(t, "auc.jsonl")) }

// checkAUC compares every figure exactly: they are scikit-learn's to the last bit. A curve with
// a class absent is nil, which the golden holds as null.
func checkAUC(t *testing.T, cases []classCase) {
	checkCasesWithin(t, 0, cases, func(t *testing.T, c classCase) map[string]any {
		yTrue, _ := labelList(t, c.Input["y_true"])
		scores := floats(t, c.Input["y_score"])
		pos := "1"
		if p := labelValue(t, c.Params["pos_label"]); p != nil {
			pos = *p
		}
		positive := make([]bool, len(yTrue))
		for i, l := range yTrue {
			positive[i] = l == pos
		}
		r := ROCCurve(scores, positive)
		return map[string]any{"n_pos": r.NPos, "n_neg": r.NNeg, "auc": nullable(r.AUC()),
			"roc_fpr": r.FPR, "roc_tpr": r.TPR, "roc_thresholds": r.Thresholds}
	})
}

func TestPairwiseGolden(t *testing.T) { checkPairwise(t, goldenCases(t, "pairwise.jsonl")) }

func checkPairwise(t *testing.T, cases []classCase) {
	checkCases(t, cases, func(t *testing.T, c classCase) map[string]any {
		var pc PairCounts
		if _, ok := c.Input["pos_scores"]; ok {
			pc = CountPairs(floats(t, c.Input["pos_scores"]), floats(t, c.Input["neg_scores"]))
		} else {
			qids, _ := labelList(t, c.Input["qids"])
			pc = CountGroupPairs(qids, floats(t, c.Input["labels"]), floats(t, c.Input["scores"]))
		}
		var capValue float64
		decode(t, "params.pn_inf_value", c.Params["pn_inf_value"], &capValue)
		pn, inf := pc.PN(capValue)
		acc, ok := pc.Accuracy()
		var accV any
		if ok {
			accV = acc
		}
		got := map[string]any{"pairs": pc.Pairs, "right_cnt": pc.Right, "wrong_cnt": pc.Wrong,
			"tie_cnt": pc.Ties, "pn": pn, "pn_inf": inf, "pairwise_acc": accV,
			"pn_ties_skipped": pc.PNTiesSkipped()}
		return got
	})
}

func TestChunkGolden(t *testing.T) { checkChunks(t, goldenCases(t, "chunk.jsonl")) }

func checkChunks(t *testing.T, cases []classCase) {
	checkCases(t, cases, func(t *testing.T, c classCase) map[string]any {
		var gold, pred [][]string
		decode(t, "input.gold", c.Input["gold"], &gold)
		decode(t, "input.pred", c.Input["pred"], &pred)
		r := EvalChunks(gold, pred)
		tot := r.Total.PRF()
		perType := map[string]any{}
		for _, typ := range r.Types {
			cc := r.PerType[typ]
			p := cc.PRF()
			perType[typ] = map[string]any{"label_chunks": cc.Label, "infer_chunks": cc.Infer,
				"correct_chunks": cc.Correct, "precision": p.Precision, "recall": p.Recall, "f1": p.F1}
		}
		list := func(cs []Chunk) []any {
			out := []any{}
			for _, ch := range cs {
				out = append(out, []any{ch.Sentence, ch.Type, ch.Start, ch.End})
			}
			return out
		}
		var acc any // null where there are no tokens
		if a, ok := r.TokenAccuracy(); ok {
			acc = a
		}
		got := map[string]any{"num_label_chunks": r.Total.Label, "num_infer_chunks": r.Total.Infer,
			"num_correct_chunks": r.Total.Correct, "precision": tot.Precision, "recall": tot.Recall,
			"f1": tot.F1, "tokens": r.Tokens, "token_accuracy": acc, "per_type": perType,
			"gold_chunks": list(r.Gold), "pred_chunks": list(r.Pred)}
		return got
	})
}

func TestRankGolden(t *testing.T) { checkRank(t, goldenCases(t, "ranking.jsonl")) }

func checkRank(t *testing.T, cases []classCase) {
	checkCases(t, cases, func(t *testing.T, c classCase) map[string]any {
		qids, numeric := labelList(t, c.Input["qids"])
		order := LabelOrder{Numeric: numeric}
		r := Rank(qids, floats(t, c.Input["labels"]), floats(t, c.Input["scores"]),
			func(a, b string) bool { return order.Compare(a, b) < 0 })
		per := []any{}
		for _, q := range r.Queries {
			per = append(per, map[string]any{"qid": jsonLabels([]string{q.Query}, numeric)[0], "n": q.N,
				"n_relevant_mrr": q.RelevantMRR, "n_relevant_map": q.RelevantMAP, "rr": q.RR, "ap": q.AP})
		}
		got := map[string]any{"num_queries": len(r.Queries), "mrr": r.MRR, "map": r.MAP, "per_query": per}
		return got
	})
}

func TestPerplexityGolden(t *testing.T) { checkPerplexity(t, goldenCases(t, "ppl.jsonl")) }

func checkPerplexity(t *testing.T, cases []classCase) {
	checkCases(t, cases, func(t *testing.T, c classCase) map[string]any {
		var tokens []int
		decode(t, "input.token_counts", c.Input["token_counts"], &tokens)
		r := Perplexity(floats(t, c.Input["loss"]), tokens)
		got := map[string]any{"word_count": r.WordCount, "mean_loss": r.MeanLoss, "total_loss": r.TotalLoss,
			"ave_loss": r.AveLoss, "ppl": r.PPL, "ppl_int": r.PPLInt}
		return got
	})
}

// TestClassifyAveragesExact checks the macro and weighted averages over eight classes to the last
// bit: numpy sums eight or more values pairwise, not left to right, and the golden tests' 1e-9
// cannot tell the two apart. The wants are scikit-learn 1.2.1's (numpy 1.24.2):
// precision_recall_fscore_support(y_true, y_pred, average=..., zero_division=0).
func TestClassifyAveragesExact(t *testing.T) {
	yTrue := []int{0, 5, 3, 2, 4, 3, 3, 6, 5, 5, 7, 3, 3, 3, 1, 2}
	yPred := []int{7, 6, 2, 2, 4, 4, 0, 6, 5, 7, 3, 5, 3, 7, 2, 3}
	var g, p []string
	for i := range yTrue {
		g, p = append(g, strconv.Itoa(yTrue[i])), append(p, strconv.Itoa(yPred[i]))
	}
	r := Classify(g, p, PRFOptions{Order: LabelOrder{Numeric: true}})
	for _, c := range []struct {
		name      string
		got, want PRF
	}{
		// Left to right: 0.375 and 0.2944444444444444.
		{"macro", r.Macro, PRF{0.2708333333333333, 0.37499999999999994, 0.29444444444444445}},
		// Left to right: 0.2916666666666667.
		{"weighted", r.Weighted, PRF{0.32291666666666663, 0.3125, 0.29166666666666663}},
	} {
		if c.got != c.want {
			t.Errorf("Classify(...).%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestAUCExact checks a ROC AUC of eight trapezoids to the last bit: numpy's trapz sums them
// pairwise, not left to right (0.42857142857142855), which the golden tests' 1e-9 cannot tell.
// The want is scikit-learn 1.2.1's roc_auc_score (numpy 1.24.2).
func TestAUCExact(t *testing.T) {
	gold := []bool{true, true, true, true, false, true, false, false, true, false, true}
	scores := []float64{0.21, 0.17, 0.26, 0.49, 0.8, 0.86, 0.38, 0.3, 0.84, 0.24, 0.02}
	if got, want := ROCCurve(scores, gold).AUC(), 0.4285714285714285; got != want {
		t.Errorf("ROCCurve(...).AUC() = %v, want %v", got, want)
	}
}

// TestLabelOrderCompare: numeric labels compare as integers, exactly past 2⁵³, and two different
// labels equal as numbers are still told apart (by code point), so that a sort keeps each
// label's records together.
func TestLabelOrderCompare(t *testing.T) {
	for _, tc := range []struct {
		numeric bool
		a, b    string
		want    int
	}{
		{true, "10", "2", 1},
		{false, "10", "2", -1},
		{true, "-3", "2", -1},
		{true, "9007199254740993", "9007199254740992", 1},
		{true, "99999999999999999999", "100000000000000000000", -1},
		{true, "-0", "0", -1},
		{true, "0", "-0", 1},
		{true, "7", "7", 0},
		{true, "b", "a", 1},
	} {
		if got := (LabelOrder{Numeric: tc.numeric}).Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("LabelOrder{Numeric: %v}.Compare(%q, %q) = %d, want %d", tc.numeric, tc.a, tc.b, got, tc.want)
		}
	}
}

// TestPerplexityTotalLoss checks total_loss to the last bit: ERNIE-kit's Ppl takes it as the mean
// loss times the record count, which here is not the plain sum (90.06099999999999); the golden
// tests' 1e-9 cannot tell the two apart. The wants are numpy 1.24.2's np.mean(loss)·5 and that
// over the 72 tokens.
func TestPerplexityTotalLoss(t *testing.T) {
	r := Perplexity([]float64{31.286, 3.276, 0.658, 41.873, 12.968}, []int{8, 7, 23, 16, 18})
	if r.WordCount != 72 || r.MeanLoss != 18.0122 || r.TotalLoss != 90.061 || r.AveLoss != 1.2508472222222222 {
		t.Errorf("Perplexity(...) = %+v, want word count 72, mean loss 18.0122, total loss 90.061, ave loss 1.2508472222222222", r)
	}
}

// TestChunksSplitTag checks the golden README's rules on tags no golden case has: an empty tag
// has no prefix and the type "_" (not ""), so it ends a chunk of another type and starts one that
// nothing ends (neither its prefix nor, against the O after the last tag, its type calls for an
// end): no chunk of its own.
func TestChunksSplitTag(t *testing.T) {
	for _, tc := range []struct {
		tags []string
		want []Chunk
	}{
		{[]string{""}, nil},
		{[]string{"B-PER", ""}, []Chunk{{0, "PER", 0, 1}}},
		{[]string{"B", "I"}, []Chunk{{0, "_", 0, 2}}},
		{[]string{"I-ORG-X", "S-人名"}, []Chunk{{0, "ORG-X", 0, 1}, {0, "人名", 1, 2}}},
	} {
		if got := Chunks([][]string{tc.tags}); !slices.Equal(got, tc.want) {
			t.Errorf("Chunks(%q) = %v, want %v", tc.tags, got, tc.want)
		}
	}
}

// TestChunksWhereConllevalDiffers pins the chunking README and --help describe where seqeval's
// get_entities, which Chunks follows, and conlleval part: a tag without '-' is its first
// character and a type (conlleval finds no chunk in NP VP), a tag without a type is of type "_",
// and E- and S- end a chunk (conlleval runs E-X S-X and E-X B-X into one).
func TestChunksWhereConllevalDiffers(t *testing.T) {
	for _, c := range []struct {
		tags string
		want []Chunk
	}{
		{"NP VP", []Chunk{{Type: "P", Start: 0, End: 2}}},
		{"Yes no", []Chunk{{Type: "es", Start: 0, End: 1}, {Type: "o", Start: 1, End: 2}}},
		{"B I O", []Chunk{{Type: "_", Start: 0, End: 2}}},
		{"E-X S-X", []Chunk{{Type: "X", Start: 0, End: 1}, {Type: "X", Start: 1, End: 2}}},
		{"E-X B-X", []Chunk{{Type: "X", Start: 0, End: 1}, {Type: "X", Start: 1, End: 2}}},
	} {
		if got := Chunks([][]string{strings.Fields(c.tags)}); !slices.Equal(got, c.want) {
			t.Errorf("Chunks(%q) = %v, want %v", c.tags, got, c.want)
		}
	}
}
