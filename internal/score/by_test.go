package score

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseBy(t *testing.T) {
	for _, tt := range []struct {
		in      []string
		want    []string
		wantErr string
	}{
		{[]string{"meta.level"}, []string{"meta.level"}, ""},
		{[]string{"meta.level,prediction.model", "dataset"}, []string{"meta.level", "prediction.model", "dataset"}, ""},
		{[]string{"dataset", " dataset ", "answers[0]", "answers.0"}, []string{"dataset", "answers.0"}, ""},
		{[]string{"meta.level", " type "}, nil, "the summary is broken down by type already"}, // its own breakdown
		{[]string{"meta..level"}, nil, `path "meta..level" has an empty segment`},
		{[]string{"a[]"}, nil, `path "a[]" has an empty segment`}, // as given, not as rewritten ("a.")
		{[]string{"a,"}, nil, `"a," holds an empty path`},
		{[]string{"a,,b"}, nil, `"a,,b" holds an empty path`},
		{[]string{"a", " "}, nil, "empty path"},
	} {
		b, err := parseBy(tt.in)
		var got []string
		for _, p := range b {
			got = append(got, p.String())
		}
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("parseBy(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.wantErr)
		}
	}
}

func TestByValues(t *testing.T) {
	b, err := parseBy([]string{"a,b.c,n,t,o,l,z,x.y,d"})
	if err != nil {
		t.Fatal(err)
	}
	line := `{"a":"easy","b":{"c":"é\u00e9","c.d":"v","e[0]":"w"},"n":1.50,"t":true,"o":{"k":1},"l":[1],"z":null,"x":"s","y.z":{"k":1},"d":{"e":{"f":"v","g":{"h":"w"}}},"type":"t"}`
	got, known, err := b.values([]byte(line), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []byValue{{"easy", true}, {"éé", true}, {"1.50", true}, {"true", true}, {}, {}, {}, {}, {}}
	if !slices.Equal(got, want) {
		t.Errorf("values = %+v, want %+v", got, want)
	}
	// The paths with a value, for suggesting one in place of those without, down to three levels
	// (d.e.f, not d.e.g.h), and not type, which --by refuses.
	slices.Sort(known)
	if wantKnown := []string{"a", "b.c", "d.e.f", "n", "o.k", "t", "x"}; !slices.Equal(known, wantKnown) {
		t.Errorf("values' known paths = %q, want %q", known, wantKnown)
	}
	if _, known, _ := b.values([]byte(line), false); known != nil {
		t.Errorf("values' known paths unasked = %q, want none", known)
	}
}

// TestSuggestPath: a --by path that no record has is taken for a misspelling of one the first
// records have, whole or by its last segment when that ends one path only.
func TestSuggestPath(t *testing.T) {
	known := []string{"dataset", "meta.level", "meta.source.name", "prediction.model", "judgments.g.model", "id"}
	for _, tc := range []struct{ p, want string }{
		{"meta.levle", "meta.level"},
		{"levl", "meta.level"},
		{"level", "meta.level"},
		{"datset", "dataset"},
		{"meta.name", "meta.source.name"},
		{"model", ""}, // prediction.model or judgments.g.model
		{"meta.model", ""},
		{"nothing", ""},
	} {
		if got := suggestPath(tc.p, known); got != tc.want {
			t.Errorf("suggestPath(%q) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if got := suggestPath("levl", nil); got != "" {
		t.Errorf("suggestPath(%q, none) = %q, want none", "levl", got)
	}
}

// TestByKnownLines: the paths --by suggests from are those of each input's first 16 lines
// (byKnownLines), the last of them included: a path only line 16 has is suggested, one only line
// 17 has is not.
func TestByKnownLines(t *testing.T) {
	const warn = `--by meta.levl: no record has a value there (a string, number or boolean), so it has no groups`
	for _, tc := range []struct {
		line int // the one line whose record has meta.level
		want string
	}{
		{16, warn + `; did you mean "meta.level"?`},
		{17, warn},
	} {
		var in strings.Builder
		for i := 1; i <= 17; i++ {
			meta := ""
			if i == tc.line {
				meta = `,"meta":{"level":"easy"}`
			}
			fmt.Fprintf(&in, `{"schema":1,"id":"r%d","question":"q","answers":["x"]%s,"prediction":{"text":"x"}}`+"\n", i, meta)
		}
		s, _ := summaryOf(t, in.String(), []string{"--metrics", "em", "--bootstrap", "0", "--by", "meta.levl"})
		if !slices.Contains(s.Warnings, tc.want) {
			t.Errorf("meta.level on line %d only: warnings %q, want %q among them", tc.line, s.Warnings, tc.want)
		}
	}
}
