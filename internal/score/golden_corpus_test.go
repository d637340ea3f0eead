package score

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/vectors"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// The golden cases of testdata/golden (see its README) run through the whole command: records in,
// summary out.

// goldenCase is a case of the classification goldens.
type goldenCase = vectors.ClassCase

// randomGolden holds scripts/random-classification.py's committed cases in the golden format. The
// tests of pkg/metric read them too, so they are kept in one place, not copied here.
const randomGolden = "../../pkg/metric/testdata/classification/random"

// readGoldenCases returns the cases of testdata/golden/name, then the random ones of the same name
// in randomGolden, then those of the file of the same name in the folder $QA_CLASSIFICATION_GOLDEN
// names, if set: more cases in the golden format, such as that script writes with another seed.
// The first two must hold their documented counts; the last, any but none.
func readGoldenCases(t *testing.T, name string) []goldenCase {
	t.Helper()
	want, ok := vectors.ClassificationCounts[name]
	if !ok {
		t.Fatalf("no golden count for %s", name)
	}
	cases := vectors.ReadClassCases(t, filepath.Join("testdata", "golden", name), name, want)
	cases = append(cases, vectors.ReadClassCases(t, filepath.Join(randomGolden, name), "random/"+name, vectors.ClassificationRandomCount)...)
	if dir := os.Getenv("QA_CLASSIFICATION_GOLDEN"); dir != "" {
		path := filepath.Join(dir, name)
		cases = append(cases, vectors.ReadClassCases(t, path, path, -1)...)
	}
	return cases
}

// checkedAll fails unless a test checked every one of its cases to the end.
func checkedAll(t *testing.T, name string, checked int, cases []goldenCase) {
	t.Helper()
	t.Logf("%d %s cases checked", checked, name)
	if checked != len(cases) {
		t.Errorf("%s: %d cases checked, want all %d", name, checked, len(cases))
	}
}

// decode decodes a JSON value of a case, failing the test when it is missing or malformed.
func decode(t *testing.T, id, what string, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %s: %v", id, what, err)
	}
}

// goldenRecord is a record of a golden case; label fields hold raw JSON so numbers keep their
// literal text.
type goldenRecord struct {
	Schema     int            `json:"schema"`
	ID         string         `json:"id"`
	Question   string         `json:"question"`
	Answers    []string       `json:"answers"`
	Prediction map[string]any `json:"prediction"`
	Meta       map[string]any `json:"meta,omitempty"`
}

// runGolden runs qa-score on records and returns the summary.
func runGolden(t *testing.T, id string, recs []goldenRecord, args ...string) *Summary {
	t.Helper()
	var in bytes.Buffer
	for i, r := range recs {
		r.Schema, r.ID, r.Question = 1, strconv.Itoa(i), "q"
		if r.Answers == nil {
			r.Answers = []string{}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), append([]string{"qa-score", "--summary", "-", "--bootstrap", "0"}, args...), &in, &stdout, &stderr)
	if code := command.ExitCode(err); code != 0 {
		t.Fatalf("%s: qa-score %v: exit %d: %s", id, args, code, stderr.String())
	}
	var s Summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("%s: summary: %v", id, err)
	}
	if s.Corpus == nil {
		t.Fatalf("%s: no corpus section in %s", id, stdout.String())
	}
	return &s
}

// literal returns a JSON label as qa-score reads it: a string as itself, a number as its text.
func literal(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

func literals(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var xs []json.RawMessage
	if err := json.Unmarshal(raw, &xs); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = literal(x)
	}
	return out
}

func number(raw json.RawMessage) json.Number { return json.Number(bytes.TrimSpace(raw)) }

func numbers(t *testing.T, raw json.RawMessage) []json.Number {
	t.Helper()
	var xs []json.RawMessage
	if err := json.Unmarshal(raw, &xs); err != nil {
		t.Fatal(err)
	}
	out := make([]json.Number, len(xs))
	for i, x := range xs {
		out[i] = number(x)
	}
	return out
}

