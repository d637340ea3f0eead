package textnorm

import (
	"slices"
)

// AppendRougeText appends to dst the tokens rouge-score's tokenizer (rouge_score/tokenize.py,
// version 0.1.2) gives for text before stemming, each followed by one space. The tokens are the
// maximal runs of [a-z0-9] in the Python-lowercased text; every other character, including every
// non-ASCII letter and digit, separates tokens.
func AppendRougeText(dst []byte, text string) []byte {
	if isASCII(text) {
		return appendRougeASCII(dst, text)
	}
	// Lower first: a few non-ASCII letters lower to ASCII (the Kelvin sign, İ).
	start := len(dst)
	dst = AppendLower(dst, text)
	return rougeFilter(append(dst, ' '), start)
}

// appendRougeASCII is AppendRougeText for ASCII text. Runs of letters and digits are copied
// eight bytes at a time, lowered by setting bit 0x20 (which digits have already), as
// AppendSquadTokens copies words; FuzzRougeText holds it to rougeFilter.
func appendRougeASCII(dst []byte, s string) []byte {
	// The output is at most len(s)+1 bytes; eight more let a word be stored at its end.
	dst = slices.Grow(dst, len(s)+9)
	for i := 0; i < len(s); {
		if !isRougeByte(s[i]) {
			i++
			continue
		}
		dst, i, _ = CopyLowerWord(dst, s, i)
		for i < len(s) && isRougeByte(s[i]) {
			dst = append(dst, s[i]|0x20)
			i++
		}
		dst = append(dst, ' ')
	}
	return dst
}

// isRougeByte reports whether c is an ASCII letter or digit.
func isRougeByte(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9'
}

// rougeFilter rewrites dst[start:] in place into its [a-z0-9] runs, each followed by one space,
// lowering ASCII capitals on the way. The input must end with a byte outside [a-z0-9].
func rougeFilter(dst []byte, start int) []byte {
	w := start
	in := false
	for _, c := range dst[start:] {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			dst[w] = c
			w++
			in = true
		case in:
			dst[w] = ' '
			w++
			in = false
		}
	}
	return dst[:w]
}

// RougeTokens returns rouge-score's tokens of text, Porter-stemmed (tokens longer than three
// characters only) when stem is true.
func RougeTokens(text string, stem bool) []string {
	toks := Split(string(AppendRougeText(nil, text)))
	if stem {
		for i, t := range toks {
			if len(t) > 3 {
				toks[i] = Stem(t)
			}
		}
	}
	return toks
}
