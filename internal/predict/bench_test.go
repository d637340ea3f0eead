package predict

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
)

// BenchmarkThroughput runs qa-predict against a loopback OpenAI-compatible server that answers
// every request after a fixed latency L, with C calls in flight. It reports the achieved
// requests/s, the ideal C/L, their ratio, and the process CPU time per record (client and server
// together, since the server runs in this process). L = 20ms shows the fixed per-call cost at its
// largest; L = 200ms is nearer a hosted model's fastest replies.
func BenchmarkThroughput(b *testing.B) {
	for _, tt := range []struct {
		latency time.Duration
		rounds  int // enough that start-up is amortised
	}{{20 * time.Millisecond, 64}, {200 * time.Millisecond, 16}} {
		b.Run("L="+tt.latency.String(), func(b *testing.B) { benchThroughput(b, tt.latency, tt.rounds) })
	}
}

func benchThroughput(b *testing.B, latency time.Duration, rounds int) {
	const conc = 16
	records := conc * rounds // full rounds only
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(latency)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":1,"total_tokens":51}}`)
	}))
	defer srv.Close()
	var in strings.Builder
	for i := range records {
		fmt.Fprintf(&in, `{"schema":1,"id":"r%d","question":"what is %d?","answers":["x"],"context":[{"text":"some context sentence number %d."}]}`+"\n", i, i, i)
	}
	input := in.String()
	args := []string{"qa-predict", "--provider", "openai", "--model", "m", "--base-url", srv.URL,
		"--api-key-file", keyFile(b), "--concurrency", fmt.Sprint(conc)}
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		before := clitest.CPUTime()
		var out bytes.Buffer
		if err := Run(context.Background(), args, strings.NewReader(input), &out, io.Discard); err != nil {
			b.Fatal(err)
		}
		cpu += clitest.CPUTime() - before
	}
	n := float64(records * b.N)
	achieved := n / b.Elapsed().Seconds()
	ideal := float64(conc) / latency.Seconds()
	b.ReportMetric(achieved, "req/s")
	b.ReportMetric(ideal, "ideal-req/s")
	b.ReportMetric(100*achieved/ideal, "%-of-ideal")
	if cpu > 0 { // not measured where CPUTime is 0
		b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/record")
	}
}
