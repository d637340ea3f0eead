package embedding

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/pkg/metric"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// SBERT returns, for each prediction, the largest cosine similarity between its embedding and the
// embedding of each of its references (refs[i] belongs to preds[i]). Every distinct text of the
// call is embedded once, in batches. An empty text, or one of white space only, is not sent
// (servers reject it) and counts as a zero vector, so such a prediction, or one whose references
// are all such, scores 0; so does a prediction with no references. A text the server refuses on
// its own (see RefusedError) costs only its predictions their score. Its error does not name sbert: the caller names the metrics its
// records go without ("2 records without sbert: embed …").
//
// Note: SBERT and BERTScore began their errors with "sbert: " and "bertscore: ", which the
// caller's line then said twice ("2 records without sbert: sbert: embed …").
func (s *Scorer) SBERT(ctx context.Context, preds []string, refs [][]string) ([]float64, error) {
	if len(preds) != len(refs) {
		return nil, fmt.Errorf("%s but %s", english.Count(len(preds), "prediction", "predictions"), english.Count(len(refs), "reference list", "reference lists"))
	}
	vecs, refusedTexts, err := fetch(ctx, s, allTexts(preds, refs), vectorCodec, s.sentences)
	if err != nil {
		return nil, err
	}
	refused := refusals(preds, refs, refusedTexts)
	dim, err := sameDim(vecs, func(v []float32) int { return len(v) })
	if err != nil {
		return nil, err
	}
	zero := make([]float32, dim)
	vec := func(t string) []float32 {
		if v, ok := vecs[t]; ok {
			return v
		}
		return zero
	}
	out := make([]float64, len(preds))
	for i, p := range preds {
		if refused[i] != nil {
			out[i] = math.NaN()
			continue
		}
		rv := make([][]float32, len(refs[i]))
		for j, r := range refs[i] {
			rv[j] = vec(r)
		}
		out[i] = metric.MaxCosine(vec(p), rv)
	}
	return out, refused.err()
}

// BERTOptions are BERTScore's optional weighting and rescaling.
type BERTOptions struct {
	// IDF weights tokens by their inverse document frequency over the references of the whole
	// input (see Scorer.IDF); special tokens are weighted by idf too, which is 0 for [CLS] and [SEP]
	// since every reference holds them. nil weights every token 1 except special tokens (TEI's
	// "special" flag), which weigh 0 but are still matched against, as in bert_score.
	IDF *metric.IDF
	// Baseline rescales P, R and F1 as (x-b)/(1-b) after the maximum over references; nil: none.
	Baseline *metric.Baseline
}

// BERTScore returns BERTScore's precision, recall and F1 of each prediction against its references:
// the scores against each reference, combined by taking the best P, best R and best F1 separately
// (as bert_score does for several references), then rescaled when opts has a baseline. Token
// embeddings come from TEI's /embed_all. Each text is first stripped of leading and trailing
// whitespace, as bert_score's sent_encode does (Python's str.strip), so a byte-level tokenizer
// (RoBERTa's, GPT-2's) makes no token of a trailing newline; with Config.PrefixSpace it is sent
// with a space before it, as bert_score encodes it for such a tokenizer. An empty text, or one of whitespace
// only, has no tokens and scores 0, as bert_score scores an empty sentence; so does a prediction
// with no references (before rescaling). As SBERT's, its error does not name the metric.
func (s *Scorer) BERTScore(ctx context.Context, preds []string, refs [][]string, opts BERTOptions) ([]metric.PRF, error) {
	if len(preds) != len(refs) {
		return nil, fmt.Errorf("%s but %s", english.Count(len(preds), "prediction", "predictions"), english.Count(len(refs), "reference list", "reference lists"))
	}
	preds, refs = stripped(preds), strippedLists(refs)
	toks, refusedTexts, err := fetch(ctx, s, allTexts(preds, refs), tokensCodec, s.tokenEmbeddings)
	if err != nil {
		return nil, err
	}
	refused := refusals(preds, refs, refusedTexts)
	if _, err := sameDim(toks, func(t tokens) int { return dimOf(t.vecs) }); err != nil {
		return nil, err
	}
	weights := func(t tokens) []float64 {
		if opts.IDF != nil {
			return opts.IDF.Weights(t.ids)
		}
		w := make([]float64, len(t.ids))
		for i, sp := range t.special {
			if !sp {
				w[i] = 1
			}
		}
		return w
	}
	out := make([]metric.PRF, len(preds))
	for i, p := range preds {
		if refused[i] != nil {
			nan := math.NaN()
			out[i] = metric.PRF{Precision: nan, Recall: nan, F1: nan}
			continue
		}
		cand := toks[p]
		cw := weights(cand)
		per := make([]metric.PRF, len(refs[i]))
		for j, r := range refs[i] {
			ref := toks[r]
			per[j] = metric.BERTScore(cand.vecs, ref.vecs, cw, weights(ref))
		}
		out[i] = metric.MaxPRF(per)
		if opts.Baseline != nil {
			out[i] = opts.Baseline.Rescale(out[i])
		}
	}
	return out, refused.err()
}

