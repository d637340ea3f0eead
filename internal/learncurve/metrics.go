package learncurve

import (
	"fmt"
	"slices"

	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/pysum"
)

// Metrics are EvaLearn's learning-curve figures over a set of sequences.
type Metrics struct {
	Accuracy     float64   // correct answers / (sequences × M)
	Slope        float64   // least-squares slope of Position over positions 1..M
	FirstCorrect float64   // mean 1-based position of the first correct answer (M+1 if none)
	Consecutive  float64   // mean longest run of correct answers
	PostWarmup   float64   // accuracy over positions K+1..M (0 when K ≥ M)
	Position     []float64 // accuracy at each position 1..M
}

// TypeMetrics are the Metrics of the sequences of one type.
type TypeMetrics struct {
	Type      TaskType
	Sequences int
	Metrics
}

// Report is the whole result: figures over all sequences and by type (sorted by type name).
type Report struct {
	Sequences int // N
	Problems  int // M
	Warmup    int // K
	Overall   Metrics
	Types     []TypeMetrics
	// Warnings are caveats about the result (K ≥ M, no sequences), not errors.
	Warnings []string
}

// Compute returns the report for rows of length m with warm-up k. Overall accuracy and
// post-warmup accuracy are micro averages over problems; position accuracy, slope, first-correct
// position and longest streak are macro averages over types, types weighted equally, as in
// EvaLearn.
func Compute(seqs []Sequence, m, k int) Report {
	rep := Report{Sequences: len(seqs), Problems: m, Warmup: k}
	if k >= m {
		rep.Warnings = append(rep.Warnings, warmupWarning(k, m))
	}
	if len(seqs) == 0 {
		rep.Warnings = append(rep.Warnings, "no sequences: every figure is 0")
		rep.Overall = Metrics{Position: make([]float64, m)}
		return rep
	}
	order, byType := groupTypes(seqs)
	perType := make([]Metrics, len(order)) // in first-appearance order, as macro adds them
	typeMetrics := make(map[string]Metrics, len(order))
	for i, t := range order {
		perType[i] = compute(byType[t.Key], m, k)
		typeMetrics[t.Key] = perType[i]
	}
	rep.Overall = overall(seqs, perType, m, k)
	sorted, warn := sortTypes(order)
	if warn != "" {
		rep.Warnings = append(rep.Warnings, warn)
	}
	for _, t := range sorted {
		rep.Types = append(rep.Types, TypeMetrics{Type: t, Sequences: len(byType[t.Key]), Metrics: typeMetrics[t.Key]})
	}
	return rep
}

// overall returns the report's overall figures over seqs, given the metrics of each type's
// sequences in first-appearance order: macro averages over the types, micro accuracies over seqs.
func overall(seqs []Sequence, perType []Metrics, m, k int) Metrics {
	out := macro(perType, m)
	out.Accuracy, out.PostWarmup = micro(seqs, m, k)
	return out
}

// strataOverall is Compute(seqs, m, k).Overall for seqs laid out type by type, in blocks of the
// given sizes (none empty), the types in the order of their first appearance: how Bootstrap's
// resamples are laid out. Grouping such seqs by type gives those blocks in that order, so each
// block's metrics are computed in place, without Compute's copy of every sequence into a group
// of its type (about 100 bytes a sequence, on every resample), to the same bits.
func strataOverall(seqs []Sequence, sizes []int, m, k int) Metrics {
	perType := make([]Metrics, len(sizes))
	start := 0
	for i, size := range sizes {
		perType[i] = compute(seqs[start:start+size], m, k)
		start += size
	}
	return overall(seqs, perType, m, k)
}

func warmupWarning(k, m int) string {
	return fmt.Sprintf("warm-up K (%d) must be less than M (%d): post-warmup accuracy is 0", k, m)
}

// groupTypes returns the types in first-appearance order (each as its first sequence has it) and
// the sequences of each by type Key.
func groupTypes(seqs []Sequence) ([]TaskType, map[string][]Sequence) {
	var order []TaskType
	by := make(map[string][]Sequence)
	for _, s := range seqs {
		if _, ok := by[s.Type.Key]; !ok {
			order = append(order, s.Type)
		}
		by[s.Type.Key] = append(by[s.Type.Key], s)
	}
	return order, by
}

// compute returns the metrics of one group of sequences (non-empty), all weighted by sequence.
func compute(seqs []Sequence, m, k int) Metrics {
	var out Metrics
	out.Accuracy, out.PostWarmup = micro(seqs, m, k)
	out.Position = make([]float64, m)
	var first, consec float64
	for _, s := range seqs {
		for i, y := range s.Y {
			out.Position[i] += float64(y)
		}
		first += float64(firstCorrect(s.Y))
		consec += float64(longestRun(s.Y))
	}
	n := float64(len(seqs))
	for i := range out.Position {
		out.Position[i] /= n
	}
	out.FirstCorrect = first / n
	out.Consecutive = consec / n
	out.Slope = slope(out.Position)
	return out
}

// micro returns the accuracy over all problems and over the problems after the warm-up.
func micro(seqs []Sequence, m, k int) (acc, post float64) {
	var correct, late int
	for _, s := range seqs {
		for i, y := range s.Y {
			correct += y
			if i >= k {
				late += y
			}
		}
	}
	n := len(seqs)
	if n*m > 0 {
		acc = float64(correct) / float64(n*m)
	}
	if k < m && n > 0 {
		post = float64(late) / float64(n*(m-k))
	}
	return acc, post
}

// macro averages the per-type position accuracy, first-correct position and longest streak over
// types with equal weight (perType, in first-appearance order, the order the sums take), and fits
// the slope to the averaged curve. The position accuracy is added as numpy's mean over axis 0
// adds it: type by type, but for M = 1, where the column is contiguous and numpy sums it pairwise
// (from 8 types on, the last bit differs).
func macro(perType []Metrics, m int) Metrics {
	out := Metrics{Position: make([]float64, m)}
	var column []float64 // the one position's accuracy of each type, when m is 1
	for _, tm := range perType {
		for i, v := range tm.Position {
			out.Position[i] += v
		}
		if m == 1 {
			column = append(column, tm.Position[0])
		}
		out.FirstCorrect += tm.FirstCorrect
		out.Consecutive += tm.Consecutive
	}
	if m == 1 {
		out.Position[0] = pysum.Numpy(column)
	}
	n := float64(len(perType))
	for i := range out.Position {
		out.Position[i] /= n
	}
	out.FirstCorrect /= n
	out.Consecutive /= n
	out.Slope = slope(out.Position)
	return out
}

// slope fits accuracy against positions 1..len(acc).
func slope(acc []float64) float64 {
	x := make([]float64, len(acc))
	for i := range x {
		x[i] = float64(i + 1)
	}
	return stats.FitLine(x, acc).Slope
}

// firstCorrect returns the 1-based position of the first 1, or len(y)+1.
func firstCorrect(y []int) int {
	if i := slices.Index(y, 1); i >= 0 {
		return i + 1
	}
	return len(y) + 1
}

// longestRun returns the length of the longest run of 1s.
func longestRun(y []int) int {
	run, best := 0, 0
	for _, v := range y {
		if v == 1 {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
