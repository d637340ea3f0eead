package metric

import (
	"math"
	"sync"
)

// METEOR parameters, NLTK's defaults.
const (
	meteorAlpha = 0.9
	meteorGamma = 0.5
)

// METEOR returns NLTK 3.8's meteor_score([split(lower(r)) for r in refs], split(lower(pred)))
// with its defaults (alpha 0.9, beta 3, gamma 0.5, Porter stemmer, WordNet 3.0): the maximum
// over refs of the single-reference score. With synonyms false the WordNet stage matches
// nothing, as with a wordnet whose synsets() is always empty. It returns 0 when refs is empty
// (NLTK raises there).
//
// Each single score aligns words greedily in three stages (exact, Porter stem, WordNet
// synonym of the stem), each walking the hypothesis and then the reference from the last word
// back; unmatched words stay stemmed for the next stage. With m matches, P = m/len(hyp),
// R = m/len(ref), fmean = P*R/(alpha*P+(1-alpha)*R) and the score is
// (1 - gamma*(chunks/m)^beta) * fmean, 0 when m is 0.
//
// METEOR is safe for concurrent use. Each call borrows a pooled scratch, and a scratch
// remembers, for up to 1<<15 words, their stems and WordNet synonyms, so scoring a dataset whose
// answers share words gets faster after the first few hundred pairs; the scores never depend on
// it. The first call with synonyms loads the embedded WordNet table (see PrepareMETEOR).
func METEOR(pred string, refs []string, synonyms bool) float64 {
	return meteor(pred, refs, synonyms, defaultMeteor)
}

// PrepareMETEOR loads the WordNet table that METEOR's synonym stage reads, unless it is loaded:
// 0.1–0.2 s and some 12 MB kept, which the first METEOR call with synonyms pays otherwise. A
// program that will score METEOR may call it on a goroutine of its own while it waits for its
// input, so that its first score does not wait for the table.
func PrepareMETEOR() { loadWordNet() }

// meteorConfig holds the tuning of METEOR, which never changes its results; tests vary it to
// check that.
type meteorConfig struct {
	// groupAbove is the stage size (remaining hypothesis items times remaining reference
	// items) above which matching goes through per-key stacks, O(n+m), instead of NLTK's
	// nested loops, O(n*m); both give the same alignment.
	groupAbove int
	// maxWords bounds the vocabulary cached across calls (see vocab); 0 empties it before
	// every call.
	maxWords int
}

// defaultMeteor is the tuning METEOR uses: 32 measured best for groupAbove, and 1<<15 words
// cover the vocabulary of a QA dataset's answers (the 2,328 golden pairs use 8,089 words and
// stems) while keeping a scratch's cache under about 5 MB: word records 1.3 MB, tables 1.8 MB,
// texts at most 1 MB, synonym ids at most 2 MB.
var defaultMeteor = meteorConfig{groupAbove: 32, maxWords: 1 << 15}

// METEORBoth returns METEOR(pred, refs, true) and METEOR(pred, refs, false) from one reading of
// the texts and one alignment of each pair: the two share the exact and stem stages, and the
// score without synonyms is taken before the synonym stage runs.
func METEORBoth(pred string, refs []string) (synonyms, plain float64) {
	sc := meteorPool.Get().(*meteorScratch)
	defer meteorPool.Put(sc)
	return sc.scores(pred, refs, true, true, defaultMeteor)
}

// meteor is METEOR with the given tuning, on a pooled scratch.
func meteor(pred string, refs []string, synonyms bool, cfg meteorConfig) float64 {
	sc := meteorPool.Get().(*meteorScratch)
	defer meteorPool.Put(sc)
	return sc.meteor(pred, refs, synonyms, cfg)
}

// meteor is METEOR with the given tuning, on scratch sc.
func (sc *meteorScratch) meteor(pred string, refs []string, synonyms bool, cfg meteorConfig) float64 {
	best, _ := sc.scores(pred, refs, synonyms, false, cfg)
	return best
}

// scores returns the best score over refs, with the synonym stage when synonyms is set, and
// when both is set also the best score without it (else 0).
func (sc *meteorScratch) scores(pred string, refs []string, synonyms, both bool, cfg meteorConfig) (best, bestPlain float64) {
	if len(refs) == 0 {
		return 0, 0
	}
	sc.groupAbove = cfg.groupAbove
	sc.wn = nil
	if synonyms {
		sc.wn = loadWordNet()
	}
	if cfg.maxWords == 0 || sc.full(cfg.maxWords) {
		sc.reset(cfg.maxWords)
		if cap(sc.head) > 4*cfg.maxWords+vocabMinSlots {
			sc.head = nil
		}
	}
	sc.load(pred, refs)
	w := repeatWalk{refs: refs}
	for r := range refs {
		if w.repeats(r) {
			continue // scores the same as before
		}
		ref := sc.ids[sc.spans[r]:sc.spans[r+1]]
		if both {
			s, plain := sc.scoreBoth(ref)
			best, bestPlain = max(best, s), max(bestPlain, plain)
		} else {
			best = max(best, sc.score(ref))
		}
	}
	sc.wn = nil
	return best, bestPlain
}