// closeTo compares got with a raw expected value: null matches a nil got.
func closeTo(t *testing.T, id, what string, got *float64, want json.RawMessage) {
	t.Helper()
	if string(bytes.TrimSpace(want)) == "null" {
		if got != nil {
			t.Errorf("%s: %s = %v, want null", id, what, *got)
		}
		return
	}
	w, err := strconv.ParseFloat(string(bytes.TrimSpace(want)), 64)
	if err != nil {
		t.Fatalf("%s: %s: %v", id, what, err)
	}
	if got == nil || math.Abs(*got-w) > 1e-9 {
		t.Errorf("%s: %s = %v, want %v", id, what, deref(got), w)
	}
}

func deref(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

func equalInt(t *testing.T, id, what string, got int, want json.RawMessage) {
	t.Helper()
	if w, err := strconv.Atoi(string(bytes.TrimSpace(want))); err != nil || got != w {
		t.Errorf("%s: %s = %d, want %s", id, what, got, want)
	}
}

func TestGoldenClassification(t *testing.T) {
	checked := 0
	cases := readGoldenCases(t, "accuracy_prf.jsonl")
	for _, c := range cases {
		yTrue, yPred := literals(t, c.Input["y_true"]), literals(t, c.Input["y_pred"])
		recs := make([]goldenRecord, len(yTrue))
		for i := range yTrue {
			recs[i] = goldenRecord{Answers: []string{yTrue[i]}, Prediction: map[string]any{"text": yPred[i]}}
		}
		args := []string{"--metrics", "classification", "--zero-division", strings.Trim(string(c.Params["zero_division"]), `"`)}
		if p := c.Params["pos_label"]; string(p) != "null" {
			args = append(args, "--average", "binary", "--pos-label", literal(p))
		}
		if l := c.Params["labels"]; string(l) != "null" {
			classes, err := json.Marshal(literals(t, l)) // a JSON list: a class may be "" or hold a comma
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, "--labels", string(classes))
		}
		cl := runGolden(t, c.ID, recs, args...).Corpus.Classification
		var want struct {
			PerClass struct {
				Labels                 []json.RawMessage
				TP, Predicted, Support []float64
				Precision, Recall, F1  []float64
			} `json:"per_class"`
			Macro, Micro, Weighted map[string]float64
			Binary                 *map[string]float64
			F1OfMacroPR            float64           `json:"f1_of_macro_pr"`
			CMLabels               []json.RawMessage `json:"cm_labels"`
			Confusion              [][]int           `json:"confusion_matrix"`
		}
		raw, err := json.Marshal(c.Expected)
		if err != nil {
			t.Fatal(err)
		}
		decode(t, c.ID, "expected", raw, &want)
		closeTo(t, c.ID, "accuracy", &cl.Accuracy, c.Expected["accuracy"])
		n := len(want.PerClass.Labels)
		for what, l := range map[string]int{"tp": len(want.PerClass.TP), "predicted": len(want.PerClass.Predicted),
			"support": len(want.PerClass.Support), "precision": len(want.PerClass.Precision),
			"recall": len(want.PerClass.Recall), "f1": len(want.PerClass.F1)} {
			if l != n {
				t.Fatalf("%s: expected per_class has %d %s for %d labels", c.ID, l, what, n)
			}
		}
		if len(cl.Labels) != n {
			t.Errorf("%s: classes %q, want %d: %s", c.ID, cl.Labels, n, c.Expected["per_class"])
		}
		// qa-score may order the classes differently (labels that are strings of digits sort
		// numerically), so compare class by class.
		for i, l := range want.PerClass.Labels {
			k := slices.Index(cl.Labels, literal(l))
			if k < 0 {
				t.Errorf("%s: class %s missing from %q", c.ID, l, cl.Labels)
				continue
			}
			if float64(cl.TP[k]) != want.PerClass.TP[i] || float64(cl.Predicted[k]) != want.PerClass.Predicted[i] || float64(cl.Support[k]) != want.PerClass.Support[i] {
				t.Errorf("%s: class %s counts = %d %d %d, want %v %v %v", c.ID, l, cl.TP[k], cl.Predicted[k], cl.Support[k], want.PerClass.TP[i], want.PerClass.Predicted[i], want.PerClass.Support[i])
			}
			for _, x := range [][2]float64{{cl.Precision[k], want.PerClass.Precision[i]}, {cl.Recall[k], want.PerClass.Recall[i]}, {cl.F1[k], want.PerClass.F1[i]}} {
				if math.Abs(x[0]-x[1]) > 1e-9 {
					t.Errorf("%s: class %s P/R/F1 value = %v, want %v", c.ID, l, x[0], x[1])
				}
			}
		}
		for name, got := range map[string]map[string]float64{
			"macro":    {"precision": cl.Macro.Precision, "recall": cl.Macro.Recall, "f1": cl.Macro.F1},
			"micro":    {"precision": cl.Micro.Precision, "recall": cl.Micro.Recall, "f1": cl.Micro.F1},
			"weighted": {"precision": cl.Weighted.Precision, "recall": cl.Weighted.Recall, "f1": cl.Weighted.F1},
		} {
			w := map[string]map[string]float64{"macro": want.Macro, "micro": want.Micro, "weighted": want.Weighted}[name]
			if len(w) != len(got) {
				t.Fatalf("%s: expected %s has %d fields, want %d", c.ID, name, len(w), len(got))
			}
			for k, v := range got {
				if math.Abs(v-w[k]) > 1e-9 {
					t.Errorf("%s: %s %s = %v, want %v", c.ID, name, k, v, w[k])
				}
			}
		}
		switch {
		case (want.Binary == nil) != (cl.Binary == nil):
			t.Errorf("%s: binary = %v, want %v", c.ID, cl.Binary, want.Binary)
		case cl.Binary != nil:
			b := *want.Binary
			if len(b) != 3 {
				t.Fatalf("%s: expected binary has %d fields, want 3", c.ID, len(b))
			}
			if math.Abs(cl.Binary.Precision-b["precision"]) > 1e-9 || math.Abs(cl.Binary.Recall-b["recall"]) > 1e-9 || math.Abs(cl.Binary.F1-b["f1"]) > 1e-9 {
				t.Errorf("%s: binary = %+v, want %v", c.ID, *cl.Binary, b)
			}
		}
		if len(want.Confusion) != len(want.CMLabels) {
			t.Fatalf("%s: expected confusion_matrix has %d rows for %d labels", c.ID, len(want.Confusion), len(want.CMLabels))
		}
		if len(cl.CMLabels) != len(want.CMLabels) {
			t.Errorf("%s: confusion matrix labels %q, want %s", c.ID, cl.CMLabels, c.Expected["cm_labels"])
		}
		for i, li := range want.CMLabels {
			if len(want.Confusion[i]) != len(want.CMLabels) {
				t.Fatalf("%s: expected confusion_matrix row %d has %d columns for %d labels", c.ID, i, len(want.Confusion[i]), len(want.CMLabels))
			}
			for j, lj := range want.CMLabels {
				a, b := slices.Index(cl.CMLabels, literal(li)), slices.Index(cl.CMLabels, literal(lj))
				if a < 0 || b < 0 || cl.Confusion[a][b] != want.Confusion[i][j] {
					t.Errorf("%s: confusion[%s][%s] wrong (got labels %q)", c.ID, li, lj, cl.CMLabels)
				}
			}
		}
		checked++
	}
	checkedAll(t, "classification", checked, cases)
}

