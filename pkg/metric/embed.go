package metric

import (
	"math"
)

// This file holds the embedding-similarity metrics: the cosine behind `sbert` and BERTScore's
// greedy matching of token embeddings (Zhang et al. 2020, github.com/Tiiiger/bert_score 0.3.13).
// The functions take vectors, never text: fetching embeddings is internal/embedding's job.
//
// Zero vectors: a zero vector has no direction, so its cosine with anything (itself included) is
// defined as 0 rather than NaN (bert_score divides by the norm and would produce NaN). Vectors with
// NaN or infinite components, which no real server sends, also give 0, so every score is finite.
//
// Note: vectors are generic over float32 and float64 (servers send float32; tests and other callers
// may hold float64) and every sum is accumulated in float64, so float32 inputs lose nothing to the
// arithmetic beyond their own rounding.

// Float is the element type of an embedding vector.
type Float interface{ ~float32 | ~float64 }

// Cosine returns the cosine similarity of a and b, accumulated in float64 and clamped to [-1, 1].
// It is 0 when either vector is zero (or empty), and when a float64 vector's sum of squares
// overflows or underflows (components beyond about 1e154, or all below about 1e-154, which no
// float32 embedding reaches): its norm is then no number. a and b must have the same length; Cosine panics
// otherwise, as mixing vectors of two models is a programming error.
func Cosine[T Float](a, b []T) float64 {
	if len(a) != len(b) {
		panic("metric.Cosine: vectors of different lengths")
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += float64(x * y)
		na += float64(x * x)
		nb += float64(y * y)
	}
	return cosineOf(dot, na, nb)
}

func cosineOf(dot, na, nb float64) float64 {
	if na == 0 || nb == 0 {
		return 0
	}
	c := dot / (math.Sqrt(na) * math.Sqrt(nb))
	switch {
	case math.IsNaN(c): // overflowing norms (Inf/Inf)
		return 0
	case c > 1:
		return 1
	case c < -1:
		return -1
	}
	return c
}

// MaxCosine returns the largest cosine between pred and each reference vector: the `sbert` score of
// a prediction against several acceptable answers. It is 0 when refs is empty.
func MaxCosine[T Float](pred []T, refs [][]T) float64 {
	best := math.Inf(-1)
	for _, r := range refs {
		best = max(best, Cosine(pred, r))
	}
	if math.IsInf(best, -1) {
		return 0
	}
	return best
}

// BERTScore returns BERTScore's precision, recall and F1 of the candidate's token embeddings cand
// against the reference's ref, by greedy cosine matching:
//
//	R = Σ_j wr_j · max_i cos(ref_j, cand_i) / Σ_j wr_j
//	P = Σ_i wc_i · max_j cos(cand_i, ref_j) / Σ_i wc_i
//	F = 2PR / (P + R)
//
// candW and refW weight each token (nil means 1 for every token). bert_score weights a token by its
// idf, or by 1 without --idf, and in both cases gives the [CLS] and [SEP] tokens weight 0 while still
// letting them be matched; callers pass the weights that way (see IDF and internal/embedding).
//
// When a side has no token of positive weight (bert_score's "empty sentence", only [CLS] and [SEP])
// all three scores are 0, as bert_score sets them (bert_score leaves P or R NaN when the weights of a
// longer sentence all vanish, e.g. every token in every reference under idf; here they are 0 too).
// F is 0 when P+R is 0 (bert_score turns that NaN into 0) or F is not finite. The per-token maximum is
// the true maximum over the other side's tokens; bert_score takes it over a zero-padded batch, which
// can lift a negative maximum to 0 for a sentence shorter than its batch's longest — contextual
// embeddings' cosines are positive in practice, so the two agree on real models.
func BERTScore[T Float](cand, ref [][]T, candW, refW []float64) PRF {
	if len(cand) == 0 || len(ref) == 0 {
		return PRF{}
	}
	cn, rn := norms(cand), norms(ref)
	bestC := make([]float64, len(cand)) // max over ref for each candidate token
	bestR := make([]float64, len(ref))  // max over cand for each reference token
	for i := range bestC {
		bestC[i] = math.Inf(-1)
	}
	for j := range bestR {
		bestR[j] = math.Inf(-1)
	}
	for i, c := range cand {
		for j, r := range ref {
			s := cosineOf(dot(c, r), cn[i], rn[j])
			bestC[i] = max(bestC[i], s)
			bestR[j] = max(bestR[j], s)
		}
	}
	p, okP := weightedMean(bestC, candW)
	r, okR := weightedMean(bestR, refW)
	if !okP || !okR {
		return PRF{}
	}
	f := 2 * p * r / (p + r)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	return PRF{Precision: p, Recall: r, F1: f}
}

