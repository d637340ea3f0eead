package clitest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// Stream describes a run for Bounded: a command, its arguments, and n input lines made by Line.
type Stream struct {
	Run  command.RunFunc
	Args []string // argv, program name first; stdin is the generated input
	N    int      // input lines
	Line func(i int) []byte
	// Limit is how much the live heap may grow from a tenth of the input to nine tenths.
	Limit uint64
	// Out is how many output lines the run must write (0: N, one per input line).
	Out int
}

// Bounded runs s.Run over s.N generated lines piped to its stdin, measuring the live heap (after
// a collection) when a tenth and when nine tenths of the input have been taken. A stage that
// streams holds a bounded window of records, so the two differ by little; one that keeps every
// record grows with the input between them. It fails if the growth exceeds s.Limit, if the run
// fails, or if the output has another number of lines than expected. Measuring at the input side
// catches a stage that holds everything back as well as one that leaks while it writes. It is
// skipped under -short.
func Bounded(t *testing.T, s Stream) {
	t.Helper()
	if testing.Short() {
		t.Skipf("streams %d lines", s.N)
	}
	m, err := s.measure()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("live heap at %d lines in: %d kB; at %d: %d kB", s.N/10, m.early>>10, s.N*9/10, m.late>>10)
	want := s.Out
	if want == 0 {
		want = s.N
	}
	if m.lines != want {
		t.Errorf("%d lines in, %d out, want %d", s.N, m.lines, want)
	}
	if g := m.growth(); g > s.Limit {
		t.Errorf("the live heap grew by %d kB from %d to %d input lines (limit %d kB): memory grows with the input",
			g>>10, s.N/10, s.N*9/10, s.Limit>>10)
	}
}

// measurement is what one run of a Stream showed: the live heap at a tenth and at nine tenths of
// the input, and the output lines.
type measurement struct {
	early, late uint64
	lines       int
}

func (m measurement) growth() uint64 {
	if m.late < m.early {
		return 0
	}
	return m.late - m.early
}

func (s Stream) measure() (measurement, error) {
	pr, pw := io.Pipe()
	heap := make(chan [2]uint64, 1)
	go func() {
		var at [2]uint64
		w := bufio.NewWriterSize(pw, 4096)
		for i := range s.N {
			if i == s.N/10 || i == s.N*9/10 {
				if w.Flush() != nil {
					break
				}
				k := 0
				if i == s.N*9/10 {
					k = 1
				}
				at[k] = LiveHeap()
			}
			w.Write(s.Line(i))
			w.WriteByte('\n')
		}
		pw.CloseWithError(w.Flush())
		heap <- at
	}()
	var m measurement
	out := writerFunc(func(p []byte) (int, error) {
		m.lines += bytes.Count(p, []byte{'\n'})
		return len(p), nil
	})
	var stderr bytes.Buffer
	err := s.Run(context.Background(), s.Args, pr, out, &stderr)
	pr.CloseWithError(io.ErrClosedPipe) // unblock the writer if the run stopped early
	at := <-heap
	m.early, m.late = at[0], at[1]
	if err != nil {
		return m, fmt.Errorf("%v: %w\n%s", s.Args, err, stderr.Bytes())
	}
	return m, nil
}

// LiveHeap returns the bytes of the heap still reachable: HeapAlloc right after a collection.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
