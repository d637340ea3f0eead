package textnorm

// AppendRougeText appends to dst the tokens rouge-score's tokenizer (rouge_score/tokenize.py,
// version 0.1.2) gives for text before stemming, each followed by one space. The tokens are the
// maximal runs of [a-z0-9] in the Python-lowercased text; every other character, including every
// non-ASCII letter and digit, separates tokens.
func AppendRougeText(dst []byte, text string) []byte {
	if !isASCII(text) {
		text = Lower(text)
	}
	in := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			dst = append(dst, c)
			in = true
		} else if in {
			dst = append(dst, ' ')
			in = false
		}
	}
	if in {
		dst = append(dst, ' ')
	}
	return dst
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
