package metric

import (
	"cmp"
	"fmt"
	"github.com/qapipe/qapipe/pkg/pysum"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// LabelOrder sorts class labels: numerically when Numeric (labels that are JSON integers),
// otherwise by Unicode code point (Go's byte order), so "10" < "2".
type LabelOrder struct{ Numeric bool }

// Compare returns -1, 0 or +1 as a sorts before, equal to or after b. Numeric labels compare as
// the integers they are, exactly (9007199254740993 after 9007199254740992, which float64 cannot
// tell apart); two different labels that are equal as numbers ("1" and "01", "0" and "-0") are
// ordered by code point, so that only equal labels compare equal and a sort keeps each label's
// records together (Rank's query groups).
func (o LabelOrder) Compare(a, b string) int {
	if o.Numeric && a != b {
		if c, ok := compareNumbers(a, b); ok && c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

// compareNumbers compares a and b as numbers: exactly as integers when both are, else as
// float64; false when either is no number.
func compareNumbers(a, b string) (int, bool) {
	x, errx := strconv.ParseInt(a, 10, 64)
	y, erry := strconv.ParseInt(b, 10, 64)
	if errx == nil && erry == nil {
		return cmp.Compare(x, y), true
	}
	if bx, ok := new(big.Int).SetString(a, 10); ok {
		if by, ok := new(big.Int).SetString(b, 10); ok {
			return bx.Cmp(by), true
		}
	}
	fx, errx := strconv.ParseFloat(a, 64)
	fy, erry := strconv.ParseFloat(b, 64)
	if errx != nil || erry != nil {
		return 0, false
	}
	return cmp.Compare(fx, fy), true
}

// Sorted returns the distinct labels of the lists in this order.
func (o LabelOrder) Sorted(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	slices.SortFunc(out, o.Compare)
	return out
}

// PRFOptions are scikit-learn's precision_recall_fscore_support options.
type PRFOptions struct {
	// Labels restricts and orders the classes (nil: every label seen, sorted).
	Labels []string
	// PosLabel is the positive class for the binary average (nil: no binary average).
	PosLabel *string
	// ZeroDivision is the value of a ratio with a zero denominator (sklearn "warn" acts as 0).
	ZeroDivision float64
	Order        LabelOrder
}

// PRF is precision, recall and F1.
type PRF struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// ClassReport is the per-class table and averages of a classification run, as scikit-learn 1.2
// computes them.
type ClassReport struct {
	Accuracy  float64   `json:"accuracy"`
	Labels    []string  `json:"labels"`
	TP        []int     `json:"tp"`
	Predicted []int     `json:"predicted"`
	Support   []int     `json:"support"`
	Precision []float64 `json:"precision"`
	Recall    []float64 `json:"recall"`
	F1        []float64 `json:"f1"`
	Macro     PRF       `json:"macro"`
	Micro     PRF       `json:"micro"`
	Weighted  PRF       `json:"weighted"`
	// F1OfMacroPR is 2·P·R/(P+R) of the macro precision and recall (not sklearn's macro F1).
	F1OfMacroPR float64 `json:"f1_of_macro_pr"`
	// Binary is the average='binary' result for PosLabel; nil when not applicable.
	Binary *PRF `json:"binary"`
	// CMLabels and Confusion: Confusion[i][j] counts true CMLabels[i] predicted as CMLabels[j].
	CMLabels  []string `json:"cm_labels"`
	Confusion [][]int  `json:"confusion_matrix"`
}

// Classify computes accuracy, per-class and averaged precision/recall/F1 and the confusion matrix
// of predicted labels against true labels (at least one). It panics when yTrue and yPred differ
// in length.
func Classify(yTrue, yPred []string, opt PRFOptions) ClassReport {
	sameLength("Classify", len(yPred), "predicted labels", len(yTrue), "true labels")
	all := opt.Order.Sorted(yTrue, yPred)
	c := CountLabels(yTrue, yPred, all)
	r := c.Report(opt)
	r.Confusion = confusion(yTrue, yPred, all)
	return r
}

// LabelCounts are what a classification report is computed from: for each label of All (the
// labels seen, in their order) its true positives, predictions and support, and how many records
// there are and how many of them are right. Counts of resampled records give the report of the
// resample without the labels themselves.
type LabelCounts struct {
	All                    []string
	TP, Predicted, Support []int // indexed like All
	Correct, N             int
}

// CountLabels counts the labels of yTrue and yPred, all of which are in all. It panics when yTrue
// and yPred differ in length or a label is not in all.
func CountLabels(yTrue, yPred, all []string) LabelCounts {
	sameLength("CountLabels", len(yPred), "predicted labels", len(yTrue), "true labels")
	idx := make(map[string]int, len(all))
	for i, l := range all {
		idx[l] = i
	}
	c := LabelCounts{All: all, TP: make([]int, len(all)), Predicted: make([]int, len(all)),
		Support: make([]int, len(all)), N: len(yTrue)}
	for i := range yTrue {
		t, okT := idx[yTrue[i]]
		p, okP := idx[yPred[i]]
		if !okT || !okP {
			panic(fmt.Sprintf("metric.CountLabels: label %q of record %d is not in all", cmp.Or(yTrue[i], yPred[i]), i))
		}
		c.Support[t]++
		c.Predicted[p]++
		if t == p {
			c.TP[t]++
			c.Correct++
		}
	}
	return c
}

// at returns the true positives, predictions and support of All[i] (0 for i < 0: a label not in All).
func (c LabelCounts) at(i int) (tp, pred, sup int) {
	if i < 0 {
		return 0, 0, 0
	}
	return c.TP[i], c.Predicted[i], c.Support[i]
}

// Report computes the ClassReport of the counts (at least one record), all but its confusion
// matrix, as scikit-learn 1.2 computes it: over opt.Labels, or every label of All.
func (c LabelCounts) Report(opt PRFOptions) ClassReport {
	z := opt.ZeroDivision
	labels, pos := opt.Labels, make([]int, len(opt.Labels)) // pos[k]: labels[k]'s index in All, or -1
	if labels == nil {
		labels, pos = c.All, nil
	} else {
		idx := make(map[string]int, len(c.All))
		for i, l := range c.All {
			idx[l] = i
		}
		for k, l := range labels {
			if i, ok := idx[l]; ok {
				pos[k] = i
			} else {
				pos[k] = -1
			}
		}
	}
	r := ClassReport{Labels: labels, CMLabels: c.All, Accuracy: float64(c.Correct) / float64(c.N)}
	r.TP, r.Predicted, r.Support = make([]int, len(labels)), make([]int, len(labels)), make([]int, len(labels))
	var sumTP, sumPred, sumTrue int
	for k := range labels {
		i := k
		if pos != nil {
			i = pos[k]
		}
		r.TP[k], r.Predicted[k], r.Support[k] = c.at(i)
		p, rc, f := prf(r.TP[k], r.Predicted[k], r.Support[k], z)
		r.Precision = append(r.Precision, p)
		r.Recall = append(r.Recall, rc)
		r.F1 = append(r.F1, f)
		sumTP += r.TP[k]
		sumPred += r.Predicted[k]
		sumTrue += r.Support[k]
	}
	n := float64(len(labels))
	r.Macro = PRF{pysum.Numpy(r.Precision) / n, pysum.Numpy(r.Recall) / n, pysum.Numpy(r.F1) / n}
	r.Micro.Precision, r.Micro.Recall, r.Micro.F1 = prf(sumTP, sumPred, sumTrue, z)
	r.Weighted = weighted(r, sumTrue, sumPred, z)
	r.F1OfMacroPR = harmonic(r.Macro.Precision, r.Macro.Recall)
	r.Binary = c.binary(opt.PosLabel, z)
	return r
}

// prf computes precision, recall and F1 from counts, substituting z for zero denominators first.
func prf(tp, pred, true_ int, z float64) (p, r, f float64) {
	p, r = z, z
	if pred > 0 {
		p = float64(tp) / float64(pred)
	}
	if true_ > 0 {
		r = float64(tp) / float64(true_)
	}
	if p+r != 0 {
		f = ((2 * p) * r) / (p + r)
	}
	return p, r, f
}

func harmonic(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func weighted(r ClassReport, sumTrue, sumPred int, z float64) PRF {
	if sumTrue == 0 {
		if sumPred == 0 {
			return PRF{z, z, z}
		}
		return PRF{0, z, 0}
	}
	// np.average(x, weights=support): the products summed as numpy sums, over the weights' sum.
	p, rc, f := make([]float64, len(r.Support)), make([]float64, len(r.Support)), make([]float64, len(r.Support))
	for c, s := range r.Support {
		p[c], rc[c], f[c] = r.Precision[c]*float64(s), r.Recall[c]*float64(s), r.F1[c]*float64(s)
	}
	t := float64(sumTrue)
	return PRF{pysum.Numpy(p) / t, pysum.Numpy(rc) / t, pysum.Numpy(f) / t}
}

// binary is the average='binary' figure for pos, nil when there is none or more than two labels,
// or two without pos.
func (c LabelCounts) binary(pos *string, z float64) *PRF {
	if pos == nil || len(c.All) > 2 || (len(c.All) == 2 && !slices.Contains(c.All, *pos)) {
		return nil
	}
	tp, pred, sup := c.at(slices.Index(c.All, *pos))
	var b PRF
	b.Precision, b.Recall, b.F1 = prf(tp, pred, sup, z)
	return &b
}

func confusion(yTrue, yPred, labels []string) [][]int {
	idx := make(map[string]int, len(labels))
	for i, l := range labels {
		idx[l] = i
	}
	m := make([][]int, len(labels))
	for i := range m {
		m[i] = make([]int, len(labels))
	}
	for i := range yTrue {
		m[idx[yTrue[i]]][idx[yPred[i]]]++
	}
	return m
}
