package learncurve

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/record"
)

// UnknownType is the name of the type of a sequence whose first record has none (EvaLearn's
// default).
const UnknownType = "unknown"

// Observation is one judged answer placed in a sequence.
type Observation struct {
	Seq  string   // sequence key; keys that differ are different sequences
	Type TaskType // task type; the zero TaskType means none (UnknownType)
	// Pos is the position's key in the sequence: "1" to "M" are the positions read; any other
	// key (an evalearn.Key such as "0", "8" or `"4"`) is kept apart and never read, as upstream.
	Pos     string
	Correct bool
	// Unread says why the judge's raw reply, which a verdict was read from for want of a score,
	// gave none by EvaLearn's rule (Correct is then false, as upstream); "" when it did.
	Unread string
	// Note, when not nil, is what the run reports of the answer (a failure, no verdict, a reply
	// without a score, a score outside 0 to 1); the Grouper keeps it as long as the observation counts (see Noted).
	Note *Note
}

// Note is what a run reports of an answer it counts as wrong for a reason: the kind of reason,
// and the record's place (with why, where there is more to say).
type Note struct {
	Kind NoteKind
	At   *record.Error
	n    int // the observation's place in input order, set by Grouper.Add
}

// NoteKind is why an answer counts as wrong, as a run reports it, or (OutOfRange) what is odd in
// a verdict that counts as EvaLearn counts it.
type NoteKind int

// The kinds of Note.
const (
	Failed     NoteKind = iota // its prediction or judgment failed (error)
	NoVerdict                  // its judgment holds no verdict (no score, empty reply)
	Unread                     // its judge reply holds no score by EvaLearn's rule
	OutOfRange                 // its judgment's score is outside 0 to 1, read as EvaLearn reads it (> 0)
	noteKinds
)

// Sequence is the outcome row of one sequence: Y[m] is 1 when position m+1 was answered correctly.
type Sequence struct {
	ID   string
	Type TaskType
	Y    []int
}

// Grouper turns observations, in input order, into Sequence rows of length M.
type Grouper struct {
	M     int
	order []*group
	byKey map[string]*group
	added int // observations added
}

type group struct {
	id  string
	typ TaskType
	pos map[string]mark // position key → the observation counted; later observations overwrite
}

// mark is what a group keeps of the observation a position counts: its verdict and its Note.
type mark struct {
	correct bool
	note    *Note
}

// NewGrouper returns a Grouper for sequences of m problems.
func NewGrouper(m int) *Grouper {
	return &Grouper{M: m, byKey: make(map[string]*group)}
}

// Add records one observation, and reports whether it replaces an earlier one of the same
// sequence and position. The first observation of a sequence fixes its type.
func (g *Grouper) Add(o Observation) (replaced bool) {
	s, ok := g.byKey[o.Seq]
	if !ok {
		typ := o.Type
		if typ.isZero() {
			typ = NamedType(UnknownType)
		}
		s = &group{id: o.Seq, typ: typ, pos: make(map[string]mark)}
		g.byKey[o.Seq] = s
		g.order = append(g.order, s)
	}
	if o.Note != nil {
		o.Note.n = g.added
	}
	g.added++
	_, replaced = s.pos[o.Pos]
	s.pos[o.Pos] = mark{correct: o.Correct, note: o.Note}
	return replaced
}

// Noted returns, by kind, the places of the Notes of the observations the sequences count, in
// input order: a Note whose observation a later one of the same sequence and position replaced
// is left out, as its verdict is, and so is one at a position outside 1..M, which no row reads.
// It returns the number of observations counted too.
func (g *Grouper) Noted() (places [noteKinds][]*record.Error, counted int) {
	return g.noted(true)
}

// Ignored returns, by kind and in input order, the places of the Notes that Noted leaves out
// for their positions, outside 1..M: the rows never read them.
func (g *Grouper) Ignored() [noteKinds][]*record.Error {
	places, _ := g.noted(false)
	return places
}

// noted returns the places of the Notes of the observations kept at positions 1..M (read) or at
// the others (!read), and the number of those observations.
func (g *Grouper) noted(read bool) (places [noteKinds][]*record.Error, n int) {
	var notes [noteKinds][]*Note
	for _, s := range g.order {
		for key, m := range s.pos {
			if g.reads(key) != read {
				continue
			}
			n++
			if m.note != nil {
				notes[m.note.Kind] = append(notes[m.note.Kind], m.note)
			}
		}
	}
	for k, ns := range notes {
		slices.SortFunc(ns, func(a, b *Note) int { return a.n - b.n })
		for _, n := range ns {
			places[k] = append(places[k], n.At)
		}
	}
	return places, n
}

// reads reports whether the rows read position key: one of "1" to "M".
func (g *Grouper) reads(key string) bool {
	p, err := strconv.Atoi(key)
	return err == nil && p >= 1 && p <= g.M && strconv.Itoa(p) == key
}

// Sequences returns the outcome rows in first-appearance order, and one warning for each
// sequence whose number of distinct positions is not M (as EvaLearn logs them) or that lacks
// one of the positions 1 to M.
//
// Note: EvaLearn logs a sequence by its count of positions alone, so one that held a position
// outside 1..M (8, or the string "4") in place of one it lacked was counted wrong there
// without a word.
func (g *Grouper) Sequences() ([]Sequence, []string) {
	seqs := make([]Sequence, 0, len(g.order))
	var warns []string
	for _, s := range g.order {
		y := make([]int, g.M)
		read := 0 // positions 1..M the sequence has
		for m := range y {
			mk, ok := s.pos[strconv.Itoa(m+1)]
			if ok {
				read++
			}
			if mk.correct {
				y[m] = 1
			}
		}
		if n := len(s.pos); n != g.M || read != g.M {
			warns = append(warns, positionWarning(s, n, read, g.M))
		}
		seqs = append(seqs, Sequence{ID: s.id, Type: s.typ, Y: y})
	}
	return seqs, warns
}

// positionWarning says that sequence s, of n distinct positions, read of them among 1..m, lacks
// some of 1..m or has more than m.
func positionWarning(s *group, n, read, m int) string {
	var missing []int
	for p := 1; p <= m; p++ {
		if _, ok := s.pos[strconv.Itoa(p)]; !ok {
			missing = append(missing, p)
		}
	}
	msg := fmt.Sprintf("sequence %s has %s", s.id, english.Count(n, "position", "positions"))
	switch {
	case n == m && read < m: // the count alone would read as complete
		msg += fmt.Sprintf(", %d of them not among 1-%d (ignored)", n-read, m)
	case read < n: // the count alone would take those for read
		msg += fmt.Sprintf(" (%d not among 1-%d, ignored), expected %d", n-read, m, m)
	default:
		msg += fmt.Sprintf(", expected %d", m)
	}
	if len(missing) > 0 {
		msg += "; missing " + english.Form(len(missing), "position ", "positions ") + positionRuns(missing) +
			english.Form(len(missing), " counts as wrong", " count as wrong")
	}
	return msg
}

// positionRuns writes ascending positions separated by commas, a run of three or more as its
// first and last joined by a hyphen ("1,2,8-1000"): listed one by one, the positions a sequence
// of 7 lacks under --problems 1000000 made a warning of 7 MB for each sequence.
func positionRuns(ps []int) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		switch {
		case j-i >= 2:
			fmt.Fprintf(&b, "%d-%d", ps[i], ps[j])
		case j == i+1:
			fmt.Fprintf(&b, "%d,%d", ps[i], ps[j])
		default:
			b.WriteString(strconv.Itoa(ps[i]))
		}
		i = j + 1
	}
	return b.String()
}
