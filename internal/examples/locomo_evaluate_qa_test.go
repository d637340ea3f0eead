package examples

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLoCoMoEvaluateQA checks qa-load --locomo-model against LoCoMo's own scoring of the output
// file of its task_eval/evaluate_qa.py: testdata/locomo/locomo_conv26_qa.json holds synthetic
// answers of three runs, each question's <model>_f1 as upstream's eval_question_answering scored
// it and stored it (round(f1, 3)), and locomo_conv26_qa_stats.json the stats file
// analyze_aggr_acc wrote for each run (both made by scripts/locomo-evaluate-qa-output.py, running
// LoCoMo's evaluation.py and evaluation_stats.py at 3eb6f2c). For each run, `qa-load
// --locomo-model RUN | qa-score --metrics locomo_f1` must give each record the score upstream
// stored, and the summary's locomo section each category's cum_accuracy_by_category over its
// category_counts and overall their sums (4, 1, 2, 3, 5) over all the questions, as
// analyze_aggr_acc prints them.
func TestLoCoMoEvaluateQA(t *testing.T) {
	bin := commands(t)
	const file = "testdata/locomo/locomo_conv26_qa.json"
	b, err := os.ReadFile(filepath.Join(root, "testdata", "locomo", "locomo_conv26_qa_stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stats map[string]struct {
		Counts map[string]int     `json:"category_counts"`
		Sums   map[string]float64 `json:"cum_accuracy_by_category"`
	}
	if err := json.Unmarshal(b, &stats); err != nil {
		t.Fatal(err)
	}
	runs := slices.Sorted(func(yield func(string) bool) {
		for k := range stats {
			if !yield(k) {
				return
			}
		}
	})
	if len(runs) != 3 {
		t.Fatalf("stats file holds runs %v, want 3", runs)
	}
	for _, run := range runs {
		t.Run(run, func(t *testing.T) {
			st := stats[run]
			scored := filepath.Join(t.TempDir(), "scored.jsonl")
			script := "set -euo pipefail\nqa-load --locomo-model " + run + " " + file + " | qa-score --metrics locomo_f1 | tee " +
				shellQuote(scored) + " | qa-score --metrics locomo_f1 --summary -"
			stdout, stderr, err := bash(t, root, bin, script)
			if err != nil {
				t.Fatalf("%s: %v\n%s", script, err, stderr)
			}

			// Each record: its score as upstream stored it, round(score, 3) (numpy's rounding
			// for category 1, a numpy mean).
			n := 0
			for _, line := range readLines(t, scored) {
				var rec struct {
					ID         string
					Prediction struct{ Model string }
					Meta       map[string]json.RawMessage
					Scores     map[string]float64
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				var cat int
				var want float64
				if err := json.Unmarshal(rec.Meta["category"], &cat); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(rec.Meta[run+"_f1"], &want); err != nil {
					t.Fatalf("%s: meta.%s_f1: %v", rec.ID, run, err)
				}
				got, ok := rec.Scores["locomo_f1"]
				if !ok || rec.Prediction.Model != run {
					t.Fatalf("%s: no locomo_f1 of a prediction of %s: %s", rec.ID, run, line)
				}
				if r := stored(got, cat); r != want {
					t.Errorf("%s (category %d): locomo_f1 %v, stored %v; upstream stored %v", rec.ID, cat, got, r, want)
				}
				n++
			}
			if n != 199 {
				t.Errorf("%d records scored, want 199", n)
			}

			var sum struct {
				LoCoMo locomoSection `json:"locomo"`
			}
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatalf("summary: %v\n%.300s", err, stdout)
			}
			if len(sum.LoCoMo.Categories) != len(st.Counts) {
				t.Fatalf("summary has %d categories, the stats file %d:\n%s", len(sum.LoCoMo.Categories), len(st.Counts), stdout)
			}
			for _, c := range sum.LoCoMo.Categories {
				k := strconv.Itoa(c.Category)
				if want := st.Sums[k] / float64(st.Counts[k]); c.Count != st.Counts[k] || math.Abs(c.Mean-want) > 1e-12 {
					t.Errorf("category %d: mean %v of %d, the stats file's %v of %d", c.Category, c.Mean, c.Count, want, st.Counts[k])
				}
			}
			var total float64
			var count int
			for _, k := range strings.Split("4 1 2 3 5", " ") {
				total += st.Sums[k]
				count += st.Counts[k]
			}
			if o := sum.LoCoMo.Overall; o.Count != count || math.Abs(o.Mean-total/float64(count)) > 1e-12 {
				t.Errorf("overall: mean %v of %d, the stats file's %v of %d", o.Mean, o.Count, total/float64(count), count)
			}
		})
	}
}

// stored is v, a locomo_f1 of a question of category cat, as evaluate_qa.py stores it:
// round(v, 3), numpy's rounding half to even of v*1000 for category 1, whose F1 is a numpy
// float64, and Python's correctly rounded one for the others.
func stored(v float64, cat int) float64 {
	if cat == 1 {
		return math.RoundToEven(v*1000) / 1000
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 3, 64), 64)
	return r
}

