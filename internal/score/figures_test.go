package score

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestColumnMean: a column without its values (a summary without intervals) has the mean that
// mean takes over the values, to the bit: ordered sums, -0, equal values whose sum is not exact,
// the clamp to the values' range, and sums that overflow over a count that is a power of two
// (each value divided by it is the value scaled by 2⁻⁶⁴, to within a power of two).
func TestColumnMean(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tt := range []struct {
		name string
		vals []float64
	}{
		{"one", []float64{0.5}},
		{"ordered", []float64{1e16, 1, -1e16, 1, 0.3}},
		{"negative zero", []float64{negZero, negZero}},
		{"zeros", []float64{negZero, 0, negZero}},
		{"equal tenths", slices.Repeat([]float64{0.1}, 37)},
		{"clamped thirds", slices.Repeat([]float64{1.0 / 3}, 10)},
		{"mixed", []float64{0.25, -7.5, 3, 1e-300, 0.1}},
		{"subnormal", []float64{5e-324, 5e-324, 0}},
		{"largest", []float64{math.MaxFloat64, math.MaxFloat64}},
		{"overflow over two", []float64{1.7e308, 1.7e308}},
		{"overflow over four", []float64{1.7e308, -1.6e308, 1.5e308, 1.79e308}},
		{"overflow over eight", []float64{1.7e308, 1.7e308, 0.1, 8.9e307, 1.5e308, 3, -2, 1.6e308}},
		{"overflow back over four", []float64{1.7e308, 1.7e308, -1.7e308, -1.7e308}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c column
			for _, v := range tt.vals {
				c.add(v, false)
			}
			got, want := c.mean(), mean(tt.vals)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("column of %v: mean %v, want %v (mean of the values)", tt.vals, got, want)
			}
		})
	}
}

// TestColumnMeanOverflow documents the one case where a column, kept values or not, can have
// another mean than mean of the values: their sum overflows (values near the largest float, which
// no metric reaches: judge scores outside 0 to 1 are metric errors; kept as a guard) and their count is no power of two. mean then adds each value divided
// by the count, rounding once a value, and the column divides the sum of the values scaled by
// 2⁻⁶⁴ by it, rounding once: about half such sets of values get means a unit in the last place
// or so apart, both finite and within the values' range.
func TestColumnMeanOverflow(t *testing.T) {
	vals := []float64{1.7e308, 1.7e308, 1.6e308}
	var c column
	for _, v := range vals {
		c.add(v, false)
	}
	got, fromVals := c.mean(), mean(vals)
	if got != 1.6666666666666668e308 || fromVals != 1.6666666666666666e308 {
		t.Errorf("column of %v: mean %v, and %v from the values, want 1.6666666666666668e308 and 1.6666666666666666e308", vals, got, fromVals)
	}
	if math.Nextafter(fromVals, math.Inf(1)) != got {
		t.Errorf("column of %v: mean %v, want the float next above %v, mean of the values", vals, got, fromVals)
	}
}

// TestSummaryWithoutIntervals: a summary without intervals (--bootstrap 0), which keeps no
// per-record value, has every figure of one with them but the intervals: the counts and means
// overall, by type, by each --by field and in the benchmarks' reports, over records of several
// types and datasets, with errors, without predictions or judgments, under --errors-as-zero and
// --missing-as-zero. Its warnings are the other's, less those about intervals.
func TestSummaryWithoutIntervals(t *testing.T) {
	in := mixedRecords(600)
	for _, flags := range [][]string{
		nil,
		{"--errors-as-zero"},
		{"--missing-as-zero", "--metrics", "em,f1,hotpot_f1,sp_em,sp_f1,joint_f1,judge_score,locomo_f1"},
		{"--by", "meta.level,meta.category", "--by", "prediction.model", "--metrics", "f1,rougeL,judge_score,locomo_f1"},
		{"--errors-as-zero", "--missing-as-zero", "--by", "dataset", "--metrics", "judge_score,em"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) { sameButIntervals(t, in, flags) })
	}
}

