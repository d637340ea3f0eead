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