func TestGoldenAUC(t *testing.T) {
	checked := 0
	cases := readGoldenCases(t, "auc.jsonl")
	for _, c := range cases {
		yTrue, scores := literals(t, c.Input["y_true"]), numbers(t, c.Input["y_score"])
		recs := make([]goldenRecord, len(yTrue))
		for i := range yTrue {
			recs[i] = goldenRecord{Answers: []string{yTrue[i]}, Prediction: map[string]any{"text": "", "score": scores[i]}}
		}
		pos := "1"
		if p := c.Params["pos_label"]; string(p) != "null" {
			pos = literal(p)
		}
		a := runGolden(t, c.ID, recs, "--metrics", "auc", "--pos-label", pos).Corpus.AUC
		equalInt(t, c.ID, "n_pos", a.Positives, c.Expected["n_pos"])
		equalInt(t, c.ID, "n_neg", a.Negatives, c.Expected["n_neg"])
		closeTo(t, c.ID, "auc", a.AUC, c.Expected["auc"])
		checked++
	}
	checkedAll(t, "auc", checked, cases)
}

func TestGoldenPairwise(t *testing.T) {
	checked := 0
	cases := readGoldenCases(t, "pairwise.jsonl")
	for _, c := range cases {
		var recs []goldenRecord
		rec := func(group string, label string, score json.Number) goldenRecord {
			return goldenRecord{Answers: []string{label}, Prediction: map[string]any{"text": "", "score": score}, Meta: map[string]any{"group": group}}
		}
		if q, ok := c.Input["qids"]; ok {
			qids, labels, scores := literals(t, q), literals(t, c.Input["labels"]), numbers(t, c.Input["scores"])
			for i := range qids {
				recs = append(recs, rec(qids[i], labels[i], scores[i]))
			}
		} else {
			pos, neg := numbers(t, c.Input["pos_scores"]), numbers(t, c.Input["neg_scores"])
			for i := range pos {
				g := strconv.Itoa(i)
				recs = append(recs, rec(g, "1", pos[i]), rec(g, "0", neg[i]))
			}
		}
		p := runGolden(t, c.ID, recs, "--metrics", "pairwise").Corpus.Pairwise // no record too (pairs_empty)
		equalInt(t, c.ID, "pairs", p.Pairs, c.Expected["pairs"])
		equalInt(t, c.ID, "right", p.Right, c.Expected["right_cnt"])
		equalInt(t, c.ID, "wrong", p.Wrong, c.Expected["wrong_cnt"])
		equalInt(t, c.ID, "ties", p.Ties, c.Expected["tie_cnt"])
		inf := string(c.Expected["pn_inf"]) == "true"
		if p.PNInf != inf {
			t.Errorf("%s: pn_inf = %v, want %v", c.ID, p.PNInf, inf)
		}
		closeTo(t, c.ID, "pn", p.PN, c.Expected["pn"]) // 128.0 where infinite
		closeTo(t, c.ID, "pairwise_acc", p.PairwiseAcc, c.Expected["pairwise_acc"])
		closeTo(t, c.ID, "pn_ties_skipped", &p.PNTiesSkipped, c.Expected["pn_ties_skipped"])
		checked++
	}
	checkedAll(t, "pairwise", checked, cases)
}

