package textnorm

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// AppendSquadTokens appends SquadNormalize(s) to dst, as AppendSquadNormalized does, and appends
// to ends the offset in dst just past each of its words: word k is dst[b:ends[k]] where b is
// ends[k-1]+1, or the length dst had on entry for the first word. It saves callers that score
// tokens a second pass to find them.
//
// Note: it repeats appendNormalized's algorithm specialised to SQuAD: ASCII words are classified
// and lowered eight bytes at a time, runs of CJK ideographs copied without decoding, and word
// starts known as they are written. The two are checked against each other by the fuzz tests.
// Rejected: hashing tokens here (callers differ in what they need) and writing no text (exact
// match and long-token checks compare bytes).
func AppendSquadTokens(dst []byte, ends []int32, s string) ([]byte, []int32) {
	start := len(dst)
	dst = slices.Grow(dst, len(s)+8)
	tok, run := -1, -1 // the current word's start and its current run of word characters', or -1
	for i := 0; i < len(s); {
		dst, ends, i, tok, run = appendSquadASCII(dst, ends, s, i, start, tok, run)
		if i == len(s) {
			break
		}
		c := s[i]
		var r rune // a lowered character that is kept but is no word character
		switch squadByte[c] {
		case sqOther:
			i++
			r = rune(c)
		default: // non-ASCII
			if n := cjkRun(s, i); n > 0 {
				dst, tok, run = openRun(dst, start, tok, run)
				dst = append(dst, s[i:i+n]...)
				i += n
				continue
			}
			r0, size := utf8.DecodeRuneInString(s[i:])
			var enc string // r0's encoding when it is kept as it is
			switch r0 {
			case 'İ': // lowers to "i" and U+0307, a word character and a mark
				dst, tok, run = openRun(dst, start, tok, run)
				dst = append(dst, 'i')
				r = '\u0307'
			case 'Σ':
				r = sigma(s, i)
			default:
				if r = unicodeLower(r0); r == r0 && r0 != utf8.RuneError {
					enc = s[i : i+size]
				}
			}
			i += size
			if isWord(r) {
				dst, tok, run = openRun(dst, start, tok, run)
				if enc != "" {
					dst = append(dst, enc...)
				} else {
					dst = utf8.AppendRune(dst, r)
				}
				continue
			}
			if IsSpace(r) {
				if run >= 0 {
					dst, tok, ends = endSquadRun(dst, ends, start, tok, run)
					run = -1
				}
				if tok >= 0 {
					ends = append(ends, int32(len(dst)))
					tok = -1
				}
				continue
			}
		}
		// r is kept: it ends any word run and continues or starts a word.
		if run >= 0 {
			dst, tok, ends = endSquadRun(dst, ends, start, tok, run)
			run = -1
		}
		if tok < 0 {
			if len(dst) > start {
				dst = append(dst, ' ')
			}
			tok = len(dst)
		}
		dst = utf8.AppendRune(dst, r)
	}
	if run >= 0 {
		dst, tok, ends = endSquadRun(dst, ends, start, tok, run)
	}
	if tok >= 0 {
		ends = append(ends, int32(len(dst)))
	}
	return dst, ends
}

// appendSquadASCII is AppendSquadTokens over s[i:] while it holds ASCII letters, digits,
// whitespace and punctuation: it returns the updated state and where it stopped. It is kept
// small so that its loop state stays in registers.
func appendSquadASCII(dst []byte, ends []int32, s string, i, start, tok, run int) ([]byte, []int32, int, int, int) {
loop:
	for i < len(s) {
		switch squadByte[s[i]] {
		case sqWord:
			dst, tok, run = openRun(dst, start, tok, run)
			var ended bool
			if dst, i, ended = CopyLowerWord(dst, s, i); ended {
				continue loop
			}
			for i < len(s) && squadByte[s[i]] == sqWord {
				dst = append(dst, s[i]|0x20)
				i++
			}
		case sqPunct:
			i++
		case sqSpace:
			i++
			if run >= 0 {
				dst, tok, ends = endSquadRun(dst, ends, start, tok, run)
				run = -1
			}
			if tok >= 0 {
				ends = append(ends, int32(len(dst)))
				tok = -1
			}
		default:
			return dst, ends, i, tok, run
		}
	}
	return dst, ends, i, tok, run
}

// openRun is called before a word character is written: it starts a word, after a space unless
// it is the first, and a run of word characters, unless they are going already.
func openRun(dst []byte, start, tok, run int) ([]byte, int, int) {
	if run >= 0 {
		return dst, tok, run
	}
	if tok < 0 {
		if len(dst) > start {
			dst = append(dst, ' ')
		}
		tok = len(dst)
	}
	return dst, tok, len(dst)
}

