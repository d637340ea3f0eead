package predict

import (
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestTallyLine: the summary line counts records and errors in the singular when there is one,
// and says of an interrupted run's one error that it was not called.
func TestTallyLine(t *testing.T) {
	for _, tc := range []struct {
		t    *tally
		want string
	}{
		{&tally{records: 1, predicted: 1},
			"1 record: 1 predicted (0 cached), 0 passed through, 0 errors"},
		{&tally{records: 2, predicted: 1, errors: 1},
			"2 records: 1 predicted (0 cached), 0 passed through, 1 error;"},
		{&tally{records: 1, errors: 1, notCalled: 1},
			"1 record: 0 predicted (0 cached), 0 passed through, 1 error (it was not called: interrupted);"},
		{&tally{records: 3, errors: 3, notCalled: 1},
			"3 records: 0 predicted (0 cached), 0 passed through, 3 errors (1 of them not called: interrupted);"},
		{&tally{records: 2, passed: 2, carried: 1},
			"2 records: 0 predicted (0 cached), 2 passed through (1 failed: --retry-errors asks it again), 0 errors;"},
		{&tally{records: 2, passed: 2, carried: 2},
			"2 records: 0 predicted (0 cached), 2 passed through (2 failed: --retry-errors asks them again), 0 errors;"},
	} {
		if got := tc.t.line(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("line() = %q, want it to start %q", got, tc.want)
		}
	}
}

// TestTallyNotCalledAfterNote: a LongMemEval note call the run did not make, the record begun,
// carries "notes on history block 2 of 3: interrupted before the call was made"; it is a call not
// made like those never started, and the summary counts it so, not as one more failure to look
// into.
func TestTallyNotCalledAfterNote(t *testing.T) {
	var tl tally
	tl.add(&record.Prediction{Error: interrupt.ErrNotCalled.Error()}, false)
	tl.add(&record.Prediction{Provider: "openai", Model: "m", Error: "notes on history block 2 of 3: " + interrupt.ErrNotCalled.Error()}, false)
	tl.add(&record.Prediction{Error: "openai m: API returned unexpected status code: 500: boom"}, false)
	want := "3 records: 0 predicted (0 cached), 0 passed through, 3 errors (2 of them not called: interrupted);"
	if got := tl.line(); !strings.HasPrefix(got, want) {
		t.Errorf("line() = %q, want it to start %q", got, want)
	}
}

// TestTallyNotCalledAfterNotes: a LongMemEval record whose reading call was not made (the run
// was finishing) after its notes were asked carries the notes' usage, which the totals count:
// they were paid for.
func TestTallyNotCalledAfterNotes(t *testing.T) {
	var tl tally
	tl.add(&record.Prediction{Model: "m", Usage: &record.Usage{InputTokens: 20, OutputTokens: 2},
		Error: interrupt.ErrNotCalled.Error()}, false)
	if want := "1 error (it was not called: interrupted); tokens 20 in, 2 out"; !strings.Contains(tl.line(), want) {
		t.Errorf("line() = %q, want %q in it", tl.line(), want)
	}
}

// TestTallyCutReplies: replies cut at max_tokens and at the model's context window are counted
// apart, each warning saying what would let it finish (a larger --max-tokens takes a reply cut at
// the context window no further) and which records prediction.cut marks; LongMemEval reading notes
// cut short are counted apart again, as --max-tokens does not set their budget and no
// prediction.cut marks them.
func TestTallyCutReplies(t *testing.T) {
	var tl tally
	tl.noteReply(model.Response{Cut: true}, false)
	tl.noteReply(model.Response{Cut: true, Window: true}, false)
	tl.noteReply(model.Response{Cut: true, Window: true}, false)
	tl.noteReply(model.Response{Cut: true}, true)
	tl.noteReply(model.Response{Cut: true, Window: true}, true)
	tl.noteReply(model.Response{}, true)
	var b strings.Builder
	tl.warnReplies(&b)
	want := "qa-predict: warning: 1 reply stopped at max_tokens, cut short (as the benchmark's own script would take it; prediction.cut is \"max_tokens\" on the records read from it); a larger --max-tokens lets it finish\n" +
		"qa-predict: warning: 2 replies stopped at the model's context window (stop reason model_context_window_exceeded), cut short: the prompt left too little room, and a larger --max-tokens does not help; their text is kept as the answer, and prediction.cut is \"context_window\" on the records read from them\n" +
		"qa-predict: warning: 2 LongMemEval reading notes were cut short, at LongMemEval's max_tokens 500 for a note (which --max-tokens does not change) or at the model's context window, and kept as its script keeps them\n"
	if got := b.String(); got != want {
		t.Errorf("warnReplies wrote\n%s\nwant\n%s", got, want)
	}
}

// TestTallyShort: the progress line's errors are the failed records and, in sequence mode, the
// answers whose verdict failed, which the summary line counts apart ("with a failed verdict"):
// both are failures a watcher of a long run wants to see as they come. A cost that leaves out
// replies of a model without a price says so ("+?"), as the summary line does, rather than pass
// them off as free.
func TestTallyShort(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cost     float64
		unpriced map[string]int
		want     string
	}{
		{"priced", 0.25, nil, "tokens 120/7  $0.2500  errors 3"},
		{"unpriced", 0, map[string]int{"m": 4}, "tokens 120/7  $0.0000+?  errors 3"},
		{"some unpriced", 0.25, map[string]int{"m": 1}, "tokens 120/7  $0.2500+?  errors 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := &tally{errors: 1, verdicts: 2, usage: record.Usage{InputTokens: 120, OutputTokens: 7}, unpriced: tc.unpriced}
			tl.cost.Add(tc.cost)
			if got := tl.short(); got != tc.want {
				t.Errorf("short() = %q, want %q", got, tc.want)
			}
		})
	}
}
