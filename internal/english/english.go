// Package english words the counts in messages people read so that they agree in number:
// "1 record", "0 records", "2 records". The caller gives both forms of every word, so an
// irregular plural (batch, batches; entry, entries; child, children) needs no rule, and a
// form may be a phrase ("bad input line skipped") or a verb ("has", "have"). Clip shortens a text
// quoted in a message, Suggest finds the known name an unknown one most likely misspells, List
// joins names as a sentence lists them, FirstOf the first few of a long list and counts the rest,
// and USD writes an amount of dollars.
//
// Note: a plural made by appending "s" was rejected: it is wrong for the irregular nouns, and a
// phrase's plural is rarely its last word plus "s" ("record has" is "records have").
package english

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
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

// List joins names as a sentence lists them: "a", "a and b", "a, b and c" ("" for none).
func List(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// FirstOf joins the first most of items with commas and counts the others: "a, b and 3 more"
// for most 2 of five items, "a, b" for two.
func FirstOf(items []string, most int) string {
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:most], ", ") + fmt.Sprintf(" and %d more", len(items)-most)
}

// USD writes v, an amount in dollars, with six decimals, rounded as the decimal v was worked out
// as (the shortest that is that float64), halves away from zero: an input of 435 tokens at $1.10
// a million costs exactly $0.0004785, which shows as 0.000479, where %.6f, rounding the float64
// nearest it, a hair below, shows 0.000478. NaN and infinities are written as %.6f writes them.
func USD(v float64) string {
	var r big.Rat
	if _, ok := r.SetString(strconv.FormatFloat(v, 'g', -1, 64)); !ok {
		return fmt.Sprintf("%.6f", v)
	}
	return r.FloatString(6)
}
