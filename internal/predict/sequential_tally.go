package predict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// gapTally counts the sequences whose positions are not 1, 2, … without a gap: their later
// answers are asked without the missing positions in their history, which EvaLearn never does.
type gapTally struct {
	n       int
	first   string // the first such sequence in the input, with its positions
	firstAt int    // the index of its batch
}

// checkWhole counts b when it is a sequence that lacks an earlier position and asks is true for
// one of its records: one that is answered (a sequence whose records all pass through, as over a
// sample of a saved run, asks nothing without its history).
func (s *sequencer) checkWhole(b *batch, asks func(*record.Record) bool) {
	if b.seq == "" || b.reappeared || !slices.ContainsFunc(b.recs, asks) {
		return
	}
	pos := make([]int, 0, len(b.recs))
	for _, rec := range b.recs {
		if rec.Sequence.Position >= 1 { // one below 1 is an error of its own (noPosition)
			pos = append(pos, rec.Sequence.Position)
		}
	}
	if len(pos) == 0 {
		return
	}
	slices.Sort(pos)
	pos = slices.Compact(pos) // a repeated position is an error of its own
	if pos[0] == 1 && pos[len(pos)-1] == len(pos) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaps.n++; s.gaps.first == "" || b.index < s.gaps.firstAt {
		s.gaps.firstAt = b.index
		list := make([]string, len(pos))
		for i, p := range pos {
			list[i] = strconv.Itoa(p)
		}
		s.gaps.first = fmt.Sprintf("sequence %s has %s %s", b.seq, english.Form(len(list), "position", "positions"), strings.Join(list, ", "))
	}
}

// warnGaps prints the warning for the sequences checkWhole counted.
func (s *sequencer) warnGaps(a *app) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.noJudge != "" {
		fmt.Fprintf(a.stderr, "qa-predict: --judge-model is required for records with a sequence (%s, …): they were written unanswered, with that error; rerun with --judge-model and --retry-errors\n", s.noJudge)
	}
	if s.gaps.n == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "qa-predict: warning: %s earlier positions (%s): %s answers are asked without those in their history, unlike EvaLearn's runs; qa-load's --shard, --sample, --types and --limit select records, not whole sequences\n",
		english.Count(s.gaps.n, "sequence lacks", "sequences lack"), s.gaps.first, english.Form(s.gaps.n, "its", "their"))
}

// judgeTally counts the judge's verdicts for the summary line.
type judgeTally struct {
	verdicts, cached, errors int
	unpriced                 int // verdicts with usage but no known price
	usage                    record.Usage
	cost                     model.Dollars
	cachedCost               model.Dollars // the part of cost the cache served
}

// count adds a verdict to the judge tally; a failed verdict also counts in the run's, as a record
// predicted with a failed verdict.
func (s *sequencer) count(jg *record.Judgment, a *app) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tally.verdicts++
	if jg.Cached {
		s.tally.cached++
	}
	if jg.Usage != nil {
		s.tally.usage.InputTokens += jg.Usage.InputTokens
		s.tally.usage.OutputTokens += jg.Usage.OutputTokens
	}
	if jg.CostUSD != nil {
		s.tally.cost.Add(*jg.CostUSD)
		if jg.Cached {
			s.tally.cachedCost.Add(*jg.CostUSD)
		}
	} else if jg.Usage != nil {
		s.tally.unpriced++
	}
	if jg.Error != "" {
		s.tally.errors++
		a.tally.mu.Lock()
		a.tally.verdicts++
		a.tally.mu.Unlock()
	}
}

// summary prints the judge's totals to stderr when any verdict was asked for.
func (s *sequencer) summary(a *app) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tally.verdicts == 0 {
		return
	}
	s.tally.cachedCost.Add(s.judge.CachedPart()) // the cache's replies in verdicts it did not serve whole
	t := s.tally
	unpriced := ""
	if t.unpriced > 0 {
		unpriced = fmt.Sprintf(" (not counting %s: no price for %s, add it with --prices)", english.Count(t.unpriced, "verdict", "verdicts"), s.judge.Model)
	}
	if n := int(s.judge.NoUsage.Load()); n > 0 { // unknown, not 0: the totals would pass them off as free
		unpriced += fmt.Sprintf(" (not counting %s without token usage)", english.Count(n, "verdict", "verdicts"))
	}
	fmt.Fprintf(a.stderr, "qa-predict: evalearn judge %s: %s (%d cached), %s; tokens %d in, %d out; %s%s\n",
		s.judge.Model, english.Count(t.verdicts, "verdict", "verdicts"), t.cached, english.Count(t.errors, "error", "errors"),
		t.usage.InputTokens, t.usage.OutputTokens, command.CostNote(t.cost.Float64(), t.cachedCost.Float64()), unpriced)
}
