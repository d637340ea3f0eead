package load

import (
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestProgressBar: on a terminal qa-load draws a bar of the bytes read against the file's size.
func TestProgressBar(t *testing.T) {
	clitest.ProgressBar(t, Run, []string{"qa-load", "testdata/hotpotqa_array5.json"}, "B/s)")
}
