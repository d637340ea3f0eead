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

// TestAgreeMemory: qa-judge agree keeps each record's verdicts until the names are known, about
// 100 bytes a record of live heap here (its id, a type shared, two verdicts); a map of them a
// record took some 360 bytes, 14 MB over these records where the limit allows 200 a record.
func TestAgreeMemory(t *testing.T) {
	const n = 50_000
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-judge", "agree", "--bootstrap", "0"},
		N:    n,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"hotpotqa:q%d","type":"%s","question":"Who?","answers":["Denver"],`+
				`"judgments":{"rules":{"score":%d},"llm":{"score":%d}}}`, i, []string{"bridge", "comparison"}[i%2], i%2, i%2)
		},
		Limit: n * 8 / 10 * 200,
		Out:   9,
	})
}
