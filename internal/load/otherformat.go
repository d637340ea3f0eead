package load

import (
	"errors"
	"fmt"
	"io"
	"strings"

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
	// byName: no --format, and the format is the one the file's name says (a generic
	// locomo_extra.jsonl read as locomo), its first item's fields telling none; seen is then ""
	// and format the one read. Its watch ends at a bad item that does not lack the benchmark's id
	// field (lacksID), which a generic row lacks: the file is then no file of rows.
	byName bool
	good   bool // a record came
	bad    int
	msgs   command.Held
}

// otherFormatLimit is how many bad items with no record before them stop the load.
const otherFormatLimit = 20

// active reports whether o watches the file being read: --format is not the format it looks like.
func (o *otherFormat) active() bool { return (o.seen != "" || o.byName) && !o.good }

// record takes note of a record: the file is read as --format says, and the items held are
// printed.
func (o *otherFormat) record() {
	if o.good || !o.active() {
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
	// A JSON array's item is named by its index where it shares its line with another
	// (`[0]: missing field "_id"`): the index is no part of the fault, which each item has.
	cause = withoutIndex(cause)
	if o.byName && !lacksID(cause, o.format) {
		// An item that has the benchmark's id field (LongMemEval's results beside its questions,
		// or its own item with a null question), not one that lacks it, as a generic row does:
		// no file of rows, and its items are reported as any file's are.
		o.byName = false
		o.msgs.Release(o.w)
		fmt.Fprint(o.w, msg)
		return nil
	}
	o.msgs.Add(o.w, msg, cause, false)
	if o.bad++; o.bad < otherFormatLimit {
		return nil
	}
	return o.stop(fmt.Sprintf("its first %d items are bad as %s reads them", o.bad, o.reader()))
}

// end returns the error that stops the load when the file, read to its end, gave bad items only.
func (o *otherFormat) end() error {
	if !o.active() || o.bad == 0 || o.bad >= otherFormatLimit {
		return nil
	}
	if o.bad == 1 {
		return o.stop("its one item is bad as " + o.reader() + " reads it")
	}
	return o.stop(fmt.Sprintf("none of its %d items is good as %s reads them", o.bad, o.reader()))
}

// reader names what read the file's items: --format and its format, or the format its name says.
func (o *otherFormat) reader() string {
	if o.byName {
		return o.format
	}
	return "--format " + o.format
}

// stop prints the messages held whose cause was not printed and returns the error that stops
// the load, why saying how its items were read.
func (o *otherFormat) stop(why string) error {
	o.msgs.Once(o.w)
	if o.byName {
		return fmt.Errorf("%s: %s, the format its name says, its first item's fields telling none: stopped (give the format it is in: --format jsonl for rows of JSON, with --map if its fields are named otherwise)",
			o.name, why)
	}
	detect := ", or name the file without --format, which detects it"
	if o.name == "stdin" {
		detect = ""
	}
	return fmt.Errorf("%s: %s, and by its fields it is %s %s file: stopped (give --format %s%s)",
		o.name, why, article(o.seen), o.seen, o.seen, detect)
}

// idField is the id field of each benchmark whose items a file's name can pick (HotpotQA's,
// LoCoMo's, LongMemEval's; SQuAD's layout is told apart without it): a generic row lacks it.
var idField = map[string]string{"hotpotqa": "_id", "locomo": "sample_id", "longmemeval": "question_id"}

// lacksID reports whether cause, a bad item's (without its array index, withoutIndex), is that of
// an item lacking format's id field, as a generic row does: `missing field "_id"` for hotpotqa.
func lacksID(cause, format string) bool {
	id, ok := idField[format]
	return ok && cause == `missing field "`+id+`"`
}

// withoutIndex returns cause without the index of a JSON array's item that it may begin with
// ("[12]: "), which names the item, not its fault.
func withoutIndex(cause string) string {
	if i := strings.Index(cause, "]: "); strings.HasPrefix(cause, "[") && i > 1 &&
		strings.Trim(cause[1:i], "0123456789") == "" {
		return cause[i+3:]
	}
	return cause
}
