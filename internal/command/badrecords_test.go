package command

import (
	"errors"
	"testing"
)

// TestBadRecords: the exit error names every kind of problem present, counted and in the order
// given, with "and" before the last; it is nil when there is none, and exits 3.
func TestBadRecords(t *testing.T) {
	skipped := func(n int) Count { return Count{n, "bad input line skipped", "bad input lines skipped"} }
	failed := func(n int) Count { return Count{n, "judgment failed", "judgments failed"} }
	wrong := func(n int) Count { return Count{n, "record counted as wrong", "records counted as wrong"} }
	for _, tt := range []struct {
		counts []Count
		want   string // "" for no error
		n      int
	}{
		{nil, "", 0},
		{[]Count{failed(0), skipped(0)}, "", 0},
		{[]Count{skipped(1)}, "1 bad input line skipped", 1},
		{[]Count{failed(0), skipped(2)}, "2 bad input lines skipped", 2},
		{[]Count{failed(2), skipped(1)}, "2 judgments failed, and 1 bad input line skipped", 2},
		{[]Count{failed(1), skipped(0), wrong(3)}, "1 judgment failed, and 3 records counted as wrong", 1},
		{[]Count{failed(1), wrong(1), skipped(4)}, "1 judgment failed, 1 record counted as wrong, and 4 bad input lines skipped", 1},
	} {
		err := BadRecords(tt.counts...)
		var be *BadRecordsError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("BadRecords(%v) = %v, want nil", tt.counts, err)
		case tt.want == "":
		case !errors.As(err, &be) || err.Error() != tt.want || be.N != tt.n || ExitCode(err) != ExitBadRecords:
			t.Errorf("BadRecords(%v) = %v (exit %d), want %q, N %d, exit %d", tt.counts, err, ExitCode(err), tt.want, tt.n, ExitBadRecords)
		}
	}
}
