package predict

import (
	"context"

	"github.com/qapipe/qapipe/internal/pipeline"
	"github.com/qapipe/qapipe/internal/repeat"
	"github.com/qapipe/qapipe/pkg/record"
)

// batch is one unit of work: a record alone, the contiguous records of a sequence, or the
// contiguous records of one LoCoMo batch (locomo.go).
type batch struct {
	recs  []*record.Record
	seq   string // the sequence, "" for none
	block string // the LoCoMo batch (locomoBlock), "" for none
	// reappeared marks records of a sequence or LoCoMo batch that was already closed earlier in
	// the input.
	reappeared bool
	// index is the place of the batch's first record in the input (1, 2, …): batches are solved
	// concurrently, and a message that names the first of several names the first in the input,
	// run after run.
	index int
}

// maxClosed bounds the sequences and LoCoMo batches whose ids batches holds to find one that
// reappears.
const maxClosed = 1 << 20

// batches groups the records of src into batches (see the file comment for the rule; a LoCoMo
// batch, named by blockOf, groups as a sequence does). blockOf is nil when LoCoMo's records are
// asked one at a time. A sequence or LoCoMo batch that reappears is found among the first held
// (maxClosed in a run) that were read. When src fails (an input that cannot be read, a bad line
// under --strict), the batch still open is yielded as it stands before the error is returned: its
// records were read, and are predicted and written as every record read before the failure is.
// When yield fails (the run was cancelled, or its output failed), nothing more is yielded.
//
// Note: a map of the closed sequences' and batches' keys took some 56 bytes a LoCoMo batch, 10 MB
// more over a million LoCoMo questions asked 10 a call; the hashes take 8 to 16 bytes, up to the
// bound.
func batches(src pipeline.Source[*record.Record], blockOf func(*record.Record) string, held int) pipeline.Source[*batch] {
	return func(yield func(*batch) error) error {
		// Every key is taken in as its batch opens: one that was, and is not the open batch's
		// (whose records join it), was closed.
		opened := repeat.IDs{Max: held}
		var open *batch
		stopped := false // yield failed: the consumer takes no more batches
		key := func(b *batch) string {
			if b.seq != "" {
				return "sequence " + b.seq
			}
			return "block " + b.block
		}
		flush := func() error {
			if open == nil {
				return nil
			}
			b := open
			open = nil
			err := yield(b)
			stopped = err != nil
			return err
		}
		n := 0
		err := src(func(rec *record.Record) error {
			n++
			b := &batch{recs: []*record.Record{rec}, index: n}
			switch {
			case rec.Sequence != nil:
				b.seq = rec.Sequence.ID
			case blockOf != nil:
				b.block = blockOf(rec)
			}
			if open != nil && (b.seq != "" && b.seq == open.seq || b.block != "" && b.block == open.block) {
				open.recs = append(open.recs, rec)
				return nil
			}
			if err := flush(); err != nil {
				return err
			}
			open = b
			if b.seq == "" && b.block == "" {
				return flush()
			}
			b.reappeared = opened.Add(key(b), "", 0)
			return nil
		})
		if err != nil && stopped {
			return err
		}
		if ferr := flush(); ferr != nil {
			return ferr
		}
		return err
	}
}

// mapRecords predicts the records of src (plain records one by one, sequences as wholes) and hands
// them to sink in input order. Finished in opts is called once per record.
func (a *app) mapRecords(ctx context.Context, opts pipeline.Options, src pipeline.Source[*record.Record], sink func(*record.Record) error) error {
	finished := opts.Finished
	opts.Finished = nil
	err := pipeline.Map(ctx, opts, batches(src, a.blockOf(), maxClosed), a.solve, func(b *batch) error {
		for _, rec := range b.recs {
			if err := sink(rec); err != nil {
				return err
			}
			if finished != nil {
				finished(nil)
			}
		}
		return nil
	})
	if !a.endsAlone(err) { // as the run's own summary line
		a.seq.summary(a)
		a.seq.warnGaps(a)
	}
	return err
}
