package prompt

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestPyStr(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`"x"`, "x"}, {`2022`, "2022"}, {`1.0`, "1.0"}, {`true`, "True"}, {`null`, "None"},
		{`["a", 1]`, "['a', 1]"}, {`1e16`, "1e+16"}, {`0.00001`, "1e-05"},
	}
	for _, tt := range tests {
		if got, err := PyStr(json.RawMessage(tt.raw)); err != nil || got != tt.want {
			t.Errorf("PyStr(%s) = %q, %v, want %q", tt.raw, got, err, tt.want)
		}
	}
}

func FuzzRepr(f *testing.F) {
	for _, s := range []string{"it's", "\"'", "\x00\u200b中", "\U0001F600"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Repr(s)
		if !utf8.ValidString(r) && utf8.ValidString(s) {
			t.Fatalf("Repr(%q) = %q, not UTF-8", s, r)
		}
		if len(r) < 2 || r[0] != r[len(r)-1] {
			t.Fatalf("Repr(%q) = %q, not quoted", s, r)
		}
		j := JSONString(s)
		for i := 0; i < len(j); i++ {
			if j[i] < 0x20 || j[i] > 0x7e {
				t.Fatalf("JSONString(%q) = %q, not ASCII", s, j)
			}
		}
		if utf8.ValidString(s) {
			var back string
			if err := json.Unmarshal([]byte(j), &back); err != nil || back != s {
				t.Fatalf("JSONString(%q) = %s, decodes to %q, %v", s, j, back, err)
			}
		}
		if st := textnorm.Strip(s); textnorm.Strip(st) != st {
			t.Fatalf("Strip not idempotent on %q", s)
		}
	})
}
