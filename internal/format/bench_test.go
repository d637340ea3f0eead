package format

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/testgen"
)

// BenchmarkDetect tells the format of heads of megabytes, as Head reads them whole: a first
// object of LongMemEval's (its haystack, about 5 MB), a SQuAD article of 12 MB and one longer than
// MaxHead (cut by it), a generic JSON Lines row with a 4 MB context, and a record line of 5 MB.
func BenchmarkDetect(b *testing.B) {
	for _, bc := range []struct{ name, file, want string }{
		{"longmemeval-5MB", "data.json", "longmemeval"},
		{"squad-12MB", "dev.json", "squad"},
		{"squad-18MB-cut", "dev.json", "squad"},
		{"jsonl-4MB", "rows.jsonl", "jsonl"},
		{"records-5MB", "run.jsonl", "records"},
	} {
		head := benchHead(bc.name)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(head)))
			b.ReportAllocs()
			for b.Loop() {
				if got := Detect(bc.file, head); got != bc.want {
					b.Fatalf("Detect(%q, %d bytes) = %q, want %q", bc.file, len(head), got, bc.want)
				}
			}
		})
	}
}

// benchHead returns the head, as HeadOf reads it, of the file BenchmarkDetect's case name holds.
func benchHead(name string) []byte {
	var buf bytes.Buffer
	switch name {
	case "longmemeval-5MB":
		testgen.LongMemEval(&buf, 2, 500, 10, 32)
	case "squad-12MB":
		testgen.SQuAD(&buf, 2, 1500, 20, 200, ", ")
	case "squad-18MB-cut":
		testgen.SQuAD(&buf, 2, 2250, 20, 200, ", ")
	case "jsonl-4MB":
		fmt.Fprintf(&buf, `{"id": "q0", "question": "Where?", "answers": ["here"], "context": "%s"}`+"\n",
			strings.Repeat("Some words of a long context. ", 4<<20/30))
		buf.WriteString(`{"id": "q1", "question": "Where?", "answers": ["here"], "context": "Here."}` + "\n")
	case "records-5MB":
		fmt.Fprintf(&buf, `{"schema":1,"id":"longmemeval:q0","question":"How many?","context":[{"text":"%s"}]}`+"\n",
			strings.Repeat("Some words of a long chat turn. ", 5<<20/32))
		buf.WriteString(`{"schema":1,"id":"longmemeval:q1","question":"How many?"}` + "\n")
	}
	text := buf.Bytes()
	return HeadOf(text[:min(len(text), MaxHead)])
}
