package stats

import "math"

// RawAgreement is the fraction of items on which every rater gave the same category. ratings[i]
// holds item i's categories, one per rater. It is NaN for no items.
func RawAgreement(ratings [][]int) float64 {
	if len(ratings) == 0 {
		return math.NaN()
	}
	agree := 0
	for _, r := range ratings {
		same := true
		for _, c := range r[1:] {
			same = same && c == r[0]
		}
		if same {
			agree++
		}
	}
	return float64(agree) / float64(len(ratings))
}

// CohenKappa is Cohen's κ for two raters: (p_o − p_e)/(1 − p_e), where p_o is the observed agreement
// and p_e = Σ_k p_a(k)·p_b(k) the agreement expected from each rater's marginals. It is NaN when
// p_e is 1 (both raters used one and the same category throughout: κ is undefined), as sklearn's
// cohen_kappa_score gives.
func CohenKappa(a, b []int) float64 {
	n := len(a)
	if n == 0 || n != len(b) {
		return math.NaN()
	}
	ca, cb := map[int]int{}, map[int]int{}
	agree := 0
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	po := float64(agree) / float64(n)
	pe := 0.0
	for k, x := range ca {
		pe += float64(float64(x) * float64(cb[k])) // rounded: no fused multiply-add
	}
	pe /= float64(n) * float64(n)
	if pe == 1 {
		return math.NaN()
	}
	return (po - pe) / (1 - pe)
}

// FleissKappa is Fleiss' κ for items each rated by the same number of raters (≥ 2); ratings[i]
// holds item i's categories. κ = (P̄ − P̄_e)/(1 − P̄_e) with P_i = (Σ_j n_ij² − n)/(n(n−1)) and
// P̄_e = Σ_j p_j². NaN when undefined (no items, fewer than two raters, uneven rows, or P̄_e = 1).
func FleissKappa(ratings [][]int) float64 {
	if len(ratings) == 0 {
		return math.NaN()
	}
	cats := map[int]int{}
	counts := make([]map[int]int, len(ratings))
	for i, r := range ratings {
		if len(r) != len(ratings[0]) {
			return math.NaN()
		}
		counts[i] = map[int]int{}
		for _, c := range r {
			counts[i][c]++
			if _, ok := cats[c]; !ok {
				cats[c] = len(cats)
			}
		}
	}
	table := make([][]int, len(ratings))
	for i := range counts {
		table[i] = make([]int, len(cats))
		for c, x := range counts[i] {
			table[i][cats[c]] = x
		}
	}
	return FleissKappaCounts(table)
}

// FleissKappaCounts is Fleiss' κ from a count table: counts[i][j] raters put item i in category j.
func FleissKappaCounts(counts [][]int) float64 {
	N := len(counts)
	if N == 0 {
		return math.NaN()
	}
	n := 0
	for _, x := range counts[0] {
		n += x
	}
	if n < 2 {
		return math.NaN()
	}
	pj := make([]float64, len(counts[0]))
	pbar := 0.0
	for _, row := range counts {
		sum, sq := 0, 0
		for j, x := range row {
			sum += x
			sq += x * x
			pj[j] += float64(x)
		}
		if sum != n {
			return math.NaN()
		}
		pbar += float64(sq-n) / float64(n*(n-1))
	}
	pbar /= float64(N)
	pe := 0.0
	for _, x := range pj {
		p := x / float64(N*n)
		pe += float64(p * p) // rounded: no fused multiply-add
	}
	if pe == 1 {
		return math.NaN()
	}
	return (pbar - pe) / (1 - pe)
}
