package extractor

import (
	"regexp"
	"strings"
	"unicode"
)

type kind int

const (
	kindOther kind = iota
	kindYesNo
	kindWhen
	kindCount
	kindEntity
)

// classify tells the answer form from the question's wording.
func classify(q string) kind {
	lq := strings.ToLower(strings.TrimSpace(q))
	first := ""
	if w := words(lq); len(w) > 0 {
		first = w[0]
	}
	switch {
	case strings.HasPrefix(lq, "how many") || strings.HasPrefix(lq, "how much") ||
		strings.HasPrefix(lq, "how old") || strings.HasPrefix(lq, "how long"):
		return kindCount
	case first == "when" || strings.Contains(lq, "what year") || strings.Contains(lq, "which year") ||
		strings.Contains(lq, "what date") || strings.Contains(lq, "in what month"):
		return kindWhen
	case first == "who" || first == "whom" || first == "whose" || first == "where":
		return kindEntity
	}
	switch first {
	case "is", "was", "are", "were", "do", "does", "did", "can", "could", "has", "have", "had", "will",
		"would", "should":
		return kindYesNo
	}
	return kindOther
}

// yesNo answers a yes/no question; with "X or Y" it picks one of the options.
func yesNo(q string, ranked []int, sents []sentence) string {
	a, b, ok := options(q)
	if !ok || !short(a) || !short(b) {
		return "yes"
	}
	return choose(q, a, b, ranked, sents)
}

// short reports whether an option looks like a name rather than a clause.
func short(opt string) bool {
	n := len(strings.Fields(opt))
	return n > 0 && n <= 8
}

// choose picks option a or b. When the question asks which came first or last, it compares the
// first year in each option's best sentence; otherwise it takes the option the top sentences
// mention more, a on ties.
func choose(q, a, b string, ranked []int, sents []sentence) string {
	lq := strings.ToLower(q)
	earlier := containsWord(lq, "first", "earlier", "older", "oldest", "before", "earliest", "formed", "founded", "established")
	later := containsWord(lq, "later", "newer", "younger", "recent", "last", "latest", "after")
	if earlier || later {
		ya, yb := optionYear(a, ranked, sents), optionYear(b, ranked, sents)
		if ya > 0 && yb > 0 && ya != yb {
			if (ya < yb) == (earlier && !later) {
				return a
			}
			return b
		}
	}
	score := func(opt string) int {
		n := 0
		ot := tokens(opt)
		for r, i := range ranked[:min(5, len(ranked))] {
			if containsAll(sents[i].tokens, ot) {
				n += 5 - r
			}
		}
		return n
	}
	if score(b) > score(a) {
		return b
	}
	return a
}

func containsWord(s string, ws ...string) bool {
	for _, w := range words(s) {
		for _, x := range ws {
			if w == x {
				return true
			}
		}
	}
	return false
}

var yearRe = regexp.MustCompile(`\b(1[0-9]|20)\d{2}\b`)

// optionYear is the first year in the best-ranked sentence that mentions opt, or 0.
func optionYear(opt string, ranked []int, sents []sentence) int {
	ot := tokens(opt)
	for _, i := range ranked {
		if !containsAll(sents[i].tokens, ot) {
			continue
		}
		if m := yearRe.FindString(sents[i].text); m != "" {
			y := 0
			for _, c := range m {
				y = y*10 + int(c-'0')
			}
			return y
		}
	}
	return 0
}

// options finds "X or Y" at the end of a question: the comma-separated or final clause.
func options(q string) (string, string, bool) {
	q = strings.TrimRight(strings.TrimSpace(q), "?")
	i := strings.LastIndex(q, " or ")
	if i < 0 {
		return "", "", false
	}
	left, right := q[:i], q[i+4:]
	if j := strings.LastIndexAny(left, ",:"); j >= 0 {
		left = left[j+1:]
	} else if ws := strings.Fields(left); len(ws) > 0 {
		// without a comma take the capitalised run that ends the left side
		k := len(ws)
		for k > 0 && startsUpper(ws[k-1]) {
			k--
		}
		if k == len(ws) {
			k = len(ws) - 1
		}
		left = strings.Join(ws[k:], " ")
	}
	return strings.TrimSpace(left), strings.TrimSpace(right), true
}

func containsAll(have, want []string) bool {
	set := make(map[string]bool, len(have))
	for _, t := range have {
		set[t] = true
	}
	for _, t := range want {
		if !set[t] {
			return false
		}
	}
	return len(want) > 0
}

var (
	month    = `(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?`
	dateRe   = regexp.MustCompile(`\b(?:\d{1,2} ` + month + `,? \d{4}|` + month + ` \d{1,2},? \d{4}|` + month + ` \d{4}|\d{1,2} ` + month + `|` + month + ` \d{1,2}|(?:1[0-9]|20)\d{2}s?)\b`)
	numRe    = regexp.MustCompile(`\b\d[\d,.]*(?: (?:million|billion|thousand|hundred))?\b`)
	numWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
		"seven": true, "eight": true, "nine": true, "ten": true, "twelve": true, "twenty": true, "once": true, "twice": true}
)

// span picks the answer of the given kind in s, or "".
func span(k kind, s sentence, qset map[string]bool) string {
	switch k {
	case kindWhen:
		for _, m := range dateRe.FindAllString(s.text, -1) {
			if !qset[strings.ToLower(m)] {
				return m
			}
		}
		return ""
	case kindCount:
		for _, w := range words(s.text) {
			lw := strings.ToLower(w)
			if qset[lw] {
				continue
			}
			if numWords[lw] || numRe.MatchString(w) {
				return w
			}
		}
		return ""
	}
	if e := entity(s.text, qset); e != "" {
		return e
	}
	return ""
}