var meteorPool = sync.Pool{New: func() any { return new(meteorScratch) }}

// meteorScratch is the state of one METEOR call, pooled. Every token of the prediction and the
// references is interned in the vocabulary, which outlives the call, so a word's stem, WordNet
// name and synonym set are computed once and the stages compare integers.
type meteorScratch struct {
	wn         *wordNet // nil: no synonym stage
	groupAbove int

	vocab
	low   []byte  // a token being lowercased
	ids   []int32 // word id of each token: pred, then each reference
	spans []int32 // reference r: ids[spans[r]:spans[r+1]]; pred: ids[:spans[0]]

	hyp, ref   []int32 // word ids of the hypothesis and the current reference
	hKey, rKey []int32 // per position: the key of the current stage
	hRem, rRem []int32 // positions not yet matched, ascending
	match      []int32 // per hypothesis position: matched reference position or -1
	rUsed      []bool  // per reference position: matched
	head, next []int32 // per-key stacks of reference positions (head by key, next by position)
	stacks     keyStacks

	morph morphScratch
}

// load tokenizes pred and refs into word ids.
func (sc *meteorScratch) load(pred string, refs []string) {
	sc.ids = sc.ids[:0]
	sc.tokens(pred)
	sc.spans = append(sc.spans[:0], int32(len(sc.ids)))
	for _, r := range refs {
		sc.tokens(r)
		sc.spans = append(sc.spans, int32(len(sc.ids)))
	}
	sc.hyp = sc.ids[:sc.spans[0]]
	sc.match = resize(sc.match, len(sc.hyp))
}

// resize returns s with length n, reusing its array when it is large enough and otherwise
// allocating room to grow, since the arrays indexed by word id grow with the vocabulary.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/2)
	}
	return s[:n]
}

// score is NLTK's single_meteor_score(ref, hyp) for the reference with word ids ref.
func (sc *meteorScratch) score(ref []int32) float64 {
	if len(sc.hyp) == 0 || len(ref) == 0 {
		return 0
	}
	sc.ref = ref
	return sc.fromAlignment(sc.align())
}

// scoreBoth is score with the synonym stage and without it, from one alignment: the exact and
// stem stages are the same for both.
func (sc *meteorScratch) scoreBoth(ref []int32) (synonyms, plain float64) {
	if len(sc.hyp) == 0 || len(ref) == 0 {
		return 0, 0
	}
	sc.ref = ref
	if sc.alignEqual() {
		s := sc.fromAlignment(len(sc.hyp))
		return s, s
	}
	m := sc.alignStages(false)
	plain = sc.fromAlignment(m)
	if sc.wn == nil || len(sc.hRem) == 0 || len(sc.rRem) == 0 {
		return plain, plain
	}
	if k := sc.matchSynonyms(); k > 0 {
		return sc.fromAlignment(m + k), plain
	}
	return plain, plain
}

// fromAlignment is the score of the alignment in sc.match, which has m matches, of sc.hyp and
// sc.ref.
func (sc *meteorScratch) fromAlignment(m int) float64 {
	if m == 0 {
		return 0
	}
	chunks, prev, prevRef := 0, int32(-2), int32(-2)
	for h, r := range sc.match {
		if r < 0 {
			continue
		}
		if int32(h) != prev+1 || r != prevRef+1 {
			chunks++
		}
		prev, prevRef = int32(h), r
	}
	alpha := meteorAlpha // a float64 variable, so that 1-alpha rounds as in Python
	precision := float64(m) / float64(len(sc.hyp))
	recall := float64(m) / float64(len(sc.ref))
	fmean := (precision * recall) / (float64(alpha*precision) + float64((1-alpha)*recall))
	frag := float64(chunks) / float64(m)
	penalty := float64(meteorGamma * cube(frag))
	return (1 - penalty) * fmean
}

// cube returns x**3 rounded once, as C's pow(x, 3.0) behind Python's x**3.0 does for these
// values: the exact square is carried as hi+lo through a fused multiply-add.
func cube(x float64) float64 {
	hi := x * x
	lo := math.FMA(x, x, -hi)
	return math.FMA(hi, x, lo*x)
}