// TestLoCoMoEvaluateQAMissing checks qa-score --missing-as-zero against analyze_aggr_acc over an
// output file of evaluate_qa.py in which some questions lack a run's answer: it counts each
// question in its category's total and adds nothing for one without <model>_f1, so that its
// figures are over all the questions. The file is testdata/locomo/locomo_conv26_qa.json with
// model-a_prediction and model-a_f1 taken out of its first 10 questions (categories 2, 2, 3, 1, 1,
// 2, 2, 1, 2, 2); the figures are those LoCoMo's analyze_aggr_acc (task_eval/evaluation_stats.py at
// 3eb6f2c, run with /usr/bin/python3) stored in its stats file for model-a over that file
// (category_counts and cum_accuracy_by_category) and printed ("Overall accuracy:  0.566", over 199
// questions; 0.5959 over the 189 answered without --missing-as-zero).
func TestLoCoMoEvaluateQAMissing(t *testing.T) {
	bin := commands(t)
	b, err := os.ReadFile(filepath.Join(root, "testdata", "locomo", "locomo_conv26_qa.json"))
	if err != nil {
		t.Fatal(err)
	}
	var samples []map[string]any
	if err := json.Unmarshal(b, &samples); err != nil {
		t.Fatal(err)
	}
	for _, qa := range samples[0]["qa"].([]any)[:10] {
		delete(qa.(map[string]any), "model-a_prediction")
		delete(qa.(map[string]any), "model-a_f1")
	}
	file := filepath.Join(t.TempDir(), "locomo_qa.json")
	if b, err = json.Marshal(samples); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded := filepath.Join(filepath.Dir(file), "locomo_qa.jsonl")
	script := "set -euo pipefail\nqa-load --locomo-model model-a " + shellQuote(file) + " 2>/dev/null >" + shellQuote(loaded) +
		"\nqa-score --metrics locomo_f1 --summary - --format csv --bootstrap 0 " + shellQuote(loaded) + " 2>/dev/null | grep '^locomo overall' >&2" +
		"\nqa-score --metrics locomo_f1 --missing-as-zero --summary - " + shellQuote(loaded)
	// analyze_aggr_acc's stats file for model-a: category_counts, cum_accuracy_by_category.
	counts := map[int]int{4: 70, 1: 32, 2: 37, 3: 13, 5: 47}
	sums := map[int]float64{4: 43.788, 1: 15.691, 2: 20.386999999999997, 3: 8.765, 5: 24}
	stdout, stderr, err := bash(t, root, bin, script)
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr)
	}
	// Without --missing-as-zero the means are over the 189 answered questions.
	if want := "locomo overall (micro),locomo_f1,189,0.595931216931217,,"; !strings.Contains(stderr, want) {
		t.Errorf("without --missing-as-zero: no line %q in\n%s", want, stderr)
	}
	var sum struct {
		MissingAsZero int           `json:"missing_as_zero"`
		LoCoMo        locomoSection `json:"locomo"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("summary: %v\n%.300s", err, stdout)
	}
	if sum.MissingAsZero != 10 {
		t.Errorf("missing_as_zero %d, want 10", sum.MissingAsZero)
	}
	if len(sum.LoCoMo.Categories) != len(counts) {
		t.Fatalf("summary has %d categories, want %d:\n%s", len(sum.LoCoMo.Categories), len(counts), stdout)
	}
	for _, c := range sum.LoCoMo.Categories {
		if want := sums[c.Category] / float64(counts[c.Category]); c.Count != counts[c.Category] || c.Mean != want {
			t.Errorf("category %d: mean %v of %d, analyze_aggr_acc's %v of %d", c.Category, c.Mean, c.Count, want, counts[c.Category])
		}
	}
	var total float64
	for _, k := range []int{4, 1, 2, 3, 5} {
		total += sums[k]
	}
	if o, want := sum.LoCoMo.Overall, total/199; o.Count != 199 || o.Mean != want || math.Round(o.Mean*1000)/1000 != 0.566 {
		t.Errorf("overall: mean %v of %d, analyze_aggr_acc's %v of 199 (printed 0.566)", o.Mean, o.Count, want)
	}
}

// locomoSection is the LoCoMo section of qa-score's JSON summary: the means and counts by
// category and overall, which the stats file of evaluate_qa.py gives too.
type locomoSection struct {
	Categories []struct {
		Category int
		Mean     float64
		Count    int
	}
	Overall struct {
		Mean  float64
		Count int
	}
}
