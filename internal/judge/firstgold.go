package judge

import (
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/record"
)

// oneGold reports whether mode's prompt holds one gold answer, the record's first: LongMemEval's,
// MAGMA's and mem0's judges are given their benchmarks' one answer a question.
func oneGold(mode string) bool {
	return mode == ModeLongMemEval || mode == ModeLoCoMo || mode == ModeMem0
}

// firstGolds counts the records asked of the model by a protocol whose prompt holds one gold
// answer while they carry more, for a warning: the others are not sent. It is safe for
// concurrent use.
type firstGolds struct {
	mu    sync.Mutex
	n     int
	modes []string // the modes that left answers out, sorted
}

// note counts rec when mode, whose prompt is sent to the model, holds its first gold alone.
func (f *firstGolds) note(rec *record.Record, mode string) {
	if len(rec.Answers) < 2 || !oneGold(mode) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if i, found := slices.BinarySearch(f.modes, mode); !found {
		f.modes = slices.Insert(f.modes, i, mode)
	}
}

// warn says how many records had gold answers left out of their prompts; for a dry run (dry),
// would have.
func (f *firstGolds) warn(w io.Writer, dry bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return
	}
	held := english.Form(len(f.modes), "prompt holds", "prompts hold")
	if dry {
		held = english.Form(len(f.modes), "prompt would hold", "prompts would hold")
	}
	fmt.Fprintf(w, "qa-judge: warning: %s more than one gold answer: the %s %s the first alone, as %s questions have one (--prompt with {answers} sends them all)\n",
		english.Count(f.n, "record carries", "records carry"), english.List(f.modes), held, english.Form(len(f.modes), "its benchmark's", "their benchmarks'"))
}
