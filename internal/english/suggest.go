package english

import (
	"fmt"
	"strings"
)

// Suggest returns the known name that an unknown name most likely misspells, or "" when none is
// close: the first known name equal to name but for case; else the first, in known's order, at
// the smallest edit distance (insertions, deletions, substitutions and swaps of two adjacent
// characters, letters compared without case) when that distance is at most 2 and less than half
// name's length in characters; else the one known name that name shortens or lengthens by whole
// words (see affix). So "blue4" suggests "bleu4", "F1" suggests "f1", "locomo" among qa-judge's
// modes "locomo-continuous", and "x" suggests nothing, not "em".
//
// Note: a suggestion for any nearest name was rejected: a short name is near every short name
// ("x" is two edits from "em" and from "f1"), and a wrong hint misleads more than none.
func Suggest(name string, known []string) string {
	if s := nearest(name, known); s != "" {
		return s
	}
	return affix(name, known)
}

// nearest is Suggest without affix: a known name equal to name but for case, or the first
// within its edit distance.
func nearest(name string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(name, k) {
			return k
		}
	}
	a := []rune(strings.ToLower(name))
	best, bestD := "", 3
	for _, k := range known {
		b := []rune(strings.ToLower(k))
		if abs(len(a)-len(b)) >= bestD {
			continue // the distance is at least the difference in length
		}
		if d := distance(a, b); d < bestD {
			best, bestD = k, d
		}
	}
	if 2*bestD >= len(a) {
		return ""
	}
	return best
}

// affix returns the one known name that name is a part of, or that is a part of name, where a
// part is whole words at the start or the end, words being separated by '-', '_' or '/': a name
// that leaves out a word ("locomo" for "locomo-continuous", "api-key" for "api-key-file", a
// judgment's mode "evalearn" for its MODE/MODEL name "evalearn/gpt-4o") or adds one
// ("longmemeval-judge" for "longmemeval", "judge-model" for "model"). A part of a known
// name may also be within nearest's distance of name ("rule" for "rules-approximate"). Parts
// have at least 4 characters, and two known names that fit give none: "key" and "f1_macro"
// suggest nothing, where a short word says too little.
func affix(name string, known []string) string {
	const least = 4
	lower := strings.ToLower(name)
	found := ""
	for _, k := range known {
		lk := strings.ToLower(k)
		fits := false
		for _, part := range parts(lk) {
			if len([]rune(part)) >= least && nearest(lower, []string{part}) != "" {
				fits = true
			}
		}
		for _, part := range parts(lower) {
			if len([]rune(part)) >= least && part == lk {
				fits = true
			}
		}
		if !fits {
			continue
		}
		if found != "" && found != k {
			return "" // two fit: a guess
		}
		found = k
	}
	return found
}

// parts returns the proper parts of s that are whole words at its start or its end, words being
// separated by '-', '_' or '/': "a-b-c" has "a", "a-b", "c" and "b-c".
func parts(s string) []string {
	var out []string
	for i, r := range s {
		if r == '-' || r == '_' || r == '/' {
			if i > 0 {
				out = append(out, s[:i])
			}
			if i+1 < len(s) {
				out = append(out, s[i+1:])
			}
		}
	}
	return out
}

// DidYouMean returns `; did you mean "NAME"?` with Suggest's name for name among known, or ""
// when Suggest has none: the ending every message that rejects an unknown name gives itself.
func DidYouMean(name string, known []string) string { return Hint(Suggest(name, known)) }

// Hint returns `; did you mean "S"?`, or "" for s "": DidYouMean's ending for a suggestion s
// shown otherwise than Suggest returns it (a flag, with its dashes).
func Hint(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", s)
}

// distance is the optimal string alignment distance between a and b: the fewest insertions,
// deletions, substitutions and swaps of adjacent runes that turn a into b, no rune edited twice.
func distance(a, b []rune) int {
	// rows[i][j] is the distance between a[:i] and b[:j]; three rows are all the recurrence reads.
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
