// Package pysum adds float64 values in the order the Python libraries that benchmarks' scripts
// use add them, so that a sum or a mean is the same float64 as theirs to the last bit.
package pysum

// Numpy adds a in the order numpy's add.reduce does over a contiguous float64 array (numpy
// 1.24's pairwise summation: sequential below 8 elements, eight accumulators up to 128, halves
// above), so that a sum or mean that numpy takes over such an array (LoCoMo's F1 over gold
// parts, EvaLearn's mean over types of a one-position curve) is the same float64 to the last bit.
func Numpy(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range a {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return Numpy(a[:n2]) + Numpy(a[n2:])
}
