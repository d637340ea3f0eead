package metric

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLowerASCII8 checks the packed lowercasing against the byte rule for every ASCII byte in
// every position, next to neighbours that could carry into it.
func TestLowerASCII8(t *testing.T) {
	for c := range uint64(0x80) {
		want := c
		if 'A' <= c && c <= 'Z' {
			want = c + 'a' - 'A'
		}
		for pos := range 8 {
			for _, fill := range []uint64{0, 0x7f, 'Z', 'A', '@', '['} {
				x, w := uint64(0), uint64(0)
				for p := range 8 {
					b, lb := fill, fill
					if 'A' <= fill && fill <= 'Z' {
						lb = fill + 'a' - 'A'
					}
					if p == pos {
						b, lb = c, want
					}
					x |= b << (8 * p)
					w |= lb << (8 * p)
				}
				if got := lowerASCII8(x); got != w {
					t.Fatalf("lowerASCII8(%#x) = %#x, want %#x", x, got, w)
				}
			}
		}
	}
}

// TestShortKey checks that two ASCII tokens get the same key exactly when they lowercase to
// the same word, on random tokens of every packed length over a small alphabet (so that
// collisions of the overlapping halves come up) with capitals, NUL and DEL.
func TestShortKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := "aAbB\x00\x7f"
	byKey := map[[3]uint64]string{}
	for range 200000 {
		b := make([]byte, 1+rng.IntN(shortMax))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		tok := string(b)
		lo, hi, _ := shortKey(tok)
		key := [3]uint64{lo, hi, uint64(len(tok))}
		low := strings.Map(func(r rune) rune {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, tok)
		if prev, ok := byKey[key]; ok && prev != low {
			t.Fatalf("shortKey(%q) equals the key of %q", tok, prev)
		}
		byKey[key] = low
		if _, _, h := shortKey(low); h != mix(lo^wordSeed^uint64(len(tok)), hi^wordSeed2) {
			t.Fatalf("shortKey(%q) hash differs from its lowercase %q", tok, low)
		}
	}
}

// TestShortWordsReset checks that a reset table finds nothing and keeps working.
func TestShortWordsReset(t *testing.T) {
	var w shortWords
	for i := range 1000 {
		tok := strings.Repeat("x", 1+i%16) + string(rune('a'+i%26)) + string(rune('a'+i/26%26))
		tok = tok[:min(len(tok), shortMax)]
		lo, hi, h := shortKey(tok)
		if id, slot := w.find(lo, hi, h, len(tok)); id < 0 {
			w.add(slot, lo, hi, len(tok), int32(i))
		}
	}
	lo, hi, h := shortKey("xaa")
	if id, _ := w.find(lo, hi, h, 3); id < 0 {
		t.Fatalf("find(%q) = %d before reset, want an id", "xaa", id)
	}
	for _, limit := range []int{1 << 20, 0} {
		w.reset(limit)
		if id, _ := w.find(lo, hi, h, 3); id >= 0 {
			t.Fatalf("find(%q) = %d after reset(%d), want -1", "xaa", id, limit)
		}
		_, slot := w.find(lo, hi, h, 3)
		w.add(slot, lo, hi, 3, 7)
		if id, _ := w.find(lo, hi, h, 3); id != 7 {
			t.Fatalf("find(%q) = %d after add, want 7", "xaa", id)
		}
	}
}
