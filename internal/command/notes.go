package command

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/qapipe/qapipe/internal/english"
)

// The reasons a summary gives for calls not made because the model transport stopped calling
// (model.StoppedError), by the words of the record's error that say it after the server's URL.
var stopReasons = [...]struct{ words, why string }{
	{" was never reached", "server never reached"},                     // model.NeverReached
	{" refused every call so far with HTTP ", "refused by the server"}, // model.RefusedEvery
}

// Stopped returns why msg, a record's error, is that of a call not made because the model
// transport stopped calling, in a summary's words: "server never reached" ("openai m: not
// called: server … was never reached …"), "refused by the server" ("… refused every call so far
// with HTTP 401 …"); "" for any other error. Only the error's text is kept in a record, so it is
// told by its words (model.NotCalledServer and what follows the URL).
func Stopped(msg string) string {
	_, rest, ok := strings.Cut(msg, ": not called: server ")
	if !ok {
		return ""
	}
	// The words follow the server's URL, which holds no space: a server's reply quoted later in
	// the message cannot be taken for them.
	if i := strings.IndexByte(rest, ' '); i >= 0 {
		for _, r := range stopReasons {
			if strings.HasPrefix(rest[i:], r.words) {
				return r.why
			}
		}
	}
	return ""
}

// Stops counts a run's records whose call was not made because the model transport stopped
// calling, by why (see Stopped). It is safe for concurrent use.
type Stops struct {
	n [len(stopReasons)]atomic.Int64
}

// Count counts msg, a record's error, when it is that of a call the transport stopped, and
// reports whether it was.
func (s *Stops) Count(msg string) bool {
	why := Stopped(msg)
	for i, r := range stopReasons {
		if r.why == why {
			s.n[i].Add(1)
			return true
		}
	}
	return false
}

// Note is what a summary line puts after its count of errors (or failures), of of them, for
// those counted, worded as NotCalledNote words the interrupted run's: " (3 of them not called:
// server never reached)", or "" when none was.
func (s *Stops) Note(of int) string {
	note := ""
	for i, r := range stopReasons {
		note += notCalledNote(int(s.n[i].Load()), of, r.why)
	}
	return note
}

// NotCalledNote is what a summary line of a run under MainCalls puts after its count of errors
// (or failures), of of them, when n of those are calls the interrupted run did not make:
// " (it was not called: interrupted)" for the one error, " (2 of them not called: interrupted)"
// for some of several, and "" when n is 0.
func NotCalledNote(n, of int) string { return notCalledNote(n, of, "interrupted") }

// notCalledNote is the note of n calls not made, of of the errors, for the reason why.
func notCalledNote(n, of int, why string) string {
	switch {
	case n == 0:
		return ""
	case n == 1 && of == 1:
		return " (it was not called: " + why + ")"
	}
	return fmt.Sprintf(" (%d of them not called: %s)", n, why)
}

// CostNote is how a summary line of qa-predict or qa-judge gives what its replies cost, cost in
// all and cached the part of it the cache served, which a rerun does not pay again:
// "cost $0.064040", or "cost $0.064040 ($0.060000 of it from the cache)".
func CostNote(cost, cached float64) string {
	if cached > 0 {
		return fmt.Sprintf("cost $%s ($%s of it from the cache)", english.USD(cost), english.USD(cached))
	}
	return fmt.Sprintf("cost $%s", english.USD(cost))
}

// ShortCost is a run's cost so far as its progress shows it, "$0.0075": with "+?" after it when
// some replies are not counted (unpriced: a model without a price), as the summary line says it
// does not count them, rather than pass them off as free.
func ShortCost(cost float64, unpriced bool) string {
	s := fmt.Sprintf("$%.4f", cost)
	if unpriced {
		s += "+?"
	}
	return s
}
