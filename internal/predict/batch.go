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
		bt := &batcher{yield: yield, blockOf: blockOf, opened: repeat.IDs{Max: held}}
		err := src(bt.add)
		if err != nil && bt.stopped {
			return err
		}
		if ferr := bt.flush(); ferr != nil {
			return ferr
		}
		return err
	}
}

// batcher is what batches keeps over one read of its source: the keys of the batches opened,
// the batch still open, whether the consumer stopped taking batches, and the records read.
type batcher struct {
	yield   func(*batch) error
	blockOf func(*record.Record) string
	// Every key is taken in as its batch opens: one that was, and is not the open batch's
	// (whose records join it), was closed.
	opened  repeat.IDs
	open    *batch
	stopped bool // yield failed: the consumer takes no more batches
	n       int
}

// key names b's sequence or LoCoMo batch among the keys opened.
func (b *batch) key() string {
	if b.seq != "" {
		return "sequence " + b.seq
	}
	return "block " + b.block
}

// flush yields the open batch, if any, and notes whether the consumer stopped.
func (bt *batcher) flush() error {
	if bt.open == nil {
		return nil
	}
	b := bt.open
	bt.open = nil
	err := bt.yield(b)
	bt.stopped = err != nil
	return err
}

// add takes in rec, the next record read: it joins the open batch when of its sequence or LoCoMo
// batch, else opens its own once the open one is yielded; a record of neither is yielded at once.
func (bt *batcher) add(rec *record.Record) error {
	bt.n++
	b := &batch{recs: []*record.Record{rec}, index: bt.n}
	switch {
	case rec.Sequence != nil:
		b.seq = rec.Sequence.ID
	case bt.blockOf != nil:
		b.block = bt.blockOf(rec)
	}
	if open := bt.open; open != nil && (b.seq != "" && b.seq == open.seq || b.block != "" && b.block == open.block) {
		open.recs = append(open.recs, rec)
		return nil
	}
	if err := bt.flush(); err != nil {
		return err
	}
	bt.open = b
	if b.seq == "" && b.block == "" {
		return bt.flush()
	}
	b.reappeared = bt.opened.Add(b.key(), "", 0)
	return nil
}

// mapRecords predicts the records of src (plain records one by one, sequences as wholes) and hands
// them to sink in input order. Finished in opts is called once per record.
func (a *app) mapRecords(ctx context.Context, opts pipeline.Options, src pipeline.Source[*record.Record], sink func(*record.Record) error) error {
	finished := opts.Finished
	opts.Finished = nil
	err := pipeline.Map(ctx, opts, batches(a.unused.see(src), a.blockOf(), maxClosed), a.solve, func(b *batch) error {
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
