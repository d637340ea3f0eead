package english

import (
	"fmt"
	"strings"
)

// Suggest returns the known name that an unknown name most likely misspells, or "" when none is
// close: the first known name equal to name but for case; else the first, in known's order, at
// the smallest edit distance (insertions, deletions, substitutions and swaps of two adjacent
// characters, letters compared without case) when that distance is at most 2 and less than half
// name's length in characters. So "blue4" suggests "bleu4", "F1" suggests "f1", and "x" suggests
// nothing, not "em".
//
// Note: a suggestion for any nearest name was rejected: a short name is near every short name
// ("x" is two edits from "em" and from "f1"), and a wrong hint misleads more than none.
func Suggest(name string, known []string) string {
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
