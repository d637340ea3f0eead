package command

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

// MaxFailures is how many different failure messages Failures names.
const MaxFailures = 10

// Failures names on stderr, at the end of a run, the records it wrote with a failure of its own
// (a call that failed, a verdict that could not be read): each different message once, at the
// first record that had it (`qa-predict: in.jsonl:3 (id "q-3"): openai gpt-4o-mini: …`), up to
// MaxFailures of them, and then how many more records failed. A run of 10,000 records against a
// refused key says the key's error once, where the exit line only counted the failures and the
// message was left to be dug out of the records. A failure passed through from an earlier run (the
// value holding it unchanged) is not named again; nor is a call that a finishing run did not make,
// which the summary counts.
//
// Read and Wrote are called as the records are read and written, End after the run; a nil
// *Failures (a dry run's) notes nothing.
//
// Note: naming each failure as its record is written was tried: the bad input lines, reported
// as they are read, ahead of the writing, then came in an order that depended on timing.
type Failures struct {
	Prog string // begins each line
	// Of returns the value that holds rec's failure (a prediction, a judgment) and its message,
	// or a nil value and "" when rec has none.
	Of func(rec *record.Record) (value any, msg string)

	mu     sync.Mutex
	read   map[*record.Record]readAt // the records read and not yet written
	shown  []*record.Error           // the failures to name, with their messages
	seen   map[string]bool
	same   int // further failures with a message named
	others int // further failures with another message
}

// readAt is where a record was read, and the value holding its failure then.
type readAt struct {
	place *record.Error
	value any
}

// Read notes where rec was read (place, from Source.At) and the failure it carried then. It is
// safe to call from the reading goroutine while Wrote runs in another.
func (f *Failures) Read(rec *record.Record, place *record.Error) {
	if f == nil {
		return
	}
	value, _ := f.Of(rec)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.read == nil {
		f.read = make(map[*record.Record]readAt)
	}
	f.read[rec] = readAt{place: place, value: value}
}

// Wrote takes note of rec, written, when it failed in this run.
func (f *Failures) Wrote(rec *record.Record) {
	if f == nil {
		return
	}
	value, msg := f.Of(rec)
	f.mu.Lock()
	defer f.mu.Unlock()
	at := f.read[rec]
	delete(f.read, rec)
	kind := failureKind(msg)
	switch {
	case msg == "" || value == at.value || strings.HasSuffix(msg, interrupt.ErrNotCalled.Error()) || Stopped(msg) != "":
		return
	case f.seen[kind]:
		f.same++
	case len(f.shown) == MaxFailures:
		f.others++
	default:
		if f.seen == nil {
			f.seen = make(map[string]bool)
		}
		f.seen[kind] = true
		e := &record.Error{ID: rec.ID}
		if at.place != nil {
			e.File, e.Line = at.place.File, at.place.Line
		}
		e.Err = failureText(msg)
		f.shown = append(f.shown, e)
	}
}

// budgetSpent begins the message of a call that --max-cost stopped (model.ErrBudget's).
const budgetSpent = "budget spent: "

// failureKind is what tells msg apart from the messages already named: msg itself, but for a
// call --max-cost stopped, whose message gives the sum spent when it was stopped, which differs
// from call to call as the calls in flight finish: those are one kind, named at the first.
func failureKind(msg string) string {
	if i := strings.Index(msg, budgetSpent); i >= 0 {
		return msg[:i+len(budgetSpent)]
	}
	return msg
}

// failureText is a failure's message as an error.
type failureText string

func (s failureText) Error() string { return string(s) }

// End writes the failures noted to w: one line for each message named, then how many more.
func (f *Failures) End(w io.Writer) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.shown {
		fmt.Fprintf(w, "%s: %v\n", f.Prog, e)
	}
	var more string
	switch {
	case f.same > 0 && f.others > 0:
		more = english.Count(f.same, "more record failed with a message above", "more records failed with a message above") +
			", and " + english.Count(f.others, "with another message", "with other messages")
	case f.same > 0:
		more = english.Count(f.same, "more record failed with a message above", "more records failed with a message above")
	case f.others > 0:
		more = english.Count(f.others, "more record failed with another message", "more records failed with other messages")
	default:
		return
	}
	fmt.Fprintf(w, "%s: %s (see %s)\n", f.Prog, more, english.Form(f.same+f.others, "its error field", "their error fields"))
}
