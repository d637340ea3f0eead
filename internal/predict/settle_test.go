package predict

import (
	"errors"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestSettleFailedReply: a reply that is no answer (empty after its thinking, say) but was paid
// for keeps on its record what an answer's keeps, but the text: its usage and cost, the time it
// took, and the thinking its server sent, which says where the budget went. A call that got no
// reply keeps its error and attempts alone.
func TestSettleFailedReply(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &app{prices: model.DefaultPrices(), now: func() time.Time { return now }}
	callErr := &model.CallError{Attempts: 2, Err: errors.New("openai gpt-4o-mini: empty reply")}
	start := now.Add(-1500 * time.Millisecond)

	p := &record.Prediction{Model: "gpt-4o-mini"}
	paid := model.Response{Usage: record.Usage{InputTokens: 1000, OutputTokens: 64}, Reasoning: "Thinking about it", Attempts: 2}
	if a.settle(p, paid, callErr, start, true) {
		t.Fatal("settle reported a failed call as answered")
	}
	if p.Error != callErr.Error() || p.Attempts != 2 || p.Reasoning != "Thinking about it" || p.LatencyMS != 1500 ||
		p.Usage == nil || p.Usage.OutputTokens != 64 || p.CostUSD == nil || *p.CostUSD <= 0 {
		t.Errorf("paid failed reply: %+v (cost %v); want its error, 2 attempts, reasoning, usage, a cost and latency 1500 ms", p, p.CostUSD)
	}

	// Paid for too when its server reported no usage: the time it took is known, its cost not.
	p = &record.Prediction{Model: "gpt-4o-mini"}
	if a.settle(p, model.Response{NoUsage: true, Attempts: 1}, callErr, start, true) {
		t.Fatal("settle reported a failed call as answered")
	}
	if p.LatencyMS != 1500 || p.Usage != nil || p.CostUSD != nil || a.tally.noUsage != 1 {
		t.Errorf("paid failed reply without usage: %+v, %d counted without usage; want latency 1500 ms, no usage nor cost, 1 counted",
			p, a.tally.noUsage)
	}

	p = &record.Prediction{Model: "gpt-4o-mini"}
	if a.settle(p, model.Response{Attempts: 3}, &model.CallError{Attempts: 3, Err: errors.New("network error")}, start, true) {
		t.Fatal("settle reported a failed call as answered")
	}
	if p.Attempts != 3 || p.LatencyMS != 0 || p.Usage != nil || p.CostUSD != nil || p.Reasoning != "" {
		t.Errorf("failed call without a reply: %+v; want its error and attempts alone", p)
	}
}

// TestAddNotesLatency: a record read with LongMemEval's notes has the latency of all its calls,
// from the first note call to the answer, or to the failure when any call was paid for; a failed
// first call that got no reply leaves none.
func TestAddNotesLatency(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &app{prices: model.DefaultPrices(), now: func() time.Time { return now }}
	start := now.Add(-2 * time.Second)
	u := record.Usage{InputTokens: 10, OutputTokens: 2}
	notes := spent{start: start, usage: u, calls: []record.Usage{u}}
	for _, tc := range []struct {
		name string
		pred record.Prediction
		s    spent
		want int64 // 0: none
	}{
		{"answered", record.Prediction{Text: "a", Usage: &u, LatencyMS: 40}, notes, 2000},
		{"failed, paid for", record.Prediction{Error: "empty reply", Usage: &u, LatencyMS: 40}, notes, 2000},
		{"failed, no reply, after notes", record.Prediction{Error: "network error"}, notes, 2000},
		{"failed first, no reply", record.Prediction{Error: "network error"}, spent{start: start}, 0},
	} {
		p, s := tc.pred, tc.s
		a.addNotes(&p, &s)
		if p.LatencyMS != tc.want {
			t.Errorf("%s: latency %d ms, want %d", tc.name, p.LatencyMS, tc.want)
		}
	}
}

// TestAddNotesPricesEachReply: the reading call of a record read with LongMemEval's notes may
// have been billed for failed generations before its answer (retried): its replies are priced
// each as its own with the notes', not as one call of their summed prompts, which passes the
// long-context threshold (150 prompt tokens here) that none of them does.
func TestAddNotesPricesEachReply(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	prices := model.Prices{"m": {Input: 1_000_000, Long: model.LongPrice{Above: 150, Input: 2_000_000}}} // $1 a prompt token, $2 above 150
	a := &app{prices: prices, now: func() time.Time { return now }}
	note, reply := record.Usage{InputTokens: 100}, record.Usage{InputTokens: 100}
	resp := model.Response{Text: "a", Usage: record.Usage{InputTokens: 200}, Replies: []record.Usage{reply, reply}, Attempts: 2}
	p := &record.Prediction{Model: "m"}
	if !a.settle(p, resp, nil, now, true) {
		t.Fatal("settle reported an answer as failed")
	}
	s := spent{start: now, usage: note, calls: []record.Usage{note}, last: resp.Billed()}
	a.addNotes(p, &s)
	if p.Usage == nil || p.Usage.InputTokens != 300 || p.CostUSD == nil || *p.CostUSD != 300 {
		t.Errorf("usage %+v, cost %s; want 300 tokens in at $300, each reply priced as its own", p.Usage, costOf(p.CostUSD))
	}
}
