package prompt

import (
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestLoCoMoCat5(t *testing.T) {
	opts := []string{"Not mentioned in the conversation", "a red car"}
	tests := []struct{ reply, want string }{
		{"a", opts[0]},
		{" A \n", opts[0]},
		{"b", opts[1]},
		{"x", opts[1]},
		{"(a)", opts[0]},
		{"(b)", opts[1]},
		{"(A)", opts[0]},
		{"abc", opts[1]},
		{"A red car.", "a red car."},
		{"", ""},
		{"İ", "i\u0307"},       // Python's lower() makes two characters: not an option
		{"\x1cb\x1c", opts[1]}, // Python's strip() removes U+001C
	}
	for _, tt := range tests {
		if got := LoCoMoCat5Answer(tt.reply, opts); got != tt.want {
			t.Errorf("LoCoMoCat5Answer(%q) = %q, want %q", tt.reply, got, tt.want)
		}
	}
}

func FuzzLoCoMoCat5(f *testing.F) {
	for _, s := range []string{"a", "(b)", "Not mentioned", " A ", "ä"} {
		f.Add(s)
	}
	opts := []string{"Not mentioned in the conversation", "blue"}
	f.Fuzz(func(t *testing.T, reply string) {
		got := LoCoMoCat5Answer(reply, opts)
		if got != opts[0] && got != opts[1] && got != textnorm.Lower(textnorm.Strip(reply)) {
			t.Errorf("LoCoMoCat5Answer(%q) = %q: neither an option nor the lower-cased reply", reply, got)
		}
	})
}
