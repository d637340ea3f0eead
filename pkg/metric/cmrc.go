package metric

import (
	"strings"
	"unicode/utf8"

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

// cmrcNorm is lower(s).strip() as the script computes it.
func cmrcNorm(s string) string {
	if !caseless(s) {
		s = textnorm.Lower(s)
	}
	return cmrcStrip(s)
}

// cmrcStrip is textnorm.Strip with a shortcut for the common case of text that starts and ends
// with a character that cannot be whitespace: ASCII other than spaces and controls, or a
// multi-byte character whose lead byte no Python whitespace character has (C2, E1, E2, E3).
func cmrcStrip(s string) string {
	if s == "" {
		return s
	}
	first, last := s[0], s[len(s)-1]
	if last >= utf8.RuneSelf {
		for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
			if last = s[i]; last >= 0xc0 || last < 0x80 {
				break
			}
		}
	}
	if solid(first) && solid(last) {
		return s
	}
	return textnorm.Strip(s)
}

// solid reports whether a character starting with byte c is certainly not Python whitespace.
func solid(c byte) bool {
	if c < utf8.RuneSelf {
		return c > ' '
	}
	return c != 0xc2 && c != 0xe1 && c != 0xe2 && c != 0xe3
}

// caseless reports whether Python's lower() leaves s unchanged because every character is a
// lowercase ASCII letter, a non-letter ASCII character, or in a block without case mappings
// (general punctuation, CJK symbols and ideographs, kana, Yi, full-width punctuation). Answers
// are mostly such text; anything else goes through textnorm.Lower.
func caseless(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				return false
			}
		case 0xe3 <= c && c <= 0xe9, c < 0xc0:
			// U+3000–U+9FFF, or a continuation byte.
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !caselessRune(r) {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// cmrcDecode is utf8.DecodeRuneInString(s[i:]) for a non-ASCII s[i], with an inlined path for
// the three-byte sequences Chinese text is made of.
func cmrcDecode(s string, i int) (rune, int) {
	if c := s[i]; 0xe1 <= c && c <= 0xef && c != 0xed && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
		return rune(c&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), 3
	}
	return utf8.DecodeRuneInString(s[i:])
}

// caselessRune covers the non-ASCII ranges caseless accepts; TestCaselessRune checks them.
func caselessRune(r rune) bool {
	return 0x2000 <= r && r <= 0x206f || 0x2e80 <= r && r <= 0xa63f ||
		0xff01 <= r && r <= 0xff20 || 0xff3b <= r && r <= 0xff40 || 0xff5b <= r && r <= 0xffef
}

// cmrcNext returns the next character of s at or after i that is not punctuation, as the byte
// range [i, i+n), with n == 0 at the end; cased reports a character caseless would reject.
func cmrcNext(s string, i int) (start, n int, cased bool) {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !cmrcPunct(rune(c)) {
				return i, 1, 'A' <= c && c <= 'Z'
			}
			i++
			continue
		}
		var r rune
		var n int
		if 0xe1 <= c && c <= 0xef && c != 0xed && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
			r, n = rune(c&0x0f)<<12|rune(s[i+1]&0x3f)<<6|rune(s[i+2]&0x3f), 3 // cmrcDecode, inlined
		} else {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if !cmrcPunct(r) {
			return i, n, !cmrcHan(r) && !caselessRune(r)
		}
		i += n
	}
	return i, 0, false
}

// cmrcEqual reports whether remove_punctuation(a) == remove_punctuation(b) for stripped a and b
// that are not yet lowercased. It compares character by character, skipping punctuation, and
// answers only while every character seen is caseless; otherwise it lowercases both and
// compares again. A mismatch between two caseless characters is final, since lowercasing the
// rest cannot change them.
func cmrcEqual(a, b string) bool {
	i, j := 0, 0
	for {
		i0, na, ca := cmrcNext(a, i)
		j0, nb, cb := cmrcNext(b, j)
		if ca || cb {
			return cmrcCleanEqual(cmrcNorm(a), cmrcNorm(b))
		}
		if na == 0 || nb == 0 {
			return na == nb
		}
		if a[i0:i0+na] != b[j0:j0+nb] {
			return false
		}
		i, j = i0+na, j0+nb
	}
}

