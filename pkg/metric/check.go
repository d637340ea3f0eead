package metric

import "fmt"

// sameLength panics, naming the function fn, when a and b, the lengths of slices it takes in
// parallel, differ: a mismatch is a caller's bug, reported as such rather than as an index out of
// range, or not at all.
func sameLength(fn string, a int, aName string, b int, bName string) {
	if a != b {
		panic(fmt.Sprintf("metric.%s: %d %s for %d %s", fn, a, aName, b, bName))
	}
}

// bleuOrders panics, naming fn, unless n, a number of BLEU n-gram orders (of weights), is 1 to 4:
// the counts are kept for those orders only, and 0 or 5 gave an index out of range or NaN.
func bleuOrders(fn string, n int, what string) {
	if n < 1 || n > 4 {
		panic(fmt.Sprintf("metric.%s: %d %s, want 1 to 4", fn, n, what))
	}
}
