package predict

import (
	"fmt"
	"net/http/httptest"
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
