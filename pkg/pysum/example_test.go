package pysum_test

import (
	"fmt"

	"github.com/qapipe/qapipe/pkg/pysum"
)

// numpy adds the first eight of ten values in eight accumulators and the last two after, so the
// ones meet 1e16 in another order than in a loop from the left, and the float64 sums differ.
func ExampleNumpy() {
	a := []float64{1e16, 1, 1, 1, 1, 1, 1, 1, 1, -1e16}
	loop := 0.0
	for _, x := range a {
		loop += x
	}
	fmt.Println(pysum.Numpy(a), loop)
	// Output: 8 0
}

// An Adder sums a stream without holding it: its sum is Numpy's over the values it was given.
func ExampleAdder() {
	var a pysum.Adder
	for _, x := range []float64{1e16, 1, 1, 1, 1, 1, 1, 1, 1, -1e16} {
		a.Add(x)
	}
	fmt.Println(a.Sum())
	// Output: 8
}
