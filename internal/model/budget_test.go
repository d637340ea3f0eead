package model

import "testing"

// TestBudgetWarning: the warning counts the calls not made, in the singular when there is one.
func TestBudgetWarning(t *testing.T) {
	for _, tc := range []struct {
		refused   int
		unmetered bool
		want      string
	}{
		{0, false, ""},
		{1, false, "warning: --max-cost $1.000000 reached ($0.500000 spent): 1 call not made, its record carries the error (rerun with --retry-errors and a larger --max-cost)"},
		{2, false, "warning: --max-cost $1.000000 reached ($0.500000 spent): 2 calls not made, their records carry the error (rerun with --retry-errors and a larger --max-cost)"},
		{1, true, "warning: --max-cost $1.000000 cannot be kept: the server reported no token usage for a reply, so 1 call was not made, its record carries the error (rerun without --max-cost)"},
		{3, true, "warning: --max-cost $1.000000 cannot be kept: the server reported no token usage for a reply, so 3 calls were not made, their records carry the error (rerun without --max-cost)"},
	} {
		b := &Budget{MaxUSD: 1, spent: 0.5, refused: tc.refused, unmetered: tc.unmetered}
		if got := b.Warning(); got != tc.want {
			t.Errorf("Budget{refused: %d, unmetered: %v}.Warning() = %q, want %q", tc.refused, tc.unmetered, got, tc.want)
		}
	}
}
