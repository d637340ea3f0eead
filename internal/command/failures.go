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
// MaxFailures of them, and then how many more records failed, by whether their message is one
// named (`2 more records failed with a message above`), is a --max-cost refusal named but for the
// sum spent, which differs from call to call, or is not named at all. A run of 10,000 records against a
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
	// NotMade, if set, reports whether msg is the failure of a call this run did not make,
	// which its summary counts apart and Failures does not name; nil means NotMade.
	NotMade func(msg string) bool

	mu     sync.Mutex
	read   map[*record.Record]readAt // the records read and not yet written
	shown  []*record.Error           // the failures to name, with their messages
	named  map[string]string         // the message named of each kind (failureKind)
	same   int                       // further failures with a message named
	like   int                       // further failures of a kind named, with another message (another sum spent)
	others int                       // further failures of a kind not named
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
	case msg == "" || value == at.value || f.notMade(msg):
		return
	case f.named[kind] == msg:
		f.same++
	case f.named[kind] != "":
		f.like++
	case len(f.shown) == MaxFailures:
		f.others++
	default:
		if f.named == nil {
			f.named = make(map[string]string)
		}
		f.named[kind] = msg
		e := &record.Error{ID: rec.ID}
		if at.place != nil {
			e.File, e.Line = at.place.File, at.place.Line
		}
		e.Err = failureText(msg)
		f.shown = append(f.shown, e)
	}
}

func (f *Failures) notMade(msg string) bool {
	if f.NotMade != nil {
		return f.NotMade(msg)
	}
	return NotMade(msg)
}

// NotMade reports whether msg, a record's error, is that of a call the run did not make, as it
// was finishing ("interrupted before the call was made") or the transport stopped calling (see
// Stopped).
func NotMade(msg string) bool {
	return strings.HasSuffix(msg, interrupt.ErrNotCalled.Error()) || Stopped(msg) != ""
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

// End writes the failures noted to w: one line for each message named, then how many more, each
// count true of every record it counts: `1 more record failed with a message above, 2 with the
// --max-cost message above but another sum spent, and 3 with other messages (see their error
// fields)`.
func (f *Failures) End(w io.Writer) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.shown {
		fmt.Fprintf(w, "%s: %v\n", f.Prog, e)
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string // singular and plural alike
	}{
		{f.same, "a message above"},
		{f.like, "the --max-cost message above but another sum spent"},
		{f.others, "other messages"},
	} {
		switch {
		case c.n == 0:
		case len(parts) == 0 && c.what == "other messages":
			parts = append(parts, english.Count(c.n, "more record failed with another message", "more records failed with other messages"))
		case len(parts) == 0:
			parts = append(parts, english.Count(c.n, "more record failed with ", "more records failed with ")+c.what)
		case c.n == 1 && c.what == "other messages":
			parts = append(parts, "1 with another message")
		default:
			parts = append(parts, fmt.Sprintf("%d with %s", c.n, c.what))
		}
	}
	if len(parts) == 0 {
		return
	}
	if len(parts) > 1 {
		parts[len(parts)-1] = "and " + parts[len(parts)-1]
	}
	fmt.Fprintf(w, "%s: %s (see %s)\n", f.Prog, strings.Join(parts, ", "), english.Form(f.same+f.like+f.others, "its error field", "their error fields"))
}
