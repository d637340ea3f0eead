package load

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// sentence pads generated items to a few kB each.
var sentence = strings.Repeat("Danilo Donati won the Academy Award for Costume Design. ", 40)

// TestMemoryBoundedJSONL: HotpotQA lines from stdin are converted as they come.
func TestMemoryBoundedJSONL(t *testing.T) {
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-load", "--format", "hotpotqa"},
		N:    4000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"_id":"q%d","answer":"romance","question":"What genre %d?","type":"bridge","level":"hard",`+
				`"supporting_facts":[["T%d",0]],"context":[["T%d",[%q,%q]]]}`, i, i, i, i, sentence, sentence)
		},
		Limit: 4 << 20,
	})
}

// TestMemoryBoundedLongMemEval: a LongMemEval file is one JSON array (0.3–3 GB upstream); its
// entries are decoded one at a time, never the array whole.
func TestMemoryBoundedLongMemEval(t *testing.T) {
	const n = 4000
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-load", "--format", "longmemeval"},
		N:    n,
		Line: func(i int) []byte {
			var b []byte
			if i == 0 {
				b = append(b, '[')
			}
			b = fmt.Appendf(b, `{"question_id":"q%d","question_type":"single-session-user","question":"What colour %d?",`+
				`"answer":"Green","question_date":"2023/05/30 (Tue) 10:00","haystack_session_ids":["s%d"],`+
				`"haystack_dates":["2023/05/20 (Sat) 02:21"],"haystack_sessions":[[{"role":"user","content":%q},`+
				`{"role":"assistant","content":%q}]],"answer_session_ids":["s%d"]}`, i, i, i, sentence, sentence, i)
			if i == n-1 {
				return append(b, ']')
			}
			return append(b, ',')
		},
		Limit: 4 << 20,
	})
}
