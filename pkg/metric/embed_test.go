package metric

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

const embedTol = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= embedTol }

func nearPRF(a, b PRF) bool {
	return near(a.Precision, b.Precision) && near(a.Recall, b.Recall) && near(a.F1, b.F1)
}

func TestCosine(t *testing.T) {
	tests := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{0, 1}, 0},
		{[]float64{1, 2, 2}, []float64{2, 1, 2}, 8.0 / 9},
		{[]float64{3, 4}, []float64{6, 8}, 1},
		{[]float64{1, 1}, []float64{-1, -1}, -1},
		{[]float64{1, 0}, []float64{1, 1}, 1 / math.Sqrt2},
		// A zero vector has no direction: 0 by definition, never NaN.
		{[]float64{0, 0}, []float64{1, 2}, 0},
		{[]float64{0, 0}, []float64{0, 0}, 0},
		{nil, nil, 0},
		{[]float64{math.NaN(), 1}, []float64{1, 1}, 0},
		{[]float64{math.Inf(1), 1}, []float64{math.Inf(1), 1}, 0},
		// Sums of squares past float64's range: no norm, so 0, as documented.
		{[]float64{1e300, 1e300}, []float64{1e300, 1e300}, 0},
		{[]float64{1e-300, 1e-300}, []float64{1e-300, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.a, tt.b), func(t *testing.T) {
			if got := Cosine(tt.a, tt.b); !near(got, tt.want) {
				t.Errorf("Cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// TestCosineClamped: a vector's cosine with itself rounds to 1.0000000000000002 for some vectors
// (dot/(√dot·√dot)); a score above 1 is held to 1.
func TestCosineClamped(t *testing.T) {
	v := []float64{0.1, 0.2, 0.30000000000000004}
	if got := Cosine(v, v); got != 1 {
		t.Errorf("Cosine(%v, itself) = %v, want 1", v, got)
	}
	w := []float64{-0.1, -0.2, -0.30000000000000004}
	if got := Cosine(v, w); got != -1 {
		t.Errorf("Cosine(%v, %v) = %v, want -1", v, w, got)
	}
}

func TestCosineFloat32(t *testing.T) {
	a, b := []float32{1, 2, 2}, []float32{2, 1, 2}
	if got, want := Cosine(a, b), 8.0/9; !near(got, want) {
		t.Errorf("Cosine(%v, %v) = %v, want %v", a, b, got, want)
	}
}

func TestCosineLengthMismatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Cosine of lengths 2 and 3 did not panic")
		}
	}()
	Cosine([]float64{1, 2}, []float64{1, 2, 3})
}

func TestMaxCosine(t *testing.T) {
	pred := []float64{1, 0}
	tests := []struct {
		refs [][]float64
		want float64
	}{
		{nil, 0},
		{[][]float64{{0, 1}}, 0},
		{[][]float64{{0, 1}, {1, 1}, {-1, 0}}, 1 / math.Sqrt2},
		{[][]float64{{-1, 0}, {-1, -1}}, -1 / math.Sqrt2},
		{[][]float64{{1, 2}, {5, 0}}, 1},
	}
	for _, tt := range tests {
		if got := MaxCosine(pred, tt.refs); !near(got, tt.want) {
			t.Errorf("MaxCosine(%v, %v) = %v, want %v", pred, tt.refs, got, tt.want)
		}
	}
}

// The 2×3 worked example. Candidate tokens c1=(1,0), c2=(0,1); reference tokens r1=(1,0),
// r2=(1,1), r3=(0,-1). Cosines:
//
//	     r1   r2     r3
//	c1   1    1/√2   0
//	c2   0    1/√2  -1
//
// Best per candidate token (rows): 1, 1/√2. Best per reference token (columns): 1, 1/√2, 0.
func TestBERTScore(t *testing.T) {
	cand := [][]float64{{1, 0}, {0, 1}}
	ref := [][]float64{{1, 0}, {1, 1}, {0, -1}}
	s := 1 / math.Sqrt2
	f := func(p, r float64) PRF { return PRF{Precision: p, Recall: r, F1: 2 * p * r / (p + r)} }
	tests := []struct {
		name        string
		cand, ref   [][]float64
		candW, refW []float64
		want        PRF
	}{
		{"uniform", cand, ref, nil, nil, f((1+s)/2, (1+s+0)/3)},
		{"weighted", cand, ref, []float64{1, 3}, []float64{2, 1, 1}, f((1+3*s)/4, (2+s)/4)},
		// Special tokens (weight 0) are matched against but do not count themselves.
		{"special zero", cand, ref, []float64{0, 1}, []float64{0, 1, 0}, f(s, s)},
		{"swap", ref, cand, nil, nil, f((1+s+0)/3, (1+s)/2)},
		{"identical", ref, ref, nil, nil, PRF{Precision: 1, Recall: 1, F1: 1}},
		// bert_score's empty sentence: only zero-weight tokens gives 0, 0, 0.
		{"empty cand", cand, ref, []float64{0, 0}, nil, PRF{}},
		{"empty ref", cand, ref, nil, []float64{0, 0, 0}, PRF{}},
		{"no tokens", nil, ref, nil, nil, PRF{}},
		// Opposite tokens: P = R = -1, F = 2/-2 = -1 (bert_score's formula, no clamping).
		{"opposite", [][]float64{{1, 0}}, [][]float64{{-2, 0}}, nil, nil, PRF{Precision: -1, Recall: -1, F1: -1}},
		// P + R = 0: F is 0.
		{"p+r=0", [][]float64{{1, 0}, {0, 1}}, [][]float64{{0, 1}, {0, -1}}, []float64{1, 0}, []float64{0, 1},
			PRF{Precision: 0, Recall: 0, F1: 0}},
		{"zero vector token", [][]float64{{0, 0}, {1, 0}}, [][]float64{{1, 0}}, nil, nil, f(0.5, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BERTScore(tt.cand, tt.ref, tt.candW, tt.refW)
			if !nearPRF(got, tt.want) {
				t.Errorf("BERTScore(%v, %v, %v, %v) = %+v, want %+v", tt.cand, tt.ref, tt.candW, tt.refW, got, tt.want)
			}
		})
	}
}

func TestIDF(t *testing.T) {
	// Three references as BERT token ids: [CLS]=101 and [SEP]=102 in every one.
	refs := [][]int{{101, 5, 6, 102}, {101, 5, 7, 7, 102}, {101, 8, 102}}
	idf := NewIDF(refs)
	tests := []struct {
		id   int
		want float64
	}{
		{101, 0},               // in all 3: ln(4/4)
		{102, 0},               // in all 3
		{5, math.Log(4.0 / 3)}, // in 2
		{6, math.Log(2)},       // in 1
		{7, math.Log(2)},       // twice in one reference counts once
		{9, math.Log(4)},       // unseen: ln(M+1)
	}
	for _, tt := range tests {
		if got := idf.Weight(tt.id); !near(got, tt.want) {
			t.Errorf("IDF.Weight(%d) = %v, want %v", tt.id, got, tt.want)
		}
	}
	if got := idf.Docs(); got != 3 {
		t.Errorf("IDF.Docs() = %d, want 3", got)
	}
	// idf-weighted BERTScore on the 2×3 example with token ids cand=[5,6], ref=[5,9,101].
	cand := [][]float64{{1, 0}, {0, 1}}
	ref := [][]float64{{1, 0}, {1, 1}, {0, -1}}
	a, b, l4 := math.Log(4.0/3), math.Log(2), math.Log(4)
	s := 1 / math.Sqrt2
	p := (a*1 + b*s) / (a + b)
	r := (a*1 + l4*s + 0*0) / (a + l4)
	want := PRF{Precision: p, Recall: r, F1: 2 * p * r / (p + r)}
	got := BERTScore(cand, ref, idf.Weights([]int{5, 6}), idf.Weights([]int{5, 9, 101}))
	if !nearPRF(got, want) {
		t.Errorf("BERTScore with idf = %+v, want %+v", got, want)
	}
}

func TestRescale(t *testing.T) {
	tests := []struct{ x, b, want float64 }{
		{0.9, 0.8, 0.5},
		{0.8, 0.8, 0},
		{1, 0.83, 1},
		{0.5, 0.75, -1},
		{0.7, 0, 0.7},
		{0.7, 1, 0.7}, // invalid baseline: unchanged
	}
	for _, tt := range tests {
		if got := Rescale(tt.x, tt.b); !near(got, tt.want) {
			t.Errorf("Rescale(%v, %v) = %v, want %v", tt.x, tt.b, got, tt.want)
		}
	}
	b := Baseline{Precision: 0.8, Recall: 0.5, F1: 0.6}
	got := b.Rescale(PRF{Precision: 0.9, Recall: 0.75, F1: 0.8})
	want := PRF{Precision: 0.5, Recall: 0.5, F1: 0.5}
	if !nearPRF(got, want) {
		t.Errorf("Baseline%+v.Rescale = %+v, want %+v", b, got, want)
	}
}

func TestMaxPRF(t *testing.T) {
	got := MaxPRF([]PRF{{0.9, 0.1, 0.18}, {0.2, 0.8, 0.32}, {0.5, 0.5, 0.5}})
	want := PRF{Precision: 0.9, Recall: 0.8, F1: 0.5}
	if got != want {
		t.Errorf("MaxPRF = %+v, want %+v", got, want)
	}
	if got := MaxPRF(nil); got != (PRF{}) {
		t.Errorf("MaxPRF(nil) = %+v, want zero", got)
	}
}

// matrixFrom reads rows×dim float32 values from data (raw bits, so NaN, Inf and zeros all occur).
func matrixFrom(data []byte, rows, dim int) ([][]float32, []byte) {
	m := make([][]float32, rows)
	for i := range m {
		m[i] = make([]float32, dim)
		for j := range m[i] {
			if len(data) >= 4 {
				m[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(data))
				data = data[4:]
			}
		}
	}
	return m, data
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func FuzzBERTScore(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint8(2), []byte{0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 63})
	f.Add(uint8(1), uint8(1), uint8(4), []byte{})                               // all-zero vectors
	f.Add(uint8(3), uint8(2), uint8(1), []byte{0, 0, 192, 127, 0, 0, 128, 127}) // NaN, +Inf
	f.Fuzz(func(t *testing.T, nc, nr, dim uint8, data []byte) {
		nc, nr, dim = nc%8, nr%8, dim%6+1
		cand, rest := matrixFrom(data, int(nc), int(dim))
		ref, rest := matrixFrom(rest, int(nr), int(dim))
		var w []float64
		for _, b := range rest {
			w = append(w, float64(b)/16)
		}
		var cw, rw []float64
		if len(w) >= int(nc)+int(nr) {
			cw, rw = w[:nc], w[nc:nc+nr]
		}
		got := BERTScore(cand, ref, cw, rw)
		if !finite(got.Precision) || !finite(got.Recall) || !finite(got.F1) {
			t.Fatalf("BERTScore(%v, %v, %v, %v) = %+v, not finite", cand, ref, cw, rw, got)
		}
		if math.Abs(got.Precision) > 1+1e-9 || math.Abs(got.Recall) > 1+1e-9 {
			t.Fatalf("BERTScore(%v, %v) = %+v, P or R outside [-1, 1]", cand, ref, got)
		}
		for _, c := range cand {
			if x := MaxCosine(c, ref); !finite(x) || math.Abs(x) > 1 {
				t.Fatalf("MaxCosine(%v, %v) = %v, not in [-1, 1]", c, ref, x)
			}
			if x := Cosine(c, c); x != 0 && math.Abs(x-1) > 1e-6 {
				t.Fatalf("Cosine(%v, itself) = %v, want 1 or 0 (zero or non-finite vector)", c, x)
			}
		}
	})
}

// benchTokens returns n token vectors of dimension d with a fixed pseudo-random pattern.
func benchTokens(n, d int, seed uint32) [][]float32 {
	m := make([][]float32, n)
	x := seed
	for i := range m {
		m[i] = make([]float32, d)
		for j := range m[i] {
			x = x*1664525 + 1013904223
			m[i][j] = float32(int32(x>>8)) / (1 << 23)
		}
	}
	return m
}

func BenchmarkCosine768(b *testing.B) {
	v := benchTokens(2, 768, 1)
	b.ReportAllocs()
	for b.Loop() {
		Cosine(v[0], v[1])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// A typical QA answer pair: 12 candidate and 16 reference tokens of a base-size model (768).
func BenchmarkBERTScore12x16x768(b *testing.B) {
	cand, ref := benchTokens(12, 768, 1), benchTokens(16, 768, 2)
	b.ReportAllocs()
	for b.Loop() {
		BERTScore(cand, ref, nil, nil)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

func ExampleBERTScore() {
	// Token embeddings of "[CLS] a b [SEP]" and "[CLS] a c d [SEP]"; the special tokens get weight 0
	// (they are still matched against), as bert_score weights them without idf.
	cls, sep := []float64{0, 0}, []float64{0, 0}
	cand := [][]float64{cls, {1, 0}, {0, 1}, sep}
	ref := [][]float64{cls, {1, 0}, {1, 1}, {0, -1}, sep}
	s := BERTScore(cand, ref, []float64{0, 1, 1, 0}, []float64{0, 1, 1, 1, 0})
	fmt.Printf("P=%.4f R=%.4f F1=%.4f\n", s.Precision, s.Recall, s.F1)
	b := Baseline{Precision: 0.5, Recall: 0.5, F1: 0.5}.Rescale(s)
	fmt.Printf("rescaled F1=%.4f\n", b.F1)
	// Output:
	// P=0.8536 R=0.5690 F1=0.6828
	// rescaled F1=0.3657
}

func ExampleCosine() {
	fmt.Printf("%.4f\n", Cosine([]float32{1, 2, 2}, []float32{2, 1, 2}))
	fmt.Println(Cosine([]float32{0, 0, 0}, []float32{2, 1, 2})) // a zero vector has no direction
	// Output:
	// 0.8889
	// 0
}

// TestBERTScoreWeightsNotPositive: a negative or NaN token weight counts as 0, as weightedMean
// says: the candidate's second token, matching nothing, leaves precision at 1 whatever its weight
// of that kind (counted, a weight of -1 would cancel the first token's and leave no weight at all).
func TestBERTScoreWeightsNotPositive(t *testing.T) {
	cand, ref := [][]float64{{1, 0}, {0, 1}}, [][]float64{{1, 0}}
	for _, w := range [][]float64{{1, 0}, {1, -1}, {1, math.NaN()}} {
		if got := BERTScore(cand, ref, w, nil); got != (PRF{Precision: 1, Recall: 1, F1: 1}) {
			t.Errorf("BERTScore(%v, %v, %v, nil) = %+v, want 1, 1, 1", cand, ref, w, got)
		}
	}
}
