package textnorm

import "strings"

// hasBreak is text_contains_sentbreak(text): whether a token other than the last is a sentence
// break once annotated by the first and second passes (_annotate_tokens over _tokenize_words).
// Like NLTK's generators it stops at the first break that has a token after it, and it keeps
// only the two tokens the second pass looks at: a context can be a whole run of punctuation.
func (m *punktModel) hasBreak(text string) bool {
	var prev punktToken
	have := false
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		for i := 0; ; {
			start, end := punktNextWord(line, i)
			if start == end {
				break
			}
			i = end
			t := newPunktToken(line[start:end])
			m.firstPass(&t)
			if have {
				m.secondPass(&prev, &t)
				if prev.sentbreak {
					return true
				}
			}
			prev, have = t, true
		}
	}
	return false
}

// firstPass is _first_pass_annotation: decisions from the token's own type.
func (m *punktModel) firstPass(t *punktToken) {
	tok := t.tok
	switch {
	case tok == "." || tok == "?" || tok == "!":
		t.sentbreak = true
	case len(tok) >= 2 && strings.Trim(tok, ".") == "":
		// _RE_ELLIPSIS, \.\.+$ with match.
		t.ellipsis = true
	case t.periodFinal && !strings.HasSuffix(tok, ".."):
		typ := Lower(tok[:len(tok)-1])
		last := typ[strings.LastIndexByte(typ, '-')+1:]
		if m.abbrevs[typ] || last != typ && m.abbrevs[last] {
			t.abbr = true
		} else {
			t.sentbreak = true
		}
	}
}

// secondPass is _second_pass_annotation: the collocation, orthographic and sentence-starter
// heuristics decide about t1 from the token t2 after it.
func (m *punktModel) secondPass(t1, t2 *punktToken) {
	if !t1.periodFinal {
		return
	}
	typ := t1.typeNoPeriod()
	next := t2.typeNoSentPeriod()
	if m.collocations[[2]string{typ, next}] {
		t1.sentbreak, t1.abbr = false, true
		return
	}
	if (t1.abbr || t1.ellipsis) && !t1.isInitial {
		switch m.orthoHeuristic(t2) {
		case punktStarter:
			t1.sentbreak = true
			return
		}
		if t2.firstUpper && m.starters[next] {
			t1.sentbreak = true
			return
		}
	}
	if t1.isInitial || typ == "##number##" {
		h := m.orthoHeuristic(t2)
		if h == punktNotStarter {
			t1.sentbreak, t1.abbr = false, true
			return
		}
		if h == punktUnknown && t1.isInitial && t2.firstUpper && m.ortho[next]&orthoLC == 0 {
			t1.sentbreak, t1.abbr = false, true
		}
	}
}

// punktVerdict is the three-valued answer of _ortho_heuristic.
type punktVerdict int

const (
	punktUnknown punktVerdict = iota
	punktStarter
	punktNotStarter
)

// orthoHeuristic is _ortho_heuristic: whether t starts a sentence, judged by the cases its type
// was seen in during training.
func (m *punktModel) orthoHeuristic(t *punktToken) punktVerdict {
	switch t.tok {
	case ";", ":", ",", ".", "!", "?":
		return punktNotStarter
	}
	ctx := m.ortho[t.typeNoSentPeriod()]
	if t.firstUpper && ctx&orthoLC != 0 && ctx&orthoMidUC == 0 {
		return punktStarter
	}
	if t.firstLower && (ctx&orthoUC != 0 || ctx&orthoBegLC == 0) {
		return punktNotStarter
	}
	return punktUnknown
}