func TestGoldenRanking(t *testing.T) {
	checked := 0
	cases := readGoldenCases(t, "ranking.jsonl")
	for _, c := range cases {
		qids, labels, scores := literals(t, c.Input["qids"]), literals(t, c.Input["labels"]), numbers(t, c.Input["scores"])
		recs := make([]goldenRecord, len(qids))
		for i := range qids {
			recs[i] = goldenRecord{Answers: []string{labels[i]}, Prediction: map[string]any{"text": "", "score": scores[i]}, Meta: map[string]any{"group": qids[i]}}
		}
		r := runGolden(t, c.ID, recs, "--metrics", "ranking").Corpus.Ranking
		equalInt(t, c.ID, "num_queries", r.Queries, c.Expected["num_queries"])
		closeTo(t, c.ID, "mrr", r.MRR, c.Expected["mrr"])
		closeTo(t, c.ID, "map", r.MAP, c.Expected["map"])
		checked++
	}
	checkedAll(t, "ranking", checked, cases)
}

func TestGoldenChunk(t *testing.T) {
	checked := 0
	cases := readGoldenCases(t, "chunk.jsonl")
	for _, c := range cases {
		var gold, pred [][]string
		decode(t, c.ID, "input.gold", c.Input["gold"], &gold)
		decode(t, c.ID, "input.pred", c.Input["pred"], &pred)
		if len(pred) != len(gold) {
			t.Fatalf("%s: %d predicted sentences for %d gold ones", c.ID, len(pred), len(gold))
		}
		recs := make([]goldenRecord, len(gold))
		for i := range gold {
			recs[i] = goldenRecord{Answers: []string{strings.Join(gold[i], " ")}, Prediction: map[string]any{"text": strings.Join(pred[i], " ")}}
		}
		ch := runGolden(t, c.ID, recs, "--metrics", "chunk").Corpus.Chunk // no record too (empty_corpus)
		equalInt(t, c.ID, "label chunks", ch.Label, c.Expected["num_label_chunks"])
		equalInt(t, c.ID, "infer chunks", ch.Infer, c.Expected["num_infer_chunks"])
		equalInt(t, c.ID, "correct chunks", ch.Correct, c.Expected["num_correct_chunks"])
		equalInt(t, c.ID, "tokens", ch.Tokens, c.Expected["tokens"])
		checkTokenCorrect(t, c, ch.TokenCorrect)
		closeTo(t, c.ID, "token accuracy", ch.TokenAcc, c.Expected["token_accuracy"])
		closeTo(t, c.ID, "precision", &ch.Precision, c.Expected["precision"])
		closeTo(t, c.ID, "recall", &ch.Recall, c.Expected["recall"])
		closeTo(t, c.ID, "f1", &ch.F1, c.Expected["f1"])
		var perType map[string]map[string]json.RawMessage
		decode(t, c.ID, "expected.per_type", c.Expected["per_type"], &perType)
		if !slices.Equal(slices.Sorted(maps.Keys(ch.PerType)), slices.Sorted(maps.Keys(perType))) {
			t.Errorf("%s: chunk types %q, want %q", c.ID, slices.Sorted(maps.Keys(ch.PerType)), slices.Sorted(maps.Keys(perType)))
		}
		for typ, w := range perType {
			if len(w) != 6 {
				t.Fatalf("%s: expected per_type %s has %d fields, want 6", c.ID, typ, len(w))
			}
			g := ch.PerType[typ]
			equalInt(t, c.ID, typ+" label chunks", g.Label, w["label_chunks"])
			equalInt(t, c.ID, typ+" infer chunks", g.Infer, w["infer_chunks"])
			equalInt(t, c.ID, typ+" correct chunks", g.Correct, w["correct_chunks"])
			closeTo(t, c.ID, typ+" precision", &g.Precision, w["precision"])
			closeTo(t, c.ID, typ+" recall", &g.Recall, w["recall"])
			closeTo(t, c.ID, typ+" f1", &g.F1, w["f1"])
		}
		checked++
	}
	checkedAll(t, "chunk", checked, cases)
}

