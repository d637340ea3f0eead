package command

import (
	"strings"
	"testing"
)

// TestHeld: a message of a cause printed before, and every one after it, is held; a release
// prints all held in order, Once the first of each cause not printed, Drop none.
func TestHeld(t *testing.T) {
	add := func(h *Held, w *strings.Builder) {
		h.Add(w, "1:a\n", "a", false)
		h.Add(w, "2:a\n", "a", false) // printed before: held
		h.Add(w, "3:b\n", "b", false) // after one held: held
		h.Add(w, "4:a\n", "a", false)
	}
	for _, tc := range []struct {
		name string
		end  func(*Held, *strings.Builder)
		want string
	}{
		{"release", func(h *Held, w *strings.Builder) { h.Release(w) }, "1:a\n2:a\n3:b\n4:a\n"},
		{"once", func(h *Held, w *strings.Builder) { h.Once(w) }, "1:a\n3:b\n"},
		{"drop", func(h *Held, w *strings.Builder) { h.Drop(); h.Release(w) }, "1:a\n"},
	} {
		var h Held
		var w strings.Builder
		add(&h, &w)
		tc.end(&h, &w)
		h.Release(&w) // nothing is left held
		if w.String() != tc.want {
			t.Errorf("%s: printed %q, want %q", tc.name, w.String(), tc.want)
		}
	}
	var h Held
	var w strings.Builder
	h.Add(&w, "1:a\n", "a", true) // held as asked
	if w.Len() != 0 {
		t.Errorf("a message held as asked was printed: %q", w.String())
	}
}
