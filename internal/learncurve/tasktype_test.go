package learncurve

import (
	"strings"
	"testing"
)

func TestRawType(t *testing.T) {
	for _, c := range []struct {
		raw, key, name, json string
	}{
		{`"Maths"`, "Maths", "Maths", "Maths"},
		{`"Donn\u00e9es"`, "Données", "Données", "Données"},
		{`""`, "", "", ""},
		{`null`, "\xffNone", "None", "null"},
		{`true`, "\xff1", "True", "true"},
		{`false`, "\xff0", "False", "false"},
		{`1`, "\xff1", "1", "1"},
		{`1.0`, "\xff1", "1.0", "1.0"},
		{`1e2`, "\xff100", "100.0", "100.0"},
		{`-0.0`, "\xff0", "-0.0", "-0.0"},
		{`2.5`, "\xff2.5", "2.5", "2.5"},
		{`1e400`, "\xffinf", "inf", "Infinity"},
		{`99999999999999999999`, "\xff99999999999999999999", "99999999999999999999", "99999999999999999999"},
		{`[1]`, "\xff[1]", "[1]", "[1]"},
	} {
		got := RawType([]byte(c.raw))
		if got.Key != c.key || got.Name != c.name || got.JSON != c.json {
			t.Errorf("RawType(%s) = %q %q %q, want %q %q %q", c.raw, got.Key, got.Name, got.JSON, c.key, c.name, c.json)
		}
		if got.isZero() {
			t.Errorf("RawType(%s) is the zero type (no type)", c.raw)
		}
	}
}

func TestSortTypes(t *testing.T) {
	raw := func(vals ...string) []TaskType {
		var out []TaskType
		for _, v := range vals {
			out = append(out, RawType([]byte(v)))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		types []TaskType
		want  string // names in order
		warn  string // part of the warning, "" for none
	}{
		{"names by code point", raw(`"b"`, `"B"`, `"é"`, `""`, `"a b"`), `|B|a b|b|é`, ""},
		{"numbers by value", raw(`2.5`, `-3`, `true`, `1e400`, `99999999999999999999`, `0.1`), `-3|0.1|True|2.5|99999999999999999999|inf`, ""},
		{"big integers exactly", raw(`100000000000000000001`, `1e20`), `1e+20|100000000000000000001`, ""},
		{"one null", raw(`null`), `None`, ""},
		{"name and number", raw(`3`, `"x"`), `x|3`, "different kinds (names, numbers)"},
		{"null among names", raw(`null`, `"x"`), `x|None`, "(names, null)"},
		{"one JSON key", raw(`1`, `"1"`, `"null"`, `null`, `"x"`), `1|null|x|1|None`,
			`TypeError); listed here names first, then numbers, then null; the JSON report writes types under one key, of which a reader keeps one: "1" and 1 as "1", "null" and null as "null"`},
		{"a list", raw(`[1]`), `[1]`, "unhashable"},
		// sorted([2.5, -inf, inf, 1]) as json.load reads -1e400 and 1e400
		{"infinities", raw(`2.5`, `-1e400`, `1e400`, `1`), `-inf|1|2.5|inf`, ""},
		{"lists by their JSON, after the rest", raw(`{"a": 1}`, `[2]`, `"x"`, `[1]`), `x|[1]|[2]|{'a': 1}`, "unhashable"},
	} {
		got, warn := sortTypes(c.types)
		var names []string
		for _, tt := range got {
			names = append(names, tt.Name)
		}
		if strings.Join(names, "|") != c.want {
			t.Errorf("%s: sorted %q, want %q", c.name, strings.Join(names, "|"), c.want)
		}
		if (c.warn == "") != (warn == "") || !strings.Contains(warn, c.warn) {
			t.Errorf("%s: warning %q, want one with %q", c.name, warn, c.warn)
		}
	}
}
