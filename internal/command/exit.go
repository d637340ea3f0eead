package command

import (
	"context"
	"errors"
	"fmt"
	"github.com/qapipe/qapipe/pkg/record"
	"io"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
)

// Exit codes shared by every command.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitBadRecords  = 3
	ExitInterrupted = 130
)

// ExitCodesHelp is the paragraph every --help ends with.
const ExitCodesHelp = `EXIT CODES:
   0    success
   1    failure (input or output that cannot be read or written, a full disk's included; internal
        error); a reader of stdout that goes away (| head) ends a run quietly by SIGPIPE, as cat
        (141 in the shell); qa-predict, qa-judge and qa-score first store the replies of their
        calls in flight in their --cache (saying so), for at most 2 minutes (a signal ends it)
   2    usage error (bad or missing flag, argument or API key; unreadable file named by a flag)
   3    finished, but some records were bad or carry errors (see stderr)
   130  interrupted by SIGINT, SIGTERM or SIGHUP (completed output was flushed first;
        when that cannot finish, a further signal or 10 s ends it without); in qa-predict,
        qa-judge and qa-score the first signal lets the calls in flight end, for at most 2
        minutes, and a second abandons them, the completed output still flushed`

// FinishHelp is the paragraph of --help of the commands that pay for model calls and run under
// MainCalls; it says what finishGrace, termEcho and intEcho are.
const FinishHelp = `INTERRUPTING: the first SIGINT, SIGTERM or SIGHUP (Ctrl-C) makes no new call, and no retry, but
lets the calls in flight end (for at most 2 minutes); their records are written and their replies
cached (--cache); every record that still needed a call is written with the error "interrupted
before the call was made", so --retry-errors over the output makes those calls; then the summary,
and exit 130. A second signal, or the 2 minutes passing, abandons the calls in flight: only the
records completed before the first unfinished one are written; when even those cannot be (a
stalled reader of stdout), a third signal, or 10 s more, ends the run without them. A SIGTERM or
SIGHUP within a second of either, or a SIGINT within 0.1 s of one, counts once (make and a closing
shell pass on the signal their process group got, and systemd's SendSIGHUP follows its SIGTERM
with a SIGHUP; timeout -s INT signals the command twice). A run that can call no model, over
files alone (no stage before it still writing), stops at the first signal, its completed output
written.`

// UsageError is a mistake in how the command was called.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// BadRecordsError reports that the command finished but N records were bad or failed, said as
// Singular when N is 1 and as Plural otherwise: "1 bad input line skipped", "2 bad input lines
// skipped".
type BadRecordsError struct {
	N        int
	Singular string // e.g. "bad input line skipped"
	Plural   string // e.g. "bad input lines skipped"
}

func (e *BadRecordsError) Error() string { return english.Count(e.N, e.Singular, e.Plural) }

// Count is how many of one kind of problem a run had, said as Singular when N is 1 and as Plural
// otherwise ("1 bad input line skipped", "2 bad input lines skipped").
type Count struct {
	N                int
	Singular, Plural string
}

// BadRecords returns the exit error of a run that got to its end with badLines bad input lines
// skipped and the problems of its own counted, nil when all are 0: a BadRecordsError whose
// message names every kind present, counted, so that a run with two kinds of trouble does not
// say only one ("1 bad input line skipped, and 2 judgments failed (see their error fields)").
// The bad lines come first, in every command: they are the one kind all share, met as the input
// was read; the command's own kinds follow in the order given, so that one whose reason is long
// can close the line. Its N is the first kind's count.
//
// Note: it took every kind as a Count, the bad lines among them, and each command put them
// where it liked: first in qa-learncurve, last in qa-judge and qa-predict, second in qa-score.
func BadRecords(badLines int, counts ...Count) error {
	var present []Count
	for _, c := range append([]Count{skippedLines(badLines)}, counts...) {
		if c.N > 0 {
			present = append(present, c)
		}
	}
	if len(present) == 0 {
		return nil
	}
	rest := ""
	for i, c := range present[1:] {
		sep := ", "
		if i == len(present)-2 {
			sep = ", and "
		}
		rest += sep + english.Count(c.N, c.Singular, c.Plural)
	}
	return &BadRecordsError{N: present[0].N, Singular: present[0].Singular + rest, Plural: present[0].Plural + rest}
}