// RefusedError is the error of SBERT and BERTScore when the server refused texts of the call on
// their own, asked for alone (a 400 such as OpenAI's for a text over the model's context): the
// scores of the other predictions are returned with it, those of the refused ones are NaN, and
// Refused holds the error of each refused prediction by its index, naming the text it was refused
// for (the prediction, or an answer).
type RefusedError struct {
	Refused map[int]error
}

func (e *RefusedError) Error() string {
	first := slices.Min(slices.Collect(maps.Keys(e.Refused)))
	if len(e.Refused) == 1 {
		return e.Refused[first].Error()
	}
	return fmt.Sprintf("%d predictions refused; the first, the call's %d: %v", len(e.Refused), first+1, e.Refused[first])
}

// refusedPreds is the error of each prediction one of whose texts the server refused.
type refusedPreds map[int]error

func (r refusedPreds) err() error {
	if len(r) == 0 {
		return nil
	}
	return &RefusedError{Refused: r}
}

// refusals returns the error of each prediction of preds whose text, or one of whose references
// (refs[i]), is in refused (the texts fetch says the server refused), naming the first such text.
func refusals(preds []string, refs [][]string, refused map[string]error) refusedPreds {
	if len(refused) == 0 {
		return nil
	}
	out := refusedPreds{}
	for i, p := range preds {
		var whats []string
		var first error
		note := func(what, t string) {
			if err, ok := refused[t]; ok {
				whats = append(whats, what)
				if first == nil {
					first = fmt.Errorf("the server refused %s %s on its own: %w", what, quoteShort(t), err)
				}
			}
		}
		note("the prediction", p)
		for j, r := range refs[i] {
			note(fmt.Sprintf("answer %d", j+1), r)
		}
		switch {
		case len(whats) > 1:
			out[i] = fmt.Errorf("%w (and %s)", first, strings.Join(whats[1:], ", "))
		case first != nil:
			out[i] = first
		}
	}
	return out
}

