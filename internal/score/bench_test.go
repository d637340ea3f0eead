package score

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// benchRecords is the size of the generated file the command benchmarks run over.
const benchRecords = 100_000

var benchWords = []string{"the", "river", "Denver", "Broncos", "won", "in", "1990", "a", "cat", "sat",
	"on", "mat", "and", "her", "sister", "moved", "to", "Paris", "after", "graduating", "from", "college",
	"yes", "no", "painting", "museum", "July", "2023", "because", "she", "loves", "nature"}

// writeBenchFile writes n SQuAD-like records with predictions (a short context passage, two
// answers, a prediction that overlaps them partly) and returns the file name.
func writeBenchFile(b *testing.B, n int) string {
	b.Helper()
	name := filepath.Join(b.TempDir(), "bench.jsonl")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	w := record.NewWriter(f)
	phrase := func(i, k int) string {
		s := ""
		for j := range k {
			if j > 0 {
				s += " "
			}
			s += benchWords[(i*7+j*13+j*j)%len(benchWords)]
		}
		return s
	}
	for i := range n {
		rec := &record.Record{Schema: 1, ID: fmt.Sprintf("bench:%d", i), Dataset: "squad", Lang: "en",
			Type:     []string{"has_answer", "no_answer"}[i%2],
			Question: phrase(i, 12) + "?",
			Answers:  []string{phrase(i, 3), phrase(i+1, 4)},
			Context:  []record.Passage{{Title: phrase(i, 2), Text: phrase(i, 60)}},
			Prediction: &record.Prediction{Text: phrase(i+i%3, 5), Model: "gpt-4o-mini", Provider: "openai",
				Usage: &record.Usage{InputTokens: 420, OutputTokens: 7}, LatencyMS: 512},
		}
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
	return name
}

// BenchmarkCommand runs the whole qa-score command, default metrics, over benchRecords records.
func BenchmarkCommand(b *testing.B) { benchCommand(b) }

// BenchmarkCommandSummary is BenchmarkCommand with a JSON summary (1000 bootstrap resamples).
func BenchmarkCommandSummary(b *testing.B) {
	benchCommand(b, "--summary", filepath.Join(b.TempDir(), "summary.json"))
}

// BenchmarkCommandCorpus runs the corpus metrics alone (labels are the generated answers, so there
// are many classes; no record has a score), summary to a file.
func BenchmarkCommandCorpus(b *testing.B) {
	benchCommand(b, "--metrics", "classification,auc,ranking,corpus_bleu", "--label-map", "yes=1,no=0",
		"--summary", filepath.Join(b.TempDir(), "summary.json"))
}

// benchCommand runs qa-score with flags over the generated file, reporting records/s and CPU time.
func benchCommand(b *testing.B, flags ...string) {
	args := append(append([]string{"qa-score"}, flags...), writeBenchFile(b, benchRecords))
	b.ReportAllocs()
	cpu := clitest.CPUTime()
	for b.Loop() {
		if err := Run(context.Background(), args, nil, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	reportRates(b, cpu)
}

// BenchmarkDecodeEncode is the bar for BenchmarkCommand: one goroutine decoding and re-encoding
// the same file, no scoring.
func BenchmarkDecodeEncode(b *testing.B) {
	name := writeBenchFile(b, benchRecords)
	b.ReportAllocs()
	cpu := clitest.CPUTime()
	for b.Loop() {
		w := record.NewWriter(io.Discard)
		eachRecord(b, name, func(rec *record.Record) {
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
		})
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	reportRates(b, cpu)
}

// eachRecord passes the records of the file name to fn in order.
func eachRecord(b *testing.B, name string, fn func(*record.Record)) {
	f, err := os.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rd := record.NewReader(bufio.NewReader(f), name)
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
		fn(rec)
	}
}

// BenchmarkSummarize is the summary alone: benchRecords outcomes of 17 metrics in two types,
// 1000 bootstrap resamples.
func BenchmarkSummarize(b *testing.B) {
	names := make([]string, 17)
	for k := range names {
		names[k] = fmt.Sprintf("m%d", k)
	}
	a := newAggregator(names, false, keepValues, nil)
	for i := range benchRecords {
		vals := make([]float64, len(names))
		for k := range vals {
			vals[k] = float64((i*(k+3))%11) / 10
		}
		a.add(outcome{typ: []string{"has_answer", "no_answer"}[i%2], vals: vals})
	}
	b.ReportAllocs()
	for b.Loop() {
		a.summarize(1000, 1, 0.95, 0, nil)
	}
	b.ReportMetric(float64(b.N)*benchRecords/b.Elapsed().Seconds(), "records/s")
}

// reportRates reports records/s (wall clock) and CPU nanoseconds per record since cpu0.
func reportRates(b *testing.B, cpu0 time.Duration) {
	n := float64(b.N) * benchRecords
	b.ReportMetric(n/b.Elapsed().Seconds(), "records/s")
	if cpu := clitest.CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/record")
	}
}

// BenchmarkMetricGenerated runs single metrics over the (prediction, answers) pairs of the
// generated file, one core, reporting pairs/s: the short SQuAD-like answers that most QA runs
// score, beside the golden corpus's harder mix that pkg/metric's benchmarks use.
func BenchmarkMetricGenerated(b *testing.B) {
	type pair struct {
		pred string
		refs []string
	}
	var pairs []pair
	eachRecord(b, writeBenchFile(b, benchRecords), func(rec *record.Record) {
		pairs = append(pairs, pair{rec.Prediction.Text, rec.Answers})
	})
	for _, m := range []struct {
		name  string
		score func(pred string, refs []string)
	}{
		{"SquadF1", func(p string, r []string) { metric.SquadF1(p, r) }},
		{"RougeStem", func(p string, r []string) { metric.Rouge(p, r, true) }},
		{"RougeNoStem", func(p string, r []string) { metric.Rouge(p, r, false) }},
		{"RougeBoth", func(p string, r []string) { metric.RougeBoth(p, r) }},
		{"BLEU", func(p string, r []string) { metric.BLEU(p, r) }},
		{"METEOR", func(p string, r []string) { metric.METEOR(p, r, true) }},
		{"METEORNoSyn", func(p string, r []string) { metric.METEOR(p, r, false) }},
		{"METEORBoth", func(p string, r []string) { metric.METEORBoth(p, r) }},
	} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for _, p := range pairs {
					m.score(p.pred, p.refs)
				}
				n += len(pairs)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}

// TestLoCoMoStored: a LoCoMo question's score is stored as evaluate_qa.py stores it, round(v, 3):
// numpy's rounding for category 1 (v*1000 rounded half to even, over 1000: a tie such as 4.5 or
// 62.5 goes to the even thousandth) and Python's correctly rounded one for the others (0.0055 is
// a little under 0.0055, so 0.005), as numpy 2 and Python 3 give them.
func TestLoCoMoStored(t *testing.T) {
	for _, tt := range []struct {
		v      float64
		cat    int
		stored float64
	}{
		{0.0055, 1, 0.006}, {0.0055, 4, 0.005},
		{0.0045, 1, 0.004}, {0.0045, 2, 0.004},
		{0.0015, 1, 0.002}, {0.0015, 3, 0.002},
		{0.0625, 1, 0.062}, {0.0625, 4, 0.062},
		{0.1875, 1, 0.188}, {0.1875, 5, 0.188},
		{0.3125, 1, 0.312}, {0.3125, 2, 0.312},
		{2.0 / 3, 1, 0.667}, {2.0 / 3, 4, 0.667},
		{1, 1, 1}, {0, 4, 0},
	} {
		if got := locomoStored(tt.v, tt.cat); got != tt.stored {
			t.Errorf("locomoStored(%v, category %d) = %v, want %v", tt.v, tt.cat, got, tt.stored)
		}
	}
	if got := locomoStored(math.NaN(), 4); !math.IsNaN(got) {
		t.Errorf("locomoStored(NaN, 4) = %v, want NaN", got)
	}
}
