package predict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestMemoryBounded: qa-predict with the offline extractive model and 8 calls in flight holds a
// bounded window of records, however long its input.
func TestMemoryBounded(t *testing.T) {
	text := strings.Repeat("The Denver Broncos won Super Bowl 50 in Santa Clara in February 2016. ", 40)
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-predict", "--provider", "extractive", "--concurrency", "8"},
		N:    4000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"r%d","dataset":"hotpotqa","question":"Who won Super Bowl %d?",`+
				`"answers":["Denver Broncos"],"context":[{"title":"SB","text":%q}]}`, i, i, text)
		},
		Limit: 4 << 20,
	})
}
