package format

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
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
		buf.WriteString("[")
		for q := range 2 {
			if q > 0 {
				buf.WriteString(", ")
			}
			var ids, sessions []string
			for s := range 500 {
				ids = append(ids, fmt.Sprintf(`"s%d_%d"`, q, s))
				var turns []string
				for t := range 10 {
					turns = append(turns, fmt.Sprintf(`{"role": "%s", "content": "%s"}`, []string{"user", "assistant"}[t%2],
						strings.Repeat("Some words of a long chat turn. ", 32)))
				}
				sessions = append(sessions, "["+strings.Join(turns, ", ")+"]")
			}
			fmt.Fprintf(&buf, `{"question_id": "q%d", "question_type": "multi-session", "question": "How many?", "answer": 3, `+
				`"question_date": "2023/06/01 (Thu) 10:00", "haystack_session_ids": [%s], `+
				`"haystack_sessions": [%s], "answer_session_ids": ["s%d_1"]}`, q,
				strings.Join(ids, ", "), strings.Join(sessions, ", "), q)
		}
		buf.WriteString("]")
	case "squad-12MB", "squad-18MB-cut":
		paragraphs := 1500
		if name == "squad-18MB-cut" {
			paragraphs = 2250
		}
		buf.WriteString(`{"version": "v2.0", "data": [`)
		for a := range 2 {
			if a > 0 {
				buf.WriteString(", ")
			}
			fmt.Fprintf(&buf, `{"title": "Article_%d", "paragraphs": [`, a)
			for p := range paragraphs {
				if p > 0 {
					buf.WriteString(", ")
				}
				buf.WriteString(`{"qas": [`)
				for q := range 20 {
					if q > 0 {
						buf.WriteString(", ")
					}
					fmt.Fprintf(&buf, `{"question": "Which word comes %d?", "id": "a%dp%dq%d", "answers": [{"text": "words", `+
						`"answer_start": 5}], "is_impossible": false}`, q, a, p, q)
				}
				fmt.Fprintf(&buf, `], "context": "%s"}`, strings.Repeat("Some words of a paragraph. ", 200))
			}
			buf.WriteString("]}")
		}
		buf.WriteString("]}")
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