// cmrcCleanEqual reports whether remove_punctuation(a) == remove_punctuation(b) for normalised
// a and b.
func cmrcCleanEqual(a, b string) bool {
	i, j := 0, 0
	for {
		i0, na, _ := cmrcNext(a, i)
		j0, nb, _ := cmrcNext(b, j)
		if na == 0 || nb == 0 {
			return na == nb
		}
		if a[i0:i0+na] != b[j0:j0+nb] {
			return false
		}
		i, j = i0+na, j0+nb
	}
}

// CMRCEM is calc_em_score(refs, pred) of CMRC 2018 v6: 1 if pred equals any reference once both
// are lowercased, stripped of surrounding whitespace and cleared of the script's punctuation
// (inner spaces stay), else 0.
func CMRCEM(pred string, refs []string) float64 {
	p := cmrcStrip(pred)
	for _, ref := range refs {
		if r := cmrcStrip(ref); r == p || cmrcEqual(r, p) {
			return 1
		}
	}
	return 0
}

// CMRCF1 is calc_f1_score(refs, pred) of CMRC 2018 v6: the maximum over references of the F1 of
// the longest common contiguous run of tokens of CMRCSegment(ref) and CMRCSegment(pred). A pair
// sharing no token scores 0, so does an empty prediction; no references score 0.
//
// Note: tokens are compared as small integers (the code point of an ideograph, an index into a
// per-call vocabulary for the rest) so the quadratic substring search compares ints, not strings.
func CMRCF1(pred string, refs []string) float64 {
	var (
		predBuf, refBuf [48]int32
		ids             cmrcIDs
		idx             runIndex
	)
	p := ids.segment(pred, predBuf[:0])
	idx.build(p)
	best := 0.0
	for _, ref := range refs {
		if best == 1 {
			break // F1 never exceeds 1, even rounded
		}
		r := ids.segment(ref, refBuf[:0])
		l := idx.longestRun(r, p)
		if l == 0 {
			continue
		}
		precision := 1.0 * float64(l) / float64(len(p))
		recall := 1.0 * float64(l) / float64(len(r))
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
	var ids cmrcIDs
	var out []string
	for _, id := range ids.segment(s, nil) {
		if id < cmrcVocabBase {
			out = append(out, string(rune(id)))
		} else {
			out = append(out, ids.vocab[id-cmrcVocabBase])
		}
	}
	return out
}

// cmrcIDs segments text into token ids for one CMRCF1 call: an ideograph's id is its code point,
// any other token's is cmrcVocabBase plus its index in vocab.
type cmrcIDs struct {
	vocab []string
	words []string // scratch for the word tokenizer
}

// cmrcVocabBase is past every code point, so vocabulary ids never equal an ideograph's.
const cmrcVocabBase = 0x110000

// segment appends the ids of mixed_segmentation(s, rm_punc=True) to dst. It walks the stripped
// text assuming lower() leaves it unchanged (see caseless) and starts over on the lowercased
// text at the first character that would change.
func (c *cmrcIDs) segment(s string, dst []int32) []int32 {
	s = cmrcStrip(s)
	if out, ok := c.segmentLower(s, dst, true); ok {
		return out
	}
	out, _ := c.segmentLower(textnorm.Lower(s), dst, false)
	return out
}

// segmentLower appends the ids of the lowercased, stripped text s to dst; with check set it
// gives up (ok false) at the first character that is not caseless.
func (c *cmrcIDs) segmentLower(s string, dst []int32, check bool) (out []int32, ok bool) {
	start, end, gap := -1, 0, false
	for i := 0; i < len(s); {
		var r rune
		var n int
		// cmrcDecode by hand: the call is not inlined and this loop sees every character.
		switch c := s[i]; {
		case c < utf8.RuneSelf:
			r, n = rune(c), 1
		case 0xe1 <= c && c <= 0xef && c != 0xed && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80:
			r, n = rune(c&0x0f)<<12|rune(s[i+1]&0x3f)<<6|rune(s[i+2]&0x3f), 3
		default:
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case cmrcHan(r):
			if start >= 0 {
				dst, start = c.flush(dst, s[start:end], gap), -1
			}
			dst = append(dst, r)
		case check && (r < utf8.RuneSelf && 'A' <= r && r <= 'Z' || r >= utf8.RuneSelf && !caselessRune(r)):
			return dst, false
		case cmrcPunct(r):
			gap = gap || start >= 0
		default:
			if start < 0 {
				start, gap = i, false
			}
			end = i + n
		}
		i += n
	}
	if start >= 0 {
		dst = c.flush(dst, s[start:end], gap)
	}
	return dst, true
}

// flush appends the ids of nltk.word_tokenize(run), with punctuation removed first when gap says
// the run contains some.
func (c *cmrcIDs) flush(dst []int32, run string, gap bool) []int32 {
	if gap {
		run = strings.Map(func(r rune) rune {
			if cmrcPunct(r) {
				return -1
			}
			return r
		}, run)
	}
	if c.words == nil {
		c.words = make([]string, 0, 8)
	}
	c.words = textnorm.AppendWordTokens(c.words[:0], run)
	for _, w := range c.words {
		dst = append(dst, c.id(w))
	}
	return dst
}

// id returns the vocabulary id of tok, a token of the word tokenizer (never an ideograph).
func (c *cmrcIDs) id(tok string) int32 {
	for i, v := range c.vocab {
		if v == tok {
			return cmrcVocabBase + int32(i)
		}
	}
	if c.vocab == nil {
		c.vocab = make([]string, 0, 8)
	}
	c.vocab = append(c.vocab, tok)
	return cmrcVocabBase + int32(len(c.vocab)-1)
}

// longestCommonRun is the length find_lcs(a, b) returns: the longest run of equal consecutive
// tokens the two share.
//
// Note: instead of the script's full table, b's positions are chained by token in a small hash
// table and every run is measured once from its first pair, so the cost is that of the matching
// pairs rather than len(a)*len(b); answers that share little cost almost nothing.
func longestCommonRun(a, b []int32) int {
	var idx runIndex
	idx.build(b)
	return idx.longestRun(a, b)
}

// runIndex chains the positions of a token sequence b (at most 255 long) by token hash: head[h]
// and next[j] hold a position plus one, zero ending a chain. CMRCF1 builds it once for the
// prediction and reuses it for every reference.
type runIndex struct {
	head [64]uint8
	next [255]uint8
}

func (x *runIndex) build(b []int32) {
	if len(b) > len(x.next) {
		return // longestRun falls back to the table
	}
	for j := len(b) - 1; j >= 0; j-- {
		h := cmrcHash(b[j])
		x.next[j], x.head[h] = x.head[h], uint8(j+1)
	}
}

// longestRun is longestCommonRun(a, b) for the b the index was built from.
func (x *runIndex) longestRun(a, b []int32) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(b) > len(x.next) {
		return longestCommonRunTable(a, b)
	}
	best := 0
	for i, t := range a {
		for j1 := int(x.head[cmrcHash(t)]); j1 > 0; j1 = int(x.next[j1-1]) {
			j := j1 - 1
			if b[j] != t || i > 0 && j > 0 && a[i-1] == b[j-1] {
				continue // another token, or inside a run counted from its start
			}
			k := 1
			for i+k < len(a) && j+k < len(b) && a[i+k] == b[j+k] {
				k++
			}
			best = max(best, k)
		}
	}
	return best
}

// cmrcHash maps a token id to one of 64 buckets.
func cmrcHash(id int32) int { return int(uint32(id) * 2654435761 >> 26) }

// longestCommonRunTable is find_lcs's dynamic programme, one row at a time, for long b.
func longestCommonRunTable(a, b []int32) int {
	prev, cur := make([]int32, len(b)+1), make([]int32, len(b)+1)
	best := int32(0)
	for _, x := range a {
		for j, y := range b {
			v := int32(0)
			if x == y {
				v = prev[j] + 1
				best = max(best, v)
			}
			cur[j+1] = v
		}
		prev, cur = cur, prev
	}
	return int(best)
}
