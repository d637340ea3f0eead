package learncurve

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/stats"
)

// CI holds percentile bootstrap intervals for every metric of a Report. The unit resampled is
// the sequence, within its type: each type's intervals resample that type's sequences, and the
// overall intervals resample every type's sequences within the type (a stratified bootstrap), as
// many as it has, so that each replicate holds every type of the report with its weight, and its
// figures are the report's, macro averages over all its types. (Drawn from all sequences at once,
// a replicate lacking a rare type, one of 2 sequences among 22 in one draw out of 8, averaged over
// the others: a bound could be a figure of fewer types, and the micro accuracy's interval took in
// how many sequences of each type were drawn, which a benchmark's design fixes.)
type CI struct {
	Replicates int
	Seed       int64
	Level      float64
	Warmup     int // K, which names the post-warmup key
	Overall    MetricsCI
	Types      []TypeCI // in the order of Report.Types
	// Warnings are statistical caveats (too few sequences for a meaningful interval).
	Warnings []string
}

// MetricsCI are the intervals of one Metrics.
type MetricsCI struct {
	Accuracy, Slope, FirstCorrect, Consecutive, PostWarmup stats.Interval
	Position                                               []stats.Interval
}

// TypeCI are the intervals of one type's metrics.
type TypeCI struct {
	Type TaskType
	MetricsCI
}

// Bootstrap returns intervals at level (e.g. 0.95) from reps resamples of the sequences of rep:
// the overall ones drawn from a source seeded with seed, each type's from one seeded with seed
// and the type (stats.NewGroupRand). With one type, whose figures the overall ones are, the
// overall ones are drawn from the type's source too, and so are its intervals.
func Bootstrap(seqs []Sequence, rep Report, reps int, level float64, seed uint64) *CI {
	m, k := rep.Problems, rep.Warmup
	order, byType := groupTypes(seqs)
	rng := stats.NewRand(seed)
	if len(order) == 1 {
		rng = typeRand(seed, order[0])
	}
	ci := &CI{Replicates: reps, Seed: int64(seed), Level: level, Warmup: k}
	// qa-learncurve's --bootstrap is 0 unless given: the warning names no default.
	if few := stats.FewResamples(reps, level, 0); few != "" && len(seqs) > 0 {
		ci.Warnings = append(ci.Warnings, few)
	}
	var strata []Sequence // the sequences type by type, in first-appearance order
	var sizes []int
	for _, t := range order {
		strata = append(strata, byType[t.Key]...)
		sizes = append(sizes, len(byType[t.Key]))
	}
	// A resample is laid out as strata is, type by type in order: its figures are computed
	// block by block, not regrouped by type as Compute would.
	ci.Overall = intervals(rng, strata, sizes, m, reps, level, func(s []Sequence) Metrics { return strataOverall(s, sizes, m, k) })
	switch {
	case len(seqs) == 0:
		ci.Warnings = append(ci.Warnings, "0 sequences: no intervals (none has a value)")
	case len(seqs) < 2:
		ci.Warnings = append(ci.Warnings, english.Count(len(seqs), "sequence", "sequences")+": the overall intervals are degenerate")
	case len(seqs) == len(order):
		ci.Warnings = append(ci.Warnings, "each type has 1 sequence: the overall intervals are degenerate")
	}
	for _, t := range rep.Types {
		ts := byType[t.Type.Key]
		// Each type's from a source of its own, so that its intervals are the same in a run
		// over that type alone (qa-load --types).
		ci.Types = append(ci.Types, TypeCI{Type: t.Type, MetricsCI: intervals(typeRand(seed, t.Type), ts, []int{len(ts)}, m, reps, level, func(s []Sequence) Metrics { return compute(s, m, k) })})
		if len(ts) < 2 {
			ci.Warnings = append(ci.Warnings, fmt.Sprintf("type %s has %s: its intervals are degenerate", cell.Value(t.Type.Name), english.Count(len(ts), "sequence", "sequences")))
		}
	}
	return ci
}