// IDF returns the idf table of the references of the whole input set (every list of refs, each
// reference one document, as bert_score counts the flattened reference list), from TEI's
// tokenizer. References are stripped as BERTScore strips them; an empty reference counts as a
// document holding only the special tokens the tokenizer adds to every text.
//
// The token ids come with the token embeddings (fetch stores both in the cache, so the scoring
// pass that follows finds them there): so that ids truncated as /embed_all truncates are counted.
// The references are fetched a round of Batch×Parallel texts at a time and only their ids are
// kept, so memory holds the references and their ids, never every reference's token embeddings.
func (s *Scorer) IDF(ctx context.Context, refs [][]string) (*metric.IDF, error) {
	var flat []string
	for _, rs := range refs {
		flat = append(flat, stripped(rs)...)
	}
	ids := make(map[string][]int)
	var specials []int
	round := s.cfg.Batch * s.cfg.Parallel
	for start := 0; start < len(flat); start += round {
		var todo []string
		for _, r := range flat[start:min(start+round, len(flat))] {
			if _, ok := ids[r]; !ok {
				todo = append(todo, r)
			}
		}
		toks, refused, err := fetch(ctx, s, todo, tokensCodec, s.tokenEmbeddings)
		if err != nil {
			return nil, fmt.Errorf("idf: %w", err)
		}
		for _, r := range todo {
			// The table counts every reference: without one, it is no table of the input.
			if err, ok := refused[r]; ok {
				return nil, refusedReference(refs, r, err)
			}
		}
		for r, t := range toks {
			ids[r] = t.ids
			if specials == nil {
				specials = specialIDs(t)
			}
		}
	}
	docs := make([][]int, len(flat))
	for i, r := range flat {
		if d, ok := ids[r]; ok {
			docs[i] = d
		} else {
			docs[i] = specials
		}
	}
	return metric.NewIDF(docs), nil
}

// IDFRefusedError is IDF's error when the server refused a reference on its own (asked for
// alone): the table, which counts every reference, cannot be made. Record is the index in IDF's
// refs of the first list holding the reference, Answer its index there; the caller may set Where
// to name that record (file:line and id), which the error then says with the answer's number.
type IDFRefusedError struct {
	Record, Answer int
	Text           string // the reference, stripped
	Where          string
	Err            error // the server's refusal
}

func (e *IDFRefusedError) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("idf: the server refused the answer %s on its own: %v", quoteShort(e.Text), e.Err)
	}
	return fmt.Sprintf("idf: %s: the server refused answer %d %s on its own: %v", e.Where, e.Answer+1, quoteShort(e.Text), e.Err)
}

func (e *IDFRefusedError) Unwrap() error { return e.Err }

// refusedReference is the IDFRefusedError of text, a stripped reference of refs the server
// refused with err.
func refusedReference(refs [][]string, text string, err error) error {
	for i, rs := range refs {
		for j, r := range rs {
			if textnorm.Strip(r) == text {
				return &IDFRefusedError{Record: i, Answer: j, Text: text, Err: err}
			}
		}
	}
	return &IDFRefusedError{Record: -1, Answer: -1, Text: text, Err: err} // not reached
}

// specialIDs returns the ids of t's special tokens, which the tokenizer adds to every text.
func specialIDs(t tokens) []int {
	out := []int{}
	for i, id := range t.ids {
		if t.special[i] {
			out = append(out, id)
		}
	}
	return out
}

// stripped returns texts with Python's str.strip() applied to each, as bert_score's sent_encode
// does before tokenizing.
func stripped(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = textnorm.Strip(t)
	}
	return out
}

func strippedLists(lists [][]string) [][]string {
	out := make([][]string, len(lists))
	for i, l := range lists {
		out[i] = stripped(l)
	}
	return out
}

func allTexts(preds []string, refs [][]string) []string {
	texts := append([]string(nil), preds...)
	for _, rs := range refs {
		texts = append(texts, rs...)
	}
	return texts
}

func dimOf(vecs [][]float32) int {
	if len(vecs) == 0 {
		return 0
	}
	return len(vecs[0])
}

// sameDim checks that every value has the same embedding dimension and returns it (0 for none).
func sameDim[V any](vals map[string]V, dim func(V) int) (int, error) {
	d := -1
	for _, v := range vals {
		switch n := dim(v); {
		case d < 0:
			d = n
		case n != d:
			// The smaller first: the map's order, which differs from run to run, is not the message's.
			return 0, fmt.Errorf("embeddings of dimensions %d and %d in one call (another model's vectors in the cache, or a server switching models?)", min(d, n), max(d, n))
		}
	}
	return max(d, 0), nil
}
