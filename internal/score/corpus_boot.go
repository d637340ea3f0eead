package score

import (
	"cmp"
	"math"
	"slices"

	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/metric"
)

// Intervals of the corpus metrics.
//
// A corpus metric is no mean of per-record values, so its interval comes from resampling what
// each unit contributes, its sufficient statistics, and finishing the metric on the sums: a
// record's label indices (accuracy, precision, recall, f1_score), its score and class (auc), its
// chunk counts, its loss and token count, its BLEU n-gram counts. The unit of pn and pairwise_acc
// is the query group (its pair counts), and of mrr and map the query (its reciprocal rank and
// average precision), since their records are not independent. A resample in which a metric is
// undefined (auc drawn with one class) is left out of that metric's interval.

// corpusStat is one family of corpus metrics to resample: n units, and stat, which fills out
// (one value per name, NaN where undefined) from the resampled unit indices.
type corpusStat struct {
	names []string
	n     int
	stat  func(idx []int, out []float64)
}

// partialIV is a metric whose interval leaves out more than a tenth of its reps resamples, where
// it had no value (auc drawn with one class; stats.Interval.Partial): over defined of them alone,
// or, defined 0, a metric that has no interval for want of a resample with a value.
type partialIV struct {
	name          string
	defined, reps int
	overflow      bool // a bound past the largest float (a perplexity's), so no interval at all
}

