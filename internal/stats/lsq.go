package stats

// Line is a fitted straight line y = Intercept + Slope·x.
type Line struct {
	Intercept, Slope float64
}

// FitLine returns the ordinary least-squares line through the points (x[i], y[i]). It centres
// both variables first (as scikit-learn's LinearRegression does), so the slope is
// Σ(x−x̄)(y−ȳ) / Σ(x−x̄)². With fewer than two distinct x values the slope is 0 (the
// minimum-norm solution lstsq returns) and the intercept is ȳ. It panics if the lengths differ.
func FitLine(x, y []float64) Line {
	if len(x) != len(y) {
		panic("stats: FitLine: x and y differ in length")
	}
	if len(x) == 0 {
		return Line{}
	}
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx float64
	for i := range x {
		dx := x[i] - mx
		sxy += float64(dx * (y[i] - my)) // rounded: no fused multiply-add
		sxx += float64(dx * dx)
	}
	if sxx == 0 {
		return Line{Intercept: my}
	}
	slope := sxy / sxx
	return Line{Intercept: my - float64(slope*mx), Slope: slope}
}
