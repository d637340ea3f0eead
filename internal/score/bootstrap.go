package score

import (
	"slices"

	"github.com/qapipe/qapipe/internal/stats"
)

// bootstrapColumns returns the bootstrap interval at level of the mean of each column (all of
// one length), every column resampled with the same unit indices (from seed). Identical columns
// (em and hotpot_em often are) are resampled once.
func bootstrapColumns(seed uint64, cols [][]float64, reps int, level float64) []stats.Interval {
	var uniq [][]float64
	rep := make([]int, len(cols)) // rep[k]: index in uniq of a column equal to cols[k]
	for k, c := range cols {
		i := slices.IndexFunc(uniq, func(u []float64) bool { return slices.Equal(u, c) })
		if i < 0 {
			i = len(uniq)
			uniq = append(uniq, c)
		}
		rep[k] = i
	}
	ivs := stats.BootstrapMeans(stats.NewRand(seed), uniq, reps, level)
	out := make([]stats.Interval, len(cols))
	for k := range cols {
		out[k] = ivs[rep[k]]
	}
	return out
}
