// Package pysum adds float64 values in the order the Python libraries that benchmarks' scripts
// use add them, so that a sum or a mean is the same float64 as theirs to the last bit: Numpy is
// numpy 1.24's add.reduce (np.sum, np.mean, np.trapz), checked against numpy 1.24.2. A loop from
// the left differs from it in the last bits on some inputs, which a score printed to 17 digits or
// compared for equality shows. An Adder takes Numpy's sum of values given one at a time, holding
// one block of them, not all.
package pysum

// Numpy adds a in the order numpy's add.reduce does over a contiguous float64 array, so that a
// sum or mean that numpy takes over such an array (LoCoMo's F1 over gold parts, EvaLearn's mean
// over types of a one-position curve, np.trapz's trapezoids, a mean loss) is the same float64 to
// the last bit. numpy 1.24 reduces the array in blocks of its buffer size, 8192 elements, from 0:
// it adds each block's pairwise sum (sequential below 8 elements, eight accumulators up to 128,
// halves above) to the running total, left to right. So the sum of -0s is 0, as numpy's is.
func Numpy(a []float64) float64 {
	res := 0.0
	for len(a) > 0 {
		k := min(len(a), numpyBlock)
		res += pairwise(a[:k])
		a = a[k:]
	}
	return res
}

// numpyBlock is numpy's NPY_BUFSIZE in elements: add.reduce hands its inner loop, and so the
// pairwise summation, at most this many elements at a time.
const numpyBlock = 8192

// pairwise is numpy's pairwise_sum over one block.
func pairwise(a []float64) float64 {
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
	return pairwise(a[:n2]) + pairwise(a[n2:])
}

// Adder adds values one at a time to the sum Numpy takes of them all, to the bit, keeping at
// most one of numpy's blocks (8192 values, 64 kB) rather than every value: each full block's
// pairwise sum is added to the running total as Numpy adds it. The zero Adder is empty.
type Adder struct {
	total float64   // the sum of the full blocks, in Numpy's order
	block []float64 // the values of the block being filled
}

// Add adds x after the values already added.
func (a *Adder) Add(x float64) {
	a.block = append(a.block, x)
	if len(a.block) == numpyBlock {
		a.total += pairwise(a.block)
		a.block = a.block[:0]
	}
}

// Sum returns the sum of the values added so far: Numpy of them, in the order added.
func (a *Adder) Sum() float64 {
	if len(a.block) == 0 {
		return a.total
	}
	return a.total + pairwise(a.block)
}
