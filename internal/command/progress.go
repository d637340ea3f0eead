package command

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
)

// Progress returns a progress bar on stderr when it is a terminal, else nil: piped or logged
// output gets a summary at the end instead. When every input is a named file its records are
// counted first, so the bar shows done/total and an ETA; on stdin it counts up.
func Progress(stderr io.Writer, inputs []string) *progressbar.ProgressBar {
	if !terminal(stderr) {
		return nil
	}
	return progressbar.NewOptions64(CountLines(inputs), progressbar.OptionSetWriter(barWriter(stderr)), progressbar.OptionShowCount(),
		progressbar.OptionShowIts(), progressbar.OptionSetItsString("rec"), progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond))
}

// ByteProgress is Progress for commands that read big files whole (qa-load's JSON documents):
// the bar counts the input's bytes as the command reads them (copy them into it, e.g. with
// io.TeeReader), against the named files' sizes, so there is no counting pass.
func ByteProgress(stderr io.Writer, inputs []string) *progressbar.ProgressBar {
	if !terminal(stderr) {
		return nil
	}
	return progressbar.NewOptions64(inputSize(inputs), progressbar.OptionSetWriter(barWriter(stderr)), progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond))
}

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