// intervals returns the interval at level of each selected headline value of the group that has
// one, from reps resamples seeded by seed, the metrics whose every resample gave the same value
// and those whose interval is partial or missing (every resample without a value, or an upper
// bound that overflows), for warnings to name.
func (a *corpusGroup) intervals(seed uint64, reps int, level float64) (out map[string][2]float64, same map[string]bool, partial []partialIV) {
	out, same = map[string][2]float64{}, map[string]bool{}
	if reps == 0 {
		return out, same, nil
	}
	for _, f := range a.resamplers() {
		if f.n == 0 {
			continue
		}
		ivs := stats.BootstrapVec(stats.NewRand(groupSeed(seed, f.names[0], f.n)), f.n, reps, len(f.names), level, f.stat)
		for i, name := range f.names {
			switch {
			case !a.cfg.wants(name):
			case finite(ivs[i].Lo) && finite(ivs[i].Hi):
				out[name] = [2]float64{ivs[i].Lo, ivs[i].Hi}
				same[name] = ivs[i].Same
				if ivs[i].Partial(reps) {
					partial = append(partial, partialIV{name: name, defined: reps - ivs[i].Undefined, reps: reps})
				}
			case ivs[i].Undefined == reps:
				partial = append(partial, partialIV{name: name, reps: reps})
			default: // a resample that is +Inf (a perplexity that overflows): no number at a bound
				partial = append(partial, partialIV{name: name, reps: reps, overflow: true})
			}
		}
	}
	return out, same, partial
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// resamplers returns the selected families' corpusStats.
func (a *corpusGroup) resamplers() []corpusStat {
	var fs []corpusStat
	if a.cfg.wants("accuracy", "precision", "recall", "f1_score") {
		fs = append(fs, a.classStat())
	}
	if a.cfg.wants("auc") {
		fs = append(fs, a.aucStat())
	}
	if a.cfg.wants("pn", "pairwise_acc") {
		fs = append(fs, a.pairStat())
	}
	if a.cfg.wants("mrr", "map") {
		fs = append(fs, a.rankStat())
	}
	if a.cfg.wants("chunk_p", "chunk_r", "chunk_f1") {
		fs = append(fs, a.chunkStat())
	}
	if a.cfg.wants("perplexity") {
		fs = append(fs, a.perplexityStat())
	}
	if a.cfg.wants("corpus_bleu", "gen_eval_bleu") {
		fs = append(fs, a.bleuStat())
	}
	return fs
}

// chunkStat resamples the records with their chunk counts.
func (a *corpusGroup) chunkStat() corpusStat {
	return corpusStat{names: []string{"chunk_p", "chunk_r", "chunk_f1"}, n: len(a.chunks),
		stat: func(idx []int, out []float64) {
			var t metric.ChunkCounts
			for _, i := range idx {
				c := a.chunks[i]
				t.Label, t.Infer, t.Correct = t.Label+c.Label, t.Infer+c.Infer, t.Correct+c.Correct
			}
			r := t.PRF()
			out[0], out[1], out[2] = r.Precision, r.Recall, r.F1
		}}
}

// perplexityStat resamples the records with their loss and token count.
func (a *corpusGroup) perplexityStat() corpusStat {
	loss, tokens := make([]float64, len(a.loss)), make([]int, len(a.loss))
	return corpusStat{names: []string{"perplexity"}, n: len(a.loss), stat: func(idx []int, out []float64) {
		for k, i := range idx {
			loss[k], tokens[k] = a.loss[i], a.tokens[i]
		}
		// A perplexity that overflows stays +Inf, so that an upper bound it reaches is no
		// number and the metric gets no interval, rather than one cut below it.
		out[0] = metric.Perplexity(loss, tokens).PPL
	}}
}

// bleuStat resamples the records with their BLEU n-gram counts, for corpus_bleu and
// gen_eval_bleu (NaN where genEval gives none). A resample's counts are each record's times the
// number of its draws, summed in record order: integer sums, the same as merging the draws one by
// one, but read in order.
//
// Note: merging the draws read each drawn record's counts, four allocations of their own then, at
// random, a cache miss or more a draw once they outgrew the caches: a draw took 24 ns at 10k
// records, 115 at 100k and 323 at 1M, against 14, 16 and 20 now (BenchmarkBLEUBootstrap).
func (a *corpusGroup) bleuStat() corpusStat {
	orders := len(a.cfg.bleuWeights)
	w := bleuWidth(orders)
	n := len(a.bleus) / w
	drawn, sums := make([]int, n), make([]int, w)
	sum := metric.NewBLEUCounts(orders)
	return corpusStat{names: []string{"corpus_bleu", "gen_eval_bleu"}, n: n, stat: func(idx []int, out []float64) {
		for _, i := range idx {
			drawn[i]++
		}
		clear(sums)
		for i, d := range drawn {
			if d > 0 {
				for j, v := range a.bleus[i*w : (i+1)*w] {
					sums[j] += d * v
				}
				drawn[i] = 0
			}
		}
		copy(sum.Numerators, sums[:orders])
		copy(sum.Denominators, sums[orders:2*orders])
		copy(sum.PossibleMatches, sums[2*orders:3*orders])
		sum.HypLen, sum.RefLen, sum.ShortestRefLen = sums[3*orders], sums[3*orders+1], sums[3*orders+2]
		out[0], out[1] = corpusBLEU(sum, a.cfg.bleuWeights, len(idx)).BLEU, math.NaN()
		if g := genEval(sum, a.cfg.bleuWeights); g != nil {
			out[1] = g.BLEU
		}
	}}
}

// classStat resamples the records' label pairs: each resample's report is computed from its label
// counts, over the labels it has (or --labels), as scikit-learn computes it over the resampled
// labels.
func (a *corpusGroup) classStat() corpusStat {
	names := []string{"accuracy", "precision", "recall", "f1_score"}
	n := len(a.labelIDs) / 2
	if n == 0 {
		return corpusStat{names: names}
	}
	all, at := a.classes.sorted()
	gi, pi := make([]int32, n), make([]int32, n)
	for i := range n {
		gi[i], pi[i] = at[a.labelIDs[2*i]], at[a.labelIDs[2*i+1]]
	}
	full := metric.LabelCounts{All: all, TP: make([]int, len(all)), Predicted: make([]int, len(all)), Support: make([]int, len(all))}
	var c metric.LabelCounts
	opt := a.prfOptions(labelOrder(a.classes.labels))
	return corpusStat{names: names, n: n, stat: func(idx []int, out []float64) {
		clear(full.TP)
		clear(full.Predicted)
		clear(full.Support)
		full.Correct, full.N = 0, len(idx)
		for _, i := range idx {
			g, p := gi[i], pi[i]
			full.Support[g]++
			full.Predicted[p]++
			if g == p {
				full.TP[g]++
				full.Correct++
			}
		}
		// The resample's labels are those it has, in the order of all.
		c = metric.LabelCounts{All: c.All[:0], TP: c.TP[:0], Predicted: c.Predicted[:0], Support: c.Support[:0], Correct: full.Correct, N: full.N}
		for k, l := range all {
			if full.Support[k] > 0 || full.Predicted[k] > 0 {
				c.All, c.TP = append(c.All, l), append(c.TP, full.TP[k])
				c.Predicted, c.Support = append(c.Predicted, full.Predicted[k]), append(c.Support, full.Support[k])
			}
		}
		r := c.Report(opt)
		out[0] = r.Accuracy
		out[1], out[2], out[3] = math.NaN(), math.NaN(), math.NaN()
		cl := Classification{Average: a.cfg.average, ClassReport: r}
		if avg := cl.average(); avg != nil {
			out[1], out[2], out[3] = avg.Precision, avg.Recall, avg.F1
		}
	}}
}

// aucStat resamples the scored records. The records are sorted by score once; a resample counts
// how often it drew each, and its AUC is the Mann–Whitney count of (positive, negative) pairs
// ordered right, a tie counting half, over all such pairs: the area under the ROC curve.
func (a *corpusGroup) aucStat() corpusStat {
	labs := a.scored
	order := make([]int, len(labs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(labs[x].score, labs[y].score) })
	times := make([]int, len(labs))
	return corpusStat{names: []string{"auc"}, n: len(labs), stat: func(idx []int, out []float64) {
		clear(times)
		for _, i := range idx {
			times[i]++
		}
		var right, negBelow, pos, neg float64
		for s := 0; s < len(order); {
			e := s
			var p, n float64 // positives and negatives drawn at this score
			for ; e < len(order) && labs[order[e]].score == labs[order[s]].score; e++ {
				if labs[order[e]].pos {
					p += float64(times[order[e]])
				} else {
					n += float64(times[order[e]])
				}
			}
			right += float64(p * (negBelow + float64(n/2)))
			negBelow += n
			pos, neg = pos+p, neg+n
			s = e
		}
		out[0] = math.NaN()
		if pos > 0 && neg > 0 {
			out[0] = right / (pos * neg)
		}
	}}
}

// pairStat resamples the query groups with their pair counts.
func (a *corpusGroup) pairStat() corpusStat {
	groups, rel, scores := a.rankedSlices()
	var counts []metric.PairCounts
	for _, m := range members(groups) {
		g, r, s := make([]string, len(m)), make([]float64, len(m)), make([]float64, len(m))
		for k, i := range m {
			g[k], r[k], s[k] = groups[i], rel[i], scores[i]
		}
		counts = append(counts, metric.CountGroupPairs(g, r, s))
	}
	return corpusStat{names: []string{"pn", "pairwise_acc"}, n: len(counts), stat: func(idx []int, out []float64) {
		var t metric.PairCounts
		for _, i := range idx {
			c := counts[i]
			t.Pairs, t.Right, t.Wrong, t.Ties = t.Pairs+c.Pairs, t.Right+c.Right, t.Wrong+c.Wrong, t.Ties+c.Ties
		}
		out[0], _ = t.PN(PNCap)
		out[1] = math.NaN()
		if acc, ok := t.Accuracy(); ok {
			out[1] = acc
		}
	}}
}

// rankStat resamples the queries with their reciprocal rank and average precision.
func (a *corpusGroup) rankStat() corpusStat {
	groups, rel, scores := a.rankedSlices()
	order := labelOrder(groups)
	qs := metric.Rank(groups, rel, scores, func(x, y string) bool { return order.Compare(x, y) < 0 }).Queries
	return corpusStat{names: []string{"mrr", "map"}, n: len(qs), stat: func(idx []int, out []float64) {
		var rr, ap float64
		for _, i := range idx {
			rr, ap = rr+qs[i].RR, ap+qs[i].AP
		}
		out[0], out[1] = rr/float64(len(idx)), ap/float64(len(idx))
	}}
}

// members returns the indices of each distinct value of groups, in order of first appearance.
func members(groups []string) [][]int {
	at := map[string]int{}
	var out [][]int
	for i, g := range groups {
		k, ok := at[g]
		if !ok {
			k = len(out)
			at[g] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}
