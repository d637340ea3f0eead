package metric

// HotpotEM is HotpotQA answer exact match (hotpot_evaluate_v1.py), the maximum over references;
// it normalises as SQuAD v1.1 does.
func HotpotEM(pred string, refs []string) float64 { return SquadEM(pred, refs) }

// HotpotF1 is HotpotQA answer F1, the maximum over references of HotpotF1PR. The official script
// has one gold answer per question; the maximum is an extension.
func HotpotF1(pred string, refs []string) float64 {
	best := 0.0
	for _, r := range refs {
		f1, _, _ := HotpotF1PR(pred, r)
		if best = max(best, f1); best == 1 {
			break
		}
	}
	return best
}

// HotpotScores returns HotpotEM(pred, refs) and HotpotF1(pred, refs), normalising each text once.
func HotpotScores(pred string, refs []string) (em, f1 float64) {
	return emF1(pred, refs, (*scratch).hotpotF1)
}

// HotpotPR returns the precision and recall of HotpotF1PR(pred, r) for the reference r of refs
// with the highest F1 (the first of equals): hotpot_evaluate_v1.py's prec and recall, which it
// takes from its one gold answer; 0, 0 without references. F1 is 0 only when precision and recall
// are, so refs with no match give 0, 0.
func HotpotPR(pred string, refs []string) (precision, recall float64) {
	s := getScratch()
	defer putScratch(s)
	p, best := s.squad(pred), -1.0
	for _, r := range refs {
		if f1, pr, rc := s.hotpotF1(p, s.squad(r)); f1 > best {
			best, precision, recall = f1, pr, rc
		}
	}
	return precision, recall
}

// HotpotAnswer returns HotpotEM(pred, []string{gold}) and HotpotF1PR(pred, gold), normalising
// each text once: the answer half of hotpot_evaluate_v1.py's update_answer.
func HotpotAnswer(pred, gold string) (em, f1, precision, recall float64) {
	s := getScratch()
	defer putScratch(s)
	p, g := s.squad(pred), s.squad(gold)
	if s.equal(p, g) {
		em = 1
	}
	f1, precision, recall = s.hotpotF1(p, g)
	return em, f1, precision, recall
}

// HotpotF1PR is hotpot_evaluate_v1.py's f1_score for one gold answer: SQuAD token F1, precision
// and recall, except that all three are 0 when either side normalises to "yes", "no" or
// "noanswer" and the two normal forms differ.
func HotpotF1PR(pred, gold string) (f1, precision, recall float64) {
	s := getScratch()
	defer putScratch(s)
	return s.hotpotF1(s.squad(pred), s.squad(gold))
}

// hotpotF1 is HotpotF1PR for normalised texts.
func (s *scratch) hotpotF1(p, g text) (f1, precision, recall float64) {
	if s.hotpotZero(p, g) {
		return 0, 0, 0
	}
	return s.tokenF1(p, g)
}

// hotpotZero reports whether hotpot_evaluate_v1.py's f1_score is 0 for the normalised texts p
// and g whatever tokens they share: they differ and one of them is "yes", "no" or "noanswer".
func (s *scratch) hotpotZero(p, g text) bool {
	return !s.equal(p, g) && (hotpotSpecial(s.buf[p.bstart:p.bend]) || hotpotSpecial(s.buf[g.bstart:g.bend]))
}

func hotpotSpecial(norm []byte) bool {
	switch string(norm) {
	case "yes", "no", "noanswer":
		return true
	}
	return false
}

// Fact is one HotpotQA supporting fact: a paragraph title and a sentence index in it.
type Fact struct {
	Title    string
	Sentence int
}

// SupportingFacts scores predicted supporting facts against the gold ones as
// hotpot_evaluate_v1.py's update_sp does: both lists are taken as sets, em is 1 when they are
// equal, and precision, recall and f1 count shared facts (0 when undefined).
func SupportingFacts(pred, gold []Fact) (em, f1, precision, recall float64) {
	ps, gs := factSet(pred), factSet(gold)
	tp, fp, fn := 0, 0, 0
	for f := range ps {
		if gs[f] {
			tp++
		} else {
			fp++
		}
	}
	for f := range gs {
		if !ps[f] {
			fn++
		}
	}
	if tp+fp > 0 {
		precision = 1.0 * float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = 1.0 * float64(tp) / float64(tp+fn)
	}
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	if fp+fn == 0 {
		em = 1
	}
	return em, f1, precision, recall
}

func factSet(facts []Fact) map[Fact]bool {
	set := make(map[Fact]bool, len(facts))
	for _, f := range facts {
		set[f] = true
	}
	return set
}

// JointEMF1 combines answer and supporting-fact scores as hotpot_evaluate_v1.py does: joint
// precision and recall are the products of the answer's and the facts', joint F1 their harmonic
// mean (0 when both are 0), and joint EM the product of the two EMs.
func JointEMF1(ansEM, ansP, ansR, spEM, spP, spR float64) (em, f1 float64) {
	p, r := float64(ansP*spP), float64(ansR*spR)
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return ansEM * spEM, f1
}
