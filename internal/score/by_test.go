package score

import (
	"slices"
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
	b, err := parseBy([]string{"a,b.c,n,t,o,l,z,x.y"})
	if err != nil {
		t.Fatal(err)
	}
	line := `{"a":"easy","b":{"c":"é\u00e9","c.d":"v","e[0]":"w"},"n":1.50,"t":true,"o":{"k":1},"l":[1],"z":null,"x":"s","y.z":{"k":1}}`
	got, known, err := b.values([]byte(line), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []byValue{{"easy", true}, {"éé", true}, {"1.50", true}, {"true", true}, {}, {}, {}, {}}
	if !slices.Equal(got, want) {
		t.Errorf("values = %+v, want %+v", got, want)
	}
	// The paths with a value, for suggesting one in place of those without.
	slices.Sort(known)
	if wantKnown := []string{"a", "b.c", "n", "o.k", "t", "x"}; !slices.Equal(known, wantKnown) {
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
