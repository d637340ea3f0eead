package embedding

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokensRoundTrip(t *testing.T) {
	in := tokens{ids: []int{101, 7592, 102}, special: []bool{true, false, true},
		vecs: [][]float32{{0.5, -1}, {2, 0}, {0, 3.25}}}
	got, err := decodeTokens(encodeTokens(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, got, cmp.AllowUnexported(tokens{})); diff != "" {
		t.Errorf("decodeTokens(encodeTokens) differs:\n%s", diff)
	}
	v := []float32{1, -2.5, 3e-8}
	if got, err := decodeVector(encodeVector(v)); err != nil || !slices.Equal(got, v) {
		t.Errorf("decodeVector(encodeVector(%v)) = %v, %v", v, got, err)
	}
}

// FuzzDecodeTokens: a cache entry never panics the decoder, and what decodes re-encodes to an
// entry that decodes to the same value.
func FuzzDecodeTokens(f *testing.F) {
	f.Add(encodeTokens(tokens{ids: []int{101, 5, 102}, special: []bool{true, false, true},
		vecs: [][]float32{{1, 0}, {0, 1}, {1, 1}}}))
	f.Add([]byte{})
	f.Add([]byte{0, 0})
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 255, 255, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := decodeTokens(b)
		if err != nil {
			return
		}
		again, err := decodeTokens(encodeTokens(tk))
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		if len(again.ids) != len(tk.ids) || !slices.Equal(again.ids, tk.ids) || !slices.Equal(again.special, tk.special) {
			t.Fatalf("round trip changed tokens: %v -> %v", tk.ids, again.ids)
		}
		for i := range tk.vecs {
			if len(tk.vecs[i]) != len(again.vecs[i]) {
				t.Fatalf("round trip changed token %d's dimension", i)
			}
		}
		if _, err := decodeVector(b); err == nil && len(b)%4 != 0 {
			t.Fatalf("decodeVector accepted %d bytes", len(b))
		}
	})
}

// TestDecodeMalformed: cache entries no encoder writes are errors, never values.
func TestDecodeMalformed(t *testing.T) {
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"one token of dimension 0", []byte{1, 0, 5, 0}},
		{"special byte 2", []byte{1, 1, 5, 2, 0, 0, 0x80, 0x3f}},
		{"truncated vectors", []byte{1, 2, 5, 0, 0, 0, 0x80, 0x3f}},
	} {
		if got, err := decodeTokens(tt.b); err == nil {
			t.Errorf("decodeTokens(%s) = %+v, want an error", tt.name, got)
		}
	}
	for _, b := range [][]byte{{}, {0, 0, 0x80}} {
		if got, err := decodeVector(b); err == nil {
			t.Errorf("decodeVector(% x) = %v, want an error", b, got)
		}
	}
}

// TestQuoteShort: a text is quoted whole up to 40 characters, else its first 40 and "…".
func TestQuoteShort(t *testing.T) {
	for in, want := range map[string]string{
		"":                      `""`,
		strings.Repeat("é", 40): `"` + strings.Repeat("é", 40) + `"`,
		strings.Repeat("é", 41): `"` + strings.Repeat("é", 40) + `"…`,
	} {
		if got := quoteShort(in); got != want {
			t.Errorf("quoteShort(%q) = %s, want %s", in, got, want)
		}
	}
}
