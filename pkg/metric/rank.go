package metric

import (
	"math"
	"sort"
)

// QueryRank is one query's ranking result.
type QueryRank struct {
	Query       string
	N           int
	RelevantMRR int // records with label != 0
	RelevantMAP int // records with int(label) != 0
	RR, AP      float64
}

// RankReport holds MRR and MAP over queries, as ERNIE's GLUE-style evaluate_mrr/evaluate_map.
type RankReport struct {
	MRR, MAP float64
	Queries  []QueryRank // in query order
}

// Rank ranks each query's records by score, descending, keeping input order on ties, and computes
// reciprocal rank (relevant: label != 0) and average precision (relevant: int(label) != 0). less
// orders query ids and must not be nil (LabelOrder's Compare(a, b) < 0 is one); queries with no
// relevant record score 0 and still count. It panics when queries, labels and scores differ in
// length.
func Rank(queries []string, labels, scores []float64, less func(a, b string) bool) RankReport {
	sameLength("Rank", len(labels), "labels", len(queries), "queries")
	sameLength("Rank", len(scores), "scores", len(queries), "queries")
	idx := make([]int, len(queries))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		qa, qb := queries[idx[a]], queries[idx[b]]
		if qa != qb {
			return less(qa, qb)
		}
		return scores[idx[a]] > scores[idx[b]]
	})
	var r RankReport
	for start := 0; start < len(idx); {
		end := start
		for end < len(idx) && queries[idx[end]] == queries[idx[start]] {
			end++
		}
		r.Queries = append(r.Queries, rankQuery(idx[start:end], queries, labels))
		start = end
	}
	if len(r.Queries) == 0 {
		return r
	}
	for _, q := range r.Queries {
		r.MRR += q.RR
		r.MAP += q.AP
	}
	r.MRR /= float64(len(r.Queries))
	r.MAP /= float64(len(r.Queries))
	return r
}

func rankQuery(ranked []int, queries []string, labels []float64) QueryRank {
	q := QueryRank{Query: queries[ranked[0]], N: len(ranked)}
	sum := 0.0
	for pos, i := range ranked {
		rank := float64(pos + 1)
		if labels[i] != 0 {
			q.RelevantMRR++
			if q.RelevantMRR == 1 {
				q.RR = 1.0 / rank
			}
		}
		if math.Trunc(labels[i]) != 0 {
			q.RelevantMAP++
			sum += float64(q.RelevantMAP) / rank
		}
	}
	if q.RelevantMAP > 0 {
		q.AP = sum / float64(q.RelevantMAP)
	}
	return q
}
