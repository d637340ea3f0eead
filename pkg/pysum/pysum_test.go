package pysum

import (
	"math"
	"testing"
)

func TestNumpy(t *testing.T) {
	// 0.1 added nine times sequentially differs from numpy's pairwise order.
	xs := []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}
	r := [8]float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}
	want := 0.1 + (((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])) + 0.1)
	if got := Numpy(xs); got != want {
		t.Errorf("Numpy(0.1..1.0) = %v, want %v", got, want)
	}
	// Short arrays add left to right: (0.1 + 0.2) + 0.3, not 0.1 + (0.2 + 0.3).
	a, b, c := 0.1, 0.2, 0.3
	if got, want := Numpy([]float64{a, b, c}), (a+b)+c; got != want || got == a+(b+c) {
		t.Errorf("Numpy(0.1, 0.2, 0.3) = %v, want %v", got, want)
	}
	if got := Numpy([]float64{0.5, 0.25}); got != 0.75 {
		t.Errorf("Numpy(0.5, 0.25) = %v, want 0.75", got)
	}
	// Past 128 values numpy halves the array at a multiple of eight and sums each half; the wants
	// are numpy 1.24.2's np.sum([1.0/(i+1) for i in range(n)]) (left to right they differ).
	for _, tc := range []struct {
		n    int
		want float64
	}{{129, 5.440899030573669}, {200, 5.878030948121444}, {1000, 7.485470860550345}, {1023, 7.508199109778134}} {
		xs := make([]float64, tc.n)
		for i := range xs {
			xs[i] = 1.0 / float64(i+1)
		}
		if got := Numpy(xs); got != tc.want {
			t.Errorf("Numpy(1/1..1/%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// Up to and including 128 values numpy keeps eight accumulators; halving at 128 already differs:
	// numpy 1.24.2's np.sum([(i+1)**0.5 for i in range(128)]).
	roots := make([]float64, 128)
	for i := range roots {
		roots[i] = math.Sqrt(float64(i + 1))
	}
	if got, want := Numpy(roots), 970.8891094495568; got != want {
		t.Errorf("Numpy(sqrt(1)..sqrt(128)) = %v, want %v", got, want)
	}
	// np.add.reduce over [1/3, 1/4, …, 1/(n+2)], printed by numpy 1.24 (each but n = 3 differs
	// from a left-to-right sum in its last bits).
	for _, tc := range []struct {
		n    int
		want float64
	}{{0, 0}, {3, 0.7833333333333332}, {8, 1.4289682539682538}, {9, 1.5198773448773446}, {17, 2.047739657143682},
		{130, 3.9638006836279933}, {300, 4.789297397713862}, {1000, 5.987467865541362}} {
		xs := make([]float64, tc.n)
		for i := range xs {
			xs[i] = 1 / float64(i+3)
		}
		if got := Numpy(xs); got != tc.want {
			t.Errorf("Numpy(1/3..1/%d) = %v, want %v", tc.n+2, got, tc.want)
		}
	}
}

// TestNumpyBlocks: numpy 1.24 sums an array longer than 8192 elements block by block, each block
// pairwise, and starts from 0; halving the whole array instead differs in the last bits. The
// wants are numpy 1.24.2's np.sum over [1/1, 1/2, …, 1/n] and over n copies of -0.0.
func TestNumpyBlocks(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{{8192, 9.58819004609531}, {8193, 9.588312101508468}, {10000, 9.787606036044384},
		{20000, 10.480728217229329}, {100000, 12.090146129863433}} {
		xs := make([]float64, tc.n)
		for i := range xs {
			xs[i] = 1 / float64(i+1)
		}
		if got := Numpy(xs); got != tc.want {
			t.Errorf("Numpy(1/1..1/%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	for _, n := range []int{3, 10, 200, 9000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Copysign(0, -1)
		}
		if got := Numpy(xs); got != 0 || math.Signbit(got) {
			t.Errorf("Numpy(%d × -0) = %v, want 0", n, got)
		}
	}
}

// TestAdder: an Adder's sum is Numpy's over the values added, to the bit, at every length
// around numpy's blocks, with values whose sum depends on its order and with -0s alone.
func TestAdder(t *testing.T) {
	big := []float64{1e16, 1, -1e16, 0.1, 3.3, -7.25, 1e-3, 12345.678}
	for _, n := range []int{0, 1, 7, 8, 9, 128, 129, 1000, 8191, 8192, 8193, 16384, 16385, 30000} {
		for _, tc := range []struct {
			name string
			at   func(i int) float64
		}{
			{"mixed", func(i int) float64 { return big[(i*7+i/3)%len(big)] }},
			{"harmonic", func(i int) float64 { return 1 / float64(i+1) }},
			{"negative zeros", func(int) float64 { return math.Copysign(0, -1) }},
		} {
			xs := make([]float64, n)
			var a Adder
			for i := range xs {
				xs[i] = tc.at(i)
				a.Add(xs[i])
			}
			got, want := a.Sum(), Numpy(xs)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("Adder of %d %s values: Sum() = %v, want %v (Numpy)", n, tc.name, got, want)
			}
		}
	}
}
