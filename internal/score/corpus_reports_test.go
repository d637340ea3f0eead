package score

import (
	"slices"
	"testing"
)

func TestCaseTwins(t *testing.T) {
	for _, tt := range []struct {
		labels []string
		want   [][]string
	}{
		{[]string{"no", "yes"}, nil},
		{[]string{"Yes", "no", "yes"}, [][]string{{"Yes", "yes"}}},
		{[]string{" yes", "YES", "Yes\t", "no", "No"}, [][]string{{" yes", "YES", "Yes\t"}, {"no", "No"}}},
		{[]string{"Été", "été", "ete"}, [][]string{{"Été", "été"}}},
		{[]string{"", " "}, [][]string{{"", " "}}},
		{[]string{"1", "01"}, nil},
	} {
		got := caseTwins(tt.labels)
		if !slices.EqualFunc(got, tt.want, slices.Equal[[]string]) {
			t.Errorf("caseTwins(%q) = %q, want %q", tt.labels, got, tt.want)
		}
	}
}

func TestCaseTwinWarning(t *testing.T) {
	twins := caseTwins([]string{"A", "a", "B", "b", "C", "c", "D", "d", "E", "e", "F", "f", "G", "g"})
	const want = `classification: labels that differ only in case or surrounding white space are separate classes, as scikit-learn compares labels exactly: ("A", "a"), ("B", "b"), ("C", "c"), ("D", "d"), ("E", "e"), 2 more; --label-map joins them (yes=yes maps "Yes" and "yes " to "yes")`
	if got := caseTwinWarning(twins); got != want {
		t.Errorf("caseTwinWarning = %s\nwant %s", got, want)
	}
}
