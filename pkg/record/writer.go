package record

// This file writes records as JSON Lines (see stream.go for reading them).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Writer writes records as JSON Lines through a buffer. It keeps the first error and returns it
// from every later call and from Flush. Its methods may be called from one goroutine while
// FlushWhenIdle's flushes it from another.
type Writer struct {
	mu     sync.Mutex
	bw     *bufio.Writer
	err    error
	writes uint64 // lines written, for FlushWhenIdle to see that none came
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{bw: bufio.NewWriterSize(w, 1<<16)} }

// Write encodes rec as one line. It sets Schema to SchemaVersion if it is zero. A record that the
// Reader would refuse (nil, without an id, of another schema, with a count, latency or cost below
// 0, or with a prediction that has no text, no error and nothing a metric reads in its place: see
// NullText) or that does not encode (a NaN score, an Extra value that is no JSON) is an error,
// kept as any other: a stream missing a record is no stream to go on writing.
func (w *Writer) Write(rec *Record) error {
	if rec == nil {
		return w.keep(errors.New("record: nil"))
	}
	if rec.Schema == 0 {
		rec.Schema = SchemaVersion
	}
	if err := rec.Validate(); err != nil {
		return w.keep(recordError(rec.ID, err))
	}
	if err := rec.belowZero(); err != nil {
		return w.keep(recordError(rec.ID, err))
	}
	b, err := rec.MarshalJSON()
	if err != nil {
		return w.keep(recordError(rec.ID, err))
	}
	if p := rec.Prediction; p != nil {
		if err := NullText(b, p.Text, p.Error); err != nil {
			return w.keep(recordError(rec.ID, err))
		}
	}
	return w.WriteRaw(b)
}

// belowZero returns the fault of the first count, latency or cost below 0 in r's prediction or
// judgments (the first such judgment by name), named by its path as the Reader names it when it
// refuses a line that holds one.
func (r *Record) belowZero() error {
	if p := r.Prediction; p != nil {
		err := counted(namedCount{"latency_ms", "milliseconds", float64(p.LatencyMS)}, namedCount{"attempts", "a count", float64(p.Attempts)}, costCount(p.CostUSD))
		if err == nil {
			err = p.Usage.belowZero()
		}
		if err != nil {
			return inField("prediction", err)
		}
	}
	var first string
	var firstErr error
	for name, j := range r.Judgments {
		if j == nil || firstErr != nil && name > first {
			continue
		}
		err := counted(namedCount{"attempts", "a count", float64(j.Attempts)}, costCount(j.CostUSD))
		if err == nil {
			err = j.Usage.belowZero()
		}
		if err != nil {
			first, firstErr = name, inField("judgments."+name, err)
		}
	}
	return firstErr
}

// belowZero returns the fault of the first of u's counts below 0, under "usage", or nil (for a nil
// u too).
func (u *Usage) belowZero() error {
	if u == nil {
		return nil
	}
	err := counted(namedCount{"input_tokens", "a count", float64(u.InputTokens)}, namedCount{"output_tokens", "a count", float64(u.OutputTokens)}, namedCount{"cached_input_tokens", "a count", float64(u.CachedInputTokens)},
		namedCount{"cache_write_input_tokens", "a count", float64(u.CacheWriteInputTokens)})
	if err != nil {
		return inField("usage", err)
	}
	return nil
}

// recordError is err of the record id names, or of a record without one ("record: missing field
// "id"", not `record "": ...`).
func recordError(id string, err error) error {
	if id == "" {
		return fmt.Errorf("record: %w", err)
	}
	return fmt.Errorf("record %q: %w", id, err)
}

// keep records err as the Writer's error unless it has one, and returns the one it keeps.
func (w *Writer) keep(err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// WriteRaw writes an already-encoded record line (without its newline). U+0085, U+2028 and U+2029
// are escaped on the way (see EscapeLineBreaks), so every line survives Python's splitlines().
func (w *Writer) WriteRaw(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.writes++
	if _, err := w.bw.Write(EscapeLineBreaks(line)); err != nil {
		w.err = err
		return err
	}
	if err := w.bw.WriteByte('\n'); err != nil {
		w.err = err
	}
	return w.err
}

// IdleFlush is how long a Writer under FlushWhenIdle holds lines that no others follow: from one
// to two of these pass before they are written.
const IdleFlush = 100 * time.Millisecond

// FlushWhenIdle flushes w, from a goroutine of its own, whenever a line is buffered and none has
// been written for IdleFlush, until the returned stop is called (stop waits for the goroutine to
// end; calling it again does nothing). A stage whose records come slowly (each a model call, or
// read from such a stage through a pipe) so shows each one soon after it is done, to tail -f or
// the next stage, rather than 64 kB at a time, while a stream of records still goes out a
// buffer at a time. An error of such a flush is kept, as any other.
func (w *Writer) FlushWhenIdle() (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(IdleFlush)
		defer tick.Stop()
		var seen uint64
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			w.mu.Lock()
			if w.writes == seen && w.err == nil && w.bw.Buffered() > 0 {
				w.err = w.bw.Flush()
			}
			seen = w.writes
			w.mu.Unlock()
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
		})
	}
}

// Flush writes the buffered lines and returns nil, or the first error seen. Once a Writer has
// kept an error it writes nothing more: the lines still buffered then are not written either.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}

// EscapeLineBreaks writes U+0085, U+2028 and U+2029 in b as \u escapes. JSON allows them raw, but
// Python's str.splitlines() breaks lines at them and would cut a record in two. In valid JSON these
// UTF-8 sequences occur only inside strings, where the escape means the same character. b is
// returned unchanged (not copied) when it holds none.
func EscapeLineBreaks(b []byte) []byte {
	if bytes.IndexByte(b, 0xC2) < 0 && bytes.IndexByte(b, 0xE2) < 0 {
		return b
	}
	for _, r := range []string{"\u0085", "\u2028", "\u2029"} {
		if bytes.Contains(b, []byte(r)) {
			b = bytes.ReplaceAll(b, []byte(r), fmt.Appendf(nil, `\u%04x`, []rune(r)[0]))
		}
	}
	return b
}

// LineSafe returns a writer that passes what it is given to w with U+0085, U+2028 and U+2029
// escaped (see EscapeLineBreaks), for JSON a json.Encoder writes: each Write must hold whole
// characters of valid JSON, as the encoder's one Write per value does. The commands' other JSON
// lines (dry runs, summaries, reports) so survive Python's splitlines() as records do.
func LineSafe(w io.Writer) io.Writer { return lineSafe{w} }

type lineSafe struct{ w io.Writer }

func (l lineSafe) Write(p []byte) (int, error) {
	if _, err := l.w.Write(EscapeLineBreaks(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
