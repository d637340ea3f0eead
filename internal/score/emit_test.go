package score

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// errDiskFull is the error of failingWriter's writes.
var errDiskFull = errors.New("no space left on device")

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// TestEmbedWriteFailsOnce: when writing a batch's records fails, the run ends with the write
// error and makes no more embedding calls: the batch whose write failed is still held when the
// stream ends, and was filled a second time (a second, paid call) and written again at the end.
func TestEmbedWriteFailsOnce(t *testing.T) {
	var requests atomic.Int64
	srv := newOpenAIServer(t, func(*http.Request) { requests.Add(1) })
	// The record's line is longer than the writer's 64 KiB buffer, so it reaches stdout, and
	// fails, as it is written, in the batch's flush, not at the end of the run.
	pad := strings.Repeat("x", 70_000)
	in := `{"schema":1,"id":"a","question":"` + pad + `","answers":["Paris"],"prediction":{"text":"Paris"}}` + "\n" + // one text, one request
		`{"schema":1,"id":"b","answers":["London"],"prediction":{"text":"London"}}` + "\n"
	var stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
		"--embed-base-url", srv.URL + "/v1", "--embed-batch", "1"}, strings.NewReader(in), failingWriter{}, &stderr)
	if !errors.Is(err, errDiskFull) {
		t.Errorf("Run = %v, want the write error %v; stderr:\n%s", err, errDiskFull, stderr.String())
	}
	if got := requests.Load(); got != 1 {
		t.Errorf("the server got %d requests, want 1: the call of the batch whose write failed, and none after it", got)
	}
}
