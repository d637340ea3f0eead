package score

import (
	"fmt"
	"io"

	"github.com/qapipe/qapipe/internal/command"
)

// checkOutputs fails when the --summary or --mismatches file cannot be made or written: they are
// written at the end, so it is found out before any work.
func (cfg *config) checkOutputs() error {
	for _, o := range [][2]string{{"--summary", cfg.summary}, {"--mismatches", cfg.mismatches}} {
		if err := command.OutputFolder(o[0], o[1]); err != nil {
			return err
		}
		if err := command.OutputWritable(o[0], o[1]); err != nil {
			return err // written at the end: found then, the records were out
		}
	}
	return nil
}

// openOutputs opens the --summary file (not for -) and the --mismatches file as replacements of
// what is there, each nil when not asked for.
func (cfg *config) openOutputs(stdout, stderr io.Writer) (summary, mismatches *command.Replacement, err error) {
	if cfg.summary != "" && cfg.summary != "-" {
		// Opened before the work, so that a path that cannot be written fails at once, and put
		// in place only when the run gets to its end: a failed run leaves the file that was
		// there (none, or an older summary that make sees is out of date), not an empty one.
		if summary, err = command.ReplaceOutput(cfg.summary, stdout, stderr); err != nil {
			return nil, nil, fmt.Errorf("--summary: %w", err)
		}
	}
	if cfg.mismatches != "" {
		if mismatches, err = command.ReplaceOutput(cfg.mismatches, stdout, stderr); err != nil {
			if summary != nil {
				summary.Abort()
			}
			return nil, nil, fmt.Errorf("--mismatches: %w", err)
		}
	}
	return summary, mismatches, nil
}

// outputFile is an output file of a run, settled when the run ends.
type outputFile struct {
	r       *command.Replacement
	what    string // how messages name it
	release func() // stops catching a broken stdout for it
}

// guardOutputs returns the opened output files among mismatches and summary, in that order,
// catching a broken stdout while a regular file among them is unfinished.
func guardOutputs(mismatches, summary *command.Replacement) []outputFile {
	var fs []outputFile
	for _, o := range []outputFile{{r: mismatches, what: "--mismatches"}, {r: summary, what: "--summary"}} {
		if o.r == nil {
			continue
		}
		o.release = func() {}
		if o.r.Regular() {
			// A reader of the records that goes away (| head -1) would end the process at a
			// write, leaving the file unfinished: the write fails instead, and main ends the
			// process with SIGPIPE once the file is done with. (A run ended before it returns,
			// by a second interrupt while it waits on a slow input, runs no deferred call: the
			// file is aborted then too, by ReplaceOutput's own cleanup.)
			o.release = command.CatchBrokenStdout()
		}
		fs = append(fs, o)
	}
	return fs
}

// settle puts the files in place when the run finished and every one of them could be finished
// (see command.Replacement.Finish), and removes them all otherwise, so that a run that fails on
// one (a gzip file's last block refused by a full disk) leaves the others as they were too; then
// it stops catching a broken stdout for them. It returns err, or the error of finishing a file or
// putting it in place: instead of err when the run finished, err being then only its closing
// count of bad lines and failed records (exit 3), which said nothing of the files it left as
// they were, as a summary that cannot be written ends the run (exit 1) before that count.
func settle(files []outputFile, finished bool, err error) error {
	var fileErr error // the first file's that could not be finished or put in place
	ran := finished
	for _, o := range files {
		if !finished {
			break
		}
		if ferr := o.r.Finish(); ferr != nil {
			finished = false
			fileErr = fmt.Errorf("%s: %w", o.what, ferr)
		}
	}
	for _, o := range files {
		if !finished {
			o.r.Abort()
		} else if cerr := o.r.Commit(); cerr != nil {
			finished = false // those after it are removed, as it is
			fileErr = fmt.Errorf("%s: %w", o.what, cerr)
		}
		o.release()
	}
	if fileErr != nil && (err == nil || ran) {
		return fileErr
	}
	return err
}
