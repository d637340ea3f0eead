// Package repeat finds the records that repeat an earlier record's id (a file beside a copy of
// it, two files that overlap, an id field that is not unique), for the stages that warn of them,
// qa-load, qa-score and qa-judge agree, whose warnings guess the cause in one phrase (Causes),
// and for qa-load's numbering of an EvaLearn results file's repeats and qa-predict's sequences
// that reappear. It holds each id as a 64-bit hash in an open-addressed set, not the ids
// themselves, so its memory grows by a few bytes a record and, with a bound, stops growing.
//
// Note: qa-load and qa-score kept a tracker each, a map of hashes and this set; the map took
// about 40 bytes a hash where the set takes 11 to 21, and only qa-score's said where the first
// repeat was.
package repeat

import (
	"hash/maphash"

	"github.com/qapipe/qapipe/pkg/record"
)

// Causes names what makes records repeat an earlier record's id, for the warnings of them to
// guess from: one file named twice among a command's inputs is refused before any record is read
// (command.CheckInputs), so these are what remain.
const Causes = "a file beside a copy of it, files that overlap, or an id field that is not unique"

// IDs finds the records whose id an earlier record had. Its zero value holds no id and no
// bound.
type IDs struct {
	// Max, if positive, bounds the ids held, so that memory stops growing with the input (11 to
	// 21 bytes an id, see set): past Max ids, an id is checked against the first Max only.
	Max   int
	seed  maphash.Seed
	set   set
	count int
	first *record.Error
}

// Add takes in the id of the record read at file:line (0: the line is not known) and reports
// whether an earlier record had it. The first record that repeats an id is noted with where it
// is.
func (s *IDs) Add(id, file string, line int) bool {
	if s.seed == (maphash.Seed{}) {
		s.seed = maphash.MakeSeed()
	}
	h := maphash.String(s.seed, id)
	var seen bool
	if s.Max > 0 && s.set.n >= s.Max {
		seen = s.set.has(h)
	} else {
		seen = s.set.add(h)
	}
	if !seen {
		return false
	}
	if s.count++; s.first == nil {
		s.first = &record.Error{File: file, Line: line, ID: id}
	}
	return true
}

// Count returns the number of records that repeated an earlier record's id.
func (s *IDs) Count() int { return s.count }

// First returns where the first record that repeated an earlier record's id is, its File, Line
// and ID (Err nil; Place words it), or nil when none did.
func (s *IDs) First() *record.Error { return s.first }
