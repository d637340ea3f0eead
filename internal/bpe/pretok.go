package bpe

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers: o200k_base's pattern, as tiktoken writes it,
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// and cl100k_base's,
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)
//	|[^\r\n\p{L}\p{N}]?\p{L}+
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// matched at each position in turn, the first alternative that matches winning, each with the
// backtracking of a regular expression engine; \s is Unicode's White_Space. Every character is
// matched by some alternative, so pieces tile the text. The matching below is that, written out:
// each alternative is a function returning the end of its match at i, or -1; the last four are
// shared.

// class bits of a character.
const (
	cUpper  = 1 << iota // Lu, Lt, Lm, Lo or M: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower              // Ll, Lm, Lo or M: [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cLetter             // \p{L}
	cNumber             // \p{N}
	cSpace              // \s
	cCRLF               // \r or \n
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		t[c] = classOf(rune(c))
	}
	return t
}()

func classOf(r rune) uint8 {
	var c uint8
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cUpper
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cLower
	}
	if unicode.IsLetter(r) {
		c |= cLetter
	}
	if unicode.IsNumber(r) {
		c |= cNumber
	}
	if unicode.IsSpace(r) {
		c |= cSpace
	}
	if r == '\r' || r == '\n' {
		c |= cCRLF
	}
	return c
}

// at returns the class of the character at s[i] and its width. An invalid byte is a character
// of no class, one byte wide.
func at(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		return 0, 1
	}
	return classOf(r), n
}

// run returns the end of the longest run of characters from i that have some bit of want.
func run(s string, i int, want uint8) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf { // at's first case, without the call
			if asciiClass[b]&want == 0 {
				break
			}
			i++
			continue
		}
		c, n := at(s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// nextPiece returns the end of the pre-token that starts at start (< len(s)).
func (e *Encoding) nextPiece(s string, start int) int {
	for _, alt := range e.alts {
		if end := alt(s, start); end > start {
			return end
		}
	}
	// Not reached: every character is a letter, a number, a space or none of these.
	_, n := at(s, start)
	return start + n
}

// prefix reports the width of the character at i when [^\r\n\p{L}\p{N}] matches it, else 0.
func prefix(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	c, n := at(s, i)
	if c&(cCRLF|cLetter|cNumber) != 0 {
		return 0
	}
	return n
}

// o200kLetters is o200k_base's first alternative: [^\r\n\p{L}\p{N}]? U* L+ contraction?, where U
// and L are the upper and lower classes (they share Lm, Lo and M). U* gives back characters, last
// first, until L+ can match; the prefix is tried taken, then not.
func o200kLetters(s string, i int) int {
	for _, p := range [2]int{prefix(s, i), 0} {
		j0 := i + p
		for j := run(s, j0, cUpper); ; {
			if end := run(s, j, cLower); end > j {
				return contraction(s, end)
			}
			if j == j0 {
				break
			}
			_, n := utf8.DecodeLastRuneInString(s[j0:j])
			j -= n
		}
		if p == 0 {
			break
		}
	}
	return -1
}

// o200kCapitals is o200k_base's second alternative: [^\r\n\p{L}\p{N}]? U+ L* contraction?.
func o200kCapitals(s string, i int) int {
	for _, p := range [2]int{prefix(s, i), 0} {
		if end := run(s, i+p, cUpper); end > i+p {
			return contraction(s, run(s, end, cLower))
		}
		if p == 0 {
			break
		}
	}
	return -1
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d)? at i: i itself when none matches.
// Under (?i), s also matches ſ (U+017F, whose simple case fold is s).
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return i
	}
	fold := func(j int) (byte, int) { // the lowered ASCII letter at j and its width, or 0
		if j >= len(s) {
			return 0, 0
		}
		if c := s[j]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			return c, 1
		}
		if r, n := utf8.DecodeRuneInString(s[j:]); r == 'ſ' {
			return 's', n
		}
		return 0, 0
	}
	c, n := fold(i + 1)
	switch c {
	case 's', 't', 'm', 'd':
		return i + 1 + n
	case 'r', 'v', 'l':
		want := byte('e')
		if c == 'l' {
			want = 'l'
		}
		if c2, n2 := fold(i + 1 + n); c2 == want {
			return i + 1 + n + n2
		}
	}
	return i
}

// contractionAlone is cl100k_base's first alternative, (?i:'s|'t|'re|'ve|'m|'ll|'d), on its own.
func contractionAlone(s string, i int) int {
	if end := contraction(s, i); end > i {
		return end
	}
	return -1
}

// letters is cl100k_base's second alternative, [^\r\n\p{L}\p{N}]?\p{L}+: the prefix tried taken,
// then not.
func letters(s string, i int) int {
	if p := prefix(s, i); p > 0 {
		if end := run(s, i+p, cLetter); end > i+p {
			return end
		}
	}
	if end := run(s, i, cLetter); end > i {
		return end
	}
	return -1
}

// digits is \p{N}{1,3}.
func digits(s string, i int) int {
	j := i
	for k := 0; k < 3 && j < len(s); k++ {
		c, n := at(s, j)
		if c&cNumber == 0 {
			break
		}
		j += n
	}
	if j == i {
		return -1
	}
	return j
}

// symbols is cl100k_base's " ?[^\s\p{L}\p{N}]+[\r\n]*".
func symbols(s string, i int) int { return symbolRun(s, i, false) }

// symbolsSlash is o200k_base's " ?[^\s\p{L}\p{N}]+[\r\n/]*".
func symbolsSlash(s string, i int) int { return symbolRun(s, i, true) }

// symbolRun is " ?[^\s\p{L}\p{N}]+" followed by a run of \r and \n, and of / when slash.
func symbolRun(s string, i int, slash bool) int {
	j := i
	if s[j] == ' ' {
		j++
	}
	end := j
	for end < len(s) {
		c, n := at(s, end)
		if c&(cSpace|cLetter|cNumber) != 0 {
			break
		}
		end += n
	}
	if end == j {
		return -1 // with the space taken no symbol follows; without it, a space is no symbol
	}
	for end < len(s) && (s[end] == '\r' || s[end] == '\n' || slash && s[end] == '/') {
		end++
	}
	return end
}

// newlines is \s*[\r\n]+: the whitespace run from i, given back to just past its last \r or \n.
func newlines(s string, i int) int {
	end := -1
	for j := i; j < len(s); {
		c, n := at(s, j)
		if c&cSpace == 0 {
			break
		}
		j += n
		if c&cCRLF != 0 {
			end = j
		}
	}
	return end
}

// spacesBeforeSpace is \s+(?!\S): the whitespace run from i, but for its last character when a
// non-space follows it.
func spacesBeforeSpace(s string, i int) int {
	end := run(s, i, cSpace)
	if end == i || end == len(s) {
		return end
	}
	// Give back the run's last character, after which a space (the given-back one) follows.
	_, size := utf8.DecodeLastRuneInString(s[i:end])
	if end-size == i {
		return -1
	}
	return end - size
}

// spaces is \s+.
func spaces(s string, i int) int {
	if end := run(s, i, cSpace); end > i {
		return end
	}
	return -1
}
