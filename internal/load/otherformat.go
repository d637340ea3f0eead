package load

import (
	"errors"
	"fmt"
	"io"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// otherFormat watches the bad items of a file that --format reads as one benchmark's while its
// fields are another's (warnOtherFormat said so): each of its items would be bad, lacking the
// fields of the format given, one message per item, thousands of them. Until a record comes, a
// bad item whose message, but for its place, was already printed is held, and so is every one
// after it; a record prints those held, in order. The 20th bad item with no record before it, or
// the file's end, stops the load with one error that names both formats, after the messages not
// yet printed, each once.
//
// Note: a file --format names as its own is left alone, so a real file of bad items says what is
// wrong with each of them: only the warning tells that its every item may be bad.
type otherFormat struct {
	w            io.Writer
	name         string // the file, as its messages name it
	seen, format string // the format its fields say, and the one --format gives
	good         bool   // a record came
	bad          int
	msgs         command.Held
}

// otherFormatLimit is how many bad items with no record before them stop the load.
const otherFormatLimit = 20

// active reports whether o watches the file being read: --format is not the format it looks like.
func (o *otherFormat) active() bool { return o.seen != "" && !o.good }

// record takes note of a record: the file is read as --format says, and the items held are
// printed.
func (o *otherFormat) record() {
	if o.good || o.seen == "" {
		return
	}
	o.good = true
	o.msgs.Release(o.w)
}

// skip reports bad, which active said o watches, and returns the error that stops the load
// when it is one too many.
func (o *otherFormat) skip(bad error) error {
	msg, cause := command.Message("qa-load", bad), bad.Error()
	if e, ok := errors.AsType[*record.Error](bad); ok && e.Err != nil {
		cause = e.Err.Error()
	}
	o.msgs.Add(o.w, msg, cause, false)
	if o.bad++; o.bad < otherFormatLimit {
		return nil
	}
	return o.stop(fmt.Sprintf("its first %d items are bad as --format %s reads them", o.bad, o.format))
}

// end returns the error that stops the load when the file, read to its end, gave bad items only.
func (o *otherFormat) end() error {
	if !o.active() || o.bad == 0 || o.bad >= otherFormatLimit {
		return nil
	}
	if o.bad == 1 {
		return o.stop("its one item is bad as --format " + o.format + " reads it")
	}
	return o.stop(fmt.Sprintf("none of its %d items is good as --format %s reads them", o.bad, o.format))
}

// stop prints the messages held whose cause was not printed and returns the error that stops
// the load, why saying how its items were read.
func (o *otherFormat) stop(why string) error {
	o.msgs.Once(o.w)
	detect := ", or name the file without --format, which detects it"
	if o.name == "stdin" {
		detect = ""
	}
	return fmt.Errorf("%s: %s, and by its fields it is %s %s file: stopped (give --format %s%s)",
		o.name, why, article(o.seen), o.seen, o.seen, detect)
}
