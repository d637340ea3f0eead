package learncurve

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// JSON returns the report as EvaLearn's generate_report writes it (json.dump, indent 2), with
// a top-level "ci" object after "model_evaluation" when ci is not nil.
func (r Report) JSON(ci *CI) []byte {
	doc := pyObject{{"model_evaluation", r.evaluation()}}
	if ci != nil {
		doc = append(doc, pyField{"ci", ci.object()})
	}
	return append(encodePy(doc), '\n')
}

func (r Report) warmupKey() string { return fmt.Sprintf("post_warmup_accuracy_k%d", r.Warmup) }

func (r Report) evaluation() pyObject {
	o := r.Overall
	value := func(v float64, desc string) pyObject {
		return pyObject{{"value", v}, {"description", desc}}
	}
	overall := pyObject{
		{"overall_accuracy", value(o.Accuracy, "Average accuracy across all problems and sequences")},
		{"accuracy_slope", value(o.Slope, "Slope of fitted accuracy curve (learning speed)")},
		{"first_correct_position", value(o.FirstCorrect, "Average position of first correct solution")},
		{"consecutive_correct", value(o.Consecutive, "Average number of consecutive correct solutions")},
		{r.warmupKey(), value(o.PostWarmup, fmt.Sprintf("Average accuracy after excluding first %d problems", r.Warmup))},
		{"position_accuracy", pyObject{{"values", o.Position}, {"description", "Accuracy at each position across all sequences"}}},
	}
	types := pyObject{}
	for _, t := range r.Types {
		types = append(types, pyField{t.Type.JSON, pyObject{
			{"sequence_count", t.Sequences},
			{"overall_accuracy", t.Accuracy},
			{"accuracy_slope", t.Slope},
			{"first_correct_position", t.FirstCorrect},
			{"consecutive_correct", t.Consecutive},
			{r.warmupKey(), t.PostWarmup},
			{"position_accuracy", t.Position},
		}})
	}
	return pyObject{
		{"dataset_info", pyObject{
			{"num_sequences", r.Sequences},
			{"problems_per_sequence", r.Problems},
			{"total_problems", r.Sequences * r.Problems},
		}},
		{"overall_metrics", overall},
		{"type_metrics", types},
	}
}

// WriteText prints the report as evaluate_metric.py prints it to the console. savedTo is the
// file named on its "Report saved to:" line.
func (r Report) WriteText(w io.Writer, savedTo string) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("\n===== EvaLearn Evaluation Report =====")
	p("Total Questions: %d", r.Sequences*r.Problems)
	p("Total Sequences: %d", r.Sequences)
	p("Problems per Sequence: %d", r.Problems)
	p("Report saved to: %s", savedTo)
	p("\n=== OVERALL METRICS ===")
	// metrics writes the five headline figures of m, each line after indent.
	metrics := func(indent string, m Metrics) {
		p(indent+"Overall Accuracy: %.4f", m.Accuracy)
		p(indent+"Accuracy Slope (k): %.4f", textSlope(m.Slope))
		p(indent+"Avg. First Correct Position: %.2f", m.FirstCorrect)
		p(indent+"Avg. Consecutive Correct: %.2f", m.Consecutive)
		p(indent+"Post-warmup Accuracy (K=%d): %.4f", r.Warmup, m.PostWarmup)
	}
	metrics("", r.Overall)
	p("\n=== POSITION-WISE ACCURACY ===")
	for i, v := range r.Overall.Position {
		p("Position %d: %.4f", i+1, v)
	}
	p("\n=== METRICS BY TASK TYPE ===")
	for _, t := range r.Types {
		p("\nType: %s (Sequences: %d)", t.Type.Name, t.Sequences)
		metrics("  ", t.Metrics)
		p("  Position-wise Accuracy:")
		for i, v := range t.Position {
			p("    Position %d: %.4f", i+1, v)
		}
	}
	p("\n=====================================")
	_, err := io.WriteString(w, b.String())
	return err
}

// textSlope is the slope as the text report prints it. A slope within 1e-12 of 0 is rounding
// noise of a flat or symmetric curve, which scikit-learn's lstsq and this fit each leave or not
// in their own way: it prints as 0.0000, never -0.0000 (EvaLearn's own text can show either;
// golden_test's sameText allows that line to differ). JSON keeps the value as it is (within 1e-9
// of EvaLearn's either way).
func textSlope(v float64) float64 {
	if math.Abs(v) < 1e-12 {
		return 0
	}
	return v
}
