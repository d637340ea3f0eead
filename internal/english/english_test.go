package english

import (
	"fmt"
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n                      int
		singular, plural, want string
	}{
		{0, "record", "records", "0 records"},
		{1, "record", "records", "1 record"},
		{2, "record", "records", "2 records"},
		{-1, "record", "records", "-1 records"},
		{11, "record", "records", "11 records"},
		{21, "record", "records", "21 records"},
		{1, "batch", "batches", "1 batch"},
		{3, "batch", "batches", "3 batches"},
		{1, "entry", "entries", "1 entry"},
		{2, "category", "categories", "2 categories"},
		{5, "child", "children", "5 children"},
		{1, "bad input line skipped", "bad input lines skipped", "1 bad input line skipped"},
		{4, "bad input line skipped", "bad input lines skipped", "4 bad input lines skipped"},
		{1, "record has", "records have", "1 record has"},
	} {
		if got := Count(tc.n, tc.singular, tc.plural); got != tc.want {
			t.Errorf("Count(%d, %q, %q) = %q, want %q", tc.n, tc.singular, tc.plural, got, tc.want)
		}
	}
}

func TestForm(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "have"},
		{1, "has"},
		{2, "have"},
		{-1, "have"},
	} {
		if got := Form(tc.n, "has", "have"); got != tc.want {
			t.Errorf("Form(%d, %q, %q) = %q, want %q", tc.n, "has", "have", got, tc.want)
		}
	}
}

func ExampleCount() {
	for _, n := range []int{0, 1, 2} {
		fmt.Println(Count(n, "batch", "batches"))
	}
	// Output:
	// 0 batches
	// 1 batch
	// 2 batches
}

func ExampleForm() {
	bad, read := 1, 3
	fmt.Printf("%d of %s %s no answers\n", bad, Count(read, "record", "records"), Form(bad, "has", "have"))
	// Output:
	// 1 of 3 records has no answers
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		most int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: cut before it, not inside
		{"aé", 3, "aé"},
		{"日本語", 4, "日…"},
		{"é", 1, "…"}, // no whole character fits: the ellipsis alone
		{"日本語", 2, "…"},
		{"", 0, ""},
	} {
		if got := Clip(tc.s, tc.most); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.most, got, tc.want)
		}
	}
}

// TestUSD: amounts show to six decimals, rounded as the decimals they were worked out as, halves
// away from zero, where %.6f rounds the float64 nearest them (0.0004785 is a hair below it).
func TestUSD(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0.000000"},
		{0.0004785, "0.000479"}, // %.6f: 0.000478
		{0.0000005, "0.000001"},
		{-0.0000005, "-0.000001"},
		{0.00000049, "0.000000"},
		{1e-7, "0.000000"},
		{1.5, "1.500000"},
		{0.009000000000000001, "0.009000"},
		{1e21, "1000000000000000000000.000000"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
	} {
		if got := USD(tc.v); got != tc.want {
			t.Errorf("USD(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestList(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{[]string{"--x from QA_X", "--y", "--z", "--w"}, "--x from QA_X, --y, --z and --w"},
	} {
		if got := List(tt.names); got != tt.want {
			t.Errorf("List(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestFirstOf(t *testing.T) {
	for _, tt := range []struct {
		items []string
		most  int
		want  string
	}{
		{nil, 2, ""},
		{[]string{"a", "b"}, 2, "a, b"},
		{[]string{"a", "b", "c"}, 2, "a, b and 1 more"},
		{[]string{"a", "b", "c", "d", "e"}, 2, "a, b and 3 more"},
	} {
		if got := FirstOf(tt.items, tt.most); got != tt.want {
			t.Errorf("FirstOf(%q, %d) = %q, want %q", tt.items, tt.most, got, tt.want)
		}
	}
}
