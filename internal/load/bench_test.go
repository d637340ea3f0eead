package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/internal/testgen"
	"github.com/qapipe/qapipe/pkg/record"
)

// BenchmarkLongMemEval streams a generated LongMemEval-shaped array (100 questions, 40 sessions of
// 10 turns each, about 11 MB) through the loader and the record writer.
func BenchmarkLongMemEval(b *testing.B) {
	var buf bytes.Buffer
	const questions = 100
	buf.WriteString("[")
	for q := range questions {
		if q > 0 {
			buf.WriteString(", ")
		}
		var ids, dates, sessions []string
		for s := range 40 {
			ids = append(ids, fmt.Sprintf(`"s%d_%d"`, q, s))
			dates = append(dates, `"2023/05/20 (Sat) 02:21"`)
			var turns []string
			for t := range 10 {
				turns = append(turns, fmt.Sprintf(`{"role": "%s", "content": "%s"}`, []string{"user", "assistant"}[t%2],
					strings.Repeat("Some words of a long chat turn. ", 8)))
			}
			sessions = append(sessions, "["+strings.Join(turns, ", ")+"]")
		}
		fmt.Fprintf(&buf, `{"question_id": "q%d", "question_type": "multi-session", "question": "How many?", "answer": 3, `+
			`"question_date": "2023/06/01 (Thu) 10:00", "haystack_session_ids": [%s], "haystack_dates": [%s], `+
			`"haystack_sessions": [%s], "answer_session_ids": ["s%d_1"]}`, q,
			strings.Join(ids, ", "), strings.Join(dates, ", "), strings.Join(sessions, ", "), q)
	}
	buf.WriteString("]")
	benchLoad(b, LongMemEval, buf.Bytes(), questions)
}

// benchLoad runs load over data, which holds records records, through the record writer.
func benchLoad(b *testing.B, load Loader, data []byte, records int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w := record.NewWriter(io.Discard)
		n := 0
		err := load(Input{Name: "bench.json", R: bytes.NewReader(data)}, Options{}, func(r *record.Record, _ int, bad error) error {
			if bad != nil {
				return bad
			}
			n++
			return w.Write(r)
		})
		if err != nil || n != records {
			b.Fatalf("loaded %d records: %v", n, err)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkSQuAD streams a generated SQuAD v2.0-shaped file (200 articles of 10 paragraphs with 5
// questions each, about 2 MB) through the loader and the record writer.
func BenchmarkSQuAD(b *testing.B) {
	var buf bytes.Buffer
	const articles, paragraphs, questions = 200, 10, 5
	testgen.SQuAD(&buf, articles, paragraphs, questions, 30, ",\n")
	benchLoad(b, SQuAD, buf.Bytes(), articles*paragraphs*questions)
}

// BenchmarkJSONL streams generated generic JSON Lines (10,000 records of a question, two answers,
// a type and a nested meta object, about 2 MB) through the loader and the record writer.
func BenchmarkJSONL(b *testing.B) {
	var buf bytes.Buffer
	const records = 10000
	for i := range records {
		fmt.Fprintf(&buf, `{"id": "q%d", "question": "Which word comes %d in the sentence?", "answers": ["words", "word"], `+
			`"type": "lookup", "source": {"book": "x", "page": %d, "tags": ["a", "b"]}, "difficulty": 3}`+"\n", i, i, i)
	}
	benchLoad(b, JSONL, buf.Bytes(), records)
}

// BenchmarkHotpotQA loads the 200-item HotpotQA sample, as the official files hold it.
func BenchmarkHotpotQA(b *testing.B) {
	data, err := os.ReadFile("testdata/hotpotqa_train_sample200.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := HotpotQA(Input{Name: "h.jsonl", R: bytes.NewReader(data)}, Options{}, func(rec *record.Record, _ int, bad error) error {
			if bad != nil {
				return bad
			}
			n++
			return nil
		})
		if err != nil || n != 200 {
			b.Fatalf("%d records, %v", n, err)
		}
	}
	b.ReportMetric(float64(200*b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRunLongFirstLine runs qa-load, without --format, over a generic JSON Lines file whose
// first row holds a 4 MB context (a long-context dataset's), then 100 short rows: what detection
// costs, which reads and decodes the first object whole.
func BenchmarkRunLongFirstLine(b *testing.B) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"id": "q0", "question": "Where?", "answers": ["here"], "context": "%s"}`+"\n", strings.Repeat("Some words of a long context. ", 4<<20/30))
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&buf, `{"id": "q%d", "question": "Where?", "answers": ["here"], "context": "Here."}`+"\n", i)
	}
	path := filepath.Join(b.TempDir(), "rows.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		var stdout bytes.Buffer
		if err := Run(context.Background(), []string{"qa-load", path}, nil, &stdout, io.Discard); err != nil || bytes.Count(stdout.Bytes(), []byte("\n")) != 101 {
			b.Fatalf("qa-load rows.jsonl = %v, %d records; want 101", err, bytes.Count(stdout.Bytes(), []byte("\n")))
		}
	}
}

// BenchmarkDetectFile detects the format of files whose first object is megabytes long, as qa-load
// does before it loads them (detectFile: format.Head, then format.Detect): a SQuAD file whose
// first article runs to 18 MiB, past format.MaxHead, and a LongMemEval file whose first item
// holds a 5 MB haystack.
func BenchmarkDetectFile(b *testing.B) {
	dir := b.TempDir()
	var squad, lme bytes.Buffer
	testgen.SQuAD(&squad, 2, 2300, 20, 200, ", ")
	testgen.LongMemEval(&lme, 2, 500, 10, 32)
	for _, bc := range []struct {
		name, want string
		text       []byte
	}{
		{"squad.json", "squad", squad.Bytes()},
		{"longmemeval.json", "longmemeval", lme.Bytes()},
	} {
		path := filepath.Join(dir, bc.name)
		if err := os.WriteFile(path, bc.text, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(min(len(bc.text), format.MaxHead)))
			b.ReportAllocs()
			for b.Loop() {
				if got, ok := detectFile(path); got.format != bc.want || !ok {
					b.Fatalf("detectFile(%s) = %q, %v; want %q", bc.name, got.format, ok, bc.want)
				}
			}
		})
	}
}
