// Package invariants holds no code: its tests run generated records, with unknown members and odd
// JSON at every level, through qa-predict (extractive), qa-judge (rules) and qa-score in several
// orders and twice, in-process, and check the pipeline's promises: as many records out as good
// ones in, in order; every member a stage does not own kept; a rerun over a stage's own output
// changes nothing; the same output for the same input; exit codes and bad-line reports that agree
// with what happened; records already answered and judged passing qa-predict and qa-judge
// unchanged in any order, and qa-judge --force leaving under its name only its own verdicts. It
// also runs every command, qa-load and qa-learncurve too, over an input that is a tar archive,
// which each is to refuse with the one message that names it, and over an input that is the file
// its stdout appends to, which each is to refuse before writing anything.
package invariants
