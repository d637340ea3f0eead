package predict

import (
	"context"
	"io"
	"os"
	"testing"
)

func TestTmpProf(t *testing.T) {
	f, err := os.Open("/tmp/l1_400.jsonl")
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	if err := Run(context.Background(), []string{"qa-predict"}, f, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
}