// typeRand returns the random source of type t's intervals.
func typeRand(seed uint64, t TaskType) *rand.Rand {
	return stats.NewGroupRand(seed, "type\x00"+t.Key)
}

// intervals resamples seqs, strata of the given sizes (see stats.BootstrapStrata), reps times and
// returns the interval of every figure of metrics.
func intervals(rng *rand.Rand, seqs []Sequence, sizes []int, m, reps int, level float64, metrics func([]Sequence) Metrics) MetricsCI {
	buf := make([]Sequence, len(seqs))
	ivs := stats.BootstrapStrata(rng, sizes, reps, 5+m, level, func(idx []int, out []float64) {
		for i, j := range idx {
			buf[i] = seqs[j]
		}
		x := metrics(buf)
		copy(out, []float64{x.Accuracy, x.Slope, x.FirstCorrect, x.Consecutive, x.PostWarmup})
		copy(out[5:], x.Position)
	})
	return MetricsCI{Accuracy: ivs[0], Slope: ivs[1], FirstCorrect: ivs[2], Consecutive: ivs[3], PostWarmup: ivs[4], Position: ivs[5:]}
}

func (ci *CI) object() pyObject {
	types := pyObject{}
	for _, t := range ci.Types {
		types = append(types, pyField{t.Type.JSON, t.object(ci.Warmup)})
	}
	return pyObject{
		{"method", "percentile bootstrap over sequences, resampled within their type"},
		{"replicates", ci.Replicates},
		{"seed", ci.Seed},
		{"level", ci.Level},
		{"overall_metrics", ci.Overall.object(ci.Warmup)},
		{"type_metrics", types},
	}
}

func (c MetricsCI) object(k int) pyObject {
	pos := make([]any, len(c.Position))
	for i, iv := range c.Position {
		pos[i] = interval(iv)
	}
	return pyObject{
		{"overall_accuracy", interval(c.Accuracy)},
		{"accuracy_slope", interval(c.Slope)},
		{"first_correct_position", interval(c.FirstCorrect)},
		{"consecutive_correct", interval(c.Consecutive)},
		{fmt.Sprintf("post_warmup_accuracy_k%d", k), interval(c.PostWarmup)},
		{"position_accuracy", pos},
	}
}

// interval writes an interval as {"lo", "hi"}; an undefined bound (no data) is null.
func interval(iv stats.Interval) pyObject {
	bound := func(v float64) any {
		if math.IsNaN(v) {
			return nil
		}
		return v
	}
	return pyObject{{"lo", bound(iv.Lo)}, {"hi", bound(iv.Hi)}}
}

// WriteText prints the intervals after the EvaLearn text report.
func (ci *CI) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n=== BOOTSTRAP %s INTERVALS (%s of sequences, seed %d) ===\n", stats.Percent(ci.Level), english.Count(ci.Replicates, "resample", "resamples"), ci.Seed)
	write := func(indent string, c MetricsCI) {
		line := func(name string, iv stats.Interval) {
			if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) { // no data: no interval, as JSON's null says
				fmt.Fprintf(&b, "%s%s: none (no data)\n", indent, name)
				return
			}
			fmt.Fprintf(&b, "%s%s: [%.4f, %.4f]\n", indent, name, iv.Lo, iv.Hi)
		}
		line("Overall Accuracy", c.Accuracy)
		line("Accuracy Slope (k)", c.Slope)
		line("Avg. First Correct Position", c.FirstCorrect)
		line("Avg. Consecutive Correct", c.Consecutive)
		line(fmt.Sprintf("Post-warmup Accuracy (K=%d)", ci.Warmup), c.PostWarmup)
		for i, iv := range c.Position {
			line(fmt.Sprintf("Position %d", i+1), iv)
		}
	}
	write("", ci.Overall)
	for _, t := range ci.Types {
		fmt.Fprintf(&b, "\nType: %s\n", t.Type.Name)
		write("  ", t.MetricsCI)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
