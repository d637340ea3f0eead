package score

import (
	"slices"
	"testing"
)

func TestParseBy(t *testing.T) {
	for _, tt := range []struct {
		in      []string
		want    []string
		wantErr bool
	}{
		{[]string{"meta.level"}, []string{"meta.level"}, false},
		{[]string{"meta.level,prediction.model", "dataset"}, []string{"meta.level", "prediction.model", "dataset"}, false},
		{[]string{"dataset", " dataset ", "answers[0]", "answers.0"}, []string{"dataset", "answers.0"}, false},
		{[]string{"meta.level", " type "}, nil, true}, // the summary's own breakdown
		{[]string{"meta..level"}, nil, true},
		{[]string{"a,"}, nil, true},
	} {
		b, err := parseBy(tt.in)
		var got []string
		for _, p := range b {
			got = append(got, p.String())
		}
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("parseBy(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestByValues(t *testing.T) {
	b, err := parseBy([]string{"a,b.c,n,t,o,l,z,x.y"})
	if err != nil {
		t.Fatal(err)
	}
	line := `{"a":"easy","b":{"c":"é\u00e9"},"n":1.50,"t":true,"o":{"k":1},"l":[1],"z":null,"x":"s"}`
	got, err := b.values([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := []byValue{{"easy", true}, {"éé", true}, {"1.50", true}, {"true", true}, {}, {}, {}, {}}
	if !slices.Equal(got, want) {
		t.Errorf("values = %+v, want %+v", got, want)
	}
}
