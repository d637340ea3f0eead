package score

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/stats"
	"github.com/qapipe/qapipe/pkg/metric"
)

// randomCorpusGroup returns a group of n records' random facts for every corpus metric: labels
// from a small set, tied scores, query groups, losses, chunk counts and BLEU counts.
func randomCorpusGroup(rng *rand.Rand, cfg *corpusConfig, n int) (*corpusGroup, []corpusFacts) {
	g := newCorpusGroup(cfg, true)
	var facts []corpusFacts
	labels := []string{"0", "1", "2", "yes"}
	words := strings.Fields("the cat sat on a mat with the dog and a bird")
	text := func() string {
		w := make([]string, 1+rng.IntN(8))
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	for range n {
		f := corpusFacts{lab: &labelled{gold: labels[rng.IntN(len(labels))], pred: labels[rng.IntN(len(labels))],
			score: float64(rng.IntN(5)) / 4, group: fmt.Sprint("q", rng.IntN(n/3+1)), grouped: true}}
		if rng.IntN(10) == 0 {
			f.lab.score = math.NaN()
		}
		f.loss, f.tokens, f.hasLoss = rng.Float64()*20, 1+rng.IntN(9), true
		r := metric.ChunkReport{Total: metric.ChunkCounts{Label: rng.IntN(4), Infer: rng.IntN(4)}}
		r.Total.Correct = rng.IntN(min(r.Total.Label, r.Total.Infer) + 1)
		f.chunk = &r
		f.bleu = newBleuCounts(text(), []string{text(), text()}, len(cfg.bleuWeights))
		g.add(f)
		facts = append(facts, f)
	}
	return g, facts
}

// TestCorpusIntervalStats: each family's statistic of a resample equals the metric of the
// resampled records themselves, computed as the summary computes it (query groups drawn twice
// are two groups), to rounding.
func TestCorpusIntervalStats(t *testing.T) {
	for _, average := range averages {
		cfg := &corpusConfig{want: corpusNames(), average: average, posLabel: "1", bleuWeights: []float64{0.25, 0.25, 0.25, 0.25}}
		rng := rand.New(rand.NewPCG(7, uint64(len(average))))
		for trial := range 40 {
			n := 3 + rng.IntN(40)
			g, facts := randomCorpusGroup(rng, cfg, n)
			if average == "binary" && trial%2 == 0 { // two labels, so that the binary figure exists
				g = newCorpusGroup(cfg, true)
				for i := range facts {
					f := facts[i]
					lab := *f.lab
					lab.gold, lab.pred = []string{"0", "1"}[rng.IntN(2)], []string{"0", "1"}[rng.IntN(2)]
					f.lab = &lab
					facts[i] = f
					g.add(f)
				}
			}
			for _, f := range g.resamplers() {
				if f.n == 0 {
					continue
				}
				idx := make([]int, f.n)
				for rep := range 5 {
					for i := range idx {
						idx[i] = i
						if rep > 0 {
							idx[i] = rng.IntN(f.n)
						}
					}
					got := make([]float64, len(f.names))
					f.stat(idx, got)
					want := resampledValues(cfg, g, facts, f.names[0], idx)
					for k, name := range f.names {
						w, ok := want[name]
						if !ok {
							w = math.NaN()
						}
						if !(math.IsNaN(got[k]) && math.IsNaN(w)) && !(math.Abs(got[k]-w) <= 1e-12) {
							t.Fatalf("%s, %d records, resample %v: %s = %v, the resampled records give %v", average, n, idx, name, got[k], w)
						}
					}
				}
			}
		}
	}
}

// resampledValues builds the group of the records a resample of family's units drew and returns
// its headline values.
func resampledValues(cfg *corpusConfig, g *corpusGroup, facts []corpusFacts, family string, idx []int) map[string]float64 {
	r := newCorpusGroup(cfg, true)
	switch family {
	case "pn", "mrr": // units are query groups; each draw becomes a group of its own
		groups, _, _ := g.rankedSlices()
		var ids []string
		seen := map[string]bool{}
		for _, q := range groups {
			if !seen[q] {
				seen[q] = true
				ids = append(ids, q)
			}
		}
		if family == "mrr" {
			order := labelOrder(groups)
			slices.SortStableFunc(ids, order.Compare) // as metric.Rank orders queries
		}
		for k, i := range idx {
			for _, f := range facts {
				if f.lab.grouped && !math.IsNaN(f.lab.score) && f.lab.group == ids[i] {
					lab := *f.lab
					lab.group = fmt.Sprintf("%s#%d", lab.group, k)
					r.add(corpusFacts{lab: &lab})
				}
			}
		}
	case "auc":
		var scored []corpusFacts
		for _, f := range facts {
			if !math.IsNaN(f.lab.score) {
				scored = append(scored, corpusFacts{lab: f.lab})
			}
		}
		for _, i := range idx {
			r.add(scored[i])
		}
	default:
		for _, i := range idx {
			r.add(facts[i])
		}
	}
	_, vals, _ := r.summarize()
	out := map[string]float64{}
	for _, v := range vals {
		if v.v != nil {
			out[v.name] = *v.v
		}
	}
	return out
}

// TestBLEUStatMergesDraws: the BLEU resample's figures are those of its draws' counts merged one by
// one, to the bit, with records drawn several times, once and not at all, for each number of
// n-gram orders.
func TestBLEUStatMergesDraws(t *testing.T) {
	for _, weights := range [][]float64{{1}, {0.5, 0.5}, {0.25, 0.25, 0.25, 0.25}, {0.1, 0.2, 0.3, 0.4}} {
		rng := rand.New(rand.NewPCG(3, uint64(len(weights))))
		cfg := &corpusConfig{want: corpusNames(), average: "macro", bleuWeights: weights}
		g, facts := randomCorpusGroup(rng, cfg, 50)
		f := g.bleuStat()
		for trial := range 20 {
			idx := make([]int, 1+rng.IntN(2*f.n))
			for i := range idx {
				idx[i] = rng.IntN(1 + trial%f.n) // small draws repeat records
			}
			sum := metric.NewBLEUCounts(len(weights))
			for _, i := range idx {
				sum.Merge(facts[i].bleu)
			}
			want := []float64{corpusBLEU(sum, weights, len(idx)).BLEU, math.NaN()}
			if ge := genEval(sum, weights); ge != nil {
				want[1] = ge.BLEU
			}
			got := make([]float64, 2)
			f.stat(idx, got)
			for k := range got {
				if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
					t.Errorf("weights %v, draws %v: %s = %v, want %v (the draws merged)", weights, idx, f.names[k], got[k], want[k])
				}
			}
		}
	}
}

// BenchmarkBLEUBootstrap times corpus_bleu's and gen_eval_bleu's resamples at three sizes, with a
// metric of nanoseconds per record drawn, which stays flat where the cost grows linearly.
func BenchmarkBLEUBootstrap(b *testing.B) {
	const reps = 100
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			g := newCorpusGroup(&corpusConfig{bleuWeights: []float64{0.25, 0.25, 0.25, 0.25}}, true)
			for range n {
				c := metric.NewBLEUCounts(4)
				for k := range 4 {
					c.Denominators[k] = 1 + rng.IntN(9)
					c.Numerators[k] = rng.IntN(c.Denominators[k] + 1)
					c.PossibleMatches[k] = c.Denominators[k]
				}
				c.HypLen, c.RefLen, c.ShortestRefLen = 1+rng.IntN(12), 1+rng.IntN(12), 1+rng.IntN(12)
				g.add(corpusFacts{bleu: c})
			}
			f := g.bleuStat()
			b.ReportAllocs()
			for b.Loop() {
				stats.BootstrapVec(stats.NewRand(1), f.n, reps, len(f.names), 0.95, f.stat)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*reps), "ns/draw")
		})
	}
}
