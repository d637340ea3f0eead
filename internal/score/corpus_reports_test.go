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

func TestNumberTwins(t *testing.T) {
	for _, tt := range []struct {
		labels []string
		want   [][]string
	}{
		{[]string{"0", "1"}, nil},
		{[]string{"0", "0.0", "1", "1.0"}, [][]string{{"0", "0.0"}, {"1", "1.0"}}},
		{[]string{"1", "1e0", "10", "1.00", "1E+0"}, [][]string{{"1", "1e0", "1.00", "1E+0"}}},
		{[]string{"-0", "0", "0.5", "5e-1"}, [][]string{{"-0", "0"}, {"0.5", "5e-1"}}},
		{[]string{"1", "01", " 1", "+1", "1.", "0x1", "1_0", "10"}, nil},                    // not one number's JSON text twice
		{[]string{"1e400", "10e399", "1e1001", "10e1000"}, [][]string{{"1e400", "10e399"}}}, // exact, to an exponent of 1000
		{[]string{"yes", "Yes"}, nil}, // caseTwins' kind
		{[]string{"9007199254740993", "9007199254740992", "9007199254740993.0"}, [][]string{{"9007199254740993", "9007199254740993.0"}}}, // exact, not float64s
	} {
		got := numberTwins(tt.labels)
		if !slices.EqualFunc(got, tt.want, slices.Equal[[]string]) {
			t.Errorf("numberTwins(%q) = %q, want %q", tt.labels, got, tt.want)
		}
	}
}

func TestNumberTwinWarning(t *testing.T) {
	twins := numberTwins([]string{"0", "0.0", "1", "1.0", "2", "2.0", "3", "3.0", "4", "4.0", "5", "5.0", "5e0"})
	const want = `classification: labels that are one number written in two ways are separate classes, as labels compare as text: ("0", "0.0"), ("1", "1.0"), ("2", "2.0"), ("3", "3.0"), ("4", "4.0"), 1 more (a float column beside an int one?); --label-map joins them (0.0=0,1.0=1,2.0=2,3.0=3,4.0=4)`
	if got := numberTwinWarning(twins); got != want {
		t.Errorf("numberTwinWarning = %s\nwant %s", got, want)
	}
}