// skippedLines is the Count of n bad input lines skipped.
func skippedLines(n int) Count {
	return Count{N: n, Singular: "bad input line skipped", Plural: "bad input lines skipped"}
}

// ExitCode maps an error returned by an app to the process exit code.
func ExitCode(err error) int {
	var ue *UsageError
	var be *BadRecordsError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &be):
		return ExitBadRecords
	default:
		return ExitFailure
	}
}

// Interrupted is the error of a run stopped by a signal after it wrote Written records, when
// Unwritten more were finished (and paid for) but not written: output keeps input order, so a
// record finished after one still in flight is dropped with it. It unwraps to context.Canceled.
type Interrupted struct{ Written, Unwritten int }

func (e *Interrupted) Error() string {
	return fmt.Sprintf("interrupted: %s written; %d more %s finished but not written, as output keeps input order",
		english.Count(e.Written, "record", "records"), e.Unwritten, english.Form(e.Unwritten, "was", "were"))
}

func (e *Interrupted) Unwrap() error { return context.Canceled }

// Interruption returns err, a run's error, as an *Interrupted when it is an interruption that
// left some of the finished records unwritten; otherwise err itself.
func Interruption(err error, written, finished int) error {
	if errors.Is(err, context.Canceled) && finished > written {
		return &Interrupted{Written: written, Unwritten: finished - written}
	}
	return err
}

// Abandoned returns how the summary of a run that read records and finished some of them, ending
// with err, counts them once its calls in flight were abandoned (a second signal, or the finishing
// grace passing): "12 records read, 2 finished", the records read but not finished being neither
// written nor counted in the rest of the summary. It returns "" for any other end: a run that
// finished (interrupt.ErrInterrupted included) finished every record it read.
//
// Note: qa-predict alone said it, in words of its own; qa-judge's summary then counted the
// records judged alone, which read as the whole input.
func Abandoned(err error, read, finished int) string {
	if !errors.Is(err, context.Canceled) || errors.Is(err, interrupt.ErrInterrupted) || read <= finished {
		return ""
	}
	return fmt.Sprintf("%s read, %d finished", english.Count(read, "record", "records"), finished)
}

// ProgError is an error that Report prints after Prog instead of the command's name: a
// subcommand's Source names it on every bad line it skips ("qa-judge agree: stdin:2: ..."), and
// so on the one that stops the run, and Execute on every other error of a subcommand.
type ProgError struct {
	Prog string
	Err  error
}

func (e *ProgError) Error() string { return e.Err.Error() }

func (e *ProgError) Unwrap() error { return e.Err }

// Report prints err once, prefixed with the program name (a ProgError's, when err holds one),
// unless it is nil.
func Report(stderr io.Writer, prog string, err error) {
	if err == nil {
		return
	}
	var pe *ProgError
	if errors.As(err, &pe) && pe.Prog != "" {
		prog = pe.Prog
	}
	var ie *Interrupted
	if errors.Is(err, context.Canceled) && !errors.As(err, &ie) {
		fmt.Fprintf(stderr, "%s: interrupted\n", prog)
		return
	}
	fmt.Fprint(stderr, Message(prog, err))
}

// Message is the line that reports err of the program prog: `PROG: err`, and for a line longer
// than --max-line, how to raise the limit.
func Message(prog string, err error) string {
	if errors.Is(err, record.ErrLineTooLong) {
		return fmt.Sprintf("%s: %v: --max-line, or QA_MAX_LINE, raises the limit\n", prog, err)
	}
	return fmt.Sprintf("%s: %v\n", prog, err)
}
