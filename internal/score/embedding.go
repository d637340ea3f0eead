package score

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/embedding"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/record"
)

// The embedding metrics are per-record scores, but their embeddings are fetched for many records
// at once: the workers score everything else and leave these slots empty; the ordered emit stage
// gathers --embed-batch results, fills the slots with one embed call per metric, then encodes and
// writes the records in input order. Memory is bounded by the batch (plus the stream's window).

func embedFamilies() []*family {
	return []*family{
		{names: []string{"sbert"}, heavy: true, batched: true, applies: (*item).hasReference,
			about: "cosine of the prediction's and the best answer's sentence embeddings (--embed-*)"},
		{names: []string{"bertscore_p", "bertscore_r", "bertscore_f1"}, heavy: true, batched: true, applies: (*item).hasReference,
			about: "BERTScore P/R/F1: greedy cosine matching of TEI token embeddings, best over answers (--idf, --baseline)"},
	}
}

// embedStage computes the embedding metrics for batches of results.
type embedStage struct {
	scorer *embedding.Scorer
	cache  *cache.Cache
	batch  int
	// slots of sbert, bertscore_p, _r, _f1 in the value vector, -1 when not selected.
	sbert, bp, br, bf int
	opts              embedding.BERTOptions
	idf               bool
	facts             bool // selection.readsFacts: the first pass reads a line as the scoring pass does
	// idfErr is why the --idf table could not be made: every record's bertscore_* then fails
	// with it, as after a failed call, while the other metrics are scored and written.
	idfErr error
}

// embedMetrics returns the embed package's names of the selected embedding metrics.
func (sel *selection) embedMetrics() []string {
	var m []string
	if sel.index("sbert") >= 0 {
		m = append(m, embedding.SBERT)
	}
	if sel.index("bertscore_p") >= 0 || sel.index("bertscore_r") >= 0 || sel.index("bertscore_f1") >= 0 {
		m = append(m, embedding.BERTScore)
	}
	return m
}

// apiKey is the embedding endpoint's key: read from file (trimmed) as qa-predict reads
// --api-key-file's (model.APIKey), a usage error when it cannot be; else QA_EMBED_API_KEY, else
// the provider's usual variable.
func apiKey(provider, file string) (string, error) {
	if file != "" {
		key, err := model.APIKey(provider, file, os.Getenv)
		if err != nil {
			return "", command.Usagef("--embed-api-key-file: %v", err)
		}
		return key, nil
	}
	if k := os.Getenv("QA_EMBED_API_KEY"); k != "" {
		return k, nil
	}
	if provider == embedding.OpenAI {
		return os.Getenv("OPENAI_API_KEY"), nil
	}
	return "", nil
}

// newEmbedStage validates the --embed-* flags (a usage error naming them when the endpoint is not
// configured) and opens the cache. It returns nil when no embedding metric is selected.
func newEmbedStage(sel *selection, ec embedding.Config, cachePath, baseline string, idf bool, inputs []string) (*embedStage, error) {
	metrics := sel.embedMetrics()
	if len(metrics) == 0 {
		return nil, nil
	}
	if err := ec.Validate(metrics...); errors.Is(err, embedding.ErrNeedTEI) {
		return nil, command.Usagef("--metrics: %v", err) // "bertscore needs …": named once
	} else if err != nil {
		return nil, command.Usagef("--metrics %s: %v", strings.Join(metrics, ","), err)
	}
	st := &embedStage{batch: max(ec.Batch, 1), sbert: sel.index("sbert"), bp: sel.index("bertscore_p"),
		br: sel.index("bertscore_r"), bf: sel.index("bertscore_f1"), idf: idf, facts: sel.readsFacts()}
	if baseline != "" {
		b, err := parseBaseline(baseline)
		if err != nil {
			return nil, command.Usagef("%v", err)
		}
		st.opts.Baseline = &b
	}
	if idf {
		if err := rereadable(inputs); err != nil {
			return nil, err
		}
	}
	if cachePath != "" {
		c, err := cache.Open(cachePath)
		if err != nil {
			return nil, command.FlagFile("--cache", err)
		}
		ec.Cache, st.cache = c, c
	}
	sc, err := embedding.NewScorer(ec)
	if err != nil {
		st.close()
		return nil, command.Usagef("%v", err)
	}
	st.scorer = sc
	return st, nil
}

// rereadable reports, as a usage error, an input that --idf cannot read twice: stdin, or a file
// that is not a regular one (a pipe such as /dev/stdin or <(…), a device), whose second reading
// would find nothing and leave every record unscored and unwritten without a word.
func rereadable(inputs []string) error {
	if len(inputs) == 0 || slices.Contains(inputs, "-") {
		return command.Usagef("--idf: reads the inputs twice (references first), so give them as files, not stdin")
	}
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			continue // reported when the input is opened
		}
		if !fi.Mode().IsRegular() {
			return command.Usagef("--idf: reads the inputs twice (references first), so give them as regular files: %s is not one (a pipe or device reads once)", in)
		}
	}
	return nil
}

