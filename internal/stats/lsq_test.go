package stats

import (
	"math"
	"testing"
)

func TestFitLine(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want Line
	}{
		{"exact", []float64{1, 2, 3, 4}, []float64{3, 5, 7, 9}, Line{Intercept: 1, Slope: 2}},
		{"flat", []float64{1, 2, 3}, []float64{0.5, 0.5, 0.5}, Line{Intercept: 0.5}},
		{"noisy", []float64{1, 2, 3}, []float64{1, 0, 2}, Line{Intercept: 0, Slope: 0.5}},
		{"one point", []float64{4}, []float64{0.25}, Line{Intercept: 0.25}},
		// One distinct x: lstsq's minimum-norm solution, slope 0 through the mean, not 0/0.
		{"one x", []float64{2, 2, 2}, []float64{0, 0.5, 1}, Line{Intercept: 0.5}},
		{"empty", nil, nil, Line{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FitLine(tt.x, tt.y)
			// Written so that a NaN fails: NaN > 1e-12 is false.
			if !(math.Abs(got.Slope-tt.want.Slope) <= 1e-12 && math.Abs(got.Intercept-tt.want.Intercept) <= 1e-12) {
				t.Errorf("FitLine(%v, %v) = %+v, want %+v", tt.x, tt.y, got, tt.want)
			}
		})
	}
}

func TestBootstrapVec(t *testing.T) {
	vals := []float64{0, 1, 0, 1, 1, 0, 1, 1}
	stat := func(idx []int, out []float64) {
		s := 0.0
		for _, i := range idx {
			s += vals[i]
		}
		out[0] = s / float64(len(idx))
		out[1] = 2 * out[0]
	}
	ivs := BootstrapVec(NewRand(1), len(vals), 500, 2, 0.9, stat)
	if len(ivs) != 2 {
		t.Fatalf("BootstrapVec returned %d intervals, want 2", len(ivs))
	}
	if !(ivs[0].Lo < 0.625 && 0.625 < ivs[0].Hi) {
		t.Errorf("BootstrapVec mean interval = %+v, want it to contain 0.625", ivs[0])
	}
	if math.Abs(ivs[1].Lo-2*ivs[0].Lo) > 1e-12 || math.Abs(ivs[1].Hi-2*ivs[0].Hi) > 1e-12 {
		t.Errorf("BootstrapVec doubled interval = %+v, want twice %+v", ivs[1], ivs[0])
	}
	again := BootstrapVec(NewRand(1), len(vals), 500, 2, 0.9, stat)
	if again[0] != ivs[0] {
		t.Errorf("BootstrapVec with the same seed = %+v, want %+v", again[0], ivs[0])
	}
	if e := BootstrapVec(NewRand(1), 0, 10, 1, 0.95, stat); !math.IsNaN(e[0].Lo) {
		t.Errorf("BootstrapVec over no units = %+v, want NaN bounds", e[0])
	}
}
