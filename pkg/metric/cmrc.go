package metric

import (
	"strings"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// CMRC 2018 v6 (ymcui/cmrc2018 baseline/cmrc2018_evaluate.py): answers are compared as
// lowercased, stripped strings with the script's punctuation removed (EM) and as mixed
// Chinese/English token sequences through their longest common substring (F1).
//
// Note: the script's punctuation list holds the two-character entry "……" and is tested one
// character at a time, so "…" is never removed; cmrcPunct reproduces that by simply not listing it.

// cmrcPunct reports whether r is one of the script's sp_char entries that a single character can
// equal.
func cmrcPunct(r rune) bool {
	switch r {
	case '-', ':', '_', '*', '^', '/', '\\', '~', '`', '+', '=',
		'，', '。', '：', '？', '！', '“', '”', '；', '’', '《', '》', '·', '、',
		'「', '」', '（', '）', '－', '～', '『', '』':
		return true
	}
	return false
}

// cmrcHan matches the script's [\u4e00-\u9fa5]: the CJK Unified Ideographs block up to U+9FA5.
func cmrcHan(r rune) bool { return 0x4e00 <= r && r <= 0x9fa5 }

// cmrcClean is remove_punctuation: lower, strip, drop punctuation.
func cmrcClean(s string) string {
	s = textnorm.Strip(textnorm.Lower(s))
	if strings.IndexFunc(s, cmrcPunct) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if cmrcPunct(r) {
			return -1
		}
		return r
	}, s)
}

// CMRCEM is calc_em_score(refs, pred) of CMRC 2018 v6: 1 if pred equals any reference once both
// are lowercased, stripped of surrounding whitespace and cleared of the script's punctuation
// (inner spaces stay), else 0.
func CMRCEM(pred string, refs []string) float64 {
	p := cmrcClean(pred)
	for _, ref := range refs {
		if cmrcClean(ref) == p {
			return 1
		}
	}
	return 0
}

// CMRCF1 is calc_f1_score(refs, pred) of CMRC 2018 v6: the maximum over references of the F1 of
// the longest common contiguous run of tokens of CMRCSegment(ref) and CMRCSegment(pred). A pair
// sharing no token scores 0, so does an empty prediction; no references score 0.
func CMRCF1(pred string, refs []string) float64 {
	ps := CMRCSegment(pred)
	best := 0.0
	for _, ref := range refs {
		rs := CMRCSegment(ref)
		l := longestCommonRun(rs, ps)
		if l == 0 {
			continue
		}
		precision := 1.0 * float64(l) / float64(len(ps))
		recall := 1.0 * float64(l) / float64(len(rs))
		if f1 := (2 * precision * recall) / (precision + recall); f1 > best {
			best = f1
		}
	}
	return best
}

// CMRCSegment is mixed_segmentation(s, rm_punc=True) of CMRC 2018 v6: s is lowercased and
// stripped, punctuation is dropped, each ideograph U+4E00–U+9FA5 is a token of its own, and the
// text between them goes through textnorm.WordTokenize (nltk.word_tokenize).
func CMRCSegment(s string) []string {
	s = textnorm.Strip(textnorm.Lower(s))
	var out []string
	var buf strings.Builder
	flush := func() {
		if buf.Len() > 0 {
			out = append(out, textnorm.WordTokenize(buf.String())...)
			buf.Reset()
		}
	}
	for i, r := range s {
		switch {
		case cmrcPunct(r):
		case cmrcHan(r):
			flush()
			out = append(out, s[i:i+3])
		default:
			buf.WriteRune(r)
		}
	}
	flush()
	return out
}

// longestCommonRun is the length find_lcs returns: the longest run of equal consecutive tokens
// that a and b share.
func longestCommonRun(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	best := 0
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
				best = max(best, cur[j+1])
			} else {
				cur[j+1] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}
