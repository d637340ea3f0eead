package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

// MaxLineFlag returns the --max-line flag (QA_MAX_LINE) of a command that reads JSON Lines, with
// usage as its help text. Every stage takes it, so a record one stage writes can be read by the
// next with the same setting.
func MaxLineFlag(usage string) *cli.IntFlag {
	return &cli.IntFlag{Name: "max-line", Value: record.DefaultMaxLine, EnvVars: []string{"QA_MAX_LINE"}, Usage: usage}
}

// MaxLine returns the value of --max-line, or a usage error when it is below 1.
func MaxLine(c *cli.Context) (int, error) {
	n := c.Int("max-line")
	if n < 1 {
		if from := fromEnv(c, "max-line"); from != "" { // the value shown, as no one typed it
			return 0, Usagef("--max-line: must be at least 1, got %d%s", n, from)
		}
		return 0, Usagef("--max-line: must be at least 1")
	}
	return n, nil
}

// Source reads records from a command's inputs. A bad line is reported on Stderr as
// `PROG: FILE:LINE (id "x"): message`, counted and skipped; with Strict the first one stops the
// run.
type Source struct {
	Args   []string
	Stdin  io.Reader
	Stderr io.Writer
	// Prog begins each bad line's message, and the error of a bad line that stops the run (see
	// ProgError): a subcommand's name ("qa-judge agree") where the app's would not say which ran.
	Prog    string
	Strict  bool
	MaxLine int // 0 means record.DefaultMaxLine
	Bad     int // bad lines seen so far
	rd      *record.Reader
}

// Each calls fn for every good record of every input, in order. It returns fn's first error, a
// fatal read error, or the bad line that stops the run: with Strict the first, else one too
// many at the start of a file (LeadingBad). That last error is a *ProgError of Prog, so it is
// printed after the name the skipped lines were.
func (s *Source) Each(fn func(*record.Record) error) error {
	return OpenInputs(s.Args, s.Stdin, nil, func(in Input) error {
		lead := LeadingBad{W: s.Stderr, Prog: s.Prog}
		rd := record.NewReader(in.R, in.DisplayName())
		if s.MaxLine > 0 {
			rd.SetMaxLine(s.MaxLine)
		}
		s.rd = rd
		for {
			rec, err := rd.Read()
			if err == io.EOF {
				if err := lead.End(in.DisplayName()); err != nil {
					return &ProgError{Prog: s.Prog, Err: err}
				}
				return nil
			}
			var perr *record.Error
			if errors.As(err, &perr) {
				if s.Strict {
					return &ProgError{Prog: s.Prog, Err: err}
				}
				s.Bad++
				if err := lead.Bad(in.DisplayName(), perr, rd.BadLine()); err != nil {
					return &ProgError{Prog: s.Prog, Err: err}
				}
				continue
			}
			if err != nil {
				lead.Flush()
				return ReadError(in.DisplayName(), rd.Line(), err)
			}
			lead.Good()
			if err := fn(rec); err != nil {
				return err
			}
		}
	})
}

// EachUntil is Each for a command that reads all its records before it writes anything (qa-judge
// agree, qa-learncurve): fn takes every good record, and a signal (interrupt.Err of ctx) stops
// the reading before the next record, or after the last; so does fn's error (Reject's, say).
func (s *Source) EachUntil(ctx context.Context, fn func(*record.Record) error) error {
	err := s.Each(func(rec *record.Record) error {
		if err := interrupt.Err(ctx); err != nil {
			return err
		}
		return fn(rec)
	})
	if err == nil {
		err = interrupt.Err(ctx)
	}
	return err
}

// Reject reports the record fn was called with, whose id is id, as a bad line for err: a value
// in a record that decoded which the command cannot take (qa-judge agree: a judgment score
// outside 0 to 1). It is reported at its place and counted as a line that does not decode is, and
// fn goes on to the next record, returning nil; with Strict the error returned, which fn is to
// return, stops the run, as the first bad line does.
func (s *Source) Reject(id string, err error) error {
	e := s.At(id, err)
	if s.Strict {
		return &ProgError{Prog: s.Prog, Err: e}
	}
	s.Bad++
	fmt.Fprint(s.Stderr, Message(s.Prog, e))
	return nil
}

// ReadError is the error of an input, name, that could not be read on after its line number line
// (0 when no line was read whole): a damaged or cut gzip file, say. The line says how much of the
// input was read, and so how many of its records were written.
func ReadError(name string, line int, err error) error {
	if line > 0 {
		return fmt.Errorf("read %s after line %d: %w", name, line, err)
	}
	return fmt.Errorf("read %s: %w", name, err)
}

// At returns err as a *record.Error at the file and line of the record fn was called with, and
// with its id: a problem with a record that decoded, reported the way bad lines are. It is
// meant for fn's own use.
func (s *Source) At(id string, err error) *record.Error {
	e := &record.Error{ID: id, Err: err}
	if s.rd != nil {
		e.File, e.Line = s.rd.File(), s.rd.Line()
	}
	return e
}

// Err returns a BadRecordsError if any bad lines were seen, else nil. A run that also counts
// records of its own that failed names both kinds in its exit error: BadRecords(s.Bad, …).
func (s *Source) Err() error { return BadRecords(s.Bad) }