// CopyLowerWord copies the run of ASCII letters and digits at s[i:] to dst, lowered (bit 0x20
// set: digits have it already), eight bytes at a time while eight remain in s and dst has room
// for eight more. It returns dst, where it stopped in s, and whether that is the run's end; if
// not, the caller copies the rest a byte at a time. The SQuAD and ROUGE tokenizers, here and in
// pkg/metric, copy their words with it.
func CopyLowerWord(dst []byte, s string, i int) ([]byte, int, bool) {
	for i+8 <= len(s) && cap(dst)-len(dst) >= 8 {
		w := load64(s, i)
		n := ASCIIWordPrefix(w)
		m := len(dst)
		binary.LittleEndian.PutUint64(dst[m:m+8], w|0x2020202020202020)
		dst = dst[:m+n]
		if i += n; n < 8 {
			return dst, i, true
		}
	}
	return dst, i, false
}

// load64 returns s[i:i+8] as a little-endian word.
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// ASCIIWordPrefix returns how many of the bytes of w, lowest first, are ASCII letters or digits
// before the first that is not. Each byte is range-checked in parallel: for x ≤ 0x7f, the high
// bit of x + 0x80 - lo is set when x ≥ lo, and that of x + 0x7f - hi when x > hi.
func ASCIIWordPrefix(w uint64) int {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	x := w &^ high
	l := x | 0x2020202020202020
	alpha := (l + ones*(0x80-'a')) &^ (l + ones*(0x7f-'z'))
	digit := (x + ones*(0x80-'0')) &^ (x + ones*(0x7f-'9'))
	return bits.TrailingZeros64(^(alpha|digit)&high|w&high) >> 3
}

// cjkRun returns the length of the run of CJK ideographs (U+4E00–U+9FFF) at s[i:]: word
// characters with no case, copied as they are.
func cjkRun(s string, i int) int {
	j := i
	for j+2 < len(s) {
		c0, c1, c2 := s[j], s[j+1], s[j+2]
		if c0 < 0xe4 || c0 > 0xe9 || c1&0xc0 != 0x80 || c2&0xc0 != 0x80 || c0 == 0xe4 && c1 < 0xb8 {
			break
		}
		j += 3
	}
	return j - i
}

// endSquadRun closes the run of word characters dst[run:] in the word that starts at tok. An
// article is taken out: the word ends before it, or when the run was the whole word so far, the
// word and the space written before it are dropped. It returns the new word start, -1 after an
// article.
func endSquadRun(dst []byte, ends []int32, start, tok, run int) ([]byte, int, []int32) {
	if !isArticleRun(dst, run) {
		return dst, tok, ends
	}
	return dropArticle(dst, ends, start, tok, run)
}

// dropArticle takes the article dst[run:] out of the word that starts at tok, as endSquadRun
// does, and returns -1 for the word start.
func dropArticle(dst []byte, ends []int32, start, tok, run int) ([]byte, int, []int32) {
	dst = dst[:run]
	switch {
	case run > tok:
		ends = append(ends, int32(run))
	case run > start:
		dst = dst[:run-1]
	}
	return dst, -1, ends
}

// isArticleRun reports whether dst[run:] is "a", "an" or "the". With four bytes of room past run
// it compares one masked word instead of branching on the length, which is hard to predict.
func isArticleRun(dst []byte, run int) bool {
	n := len(dst) - run
	if run+4 > cap(dst) {
		return n <= 3 && squadArticle(dst[run:])
	}
	w := binary.LittleEndian.Uint32(dst[run : run+4])
	k := uint64(w&(1<<(8*min(n, 4))-1)) | uint64(min(n, 4))<<32
	return k == 1<<32|'a' || k == 2<<32|'a'|'n'<<8 || k == 3<<32|'t'|'h'<<8|'e'<<16
}

// Byte classes of AppendSquadTokens.
const (
	sqHigh  = iota // a byte of a multi-byte sequence
	sqWord         // an ASCII letter or digit
	sqSpace        // ASCII whitespace
	sqPunct        // string.punctuation, '_' included
	sqOther        // an ASCII character kept as it is: controls
)

// squadByte classifies bytes for AppendSquadTokens; it is computed once and never written again.
var squadByte = func() (t [256]uint8) {
	for c := range utf8.RuneSelf {
		r := rune(c)
		switch {
		case IsPunct(r):
			t[c] = sqPunct
		case IsSpace(r):
			t[c] = sqSpace
		case IsAlnum(r):
			t[c] = sqWord
		default:
			t[c] = sqOther
		}
	}
	return t
}()
