package record

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchRecords is the size of the generated file the reader and writer benchmarks stream.
const benchRecords = 100_000

// benchRecord returns a record shaped like a loaded and judged QA item: a short question, two
// answers, two context passages, meta, a prediction, a judgment and scores (about 1.3 kB).
func benchRecord(i int) *Record {
	score := float64(i % 2)
	para := strings.Repeat(fmt.Sprintf("Sentence %d of a context paragraph about topic %d. ", i%7, i%97), 6)
	return &Record{
		Schema: SchemaVersion, ID: fmt.Sprintf("bench:%06d", i), Dataset: "bench", Lang: "en",
		Type:     []string{"bridge", "comparison", "temporal"}[i%3],
		Question: fmt.Sprintf("Which of the %d things mentioned was first, and why?", i),
		Answers:  []string{fmt.Sprintf("thing %d", i), "the first one"},
		Context: []Passage{
			{Title: fmt.Sprintf("Title %d", i), Text: para, Sentences: []string{para[:60], para[60:]}},
			{Title: "Other", Date: "2023/05/20 (Sat) 02:21", Text: para[:200]},
		},
		Meta: map[string]json.RawMessage{"level": json.RawMessage(`"hard"`),
			"supporting_facts": json.RawMessage(fmt.Sprintf(`[["Title %d",0],["Other",1]]`, i))},
		Prediction: &Prediction{Text: fmt.Sprintf("thing %d", i), Model: "gpt-4o-mini", Usage: &Usage{InputTokens: 812, OutputTokens: 9}},
		Judgments:  map[string]*Judgment{"llm": {Score: &score, Label: "CORRECT", Raw: "CORRECT"}},
		Scores:     map[string]float64{"em": score, "f1": 0.5 + score/2},
	}
}

// writeBenchFile writes benchRecords records to a file in dir and returns its path and size.
func writeBenchFile(b *testing.B, dir string) (string, int64) {
	b.Helper()
	path := filepath.Join(dir, "bench.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := NewWriter(f)
	for i := range benchRecords {
		if err := w.Write(benchRecord(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Size()
}

// BenchmarkReader decodes a generated 100k-record file; MB/s counts the file's bytes.
func BenchmarkReader(b *testing.B) {
	path, size := writeBenchFile(b, b.TempDir())
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r := NewReader(f, path)
		n := 0
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		f.Close()
		if n != benchRecords {
			b.Fatalf("read %d records, want %d", n, benchRecords)
		}
	}
	b.ReportMetric(float64(benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkWriter encodes 100k records to a file; MB/s counts the bytes written.
func BenchmarkWriter(b *testing.B) {
	dir := b.TempDir()
	recs := make([]*Record, benchRecords)
	for i := range recs {
		recs[i] = benchRecord(i)
	}
	_, size := writeBenchFile(b, dir)
	path := filepath.Join(dir, "out.jsonl")
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w := NewWriter(f)
		for _, rec := range recs {
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
