package load

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/repeat"
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

// TestEvaLearnResultsRepeatsBounded: numbering the records that repeat an id holds the ids read
// as hashes, up to a bound, and counts the repeated ones alone: 200,000 different ids past a
// bound of 1,000 add nothing to the heap, where a map counting every id grew by about 10 MB.
func TestEvaLearnResultsRepeatsBounded(t *testing.T) {
	id := func(i int) string { return fmt.Sprintf("evalearn:%d:%d", i/7, 1+i%7) }
	r := repeats{seen: repeat.IDs{Max: 1000}}
	for i := range 1000 {
		r.number(id(i))
	}
	for _, want := range []string{"#2", "#3"} {
		for i := range 3 {
			if got := r.number(id(i)); got != id(i)+want {
				t.Errorf("number(%q) = %q, want %q", id(i), got, id(i)+want)
			}
		}
	}
	before := clitest.LiveHeap()
	for i := 1000; i < 201_000; i++ {
		if got := r.number(id(i)); got != id(i) {
			t.Fatalf("number(%q) = %q, want it unchanged", id(i), got)
		}
	}
	if after := clitest.LiveHeap(); after > before+1<<20 {
		t.Errorf("the live heap grew by %d kB over 200,000 ids past the bound, want under 1 MB", (after-before)>>10)
	}
	if got := r.number(id(5000)); got != id(5000) { // read after the bound: not held, not found
		t.Errorf("number(%q) again = %q, want it unchanged past the bound", id(5000), got)
	}
	if len(r.count) != 3 {
		t.Errorf("%d ids counted, want the 3 that repeated", len(r.count))
	}
}