// checkTokenCorrect checks the summary's count of matching tags against the golden's
// token_accuracy: the count must be token_accuracy·tokens, or 0 where token_accuracy is null (no
// tokens).
func checkTokenCorrect(t *testing.T, c goldenCase, got int) {
	t.Helper()
	var acc *float64
	var tokens int
	decode(t, c.ID, "expected.token_accuracy", c.Expected["token_accuracy"], &acc)
	decode(t, c.ID, "expected.tokens", c.Expected["tokens"], &tokens)
	if (acc == nil) != (tokens == 0) {
		t.Fatalf("%s: golden token_accuracy %s of %d tokens: null iff there are no tokens", c.ID, c.Expected["token_accuracy"], tokens)
	}
	want := 0.0
	if acc != nil {
		want = *acc * float64(tokens)
	}
	if math.Abs(want-math.Round(want)) > 1e-9 {
		t.Fatalf("%s: golden token_accuracy %v of %d tokens is no count of tags", c.ID, *acc, tokens)
	}
	if got != int(math.Round(want)) {
		t.Errorf("%s: token_correct = %d, want %v (token_accuracy %s of %d tokens)", c.ID, got, math.Round(want), c.Expected["token_accuracy"], tokens)
	}
}

func TestGoldenPerplexity(t *testing.T) {
	checked := 0
	cases := readGoldenCases(t, "ppl.jsonl")
	for _, c := range cases {
		loss, tokens := numbers(t, c.Input["loss"]), numbers(t, c.Input["token_counts"])
		recs := make([]goldenRecord, len(loss))
		for i := range loss {
			recs[i] = goldenRecord{Answers: []string{"x"}, Prediction: map[string]any{"text": "", "loss": loss[i], "tokens": tokens[i]}}
		}
		p := runGolden(t, c.ID, recs, "--metrics", "perplexity").Corpus.Perplexity
		equalInt(t, c.ID, "word_count", p.WordCount, c.Expected["word_count"])
		closeTo(t, c.ID, "mean_loss", p.MeanLoss, c.Expected["mean_loss"])
		closeTo(t, c.ID, "total_loss", p.TotalLoss, c.Expected["total_loss"])
		closeTo(t, c.ID, "ave_loss", p.AveLoss, c.Expected["ave_loss"])
		closeTo(t, c.ID, "ppl", p.PPL, c.Expected["ppl"])
		if p.PPLInt == nil {
			t.Errorf("%s: ppl_int = null, want %s", c.ID, c.Expected["ppl_int"])
		} else {
			n, err := p.PPLInt.Int64()
			if err != nil {
				t.Errorf("%s: ppl_int = %s: %v", c.ID, *p.PPLInt, err)
			}
			equalInt(t, c.ID, "ppl_int", int(n), c.Expected["ppl_int"])
		}
		checked++
	}
	checkedAll(t, "perplexity", checked, cases)
}

