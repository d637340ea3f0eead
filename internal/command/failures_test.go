package command

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestFailures: each different message is named once, at its first record, up to MaxFailures;
// the others are counted by whether their message was named; a failure carried in from an
// earlier run, a record without one and a call a finishing run did not make are not named.
func TestFailures(t *testing.T) {
	of := func(rec *record.Record) (any, string) {
		if p := rec.Prediction; p != nil && p.Error != "" {
			return p, p.Error
		}
		return nil, ""
	}
	failed := func(msg string) *record.Prediction { return &record.Prediction{Error: msg} }
	for _, tc := range []struct {
		name string
		errs []string // each record's new error, "" for none; "carried" keeps the one read
		want string
	}{
		{"none", []string{"", ""}, ""},
		{"one", []string{"", "401"}, "qa-x: in.jsonl:2 (id \"r1\"): 401\n"},
		{"same", []string{"401", "401", "401"},
			"qa-x: in.jsonl:1 (id \"r0\"): 401\nqa-x: 2 more records failed with a message above (see their error fields)\n"},
		{"carried", []string{"carried", "401"}, "qa-x: in.jsonl:2 (id \"r1\"): 401\n"},
		{"not called", []string{interrupt.ErrNotCalled.Error(), "judge call: " + interrupt.ErrNotCalled.Error()}, ""},
		// A --max-cost refusal is named once, at the first: the others give other sums spent, so
		// they are counted apart from the records whose message is the one above, which they were
		// counted with, though no message above was theirs.
		{"budget", []string{budget("0.306000"), budget("0.412000")},
			"qa-x: in.jsonl:1 (id \"r0\"): " + budget("0.306000") + "\nqa-x: 1 more record failed with the --max-cost message above but another sum spent (see its error field)\n"},
		{"budget mixed", append([]string{budget("0.306000"), "e0", budget("0.306000"), budget("0.412000"), budget("0.5"), "e0"}, numbered(MaxFailures + 1)[1:]...),
			"qa-x: in.jsonl:1 (id \"r0\"): " + budget("0.306000") + "\n" + strings.NewReplacer("in.jsonl:1 ", "in.jsonl:2 ", "r0", "r1").Replace(lines(1)) +
				linesFrom(6, 1, MaxFailures-2) +
				"qa-x: 2 more records failed with a message above, 2 with the --max-cost message above but another sum spent, and 2 with other messages (see their error fields)\n"},
		{"many", append(numbered(MaxFailures+2), "e0"),
			lines(MaxFailures) + "qa-x: 1 more record failed with a message above, and 2 with other messages (see their error fields)\n"},
		{"others only", numbered(MaxFailures + 1),
			lines(MaxFailures) + "qa-x: 1 more record failed with another message (see its error field)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Failures{Prog: "qa-x", Of: of}
			for i, msg := range tc.errs {
				rec := &record.Record{ID: fmt.Sprintf("r%d", i)}
				if msg == "carried" {
					rec.Prediction = failed("an earlier run's")
				}
				f.Read(rec, &record.Error{File: "in.jsonl", Line: i + 1})
				if msg != "" && msg != "carried" {
					rec.Prediction = failed(msg)
				}
				f.Wrote(rec)
			}
			var b strings.Builder
			f.End(&b)
			if b.String() != tc.want {
				t.Errorf("End wrote\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
	var none *Failures // a dry run's
	none.Read(&record.Record{}, nil)
	none.Wrote(&record.Record{})
	none.End(nil)
}

// numbered returns n different messages, e0, e1, ….
func numbered(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("e%d", i))
	}
	return out
}

// lines is what End names for the first n of numbered's records.
func lines(n int) string { return linesFrom(0, 0, n) }

// linesFrom is what End names for n records from the record numbered rec on, which failed with
// numbered's messages from e<msg> on.
func linesFrom(rec, msg, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "qa-x: in.jsonl:%d (id \"r%d\"): e%d\n", rec+i+1, rec+i, msg+i)
	}
	return b.String()
}

// budget is the message of a call --max-cost stopped after spent dollars.
func budget(spent string) string {
	return "budget spent: $" + spent + " of --max-cost $0.250000, so this call was not made"
}

// TestBudgetSpentText ties the text Failures knows a --max-cost refusal by to model.ErrBudget,
// which begins its message.
func TestBudgetSpentText(t *testing.T) {
	if got := model.ErrBudget.Error() + ": "; got != budgetSpent {
		t.Errorf("model.ErrBudget begins %q, Failures looks for %q", got, budgetSpent)
	}
}

// TestStoppedText ties the words Stopped tells a stopped call by to model.StoppedError's: every
// kind, as a call's error, is told and given its reason.
func TestStoppedText(t *testing.T) {
	for _, tt := range []struct {
		err  *model.StoppedError
		want string
	}{
		{&model.StoppedError{Base: "http://h:1", First: errors.New("connection refused")}, "server never reached"},
		{&model.StoppedError{Base: "http://h:1", Status: 401, Reply: "bad key"}, "refused by the server"},
		{&model.StoppedError{Base: "http://h:1", Status: 404}, "refused by the server"},
	} {
		msg := (&model.CallError{Err: fmt.Errorf("openai m: %w", tt.err)}).Error()
		if got := Stopped(msg); got != tt.want {
			t.Errorf("Stopped(%q) = %q, want %q", msg, got, tt.want)
		}
	}
}
