package textnorm

import "slices"

// AppendRougeText appends to dst the tokens rouge-score's tokenizer (rouge_score/tokenize.py,
// version 0.1.2) gives for text before stemming, each followed by one space. The tokens are the
// maximal runs of [a-z0-9] in the Python-lowercased text; every other character, including every
// non-ASCII letter and digit, separates tokens.
func AppendRougeText(dst []byte, text string) []byte {
	start := len(dst)
	if !isASCII(text) {
		// Lower in place first: a few non-ASCII letters lower to ASCII (K, İ).
		dst = AppendLower(dst, text)
		text = ""
	} else {
		dst = slices.Grow(dst, len(text)+1)
	}
	// Filter dst[start:] (or text) into dst[start:]; the output never outruns the input.
	src := dst[start:]
	if text != "" {
		src = nil
	}
	n := len(src) + len(text)
	w := start
	in := false
	for i := 0; i < n; i++ {
		var c byte
		if src != nil {
			c = src[i]
		} else {
			c = text[i]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			dst = append(dst[:w], c)
			w++
			in = true
		} else if in {
			dst = append(dst[:w], ' ')
			w++
			in = false
		}
	}
	if in {
		dst = append(dst[:w], ' ')
		w++
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
