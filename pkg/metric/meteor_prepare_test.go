package metric

import (
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestPrepareMETEOR: after PrepareMETEOR, the first METEOR score with synonyms finds the WordNet
// table loaded and allocates little; without it, that score loads the table. Each case runs in
// a process of its own (TestPrepareMETEORProcess), where no other test has loaded the table.
func TestPrepareMETEOR(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, tc := range []struct {
		prepare  bool
		min, max uint64 // bytes the first score allocates
	}{
		{true, 0, 1 << 20},
		{false, 10 << 20, 1 << 40},
	} {
		out := clitest.ChildOutput(t, "TestPrepareMETEORProcess", "QA_TEST_PREPARE_METEOR="+strconv.FormatBool(tc.prepare))
		n, err := strconv.ParseUint(out, 10, 64)
		if err != nil {
			t.Fatalf("prepare=%v: output %q: %v", tc.prepare, out, err)
		}
		if n < tc.min || n > tc.max {
			t.Errorf("prepare=%v: the first METEOR score allocated %d bytes, want %d to %d", tc.prepare, n, tc.min, tc.max)
		}
	}
}

// TestPrepareMETEORProcess is TestPrepareMETEOR's process: it prints what the first METEOR
// score allocates, after PrepareMETEOR if QA_TEST_PREPARE_METEOR is true. It does nothing
// unless that variable is set.
func TestPrepareMETEORProcess(t *testing.T) {
	prepare, err := strconv.ParseBool(os.Getenv("QA_TEST_PREPARE_METEOR"))
	if err != nil {
		return
	}
	if prepare {
		PrepareMETEOR()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	METEOR("the cats sat on a mat", []string{"a cat sits on the mat"}, true)
	runtime.ReadMemStats(&after)
	os.Stdout.WriteString(strconv.FormatUint(after.TotalAlloc-before.TotalAlloc, 10) + "\n")
}
