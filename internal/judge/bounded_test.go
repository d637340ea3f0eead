package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestMemoryBounded: the rule judge grades records as they come, holding a bounded window.
func TestMemoryBounded(t *testing.T) {
	text := strings.Repeat("Caroline went to the LGBTQ support group on 7 May 2023. ", 50)
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-judge", "--mode", "rules"},
		N:    4000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"r%d","dataset":"locomo","type":"temporal","question":"When %d?",`+
				`"answers":["7 May 2023"],"context":[{"title":"s","text":%q}],"prediction":{"text":"on 7 May %d"}}`,
				i, i, text, 2000+i%30)
		},
		Limit: 4 << 20,
	})
}

// TestRecordsAsTheyCome: a judged record is written out before the next input line comes, not
// held in the output buffer until it fills or the input ends.
func TestRecordsAsTheyCome(t *testing.T) {
	var lines []string
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"schema":1,"id":"q%d","dataset":"squad","question":"Where?","answers":["Paris"],"prediction":{"text":"Paris"}}`, i))
	}
	out := clitest.RecordsAsTheyCome(t, Run, []string{"qa-judge", "--mode", "rules", "--concurrency", "4"}, lines)
	if n := strings.Count(out, `"judgments":`); n != 3 {
		t.Errorf("%d judged records, want 3:\n%s", n, out)
	}
}
