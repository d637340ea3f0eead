package metric

import (
	"github.com/qapipe/qapipe/pkg/pysum"
	"math"
	"sort"
)

// ROC is a receiver operating characteristic curve as scikit-learn 1.2.1 roc_curve returns it with
// drop_intermediate=True: the first threshold is max+1, collinear interior points are dropped.
// With a class absent the curve is undefined: FPR, TPR and Thresholds are nil, where scikit-learn
// warns and divides the absent class's counts by 0 (NaN at every point), and the golden vectors
// hold null for all three.
type ROC struct {
	NPos, NNeg int
	FPR, TPR   []float64
	Thresholds []float64
}

// ROCCurve computes the ROC curve of scores for the binary labels positive[i]. It panics when
// the two differ in length.
func ROCCurve(scores []float64, positive []bool) ROC {
	sameLength("ROCCurve", len(scores), "scores", len(positive), "labels")
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	var r ROC
	var tps, fps, thr []float64
	tp, fp := 0.0, 0.0
	for k, i := range idx {
		if positive[i] {
			tp++
			r.NPos++
		} else {
			fp++
			r.NNeg++
		}
		if k+1 == len(idx) || scores[idx[k+1]] != scores[i] {
			tps, fps, thr = append(tps, tp), append(fps, fp), append(thr, scores[i])
		}
	}
	if r.NPos == 0 || r.NNeg == 0 {
		return r
	}
	keep := dropIntermediate(tps, fps)
	r.FPR, r.TPR, r.Thresholds = []float64{0}, []float64{0}, []float64{thr[0] + 1}
	for _, k := range keep {
		r.FPR = append(r.FPR, fps[k]/float64(r.NNeg))
		r.TPR = append(r.TPR, tps[k]/float64(r.NPos))
		r.Thresholds = append(r.Thresholds, thr[k])
	}
	return r
}

// dropIntermediate keeps the first and last points and every point where the curve bends.
func dropIntermediate(tps, fps []float64) []int {
	m := len(tps)
	var keep []int
	for k := 0; k < m; k++ {
		if m <= 2 || k == 0 || k == m-1 ||
			fps[k+1]-2*fps[k]+fps[k-1] != 0 || tps[k+1]-2*tps[k]+tps[k-1] != 0 {
			keep = append(keep, k)
		}
	}
	return keep
}

// AUC is the area under the ROC curve by the trapezoid rule, as numpy 1.24's trapz computes it
// (the trapezoids summed as numpy sums, pairwise from eight on); NaN when a class is absent.
func (r ROC) AUC() float64 {
	if r.NPos == 0 || r.NNeg == 0 {
		return math.NaN()
	}
	parts := make([]float64, len(r.FPR)-1)
	for i := range parts {
		parts[i] = (r.FPR[i+1] - r.FPR[i]) * (r.TPR[i+1] + r.TPR[i]) / 2.0
	}
	return pysum.Numpy(parts)
}