// inexpressibleBLEU are the corpus BLEU cases per file that records cannot carry, so that
// TestGoldenCorpusBLEU skips them: random cases with the empty token "" (no text splits into it)
// or a hypothesis without references. Every golden case is text.
var inexpressibleBLEU = map[string]int{"corpus_bleu.jsonl": 0, "random/corpus_bleu.jsonl": 9}

func TestGoldenCorpusBLEU(t *testing.T) {
	checked, skipped := 0, map[string]int{}
	cases := readGoldenCases(t, "corpus_bleu.jsonl")
	for _, c := range cases {
		var hyps [][]string
		var refs [][][]string
		decode(t, c.ID, "input.hypotheses", c.Input["hypotheses"], &hyps)
		decode(t, c.ID, "input.references", c.Input["references"], &refs)
		if len(refs) != len(hyps) {
			t.Fatalf("%s: %d reference lists for %d hypotheses", c.ID, len(refs), len(hyps))
		}
		if !expressible(hyps, refs) {
			skipped[c.Source]++
			continue
		}
		var weights []float64
		decode(t, c.ID, "params.weights", c.Params["weights"], &weights)
		ws := make([]string, len(weights))
		for i, w := range weights {
			ws[i] = strconv.FormatFloat(w, 'g', -1, 64)
		}
		recs := make([]goldenRecord, len(hyps))
		for i := range hyps {
			var answers []string
			for _, r := range refs[i] {
				answers = append(answers, strings.Join(r, " "))
			}
			recs[i] = goldenRecord{Answers: answers, Prediction: map[string]any{"text": strings.Join(hyps[i], " ")}}
		}
		s := runGolden(t, c.ID, recs, "--metrics", "corpus_bleu,gen_eval_bleu", "--bleu-weights", strings.Join(ws, ",")).Corpus
		b := s.CorpusBLEU
		closeTo(t, c.ID, "bleu", &b.BLEU, c.Expected["bleu"])
		closeTo(t, c.ID, "bp", &b.BP, c.Expected["bp"])
		closeTo(t, c.ID, "ratio", b.Ratio, c.Expected["ratio"])
		equalInt(t, c.ID, "hyp_len", b.HypLen, c.Expected["hyp_len"])
		equalInt(t, c.ID, "ref_len", b.RefLen, c.Expected["ref_len"])
		equalFloats(t, c.ID, "precisions", b.Precisions, c.Expected["precisions"])
		equalInts(t, c.ID, "numerators", b.Numerators, c.Expected["precision_numerators"])
		equalInts(t, c.ID, "denominators", b.Denominators, c.Expected["precision_denominators"])
		var gen map[string]json.RawMessage
		decode(t, c.ID, "expected.gen_eval", c.Expected["gen_eval"], &gen)
		switch {
		case gen == nil && s.GenEval != nil:
			t.Errorf("%s: gen_eval = %+v, want null", c.ID, *s.GenEval)
		case gen == nil:
		case s.GenEval == nil:
			t.Errorf("%s: gen_eval = null, want %s", c.ID, c.Expected["gen_eval"])
		default:
			g := s.GenEval
			closeTo(t, c.ID, "gen_eval bleu", &g.BLEU, gen["bleu"])
			closeTo(t, c.ID, "gen_eval bp", &g.BP, gen["bp"])
			closeTo(t, c.ID, "gen_eval ratio", &g.Ratio, gen["ratio"])
			equalInt(t, c.ID, "gen_eval translation_length", g.TranslationLength, gen["translation_length"])
			equalInt(t, c.ID, "gen_eval reference_length", g.ReferenceLength, gen["reference_length"])
			equalFloats(t, c.ID, "gen_eval precisions", g.Precisions, gen["precisions"])
		}
		checked++
	}
	for src, want := range inexpressibleBLEU {
		if skipped[src] != want {
			t.Errorf("%s: %d cases skipped as records cannot carry them, want %d", src, skipped[src], want)
		}
	}
	n := checked
	for _, k := range skipped {
		n += k
	}
	if n != len(cases) {
		t.Errorf("corpus BLEU: %d cases checked and %d skipped, want all %d", checked, n-checked, len(cases))
	}
	t.Logf("%d corpus BLEU cases checked", checked)
}

