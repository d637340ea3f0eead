package score

import (
	"context"
	"errors"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// line is one raw input line and where it came from.
type line struct {
	file    string
	no      int
	data    []byte
	unended bool // the last line of its input, with no line end (record.Reader.Unended)
}

// result is one line after decoding, scoring and encoding: the output line, the outcome for the
// summary, the encoded mismatch entry (if any), or the reason the line was bad.
type result struct {
	out      []byte
	o        outcome
	mismatch []byte
	bad      *record.Error
	// With embedding metrics the line is encoded after embedStage has filled them: l and rec
	// are kept until then.
	l   line
	rec *record.Record
}

// stream reads every input line, processes lines concurrently with process (at most jobs at a
// time), and calls emit with the results in input order. At most window results wait to be
// emitted, so memory is bounded by the window, not by the input. A non-nil count is written the
// input's bytes as they are read (command.OpenInputs).
//
// Note: decoding and encoding run in the workers, not in the reader, because they cost as much as
// most metrics; the reader only frames lines. internal/pipeline did not exist when this was
// written, and this is small enough to keep private.
func stream(ctx context.Context, inputs []string, stdin io.Reader, count io.Writer, maxLine, jobs int,
	process func(line) result, emit func(result) error) error {
	window := 4 * jobs
	g, ctx := errgroup.WithContext(ctx)
	futures := make(chan chan result, window)
	tasks := make(chan lineTask, jobs)
	for range jobs {
		// Long-lived workers, not a goroutine per record: a fresh goroutine's stack would grow
		// again for every record (the JSON codec and the metrics recurse deeply), which cost a
		// fifth of the run.
		g.Go(func() error {
			for t := range tasks {
				t.fut <- process(t.l)
			}
			return nil
		})
	}
	// An input that cannot be opened or read ends the reading, not the run: the lines read before
	// it are still scored and written, and then its error is returned.
	var readErr error
	g.Go(func() error {
		defer close(futures)
		defer close(tasks)
		readErr = command.OpenInputs(inputs, stdin, count, func(in command.Input) error {
			return readLines(ctx, in, maxLine, futures, tasks)
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	})
	g.Go(func() error { return emitInOrder(ctx, futures, emit) })
	if err := g.Wait(); err != nil {
		return err
	}
	return readErr
}

// lineTask is one line for a worker to process, and where its result goes.
type lineTask struct {
	l   line
	fut chan result
}

// readLines frames the lines of in, handing each to the workers through tasks and its future
// result to the emitter through futures, in input order; a bad line's future holds its error
// at once. It returns nil at the end of in, ctx's error when ctx is done, and the read error
// that ends it otherwise.
func readLines(ctx context.Context, in command.Input, maxLine int, futures chan<- chan result, tasks chan<- lineTask) error {
	rd := record.NewReader(in.R, in.DisplayName())
	if maxLine > 0 {
		rd.SetMaxLine(maxLine)
	}
	for {
		data, err := rd.ReadRaw()
		if err == io.EOF {
			return nil
		}
		fut := make(chan result, 1)
		var perr *record.Error
		switch {
		case errors.As(err, &perr):
			fut <- result{bad: perr}
		case err != nil:
			return command.ReadError(in.DisplayName(), rd.Line(), err)
		}
		select {
		case futures <- fut:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err != nil {
			continue
		}
		l := line{file: in.DisplayName(), no: rd.Line(), data: append(getBuf(len(data)), data...), unended: rd.Unended()}
		select {
		case tasks <- lineTask{l, fut}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// emitInOrder calls emit with each result in the order of futures, waiting for each in turn, and
// stops at emit's first error or when ctx is done.
func emitInOrder(ctx context.Context, futures <-chan chan result, emit func(result) error) error {
	for fut := range futures {
		select {
		case r := <-fut:
			if err := emit(r); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// bufPool recycles the buffers of input and output lines once they are written (putBuf), so
// that what a record leaves for the garbage collector is mostly its decoded fields. Nothing
// decoded from a line refers to its bytes: the JSON decoder copies what it returns.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// getBuf returns an empty buffer with room for n bytes.
func getBuf(n int) []byte {
	b := *bufPool.Get().(*[]byte)
	if cap(b) < n {
		return make([]byte, 0, max(n, 2*cap(b)))
	}
	return b[:0]
}

// putBuf gives b back to getBuf; b must not be used afterwards. Large buffers are left to the
// collector, so that one long line does not stay pooled.
func putBuf(b []byte) {
	if cap(b) == 0 || cap(b) > 1<<20 {
		return
	}
	bufPool.Put(&b)
}

// sameBuf reports whether a and b share their first byte.
func sameBuf(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}
