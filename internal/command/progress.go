package command

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
)

// Progress returns a progress bar on stderr when it is a terminal and stdout is not, else nil:
// piped or logged output gets a summary at the end instead, and records written to the terminal
// show the progress themselves (a bar redrawn among them would break their lines). When every
// input is a named file its records are counted first, so the bar shows done/total and an ETA; on
// stdin it counts up.
func Progress(stderr, stdout io.Writer, inputs []string) *progressbar.ProgressBar {
	if !barShown(stderr, stdout) {
		return nil
	}
	barMade.Store(true)
	return progressbar.NewOptions64(CountLines(inputs), progressbar.OptionSetWriter(barWriter(stderr)), progressbar.OptionShowCount(),
		progressbar.OptionShowIts(), progressbar.OptionSetItsString("rec"), progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond))
}

// ByteProgress is Progress for commands that read big files whole (qa-load's JSON documents):
// the bar counts the input's bytes as the command reads them (copy them into it, e.g. with
// io.TeeReader), against the named files' sizes, so there is no counting pass; on stdin, whose
// size is unknown, the bytes read so far.
func ByteProgress(stderr, stdout io.Writer, inputs []string) *progressbar.ProgressBar {
	if !barShown(stderr, stdout) {
		return nil
	}
	barMade.Store(true)
	return progressbar.NewOptions64(inputSize(inputs), progressbar.OptionSetWriter(barWriter(stderr)), progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond))
}

// barMade is set once a progress bar has been made in this process, for clearBarLine.
var barMade atomic.Bool

// barShown reports whether a progress bar is drawn: on stderr when it is a terminal, unless
// stdout is one too.
func barShown(stderr, stdout io.Writer) bool { return terminal(stderr) && !terminal(stdout) }

// inputSize returns the total size of the named inputs, or -1 if there are none or one is stdin
// ("-") or not a regular file.
func inputSize(inputs []string) int64 {
	if len(inputs) == 0 {
		return -1
	}
	var n int64
	for _, name := range inputs {
		fi, err := os.Stat(name)
		if name == "-" || err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		n += fi.Size()
	}
	return n
}

// CountLines returns the number of non-blank lines in the named inputs, read as textfile reads
// them (gzip, byte order mark), or -1 if there are none, one is stdin ("-"), one is not a regular
// file or one cannot be read. A named pipe (bash's <(…), /dev/fd/63) or a device is read once
// only, by the run: counting its lines would consume them.
func CountLines(inputs []string) int64 {
	if len(inputs) == 0 {
		return -1
	}
	for _, name := range inputs {
		if fi, err := os.Stat(name); name == "-" || err != nil || !fi.Mode().IsRegular() {
			return -1
		}
	}
	var n int64
	for _, name := range inputs {
		f, err := os.Open(name)
		if err != nil {
			return -1
		}
		sc := bufio.NewScanner(textfile.NewReader(f))
		sc.Buffer(make([]byte, 64<<10), record.DefaultMaxLine)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) > 0 {
				n++
			}
		}
		f.Close()
		if sc.Err() != nil {
			return -1
		}
	}
	return n
}

// ProgressEvery is how many records apart --progress reports when stderr is not a terminal.
const ProgressEvery = 100

// ProgressFlag returns the --progress flag of a command that maps records through model calls
// (qa-predict, qa-judge), read from the environment variable env; RecordProgress acts on it.
func ProgressFlag(env string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "progress", EnvVars: []string{env},
		Usage: fmt.Sprintf("report progress on stderr every %d records when it gets no progress bar: when it is not a terminal, or stdout is one too (the records would break the bar's line)", ProgressEvery)}
}

// RecordProgress reports a run's progress by records finished on stderr: a bar (Progress) when
// stderr is a terminal and stdout is not; else, when the run was given --progress, a line every ProgressEvery
// records, for logs and CI jobs that have no terminal, "prog: N records (R/s, T): D" with the
// rate, the time since the run began and the description the bar would show (tokens, cost,
// errors); else nothing. A nil *RecordProgress reports nothing.
type RecordProgress struct {
	bar      *progressbar.ProgressBar
	describe func() string // the bar's description after each record, or nil
	stderr   io.Writer
	prog     string
	start    time.Time
	done     atomic.Int64
	mu       sync.Mutex // orders the lines
}

// NewRecordProgress returns the progress of a run of prog over inputs, with lines the value of
// its --progress flag and describe, when not nil, the text the bar shows beside it (counts of
// errors, tokens). It is nil when there is nothing to report.
func NewRecordProgress(stderr, stdout io.Writer, prog string, inputs []string, lines bool, describe func() string) *RecordProgress {
	bar := Progress(stderr, stdout, inputs)
	if bar == nil && !lines {
		return nil
	}
	return &RecordProgress{bar: bar, describe: describe, stderr: stderr, prog: prog, start: time.Now()}
}

// Finished returns what a pipeline calls as each record is finished (pipeline.Options.Finished),
// safe for concurrent use, or nil when p is nil.
func (p *RecordProgress) Finished() func(error) {
	if p == nil {
		return nil
	}
	return func(error) { p.Add() }
}

// Add counts one record finished.
func (p *RecordProgress) Add() {
	if p == nil {
		return
	}
	if p.bar == nil {
		if n := p.done.Add(1); n%ProgressEvery == 0 {
			p.line(n)
		}
		return
	}
	if p.describe != nil {
		p.bar.Describe(p.describe())
	}
	p.bar.Add(1)
}

// line writes the progress line of n records finished.
func (p *RecordProgress) line(n int64) {
	elapsed := time.Since(p.start)
	text := fmt.Sprintf("%s: %d records (%.1f/s, %s)", p.prog, n, float64(n)/max(elapsed.Seconds(), 1e-9), elapsed.Round(time.Second))
	if p.describe != nil {
		text += ": " + p.describe()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.stderr, text)
}

// Finish ends the bar (EndBar), so that the summary after it starts on its own line.
func (p *RecordProgress) Finish() {
	if p == nil || p.bar == nil {
		return
	}
	EndBar(p.stderr, p.bar)
}

// EndBar completes bar, a bar over stderr, and erases its line, so that what follows (a
// summary, an error, the shell's prompt) starts at the start of that line, and gives the line up
// for the bar of another stage of the pipeline (barLine). A newline written
// through stderr would not do: on a terminal each message line first erases the line (Stderr),
// so it erased the finished bar and left an empty line behind, one for every stage of a pipeline.
// A bar ended partway (an interrupted run, a failed one) is erased as it stands, not first drawn
// complete. A nil bar writes nothing.
//
// Note: the bar's Finish drew it at 100% (and all the records or bytes counted) for a moment
// before the erase, as if an interrupted run had done them all. Its Exit draws nothing, but a bar
// of unknown length (stdin) then went on redrawing itself every 100 ms, its spinner's goroutine
// stopping at Finish alone; so Finish is kept, told to clear rather than draw the bar it
// completes (a bar that had come to its end was drawn complete by its last Add, and stays so).
// OptionClearOnFinish is set here and not at the start, where it would erase a bar of bytes as
// soon as the last byte was read, while the records were still being worked on.
func EndBar(stderr io.Writer, bar *progressbar.ProgressBar) {
	if bar == nil {
		return
	}
	progressbar.OptionClearOnFinish()(bar)
	bar.Finish()                                 //nolint:errcheck // a terminal's courtesy
	io.WriteString(barWriter(stderr), clearLine) //nolint:errcheck // a terminal's courtesy
	releaseBarLine(stderr)
}
