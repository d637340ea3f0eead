package textnorm

import "slices"

// AppendRougeText appends to dst the tokens rouge-score's tokenizer (rouge_score/tokenize.py,
// version 0.1.2) gives for text before stemming, each followed by one space. The tokens are the
// maximal runs of [a-z0-9] in the Python-lowercased text; every other character, including every
// non-ASCII letter and digit, separates tokens.
func AppendRougeText(dst []byte, text string) []byte {
	if isASCII(text) {
		dst = slices.Grow(dst, len(text)+1)
		w := len(dst)
		dst = dst[:w+len(text)+1]
		copy(dst[w:], text)
		dst[len(dst)-1] = ' '
		return rougeFilter(dst, w)
	}
	// Lower first: a few non-ASCII letters lower to ASCII (the Kelvin sign, İ).
	start := len(dst)
	dst = AppendLower(dst, text)
	return rougeFilter(append(dst, ' '), start)
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
