package command

import (
	"errors"
	"fmt"
	"io"

	"github.com/qapipe/qapipe/pkg/record"
)

// Source reads records from a command's inputs. A bad line is reported on Stderr as
// `FILE:LINE (id "x"): message`, counted and skipped; with Strict the first one stops the run.
type Source struct {
	Args    []string
	Stdin   io.Reader
	Stderr  io.Writer
	Prog    string
	Strict  bool
	MaxLine int // 0 means record.DefaultMaxLine
	Bad     int // bad lines seen so far
	rd      *record.Reader
}

// Each calls fn for every good record of every input, in order. It returns fn's first error, a
// fatal read error, or (with Strict) the first bad line.
func (s *Source) Each(fn func(*record.Record) error) error {
	return OpenInputs(s.Args, s.Stdin, nil, func(in Input) error {
		rd := record.NewReader(in.R, in.DisplayName())
		if s.MaxLine > 0 {
			rd.SetMaxLine(s.MaxLine)
		}
		s.rd = rd
		for {
			rec, err := rd.Read()
			if err == io.EOF {
				return nil
			}
			var perr *record.Error
			if errors.As(err, &perr) {
				if s.Strict {
					return err
				}
				s.Bad++
				fmt.Fprintf(s.Stderr, "%s: %v\n", s.Prog, err)
				continue
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", in.DisplayName(), err)
			}
			if err := fn(rec); err != nil {
				return err
			}
		}
	})
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

// Err returns a BadRecordsError if any bad lines were seen, else nil.
func (s *Source) Err() error {
	if s.Bad > 0 {
		return &BadRecordsError{N: s.Bad, What: "bad input lines skipped"}
	}
	return nil
}
