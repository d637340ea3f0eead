package metric

// PairCounts counts ordered (positive, negative) score pairs. Ties count as wrong, as in
// ERNIE-kit's Pn and PairWiseAcc; Ties says how many of the wrong ones were ties.
type PairCounts struct {
	Pairs, Right, Wrong, Ties int
}

// CountPairs compares pos[i] with neg[i] for every i. It panics when pos and neg differ in
// length.
func CountPairs(pos, neg []float64) PairCounts {
	sameLength("CountPairs", len(neg), "negative scores", len(pos), "positive scores")
	var c PairCounts
	for i := range pos {
		c.add(pos[i], neg[i])
	}
	return c
}

func (c *PairCounts) add(pos, neg float64) {
	c.Pairs++
	if pos > neg {
		c.Right++
		return
	}
	c.Wrong++
	if pos == neg {
		c.Ties++
	}
}

// CountGroupPairs forms, inside each query group, a pair of every two records with different
// labels (the larger label is the positive one) and counts them. Groups need not be adjacent.
// It panics when groups, labels and scores differ in length.
func CountGroupPairs(groups []string, labels, scores []float64) PairCounts {
	sameLength("CountGroupPairs", len(labels), "labels", len(groups), "groups")
	sameLength("CountGroupPairs", len(scores), "scores", len(groups), "groups")
	members := map[string][]int{}
	var order []string
	for i, g := range groups {
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	var c PairCounts
	for _, g := range order {
		m := members[g]
		for a := 0; a < len(m); a++ {
			for b := a + 1; b < len(m); b++ {
				i, j := m[a], m[b]
				switch {
				case labels[i] > labels[j]:
					c.add(scores[i], scores[j])
				case labels[j] > labels[i]:
					c.add(scores[j], scores[i])
				}
			}
		}
	}
	return c
}

// PN is right/wrong, the positive-negative order ratio. With no wrong pair the reference returns
// +Inf; PN then returns capValue and inf=true (JSON cannot hold +Inf).
func (c PairCounts) PN(capValue float64) (pn float64, inf bool) {
	if c.Wrong == 0 {
		return capValue, true
	}
	return float64(c.Right) / float64(c.Wrong), false
}

// Accuracy is right/(right+wrong); ok is false when there are no pairs (the reference gives NaN).
func (c PairCounts) Accuracy() (acc float64, ok bool) {
	if c.Right+c.Wrong == 0 {
		return 0, false
	}
	return float64(c.Right) / float64(c.Right+c.Wrong), true
}

// PNTiesSkipped is propeller's PNRatio: right/(wrong−ties), 0 when that is not positive.
//
// Note: propeller casts the ratio to float32; the golden vectors keep the float64 ratio, and so
// does this function (the float32 rounding would only lose digits).
func (c PairCounts) PNTiesSkipped() float64 {
	d := c.Wrong - c.Ties
	if d <= 0 {
		return 0
	}
	return float64(c.Right) / float64(d)
}
