package metric

import (
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// CMRC 2018 v6 (ymcui/cmrc2018 baseline/cmrc2018_evaluate.py): answers are compared as
// lowercased, stripped strings with the script's punctuation removed (EM) and as mixed
// Chinese/English token sequences through their longest common substring (F1).

// cmrcPunct reports whether r is one of the script's sp_char entries that a single character can
// equal.
//
// Note: the list holds the two-character entry "……" and is tested one character at a time, so
// "…" is never removed; leaving it out reproduces that.
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
	w := repeatWalk{refs: refs}
	for k, ref := range refs {
		if best == 1 {
			break // F1 never exceeds 1, even rounded
		}
		if w.repeats(k) {
			continue // scores the same as before
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
// stripped, the script's punctuation is dropped (- : _ * ^ / \ ~ ` + = and the full-width
// ，。：？！“”；’《》·、「」（）－～『』), each ideograph U+4E00–U+9FA5 is a token of its own, and the
// text between them goes through textnorm.WordTokenize (nltk.word_tokenize). Other punctuation
// stays: ASCII , . ! ? ; ( ) ' " and the full-width ‘ … are tokens (or parts of them) as
// nltk.word_tokenize makes them, so that "北京," scores CMRCF1 0.8 and CMRCEM 0 against "北京".
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
//
// Note: a short answer's few words are looked up by scanning vocab, which allocates nothing;
// past cmrcScanVocab distinct words they go through index, so a long text costs linear time
// rather than one comparison per earlier distinct word (a 1 MB text of distinct words took 25 s).
type cmrcIDs struct {
	vocab []string
	index map[string]int32 // vocab's ids by token once it outgrows the scan, else nil
	words []string         // scratch for the word tokenizer
}

// cmrcScanVocab is the vocabulary size up to which id scans vocab instead of using a map.
const cmrcScanVocab = 32

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
		// Three-byte sequences are decoded inline: this loop sees every character.
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
	if c.index != nil {
		if id, ok := c.index[tok]; ok {
			return id
		}
	} else {
		for i, v := range c.vocab {
			if v == tok {
				return cmrcVocabBase + int32(i)
			}
		}
	}
	if c.vocab == nil {
		c.vocab = make([]string, 0, 8)
	}
	c.vocab = append(c.vocab, tok)
	id := cmrcVocabBase + int32(len(c.vocab)-1)
	switch {
	case c.index != nil:
		c.index[tok] = id
	case len(c.vocab) > cmrcScanVocab:
		c.index = make(map[string]int32, 2*len(c.vocab))
		for i, v := range c.vocab {
			c.index[v] = cmrcVocabBase + int32(i)
		}
	}
	return id
}