// sameButIntervals fails t when the summaries qa-score writes over in with flags and --bootstrap 0
// and 1000 differ but for the intervals, or in warnings other than those about intervals; it
// returns the first.
func sameButIntervals(t *testing.T, in string, flags []string) *Summary {
	t.Helper()
	none, noneErr := summaryOf(t, in, slices.Concat(flags, []string{"--bootstrap", "0"}))
	with, withErr := summaryOf(t, in, slices.Concat(flags, []string{"--bootstrap", "1000"}))
	if noneErr != withErr {
		t.Errorf("--bootstrap 0: error %q, want %q (--bootstrap 1000's)", noneErr, withErr)
	}
	opts := cmp.Options{cmpopts.IgnoreFields(Stat{}, "CI"), cmpopts.IgnoreFields(Category{}, "CI"), cmpopts.IgnoreFields(LongMemEval{}, "TaskAveragedCI"), cmpopts.IgnoreFields(Summary{}, "Bootstrap", "Warnings"),
		cmpopts.IgnoreUnexported(Summary{}, Stat{}), cmpopts.EquateNaNs()}
	if diff := cmp.Diff(none, with, opts); diff != "" {
		t.Errorf("--bootstrap 0 summary differs from --bootstrap 1000's but for the intervals (-0 +1000):\n%s", diff)
	}
	for _, w := range with.Warnings {
		if !slices.Contains(none.Warnings, w) && !strings.Contains(w, "interval") {
			t.Errorf("--bootstrap 0 summary lacks the warning %q", w)
		}
	}
	for _, w := range none.Warnings {
		if !slices.Contains(with.Warnings, w) {
			t.Errorf("--bootstrap 0 summary warns %q, which --bootstrap 1000's does not", w)
		}
	}
	return none
}

// summaryOf runs qa-score with args over in and returns the JSON summary it wrote, and its error.
func summaryOf(t *testing.T, in string, args []string) (*Summary, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), slices.Concat([]string{"qa-score", "--summary", "-"}, args), strings.NewReader(in), &stdout, &stderr)
	var s Summary
	if jerr := json.Unmarshal(stdout.Bytes(), &s); jerr != nil {
		t.Fatalf("qa-score %q: %v (error %v, stderr %s)", args, jerr, err, stderr.Bytes())
	}
	return &s, fmt.Sprint(err)
}

