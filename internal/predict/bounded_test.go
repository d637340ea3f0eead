package predict

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/pkg/record"
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

// TestMemoryBoundedConversations: LoCoMo records whose conversations all differ, through the
// extractive model, which keeps the last conversations read (their prompts' and the model's
// indexes, both bounded): 4,000 conversations of 12 kB hold no more than the first few did.
func TestMemoryBoundedConversations(t *testing.T) {
	turn := `{"speaker":"Mel","text":"On day %d I painted a sunrise over the lake near our house, number %d."},`
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-predict", "--provider", "extractive", "--concurrency", "4"},
		N:    4000,
		Line: func(i int) []byte {
			var turns, text strings.Builder
			for j := range 80 {
				fmt.Fprintf(&turns, turn, i, j)
				fmt.Fprintf(&text, "Mel: On day %d I painted a sunrise over the lake near our house, number %d.\\n", i, j)
			}
			return fmt.Appendf(nil, `{"schema":1,"id":"locomo:c%d:0","dataset":"locomo","question":"What did Mel paint on day %d?",`+
				`"answers":["a sunrise"],"meta":{"category":4,"speaker_a":"Mel","speaker_b":"Ann"},`+
				`"context":[{"title":"session_1","date":"8 May, 2023","text":"%s","turns":[%s]}]}`,
				i, i, text.String(), strings.TrimSuffix(turns.String(), ","))
		},
		Limit: 4 << 20,
	})
}

// TestMemoryBoundedLoCoMoBatches: asking LoCoMo's questions 10 per call (--batch-size 10) holds a
// few blocks, not the conversation: 4,000 questions of one conversation through a loopback
// server.
func TestMemoryBoundedLoCoMoBatches(t *testing.T) {
	srv := httptest.NewServer(batchHandler(dictReply, nil)) // it keeps no call
	defer srv.Close()
	turns := strings.Repeat(`{"speaker":"Mel","text":"I painted a sunrise over the lake near our house last week."},`, 40)
	ctx := fmt.Sprintf(`[{"title":"session_1","date":"8 May, 2023","text":"Mel: I painted.","turns":[%s]}]`, strings.TrimSuffix(turns, ","))
	clitest.Bounded(t, clitest.Stream{
		Run: Run,
		Args: []string{"qa-predict", "--provider", "openai", "--model", "gpt-4-turbo", "--base-url", srv.URL,
			"--api-key-file", keyFile(t), "--batch-size", "10", "--concurrency", "4"},
		N: 4000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"locomo:c:%d","dataset":"locomo","question":"What did Mel paint on day %d?",`+
				`"answers":["a sunrise"],"meta":{"category":1,"speaker_a":"Mel","speaker_b":"Ann"},"context":%s}`, i, i, ctx)
		},
		Limit: 4 << 20,
	})
}

// TestBatchesHeldBounded: finding a sequence or LoCoMo batch that reappears holds those read as
// hashes, up to a bound: 200,000 batches past a bound of 1,000 add nothing to the heap, where a
// map of their keys grew by about 10 MB. One that reappears is found when it was held.
func TestBatchesHeldBounded(t *testing.T) {
	const n = 201_000
	blockOf := func(r *record.Record) string { return r.Type } // a batch a record
	order := make([]int, n, n+2)
	for i := range order {
		order[i] = i
	}
	order = append(order, 5, 150_000) // one of the first 1,000 again, and one past them
	src := func(yield func(*record.Record) error) error {
		for _, i := range order {
			if err := yield(&record.Record{ID: fmt.Sprint("r", i), Type: fmt.Sprint("b", i)}); err != nil {
				return err
			}
		}
		return nil
	}
	var before, after uint64
	var again []string
	count := 0
	err := batches(src, blockOf, 1000)(func(b *batch) error {
		switch count++; count {
		case 1000:
			before = clitest.LiveHeap()
		case n:
			after = clitest.LiveHeap()
		}
		if b.reappeared {
			again = append(again, b.block)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if after > before+1<<20 {
		t.Errorf("the live heap grew by %d kB over %d batches past the bound, want under 1 MB", (after-before)>>10, n-1000)
	}
	if want := []string{"b5"}; !slices.Equal(again, want) {
		t.Errorf("batches that reappeared: %q, want %q (b150000 was read past the bound)", again, want)
	}
}
