package stats

import "testing"

// TestNumpySum checks NumpySum against np.add.reduce over [1/3, 1/4, …, 1/(n+2)], printed by
// numpy 1.24 (each but n = 3 differs from a left-to-right sum in its last bits).
func TestNumpySum(t *testing.T) {
	tests := []struct {
		n    int
		want float64
	}{
		{0, 0},
		{3, 0.7833333333333332},
		{8, 1.4289682539682538},
		{9, 1.5198773448773446},
		{17, 2.047739657143682},
		{130, 3.9638006836279933},
		{300, 4.789297397713862},
		{1000, 5.987467865541362},
	}
	for _, tt := range tests {
		a := make([]float64, tt.n)
		for i := range a {
			a[i] = 1 / float64(i+3)
		}
		if got := NumpySum(a); got != tt.want {
			t.Errorf("NumpySum(1/3..1/%d) = %v, want %v", tt.n+2, got, tt.want)
		}
	}
}
