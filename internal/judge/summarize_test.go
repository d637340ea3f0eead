package judge

import (
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestSummarize: the summary line and its warnings say "it" of one judgment, and "them" of more.
// The totals of a run some of whose judgments came without token usage say they leave them out,
// as they say of a model without a price: they said "tokens 10 in, 2 out" alone.
func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name                                string
		failed, notCalled, carried, neither int64
		unpriced                            int
		noUsage                             int64
		want                                []string
	}{
		{"one failed, not called", 1, 1, 0, 0, 0, 0, []string{"; of the judged, 0 unparsable, 1 failed (it was not called: interrupted)\n"}},
		{"one of three not called", 3, 1, 0, 0, 0, 0, []string{"; of the judged, 0 unparsable, 3 failed (1 of them not called: interrupted)\n"}},
		{"one carried", 0, 0, 1, 0, 0, 0, []string{"(1 failed: --retry-errors judges it again)"}},
		{"two carried", 0, 0, 2, 0, 0, 0, []string{"(2 failed: --retry-errors judges them again)"}},
		{"one neither", 0, 0, 0, 1, 1, 0, []string{
			`warning: no price for model "m": cost_usd left empty on 1 judgment (add it with --prices)`,
			"warning: 1 yes/no reply says neither yes nor no (a refusal?): scored 0 as LongMemEval's rule scores it,"}},
		{"two neither", 0, 0, 0, 2, 2, 0, []string{
			`warning: no price for model "m": cost_usd left empty on 2 judgments (add it with --prices)`,
			"warning: 2 yes/no replies say neither yes nor no (a refusal?): scored 0 as LongMemEval's rule scores them,"}},
		{"one without usage", 0, 0, 0, 0, 0, 1, []string{"; tokens 10 in, 2 out; cost $0.000000 (not counting 1 judgment without token usage)\n"}},
		{"two without usage", 0, 0, 0, 0, 0, 2, []string{"; tokens 10 in, 2 out; cost $0.000000 (not counting 2 judgments without token usage)\n"}},
	} {
		var tl tally
		tl.judged.Store(tc.failed) // a failed judgment is one judged
		tl.failed.Store(tc.failed)
		tl.notCalled.Store(tc.notCalled)
		tl.carried.Store(tc.carried)
		tl.already.Store(tc.carried)
		tl.neither.Store(tc.neither)
		if tc.unpriced > 0 {
			tl.unpriced = map[string]int{"m": tc.unpriced}
		}
		if tc.noUsage > 0 { // and others with usage
			tl.usage.InputTokens, tl.usage.OutputTokens = 10, 2
		}
		var b strings.Builder
		summarize(&b, "j", &tl, tc.noUsage)
		for _, want := range tc.want {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: summarize wrote %q, want it to hold %q", tc.name, b.String(), want)
			}
		}
	}
}

// TestTallyShort: the progress bar's and --progress lines' spend says "+?" after a cost that
// leaves out judgments of a model without a price, as the summary line says it does not count
// them, rather than pass them off as free; with no call made it shows only the failures.
func TestTallyShort(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cost     float64
		unpriced map[string]int
		want     string
	}{
		{"no calls", 0, nil, "failed 1  unparsable 0"},
		{"priced", 0.25, nil, "tokens 120/7  $0.2500  failed 1  unparsable 0"},
		{"unpriced", 0, map[string]int{"m": 4}, "tokens 120/7  $0.0000+?  failed 1  unparsable 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tl tally
			tl.failed.Store(1)
			if tc.cost > 0 || tc.unpriced != nil {
				tl.usage = record.Usage{InputTokens: 120, OutputTokens: 7}
			}
			tl.unpriced = tc.unpriced
			tl.cost.Add(tc.cost)
			if got := tl.short(); got != tc.want {
				t.Errorf("short() = %q, want %q", got, tc.want)
			}
		})
	}
}
