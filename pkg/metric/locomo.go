package metric

import (
	"github.com/qapipe/qapipe/pkg/pysum"
	"strings"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// LoCoMo question categories, as numbered in the dataset.
const (
	LocomoMultiHop    = 1
	LocomoTemporal    = 2
	LocomoOpenDomain  = 3
	LocomoSingleHop   = 4
	LocomoAdversarial = 5
)

// LocomoF1 is the per-question score of LoCoMo's task_eval/evaluation.py
// (eval_question_answering) for a question of the given category:
//   - 1 (multi-hop): prediction and gold are split on ','; the score is the mean over gold parts
//     of the best stemmed F1 against any prediction part;
//   - 2, 4: the stemmed F1;
//   - 3: the stemmed F1 against the gold text before its first ';';
//   - 5 (adversarial): 1 if the lowercased prediction contains "no information available" or
//     "not mentioned", else 0.
//
// The stemmed F1 is SQuAD's token F1 over Porter stems of LocomoNormalize's words (commas and
// "and" removed too). The official script rejects any other category; here it gets the plain
// stemmed F1.
func LocomoF1(pred, gold string, category int) float64 {
	switch category {
	case LocomoMultiHop:
		return locomoMultiHop(pred, gold)
	case LocomoOpenDomain:
		gold, _, _ = strings.Cut(gold, ";")
		return locomoF1(pred, textnorm.Strip(gold))
	case LocomoAdversarial:
		low := textnorm.Lower(pred)
		if strings.Contains(low, "no information available") || strings.Contains(low, "not mentioned") {
			return 1
		}
		return 0
	}
	return locomoF1(pred, gold)
}

// locomoMultiHop averages, over the comma-separated gold parts, the best F1 of any
// comma-separated prediction part, summing as numpy's mean does.
//
// Note: the official script normalises both parts of every pairing again and scores repeated
// parts again; here each part is normalised once, and past a few parts a repeated one is scored
// once (a prediction part repeated changes no maximum, a gold part repeated has the same best),
// so a many-comma record costs distinct parts × distinct parts: 16,000 commas took 18 s.
func locomoMultiHop(pred, gold string) float64 {
	s := getScratch()
	defer putScratch(s)
	var preds []text
	seen := newPartSet(strings.Count(pred, ",") + 1)
	for p := range strings.SplitSeq(pred, ",") {
		if p = textnorm.Strip(p); seen.add(p) {
			preds = append(preds, s.locomo(p))
		}
	}
	golds := strings.Split(gold, ",")
	best := make([]float64, len(golds))
	var bestOf map[string]float64 // a gold part's best, once there are enough parts to repeat
	if len(golds) > partSetMin {
		bestOf = make(map[string]float64, len(golds))
	}
	for i, g := range golds {
		g = textnorm.Strip(g)
		if f, ok := bestOf[g]; ok {
			best[i] = f
			continue
		}
		gt := s.locomo(g)
		for j, p := range preds {
			f, _, _ := s.tokenF1(p, gt)
			if j == 0 || f > best[i] {
				best[i] = f
			}
		}
		if bestOf != nil {
			bestOf[g] = best[i]
		}
	}
	return pysum.Numpy(best) / float64(len(best))
}

// partSetMin is the number of parts up to which locomoMultiHop keeps repeated parts, which
// saves a map for the few parts answers have.
const partSetMin = 8

// partSet is the set of parts seen, or nil, which takes every part, for at most partSetMin.
type partSet map[string]bool

func newPartSet(parts int) partSet {
	if parts <= partSetMin {
		return nil
	}
	return make(partSet, parts)
}

// add reports whether p is new, and notes it.
func (ps partSet) add(p string) bool {
	if ps == nil {
		return true
	}
	if ps[p] {
		return false
	}
	ps[p] = true
	return true
}

// locomoF1 is evaluation.py's f1_score: token F1 over the Porter stems of the normalised words.
func locomoF1(pred, gold string) float64 {
	s := getScratch()
	defer putScratch(s)
	p, g := s.locomo(pred), s.locomo(gold)
	f1, _, _ := s.tokenF1(p, g)
	return f1
}

// locomo appends the stemmed LoCoMo-normalised words of str to the scratch.
func (s *scratch) locomo(str string) text {
	normStart := len(s.buf)
	s.buf = textnorm.AppendLocomoNormalized(s.buf, str)
	normEnd := len(s.buf)
	for i := normStart; i < normEnd; {
		j := i
		for j < normEnd && s.buf[j] != ' ' {
			j++
		}
		if i > normStart {
			s.buf = append(s.buf, ' ')
		}
		s.buf = append(s.buf, s.stem(s.buf[i:j])...)
		i = j + 1
	}
	// Move the stems over the normalised text.
	n := copy(s.buf[normStart:], s.buf[normEnd:])
	s.buf = s.buf[:normStart+n]
	return s.cut(normStart)
}

// stem returns textnorm.Stem(word), memoised in the scratch.
func (s *scratch) stem(word []byte) string {
	if st, ok := s.stems[string(word)]; ok {
		return st
	}
	if s.stems == nil || len(s.stems) > internLimit {
		s.stems = make(map[string]string)
	}
	w := string(word)
	st := textnorm.Stem(w)
	s.stems[w] = st
	return st
}