// mixedRecords returns n records of LoCoMo, LongMemEval, HotpotQA and no dataset, of several types
// and none, with --by fields of several kinds, some without a prediction, with a prediction error,
// without a judgment or with a failed one, and judge scores of either sign.
func mixedRecords(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the a cat dog yes no paris 1989 four 4 blue")
	text := func(k int) string {
		var b []string
		for range rng.IntN(k + 1) {
			b = append(b, words[rng.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	var b strings.Builder
	for i := range n {
		rec := map[string]any{"schema": 1, "id": fmt.Sprintf("r%d", i), "question": "q", "answers": []string{text(3) + "x"}}
		meta := map[string]any{}
		switch ds := []string{"locomo", "longmemeval", "hotpotqa", ""}[rng.IntN(4)]; ds {
		case "locomo":
			rec["id"] = fmt.Sprintf("locomo:conv-%d:%d", rng.IntN(5), i)
			meta["category"] = 1 + rng.IntN(5)
			rec["dataset"] = ds
		case "longmemeval":
			rec["type"] = []string{"multi-session", "knowledge-update", "temporal-reasoning"}[rng.IntN(3)]
			if rng.IntN(5) == 0 {
				rec["id"] = fmt.Sprintf("q%d_abs", i)
			}
			rec["dataset"] = ds
		case "hotpotqa":
			meta["supporting_facts"] = [][]any{{"T", rng.IntN(3)}}
			rec["dataset"] = ds
		}
		if _, ok := rec["type"]; !ok && rng.IntN(3) > 0 {
			rec["type"] = []string{"t1", "t2", "a b"}[rng.IntN(3)]
		}
		if rng.IntN(5) > 0 {
			meta["level"] = []any{"easy", "hard", 1, true}[rng.IntN(4)]
		}
		rec["meta"] = meta
		if rng.IntN(10) > 0 {
			p := map[string]any{"text": text(4)}
			if rng.IntN(12) == 0 {
				p["error"] = "timeout"
			}
			if rng.IntN(2) == 0 {
				p["model"] = []string{"m1", "m2"}[rng.IntN(2)]
			}
			if rec["dataset"] == "hotpotqa" && rng.IntN(2) == 0 {
				p["supporting_facts"] = [][]any{{"T", rng.IntN(3)}}
			}
			rec["prediction"] = p
			switch rng.IntN(8) {
			case 0: // no judgment
			case 1:
				rec["judgments"] = map[string]any{"j": map[string]any{"error": "judge failed"}}
			default:
				rec["judgments"] = map[string]any{"j": map[string]any{"score": rng.NormFloat64() * 3}}
			}
		}
		writeJSONLine(&b, rec)
	}
	return b.String()
}

// TestCorpusWithoutIntervals: the corpus metrics of a summary without intervals (--bootstrap 0),
// which keeps each group's running figures for those that are sums (classification, chunk,
// perplexity, corpus_bleu, gen_eval_bleu), are those of a summary with them, to the bit, and so
// are their full reports: overall, by type and by --by value, over records with labels of several
// kinds, tied and missing scores, query groups, losses past numpy's block of 8192 values,
// failed predictions, and each option that shapes a figure. Its warnings are the other's, less
// those about intervals.
func TestCorpusWithoutIntervals(t *testing.T) {
	all := "classification,auc,pairwise,ranking,chunk,perplexity,corpus_bleu,gen_eval_bleu,f1"
	for _, tc := range []struct {
		n      int
		labels []string
		flags  []string
	}{
		{9000, []string{"0", "1", "2", "yes", "Yes"}, []string{"--metrics", all, "--by", "meta.level"}},
		{700, []string{"B-PER I-PER", "O B-LOC", "O", "B-ORG O"}, []string{"--metrics", all, "--errors-as-zero", "--by", "prediction.model", "--average", "weighted"}},
		{700, []string{"1", "10", "2", "-3", "18446744073709551616"}, []string{"--metrics", all, "--label-field", "meta.label", "--average", "micro", "--zero-division", "1"}},
		{500, []string{"0", "1"}, []string{"--metrics", "classification,auc,perplexity", "--average", "binary", "--by", "meta.level"}},
		{500, []string{"yes", "no", "maybe"}, []string{"--metrics", "classification,corpus_bleu,gen_eval_bleu", "--labels", "yes,no,never", "--label-map", "yes=yes,no=no", "--bleu-weights", "0.5,0.5"}},
		{300, []string{"a", "b"}, []string{"--metrics", "perplexity,corpus_bleu,gen_eval_bleu", "--bleu-weights", "0.1,0.2,0.3,0.4", "--by", "meta.level"}},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			in := corpusRecords(tc.n, tc.labels)
			if none := sameButIntervals(t, in, tc.flags); none.Corpus == nil {
				t.Error("--bootstrap 0 summary has no corpus section")
			}
		})
	}
}

// corpusRecords returns n records for the corpus metrics, of three types and none, with --by
// values: gold labels from labels at answers[0] and at meta.label, predicted ones mostly right,
// a second answer for BLEU, scores tied, missing or no number, query groups that interleave,
// losses of mixed magnitude and sign (some invalid), and predictions missing or failed.
func corpusRecords(n int, labels []string) string {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(len(labels))))
	words := strings.Fields("the a cat dog Paris 1989 B-PER O")
	var b strings.Builder
	for i := range n {
		gold := labels[rng.IntN(len(labels))]
		rec := map[string]any{"schema": 1, "id": fmt.Sprintf("r%d", i), "question": "q",
			"answers": []string{gold, words[rng.IntN(len(words))] + " " + gold}}
		if rng.IntN(4) > 0 {
			rec["type"] = []string{"t1", "t2", "a b"}[rng.IntN(3)]
		}
		meta := map[string]any{"label": labels[rng.IntN(len(labels))]}
		if rng.IntN(5) > 0 {
			meta["level"] = []any{"easy", "hard", 1, true}[rng.IntN(4)]
		}
		if rng.IntN(8) > 0 {
			meta["group"] = fmt.Sprintf("q%d", rng.IntN(n/6+1))
		}
		rec["meta"] = meta
		if rng.IntN(15) > 0 {
			pred := gold
			if rng.IntN(3) == 0 {
				pred = labels[rng.IntN(len(labels))]
			}
			p := map[string]any{"text": pred}
			switch k := rng.IntN(10); {
			case k < 7:
				p["score"] = []float64{0.1, 0.5, 0.9, -2.5, rng.Float64()}[rng.IntN(5)]
			case k == 7:
				p["score"] = "high"
			}
			if rng.IntN(10) > 0 {
				p["loss"] = []float64{1e16, -1e16, 1, 0.1, 3.3, rng.Float64() * 40, -0.5}[rng.IntN(7)]
				p["tokens"] = rng.IntN(40) // 0 is refused
			}
			if rng.IntN(20) == 0 {
				p["error"] = "timeout"
			}
			if rng.IntN(2) == 0 {
				p["model"] = []string{"m1", "m2"}[rng.IntN(2)]
			}
			rec["prediction"] = p
		}
		writeJSONLine(&b, rec)
	}
	return b.String()
}

// writeJSONLine writes v to b as one JSON line: a generated record.
func writeJSONLine(b *strings.Builder, v any) {
	line, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	b.Write(line)
	b.WriteByte('\n')
}
