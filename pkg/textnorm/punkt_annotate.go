package textnorm

import "strings"

// annotate is _annotate_tokens(_tokenize_words(text)): the words of every line, annotated by the
// first and second passes. toks is reused as the result's backing array.
func (m *punktModel) annotate(text string, toks []punktToken) []punktToken {
	var words []string
	for _, line := range strings.Split(text, "\n") {
		words = punktWords(line, words)
	}
	for _, w := range words {
		t := newPunktToken(w)
		m.firstPass(&t)
		toks = append(toks, t)
	}
	for i := 0; i+1 < len(toks); i++ {
		m.secondPass(&toks[i], &toks[i+1])
	}
	return toks
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
		if m.abbrevs[typ] || m.abbrevs[last] {
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
