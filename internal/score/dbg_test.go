package score

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"
)

func TestDbgAlloc(t *testing.T) {
	var before, now runtime.MemStats
	runtime.ReadMemStats(&before)
	in, _ := io.Pipe()
	go Run(context.Background(), []string{"qa-score", "--metrics", "em,bleu1,meteor_nosyn"}, in, io.Discard, io.Discard)
	for i := 0; i < 10; i++ {
		time.Sleep(200 * time.Millisecond)
		runtime.ReadMemStats(&now)
		t.Logf("%d: %d MB", i, (now.TotalAlloc-before.TotalAlloc)>>20)
	}
}
