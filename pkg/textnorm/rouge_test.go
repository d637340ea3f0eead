package textnorm

import (
	"bytes"
	"testing"
)

// FuzzRougeText holds AppendRougeText's eight-bytes-at-a-time ASCII path to the byte-at-a-time
// filter its other path uses, appending after a prefix into spare capacity that holds old bytes.
func FuzzRougeText(f *testing.F) {
	for _, s := range []string{"The Denver Broncos!", "a b c d", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "x--y__z",
		"Beyoncé", "İ 2008", "12345678 abcdefgh.", " \t\n", "Z@[`{0/9:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		buf := append(make([]byte, 0, 64), "old bytes here, old bytes here, old bytes here."...)[:4]
		got := AppendRougeText(buf, s)
		want := rougeFilter(append(AppendLower([]byte("old "), s), ' '), 4)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendRougeText(%q) = %q, want %q", s, got, want)
		}
	})
}