// equalFloats compares got with a raw expected list of numbers, element by element within 1e-9.
func equalFloats(t *testing.T, id, what string, got []float64, want json.RawMessage) {
	t.Helper()
	var w []float64
	decode(t, id, "expected "+what, want, &w)
	if len(got) != len(w) {
		t.Errorf("%s: %s = %v, want %v", id, what, got, w)
		return
	}
	for i := range w {
		if math.Abs(got[i]-w[i]) > 1e-9 {
			t.Errorf("%s: %s[%d] = %v, want %v", id, what, i, got[i], w[i])
		}
	}
}

// equalInts compares got with a raw expected list of integers.
func equalInts(t *testing.T, id, what string, got []int, want json.RawMessage) {
	t.Helper()
	var w []int
	decode(t, id, "expected "+what, want, &w)
	if !slices.Equal(got, w) {
		t.Errorf("%s: %s = %v, want %v", id, what, got, w)
	}
}

// expressible reports whether joining tokens with spaces and splitting the text gives the same
// tokens back, and every hypothesis has a reference.
func expressible(hyps [][]string, refs [][][]string) bool {
	if len(hyps) == 0 {
		return false
	}
	same := func(toks []string) bool {
		return slices.Equal(textnorm.Split(strings.Join(toks, " ")), toks) || len(toks) == 0
	}
	for i, h := range hyps {
		if len(refs[i]) == 0 || !same(h) {
			return false
		}
		for _, r := range refs[i] {
			if !same(r) {
				return false
			}
		}
	}
	return true
}