func dot[T Float](a, b []T) float64 {
	if len(a) != len(b) {
		panic("metric.BERTScore: token vectors of different lengths")
	}
	var s float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		s += float64(x * y)
	}
	return s
}

// norms returns the squared norm of each vector.
func norms[T Float](m [][]T) []float64 {
	out := make([]float64, len(m))
	for i, v := range m {
		out[i] = dot(v, v)
	}
	return out
}

// weightedMean returns Σ w_i x_i / Σ w_i, and false when the weights sum to zero (or are not
// finite). Negative weights are treated as 0. w nil means all ones.
func weightedMean(x, w []float64) (float64, bool) {
	if w != nil && len(w) != len(x) {
		panic("metric.BERTScore: weights and tokens differ in length")
	}
	var num, den float64
	for i, v := range x {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		if !(wi > 0) || math.IsInf(wi, 1) {
			continue
		}
		num += float64(wi * v)
		den += wi
	}
	m := num / den
	if den == 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		return 0, false
	}
	return m, true
}

// MaxPRF returns the column-wise maximum of scores (best precision, best recall and best F1, each
// possibly from a different reference), as bert_score combines several references per candidate.
// It is the zero PRF when scores is empty.
func MaxPRF(scores []PRF) PRF {
	if len(scores) == 0 {
		return PRF{}
	}
	best := scores[0]
	for _, s := range scores[1:] {
		best.Precision = max(best.Precision, s.Precision)
		best.Recall = max(best.Recall, s.Recall)
		best.F1 = max(best.F1, s.F1)
	}
	return best
}

// Baseline holds BERTScore's rescaling baselines for P, R and F: the scores a model gives to
// unrelated sentence pairs (bert_score ships them per model and layer as rescale_baseline/*.tsv).
type Baseline struct {
	Precision, Recall, F1 float64
}

// Rescale returns (x-b)/(1-b), which maps the baseline b to 0 and 1 to 1 (and can be negative).
// b must be below 1; for b == 1 Rescale returns x unchanged.
func Rescale(x, b float64) float64 {
	if b == 1 {
		return x
	}
	return (x - b) / (1 - b)
}

// Rescale returns s with each score rescaled by its baseline.
func (b Baseline) Rescale(s PRF) PRF {
	return PRF{
		Precision: Rescale(s.Precision, b.Precision),
		Recall:    Rescale(s.Recall, b.Recall),
		F1:        Rescale(s.F1, b.F1),
	}
}

// IDF is BERTScore's inverse document frequency table over token ids, counted on the references of
// the whole input set: idf(w) = ln((M+1)/(df(w)+1)) with M the number of references and df(w) the
// number of references containing w; a token seen in no reference gets ln(M+1). Special tokens are
// counted like any other, so [CLS] and [SEP], present in every reference, get ln(1) = 0 — the same
// zero weight bert_score gives them without idf.
type IDF struct {
	docs int
	df   map[int]int
}

// NewIDF returns the table for the references refs, each given as its token ids (special tokens
// included, as the tokenizer emits them). Repeated ids within one reference count once.
func NewIDF(refs [][]int) *IDF {
	t := &IDF{docs: len(refs), df: make(map[int]int)}
	seen := make(map[int]bool)
	for _, ids := range refs {
		clear(seen)
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				t.df[id]++
			}
		}
	}
	return t
}

// Docs returns M, the number of references counted.
func (t *IDF) Docs() int { return t.docs }

// Weight returns idf(id).
func (t *IDF) Weight(id int) float64 {
	return math.Log(float64(t.docs+1) / float64(t.df[id]+1))
}

// Weights returns idf of each id.
func (t *IDF) Weights(ids []int) []float64 {
	w := make([]float64, len(ids))
	for i, id := range ids {
		w[i] = t.Weight(id)
	}
	return w
}
