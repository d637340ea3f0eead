package command

import (
	"fmt"
	"io"
)

// Held prints the messages of a file's first bad lines (or items) while what the file is is not
// yet known, holding back those that would say nothing new: a message whose cause (the message
// without its place) was printed already, and every message after one held, so that what is
// printed keeps the lines' order. A record that follows releases them all (the file is read on,
// and each of its bad lines is reported); a file that stops prints each cause once. The zero
// value is ready to use.
type Held struct {
	held  []heldMsg
	shown map[string]bool // the causes of the messages printed
}

// heldMsg is a message not yet printed, and its cause.
type heldMsg struct{ msg, cause string }

// Add prints msg, whose cause is cause, to w, or holds it: when hold says so, when messages are
// held before it, or when a message of the same cause was printed.
func (h *Held) Add(w io.Writer, msg, cause string, hold bool) {
	if hold || len(h.held) > 0 || h.shown[cause] {
		h.held = append(h.held, heldMsg{msg, cause})
		return
	}
	fmt.Fprint(w, msg)
	h.show(cause)
}

// Release prints every message held to w, in order.
func (h *Held) Release(w io.Writer) {
	for _, m := range h.held {
		fmt.Fprint(w, m.msg)
	}
	h.held = nil
}

// Once prints to w each message held whose cause was not printed, the first of each cause.
func (h *Held) Once(w io.Writer) {
	for _, m := range h.held {
		if !h.shown[m.cause] {
			fmt.Fprint(w, m.msg)
			h.show(m.cause)
		}
	}
	h.held = nil
}

// Drop forgets the messages held: what stops the file says what they are.
func (h *Held) Drop() { h.held = nil }

// show records that a message of cause was printed.
func (h *Held) show(cause string) {
	if h.shown == nil {
		h.shown = make(map[string]bool)
	}
	h.shown[cause] = true
}