// entity returns the longest run of capitalised words (allowing inner "of", "the", "and", "de")
// none of whose words is in the question; a run at the sentence start needs two words.
func entity(text string, qset map[string]bool) string {
	ws := strings.Fields(text)
	best := ""
	for i := 0; i < len(ws); {
		if !startsLetterUpper(ws[i]) {
			i++
			continue
		}
		j := i
		var run []string
		for j < len(ws) {
			w := strings.Trim(ws[j], `.,;:!?"()'`)
			if startsUpper(w) || (len(run) > 0 && j+1 < len(ws) && startsUpper(ws[j+1]) && joiner[strings.ToLower(w)]) {
				run = append(run, w)
				j++
				if strings.ContainsAny(ws[j-1], ",;:.!?)") {
					break
				}
				continue
			}
			break
		}
		initial := i == 0 || strings.ContainsAny(ws[i-1][len(ws[i-1])-1:], ".!?")
		run = dropKnown(run, qset)
		cand := strings.Join(run, " ")
		if initial && len(run) < 2 && len(ws) > 1 || len(run) == 1 && pronoun(run[0]) {
			cand = ""
		}
		if len(cand) > len(best) {
			best = cand
		}
		i = max(j, i+1)
	}
	return best
}

// pronoun reports whether w is "I" or a contraction of it ("I'm", "I've"), which are capitalised
// without being names.
func pronoun(w string) bool {
	return w == "I" || strings.HasPrefix(w, "I'") || strings.HasPrefix(w, "I’")
}

var joiner = map[string]bool{"of": true, "the": true, "and": true, "de": true, "von": true, "van": true, "la": true, "del": true}

// dropKnown trims question words from both ends of a run and rejects runs that are all known.
func dropKnown(run []string, qset map[string]bool) []string {
	known := func(w string) bool {
		return qset[strings.ToLower(w)] || joiner[strings.ToLower(w)] || stop[strings.ToLower(w)]
	}
	for len(run) > 0 && known(run[0]) {
		run = run[1:]
	}
	for len(run) > 0 && known(run[len(run)-1]) {
		run = run[:len(run)-1]
	}
	for _, w := range run {
		if qset[strings.ToLower(w)] {
			return nil
		}
	}
	return run
}

func startsLetterUpper(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

func startsUpper(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r) || unicode.IsDigit(r)
	}
	return false
}

// fallback returns up to six words after the last question word in s, or, when none but
// question and stop words follow it, from the sentence's start ("Ann" of "Ann wrote it." for "Who
// wrote it?"), without question words or stop words at the edges.
func fallback(s sentence, qset map[string]bool) string {
	ws := strings.Fields(s.text)
	last := -1
	for i, w := range ws {
		if qset[strings.ToLower(strings.Trim(w, `.,;:!?"()'`))] && !stop[strings.ToLower(strings.Trim(w, `.,;:!?"()'`))] {
			last = i
		}
	}
	out := wordsFrom(ws[last+1:], qset)
	if len(out) == 0 {
		out = wordsFrom(ws, qset)
	}
	return strings.Join(out, " ")
}

// wordsFrom returns the first run of up to six words of ws that are not question words, ending
// at a word with punctuation after it, without stop words at its edges.
func wordsFrom(ws []string, qset map[string]bool) []string {
	var out []string
	for _, w := range ws {
		t := strings.Trim(w, `.,;:!?"()'`)
		lt := strings.ToLower(t)
		if qset[lt] || (len(out) == 0 && stop[lt]) || t == "" {
			if len(out) > 0 {
				break
			}
			continue
		}
		out = append(out, t)
		if len(out) == 6 || strings.ContainsAny(w, ",;.!?") {
			break
		}
	}
	for len(out) > 1 && stop[strings.ToLower(out[len(out)-1])] {
		out = out[:len(out)-1]
	}
	return out
}

// fallbackHan is fallback for Chinese text, which has no spaces to find words by: of the
// sentence's clauses (split at its punctuation), the one sharing the most characters with the
// question, and in it the longest run of characters that are not the question's (at most 12),
// else the clause itself.
func fallbackHan(text string, qset map[string]bool) string {
	clauses := strings.FieldsFunc(text, func(r rune) bool {
		return strings.ContainsRune("，、；：。！？,;:!?（）()「」《》“”\"", r) || unicode.IsSpace(r)
	})
	best, most := "", -1
	for _, c := range clauses {
		n := 0
		for _, r := range c {
			if isHan(r) && qset[string(r)] {
				n++
			}
		}
		if n > most {
			best, most = c, n
		}
	}
	const longest = 12
	var run, answer []rune
	for _, r := range best + "\x00" {
		if r != 0 && !(isHan(r) && qset[string(r)]) {
			run = append(run, r)
			continue
		}
		if len(run) > len(answer) {
			answer = run
		}
		run = nil
	}
	if len(answer) == 0 {
		answer = []rune(best)
	}
	return string(answer[:min(len(answer), longest)])
}

// dateOnly drops a leading clock time from a session date ("1:56 pm on 8 May, 2023" → "8 May, 2023").
func dateOnly(d string) string {
	if i := strings.Index(d, " on "); i >= 0 {
		return d[i+4:]
	}
	return d
}
