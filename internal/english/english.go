// Package english words the counts in messages people read so that they agree in number:
// "1 record", "0 records", "2 records". The caller gives both forms of every word, so an
// irregular plural (batch, batches; entry, entries; child, children) needs no rule, and a
// form may be a phrase ("bad input line skipped") or a verb ("has", "have"). Clip shortens a text
// quoted in a message, and Suggest finds the known name an unknown one most likely misspells.
//
// Note: a plural made by appending "s" was rejected: it is wrong for the irregular nouns, and a
// phrase's plural is rarely its last word plus "s" ("record has" is "records have").
package english

import (
	"strconv"
	"unicode/utf8"
)

// Clip returns s when it has at most most bytes, else its first bytes up to most, cut before a
// character rather than inside one, followed by "…".
func Clip(s string, most int) string {
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Count returns n followed by singular when n is 1, and by plural otherwise (0 included):
// Count(1, "record", "records") is "1 record", Count(0, "record", "records") is "0 records".
func Count(n int, singular, plural string) string {
	return strconv.Itoa(n) + " " + Form(n, singular, plural)
}

// Form returns singular when n is 1 and plural otherwise: the form of a word that agrees with a
// count written elsewhere in the message, as the verb of "1 of 3 records has no answers" does.
func Form(n int, singular, plural string) string {
	if n == 1 {
		return singular
	}
	return plural
}