func (st *embedStage) close() error {
	if st == nil || st.cache == nil {
		return nil
	}
	return st.cache.Close()
}

// prepare computes the idf table for --idf from the references of every record that will be
// scored, in a first pass over the input files (only the answers are kept): not those of a record
// sc fails (a failed prediction, or judgment with judge_score selected), whose bertscore_* are
// not computed, as bert_score counts the references of the pairs it scores.
func (st *embedStage) prepare(ctx context.Context, inputs []string, maxLine int, sc *scorer) error {
	if !st.idf || st.bp < 0 && st.br < 0 && st.bf < 0 {
		return nil
	}
	var refs [][]string
	var where []string // each of refs' record, as a bad line is named
	err := command.OpenInputs(inputs, nil, nil, func(in command.Input) error {
		rd := record.NewReader(in.R, in.DisplayName())
		if maxLine > 0 {
			rd.SetMaxLine(maxLine)
		}
		for {
			data, err := rd.ReadRaw()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				continue // reported by the scoring pass
			}
			rec, bad := decodeView(line{file: in.DisplayName(), no: rd.Line(), data: data, unended: rd.Unended()}, st.facts)
			if bad == nil && !sc.failedRecord(rec) && referenceItem(rec).hasReference() {
				refs = append(refs, rec.Answers)
				where = append(where, fmt.Sprintf("%s:%d (id %q)", in.DisplayName(), rd.Line(), rec.ID))
			}
		}
	})
	if err != nil {
		return fmt.Errorf("idf: %w", err)
	}
	idf, err := st.scorer.IDF(ctx, refs)
	if re, ok := errors.AsType[*embedding.IDFRefusedError](err); ok && re.Record >= 0 {
		re.Where = where[re.Record] // the record to look at, as the table is every record's
	}
	if err != nil {
		// As a failed (or, when finishing, refused) call leaves its batch without embedding
		// scores, a table that cannot be made leaves every record without bertscore_*: the
		// records are still scored otherwise and written, and the run exits 3 (or 130).
		st.idfErr = err // "idf: …": the records' line names bertscore_* already
		return nil
	}
	st.opts.IDF = idf
	return nil
}

// fill computes the embedding metrics of the results that take them and returns one message per
// failed call, or per record whose texts the server refused on their own. A result whose call
// (sbert's, or bertscore's) failed, or whose prediction or answer that call's server refused,
// gets none of that call's scores, keeps the other's, and is marked embedFailed.
func (st *embedStage) fill(ctx context.Context, rs []result) []string {
	b := embedBatchOf(rs)
	if len(b.idx) == 0 {
		return nil
	}
	if st.sbert >= 0 {
		st.failed(b, st.fillSBERT(ctx, b), []embedSlot{{st.sbert, "sbert"}})
	}
	if st.bp >= 0 || st.br >= 0 || st.bf >= 0 {
		st.failed(b, st.fillBERTScore(ctx, b), []embedSlot{{st.bp, "bertscore_p"}, {st.br, "bertscore_r"}, {st.bf, "bertscore_f1"}})
	}
	return b.msgs
}

// embedBatch is what fill works on: the results, the places among them of those that take the
// embedding metrics with their predictions and references, and the messages of the failed calls.
type embedBatch struct {
	rs    []result
	idx   []int
	preds []string
	refs  [][]string
	msgs  []string
}

// embedBatchOf picks the results of rs that take the embedding metrics.
func embedBatchOf(rs []result) *embedBatch {
	b := &embedBatch{rs: rs}
	for i, r := range rs {
		if r.bad != nil || r.o.failed || !referenceItem(r.rec).hasReference() {
			continue // the embedding families apply as the other reference metrics do
		}
		b.idx = append(b.idx, i)
		b.preds = append(b.preds, r.rec.Prediction.Text)
		b.refs = append(b.refs, r.rec.Answers)
	}
	return b
}

// fillSBERT sets the sbert score of b's records, and returns the error of the failed call, or
// the embedding.RefusedError of the records whose texts the server refused (their scores NaN).
func (st *embedStage) fillSBERT(ctx context.Context, b *embedBatch) error {
	vals, err := st.scorer.SBERT(ctx, b.preds, b.refs)
	if vals == nil {
		return err
	}
	for j, i := range b.idx { // with a RefusedError, the others' (failed leaves the refused out)
		b.rs[i].o.vals[st.sbert] = vals[j]
	}
	return err
}