// LeadingBad reports a file's bad lines and stops the reading of a file whose first lines are
// all bad: a benchmark file given to a stage that reads records (a JSON document, or another JSON
// Lines schema) would otherwise give one message per line, thousands of them, and no record. A
// file with a good record among its first lines, or a bad one that is still a record (it has a
// schema: a field of the wrong type, say), is read to its end, every bad line reported and
// skipped. A file shorter than that whose lines are all bad is no file of records either (End): a
// small CSV or benchmark sample, tried first, would otherwise be lines skipped, exit 3, with no
// word of qa-load. A file whose first line opens a JSON document laid out over lines ("[", as
// json.dump with an indent writes LoCoMo's and EvaLearn's files) has lines that one by one say
// nothing: their messages are held, and printed only if a record follows, so that such a file
// gets the one message that stops it. Likewise a bad line whose message, but for its place, is
// one already printed (a HotpotQA file's lines are each `not a qapipe record`) is held, and so is
// every line after it, so that a file that stops prints each different message once, and a file
// whose records follow prints every line's, in order.
type LeadingBad struct {
	W    io.Writer // where each bad line is reported, as `PROG: FILE:LINE: message`
	Prog string

	good bool
	bad  int
	cr   bool   // a bad line was one of CR line endings, which a conversion mends
	head []byte // the bad lines' text, up to format.MaxHead, for the format qa-load would read
	doc  bool   // the first line opens a JSON document laid out over lines
	msgs Held   // the bad lines' messages
}

// leadingBadLimit is how many bad lines at the start of a file stop its reading.
const leadingBadLimit = 20

// Good records a good line, after printing the messages held for the lines before it.
func (l *LeadingBad) Good() {
	l.good, l.head = true, nil
	l.msgs.Release(l.W)
}

// stop prints the messages held as a file that stops there needs them: none for a document laid
// out over lines, whose lines say nothing one by one (unless it is one line, whose message says
// what it is), else each cause not yet printed, once.
func (l *LeadingBad) stop() {
	if l.doc && l.bad > 1 {
		l.msgs.Drop()
		return
	}
	l.msgs.Once(l.W)
}

// Flush prints each cause of the messages held not yet printed, once: a reading that fails
// calls it before its error, as what the file is was not known.
func (l *LeadingBad) Flush() { l.msgs.Once(l.W) }

// Bad reports e, a bad line of file whose text is line (nil when it is not known), and returns
// the error that stops the run when it is one too many at the start of the file.
func (l *LeadingBad) Bad(file string, e *record.Error, line []byte) error {
	if e != nil && e.Record {
		l.good = true
	}
	if !l.good && l.bad == 0 && !errors.Is(e, record.ErrLineTooLong) {
		l.doc = opensDocument(line)
	}
	msg := Message(l.Prog, e)
	if l.good {
		l.head = nil
		l.msgs.Release(l.W)
		fmt.Fprint(l.W, msg)
		return nil
	}
	cause := msg
	if e != nil && e.Err != nil {
		cause = e.Err.Error()
	}
	l.msgs.Add(l.W, msg, cause, l.doc)
	l.cr = l.cr || errors.Is(e, record.ErrCRLineEndings)
	if room := format.MaxHead - len(l.head); room > 0 && line != nil {
		l.head = append(l.head, line[:min(len(line), room)]...)
		l.head = append(l.head, '\n')
	}
	if l.bad++; l.bad < leadingBadLimit {
		return nil
	}
	return l.notRecords(file, fmt.Sprintf("its first %d lines are not qapipe records", l.bad))
}

// opensDocument reports whether line opens a JSON object or array that it does not close: the
// first line of a JSON document laid out over lines ("[", say), not a record cut short of its
// end, which has a schema (record.Error.Record), nor a line with text after its value.
func opensDocument(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '[' && t[0] != '{' {
		return false
	}
	err := json.NewDecoder(bytes.NewReader(t)).Decode(new(json.RawMessage))
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// End returns the error that stops the run when file, now read to its end, had bad lines only,
// fewer than stop it as they come, none of them a record; else nil.
func (l *LeadingBad) End(file string) error {
	if l.good || l.bad == 0 || l.bad >= leadingBadLimit {
		return nil
	}
	if l.bad == 1 {
		return l.notRecords(file, "its one line is not a qapipe record")
	}
	return l.notRecords(file, fmt.Sprintf("none of its %d lines is a qapipe record", l.bad))
}

// notRecords is the error of a file that why says is no file of records, with what mends it: a
// conversion of its line endings when they are CR's, as its bad line said, else qa-load, with
// the --format that reads the file when its lines are a benchmark's (EvaLearn's results, say).
//
// Note: the format was detected from the bad lines' first 64 kB, so that a file whose first
// object was longer (a SQuAD file with a long context before its questions) was pointed to
// qa-load without the format that qa-load, which reads the first object whole, detects.
func (l *LeadingBad) notRecords(file, why string) error {
	if l.cr {
		l.Flush()
		return fmt.Errorf("%s: %s, so it is no file of records as it is: stopped (convert its CR line endings to LF, as said above)", file, why)
	}
	if l.doc && l.bad > 1 {
		why = "its first line opens a JSON document laid out over lines, not one record a line"
	}
	l.stop()
	// Told as qa-load tells it, by the head it reads (format.Head), but by the lines alone: a file
	// named squad_predictions.json is no SQuAD file.
	switch f := format.Detect("", format.HeadOf(l.head)); f {
	case "", "jsonl", "csv":
	case "records": // a JSON array of records: their lines would have been good
		return fmt.Errorf("%s: it is a JSON array of records, not one record a line: stopped (qa-load --format records writes them one a line)", file)
	default:
		return fmt.Errorf("%s: %s, so it is no file of records: stopped (qa-load --format %s turns it into records)", file, why, f)
	}
	return fmt.Errorf("%s: %s, so it is no file of records: stopped (qa-load turns benchmark files into records)", file, why)
}
