package stats

import (
	"math"
	"math/big"
)

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
//
// Note: κ is computed from integer counts and rounded once, as (n·agree − S)/(n² − S) with
// S = Σ_k a_k·b_k, as FleissKappaCounts is: the float quotients p_o and p_e were a few units in
// the last place off (−0.42857142857142877 for −3/7, 0.28571428571428575 for 2/7), and sklearn's
// own arithmetic is off elsewhere (−0.07692307692307687 for −1/13).
func CohenKappa(a, b []int) float64 {
	n := len(a)
	if n == 0 || n != len(b) {
		return math.NaN()
	}
	ca, cb := map[int]int64{}, map[int]int64{}
	var agree int64
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	nn := big.NewInt(int64(n))
	s := new(big.Int) // S = n²·p_e
	for k, x := range ca {
		s.Add(s, new(big.Int).Mul(big.NewInt(x), big.NewInt(cb[k])))
	}
	den := new(big.Int).Mul(nn, nn)
	if den.Cmp(s) == 0 {
		return math.NaN()
	}
	den.Sub(den, s)
	num := new(big.Int).Mul(nn, big.NewInt(agree))
	num.Sub(num, s)
	k, _ := new(big.Rat).SetFrac(num, den).Float64()
	return k
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
//
// Note: κ is computed from integer sums and rounded once, as the fraction
// (Nn·(Σn_ij² − Nn) − (n−1)·Σ_j T_j²) / ((n−1)·((Nn)² − Σ_j T_j²)), T_j the ratings in category j,
// which is (P̄ − P̄_e)/(1 − P̄_e) times (Nn)²(n−1): agreement at exactly chance level is then κ = 0,
// where the float quotients P̄ and P̄_e gave ±1e-16 (printed "-0.000", below chance), and the
// items' order does not move its last bit.
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
	tj := make([]int64, len(counts[0]))
	var sq int64 // Σ_ij n_ij²
	for _, row := range counts {
		sum := 0
		for j, x := range row {
			sum += x
			sq += int64(x) * int64(x)
			tj[j] += int64(x)
		}
		if sum != n {
			return math.NaN()
		}
	}
	total := new(big.Int).SetInt64(int64(N) * int64(n)) // Nn, every rating
	tsq := new(big.Int)                                 // Σ_j T_j²
	for _, x := range tj {
		t := big.NewInt(x)
		tsq.Add(tsq, t.Mul(t, t))
	}
	n1 := big.NewInt(int64(n - 1))
	num := new(big.Int).Mul(total, big.NewInt(sq-int64(N)*int64(n)))
	num.Sub(num, new(big.Int).Mul(n1, tsq))
	den := new(big.Int).Mul(total, total)
	if den.Cmp(tsq) == 0 { // P̄_e = 1: every rating in one category
		return math.NaN()
	}
	den.Sub(den, tsq).Mul(den, n1)
	k, _ := new(big.Rat).SetFrac(num, den).Float64()
	return k
}