// fillBERTScore sets the selected bertscore_* of b's records, or returns the error of the failed
// call (or of the idf table, which leaves every record without them).
func (st *embedStage) fillBERTScore(ctx context.Context, b *embedBatch) error {
	prfs, err := []metric.PRF(nil), st.idfErr
	if err == nil {
		prfs, err = st.scorer.BERTScore(ctx, b.preds, b.refs, st.opts)
	}
	if prfs == nil {
		return err
	}
	for j, i := range b.idx { // with a RefusedError, the others' (failed leaves the refused out)
		setSlot(b.rs[i].o.vals, st.bp, prfs[j].Precision)
		setSlot(b.rs[i].o.vals, st.br, prfs[j].Recall)
		setSlot(b.rs[i].o.vals, st.bf, prfs[j].F1)
	}
	return err
}

// failed leaves out of b's records the selected metrics (slots) of a call that ended with err
// (nil: none): of every record, or, when the server refused texts of the call on their own
// (embedding.RefusedError: one over the model's context), of the records they belong to only,
// each named with its own error, the others scored.
//
// Note: a call's failure left the records without the other call's scores too (all or none),
// though they were computed: a server that could not tokenize for bertscore lost every sbert
// score, each with bertscore's error.
func (st *embedStage) failed(b *embedBatch, err error, slots []embedSlot) {
	if err == nil {
		return
	}
	if re, ok := errors.AsType[*embedding.RefusedError](err); ok {
		for _, j := range slices.Sorted(maps.Keys(re.Refused)) {
			st.leaveOut(b, b.idx[j:j+1], re.Refused[j], slots)
		}
		return
	}
	st.leaveOut(b, b.idx, err, slots)
}

// leaveOut leaves the selected metrics (slots) out of the records of b at idx, each saying why
// (err) in its score_errors, and says which metrics they lack, and why, in b's messages.
func (st *embedStage) leaveOut(b *embedBatch, idx []int, err error, slots []embedSlot) {
	var lack []string
	msg := st.recordMessage(err)
	for _, m := range slots {
		if m.k < 0 {
			continue
		}
		lack = append(lack, m.name)
		for _, i := range idx {
			b.rs[i].o.vals[m.k] = math.NaN()
			b.rs[i].o.setError(m.name, msg)
		}
	}
	b.msgs = append(b.msgs, fmt.Sprintf("%s: %s without %s: %v", span(b.rs, idx), english.Count(len(idx), "record", "records"), strings.Join(lack, ", "), err))
	for _, i := range idx {
		b.rs[i].o.embedFailed = true
	}
}

// embedSlot is an embedding metric's slot in a record's values (-1 when not selected) and its name.
type embedSlot struct {
	k    int
	name string
}

// recordMessage is the message a record's score_errors keeps for a failed embedding call: the
// error (which internal/embedding words without the API key or a password in the URL), at most
// maxRecordMessage bytes.
func (st *embedStage) recordMessage(err error) string {
	what := "embedding call failed: "
	if model.NotMade(err) {
		what = "embedding call not made: "
	}
	return what + english.Clip(err.Error(), maxRecordMessage)
}

// maxRecordMessage bounds the message of a failed call written into a record (stderr has it
// whole): the server's reply in it is cut at 300 bytes already.
const maxRecordMessage = 400

func setSlot(vals []float64, k int, v float64) {
	if k >= 0 {
		vals[k] = v
	}
}

// span names the lines of a batch and its first and last record ids, as a bad line is named
// (`preds.jsonl:42 (id "q-17")`): `preds.jsonl:3-34 (ids "q3" … "q34")`, or `preds.jsonl:3 (id
// "q3")` for one record.
func span(rs []result, idx []int) string {
	a, b := rs[idx[0]], rs[idx[len(idx)-1]]
	first, last := a.l, b.l
	if len(idx) == 1 {
		return fmt.Sprintf("%s:%d (id %q)", first.file, first.no, a.rec.ID)
	}
	ids := fmt.Sprintf("(ids %q … %q)", a.rec.ID, b.rec.ID)
	if first.file != last.file {
		return fmt.Sprintf("%s:%d-%s:%d %s", first.file, first.no, last.file, last.no, ids)
	}
	return fmt.Sprintf("%s:%d-%d %s", first.file, first.no, last.no, ids)
}

// stopWarning is the warning of embedding calls stopped as the server was never reached, or
// refused every call, or "".
func (st *embedStage) stopWarning() string { return st.scorer.StopWarning() }

// stats is the one-line account of the embedding work, for stderr.
func (st *embedStage) stats() string {
	s := st.scorer.Stats()
	notSent := ""
	if s.NotSent > 0 {
		notSent = fmt.Sprintf(" (%d more not sent)", s.NotSent)
	}
	return fmt.Sprintf("embeddings: %s for %s%s, %s from the cache", english.Count(int(s.Requests), "batch", "batches"),
		english.Count(int(s.Texts), "text", "texts"), notSent, english.Count(int(s.CacheHits), "text", "texts"))
}
