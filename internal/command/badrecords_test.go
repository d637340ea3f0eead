package command

import (
	"errors"
	"testing"
)

// TestBadRecords: the exit error names every kind of problem present, counted, with "and"
// before the last: the bad input lines first, whatever the order of the other kinds, which
// follow as given. It is nil when there is none, and exits 3.
func TestBadRecords(t *testing.T) {
	failed := func(n int) Count { return Count{n, "judgment failed", "judgments failed"} }
	wrong := func(n int) Count { return Count{n, "record counted as wrong", "records counted as wrong"} }
	for _, tt := range []struct {
		bad    int
		counts []Count
		want   string // "" for no error
		n      int
	}{
		{0, nil, "", 0},
		{0, []Count{failed(0), wrong(0)}, "", 0},
		{1, nil, "1 bad input line skipped", 1},
		{2, []Count{failed(0)}, "2 bad input lines skipped", 2},
		{0, []Count{failed(2)}, "2 judgments failed", 2},
		{1, []Count{failed(2)}, "1 bad input line skipped, and 2 judgments failed", 1},
		{0, []Count{failed(1), wrong(3)}, "1 judgment failed, and 3 records counted as wrong", 1},
		{0, []Count{wrong(3), failed(1)}, "3 records counted as wrong, and 1 judgment failed", 3},
		{4, []Count{failed(1), wrong(1)}, "4 bad input lines skipped, 1 judgment failed, and 1 record counted as wrong", 4},
		{4, []Count{failed(0), wrong(1)}, "4 bad input lines skipped, and 1 record counted as wrong", 4},
	} {
		err := BadRecords(tt.bad, tt.counts...)
		var be *BadRecordsError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("BadRecords(%d, %v) = %v, want nil", tt.bad, tt.counts, err)
		case tt.want == "":
		case !errors.As(err, &be) || err.Error() != tt.want || be.N != tt.n || ExitCode(err) != ExitBadRecords:
			t.Errorf("BadRecords(%d, %v) = %v (exit %d), want %q, N %d, exit %d", tt.bad, tt.counts, err, ExitCode(err), tt.want, tt.n, ExitBadRecords)
		}
	}
}
