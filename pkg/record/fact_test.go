package record

import (
	"strconv"
	"testing"
)

func TestFactJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Fact
		ok   bool
	}{
		{`["Paris", 2]`, Fact{"Paris", 2}, true},
		{`["Paris", 2.0]`, Fact{"Paris", 2}, true}, // an integral float is that index, as in Python's tuples
		{`["Paris", 2e0]`, Fact{"Paris", 2}, true},
		{`["Paris", -0.0]`, Fact{"Paris", 0}, true},
		{`["Paris", 2.5]`, Fact{}, false},
		{`["Paris", "2"]`, Fact{}, false},
		{`["Paris", 1e300]`, Fact{}, false},
		{`["Paris"]`, Fact{}, false},
		{`["Paris", 1, 2]`, Fact{}, false},
		{`[3, 1]`, Fact{}, false},
	} {
		var f Fact
		err := f.UnmarshalJSON([]byte(c.in))
		if (err == nil) != c.ok || c.ok && f != c.want {
			t.Errorf("Fact from %s = %+v, %v; want %+v (ok %v)", c.in, f, err, c.want, c.ok)
		}
		if c.ok {
			if b, err := f.MarshalJSON(); err != nil || string(b) != `["Paris",`+strconv.Itoa(c.want.Sentence)+`]` {
				t.Errorf("Fact %+v written as %s, %v", f, b, err)
			}
		}
	}
}
