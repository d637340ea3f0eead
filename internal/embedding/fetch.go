package embedding

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Cache namespaces; bump the version when an encoding changes.
const (
	vectorNamespace = "embed.vector/v1" // a sentence embedding
	tokensNamespace = "embed.tokens/v1" // token ids, special flags and token embeddings (TEI)
)

// cacheKey is what determines an embedding. The API key is deliberately absent. BaseURL is the
// endpoint as cache.KeyEndpoint names it, so that a scheme or host written in capitals keys as
// the reply cache keys it: as the same server.
//
// PrefixSpace is set for token embeddings fetched with Config.PrefixSpace, which are another
// tokenization of the text than those fetched without: the keys of the latter are as they were.
type cacheKey struct {
	Provider    string `json:"provider"`
	BaseURL     string `json:"base_url"`
	Model       string `json:"model"`
	Text        string `json:"text"`
	PrefixSpace bool   `json:"prefix_space,omitempty"`
}

// tokens is one text's tokenisation and token embeddings.
type tokens struct {
	ids     []int
	special []bool
	vecs    [][]float32
}

// codec stores a value in the cache, and says whether a value is one a model can give.
type codec[V any] struct {
	namespace string
	encode    func(V) []byte
	decode    func([]byte) (V, error)
	check     func(V) error
	dim       func(V) int // the embedding's dimension
}

var vectorCodec = codec[[]float32]{vectorNamespace, encodeVector, decodeVector,
	func(v []float32) error { return zeroCheck([][]float32{v}) }, func(v []float32) int { return len(v) }}
var tokensCodec = codec[tokens]{tokensNamespace, encodeTokens, decodeTokens,
	func(t tokens) error { return zeroCheck(t.vecs) }, func(t tokens) int { return dimOf(t.vecs) }}

var errZeroVector = errors.New("a zero vector (no direction to compare)")

// zeroCheck refuses a text's embedding that is all zero (for token embeddings, every token's
// vector). A real model gives no text it was sent a zero embedding: a failing server does, for one
// text or for all, and scoring it 0 would pass the failure off as a score. One zero token vector
// among others (a fixture's special token, say) is left to metric.Cosine, which scores it 0.
func zeroCheck(vecs [][]float32) error {
	some := false
	for _, vec := range vecs {
		for _, x := range vec {
			if x != 0 {
				return nil
			}
			some = true
		}
	}
	if some {
		return errZeroVector
	}
	return nil
}

// oneDim checks that the values of one reply share one dimension.
func oneDim[V any](vs []V, dim func(V) int) error {
	for i := 1; i < len(vs); i++ {
		if a, b := dim(vs[0]), dim(vs[i]); a != b {
			return fmt.Errorf("embeddings of dimensions %d and %d in one reply", min(a, b), max(a, b))
		}
	}
	return nil
}

// fetch returns the value of every distinct non-blank text in texts, from the cache when it holds
// it and otherwise from call, in requests of at most Batch texts (for OpenAI at most
// MaxOpenAIInputs), Parallel at a time, and the error of each text the server refused on its own
// (see fetcher.request), in this call or an earlier one of the Scorer's (such a text is not asked
// for again): the others' values are fetched all the same. Each fetched
// value is stored before fetch returns, even if ctx is cancelled meanwhile; one that c.check
// refuses is not stored (so a rerun asks again) and makes fetch fail, and a cached one it refuses
// is fetched again. A failed request makes
// fetch return its error once the requests in flight have ended, and no new request is made; the
// ones in flight are not cancelled, so what they fetched (and was paid for) is stored, and a
// finishing run (internal/interrupt) keeps its calls in flight as qa-predict's do.
//
// With a cache, each request's texts are claimed in the cache file first (cache.Cache.Claim):
// a text whose call another process is making is left out of the request and waited for once
// the requests are made, to be answered by the other process's value, or asked for in a request
// of its own if that process let it go unstored. Processes sharing a cache so ask for each text
// once between them, as qa-predict's calls are asked once.
func fetch[V any](ctx context.Context, s *Scorer, texts []string, c codec[V],
	call func(context.Context, []string) ([]V, error)) (map[string]V, map[string]error, error) {
	got, keys, miss, err := lookup(ctx, s, texts, c)
	if err != nil {
		return nil, nil, err
	}
	f := &fetcher[V]{s: s, c: c, call: call, keys: keys, got: got, refused: map[string]error{}, text: make(map[string]string, len(keys))}
	for t, key := range keys {
		f.text[key] = t
	}
	miss = f.state().known(miss, f.refused)
	if err := f.run(ctx, miss, nil); err != nil {
		return nil, nil, err
	}
	for len(f.others) > 0 {
		stored, h, others, err := s.cfg.Cache.Await(ctx, f.others, f.answers)
		if err != nil {
			return nil, nil, err
		}
		// h counts as a reply to store until its claims are let go (see cache.Cache.Claim).
		f.others = others
		f.takeStored(stored)
		err = f.run(ctx, f.texts(h.Keys()), h)
		h.Release(ctx) // the claims of requests that failed or were not made
		if err != nil {
			return nil, nil, err
		}
	}
	return got, f.refused, nil
}

// fetcher is one fetch's state.
type fetcher[V any] struct {
	s    *Scorer
	c    codec[V]
	call func(context.Context, []string) ([]V, error)
	keys map[string]string // each text's cache key
	text map[string]string // each key's text

	mu      sync.Mutex
	got     map[string]V     // each text's value
	refused map[string]error // each text the server refused on its own, and its error
	others  []string         // the keys whose calls other processes were making, to wait for
	failed  atomic.Bool      // a request of the run failed: no new one is made
}

// errAbandoned ends the asking apart of a refused request's texts once another request failed.
var errAbandoned = errors.New("abandoned after another request failed")

// run fetches the values of todo in requests of at most perRequest texts, Parallel at a time.
// With a cache and no claims (h nil), it claims each request's texts before it makes it, and
// leaves those other processes claim to f.others; with h, todo's texts are h's already.
func (f *fetcher[V]) run(ctx context.Context, todo []string, h *cache.Claims) error {
	per := f.s.perRequest
	var g errgroup.Group
	g.SetLimit(f.s.cfg.Parallel)
	failed := &f.failed
	for b := 0; b < len(todo); b += per {
		batch := todo[b:min(b+per, len(todo))]
		g.Go(func() error {
			if failed.Load() {
				return nil // after a failure no new call is made
			}
			if f.s.cfg.Cache != nil {
				defer interrupt.Storing(ctx)() // until what it fetched is stored
			}
			batch, bh, err := f.claim(ctx, batch, h)
			if err != nil {
				failed.Store(true)
				return err
			}
			if len(batch) == 0 {
				return nil // every text stored, or claimed by another process, meanwhile
			}
			if h == nil && bh != nil {
				defer bh.Release(ctx)
			}
			if err := f.request(ctx, batch, bh); errors.Is(err, errAbandoned) {
				return nil // another request failed: its error is fetch's
			} else if err != nil {
				failed.Store(true)
				if bh != nil { // let the request's texts go now, not once the others end
					bh.ReleaseKeys(ctx, f.keysOf(batch))
				}
				return err
			}
			return nil
		})
	}
	return g.Wait()
}

// request fetches the values of batch in one request. When the server refuses it for what it
// holds (refusal: a 400, such as OpenAI's for a text over the model's context) and it holds more
// than one text, its halves are asked for apart, and theirs, down to single texts: a text the
// server refuses on its own is left in f.refused with its error, and the others are fetched. A
// request of three texts or more whose halves are both refused with the whole's very message, and
// whose first text is refused alone with it too, is refused as a request (a model that serves no
// embeddings, a parameter the server does not take): that is the error, after at most four
// requests, not one per text; so is one whose texts, asked for alone, are refused with one
// message while no request was served (refusalState.alone), and, while none is, any request
// refused as such a one was (refusalState.every) and whose first text alone is too: its texts are
// asked for apart once that one is served (a server whose refusal of a text over the model's
// context names no text, and the run's first texts over it). (A server whose refusal names no text, with
// refused texts in both halves, the first among them, so fails the request whole.)
func (f *fetcher[V]) request(ctx context.Context, batch []string, bh *cache.Claims) error {
	err := f.ask(ctx, batch, bh)
	if f.state().every(err) {
		// Refused as every request so far was: its first text alone tells whether the server
		// serves a text at all, before its texts are asked for apart.
		if len(batch) == 1 {
			return err
		}
		e := f.ask(ctx, batch[:1], bh)
		if same(err, e) {
			return err
		}
		if err := f.refuse(ctx, batch[:1], bh, e); err != nil {
			return err
		}
	}
	if refusal(err) == nil || len(batch) == 1 {
		return f.refuse(ctx, batch, bh, err)
	}
	mid := len(batch) / 2
	halves := [2][]string{batch[:mid], batch[mid:]}
	var errs [2]error
	for i, half := range halves {
		if errs[i] = f.ask(ctx, half, bh); errs[i] != nil && refusal(errs[i]) == nil {
			return errs[i]
		}
	}
	if len(batch) > 2 && same(err, errs[0]) && same(err, errs[1]) {
		e := errs[0] // the first text's alone, when it is the first half
		if len(halves[0]) > 1 {
			e = f.ask(ctx, batch[:1], bh)
		}
		if same(err, e) {
			f.state().refusedWhole(err)
			return err // the request is refused, not a text of it
		}
		if err := f.refuse(ctx, batch[:1], bh, e); err != nil {
			return err
		}
	}
	for i, half := range halves {
		if errs[i] == nil {
			continue
		}
		if err := f.split(ctx, half, bh, errs[i]); err != nil {
			return err
		}
	}
	return nil
}

// split asks for the texts of batch, which the server refused with err, in halves, and theirs,
// down to single texts, which it leaves in f.refused when the server refuses them alone.
func (f *fetcher[V]) split(ctx context.Context, batch []string, bh *cache.Claims, err error) error {
	if left := f.missing(batch); len(left) < len(batch) {
		// Some were fetched or refused since: err is no answer to the others.
		if len(left) == 0 {
			return nil
		}
		batch, err = left, f.ask(ctx, left, bh)
	}
	if len(batch) == 1 || refusal(err) == nil {
		return f.refuse(ctx, batch, bh, err)
	}
	mid := len(batch) / 2
	for _, half := range [2][]string{batch[:mid], batch[mid:]} {
		if err := f.split(ctx, half, bh, f.ask(ctx, half, bh)); err != nil {
			return err
		}
	}
	return nil
}

// ask fetches the values of those texts of batch that f has none of yet, in one request.
func (f *fetcher[V]) ask(ctx context.Context, batch []string, bh *cache.Claims) error {
	batch = f.missing(batch)
	if len(batch) == 0 {
		return nil
	}
	if f.failed.Load() {
		return errAbandoned
	}
	vs, err := fetchBatch(ctx, f.s, batch, f.keys, f.c, f.call, bh)
	if err != nil {
		return err
	}
	f.state().served()
	f.mu.Lock()
	for i, v := range vs {
		f.got[batch[i]] = v
	}
	f.mu.Unlock()
	return nil
}

// missing returns the texts of batch that f has neither a value of nor a refusal.
func (f *fetcher[V]) missing(batch []string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, t := range batch {
		_, got := f.got[t]
		_, refused := f.refused[t]
		if !got && !refused {
			out = append(out, t)
		}
	}
	return out
}

// refuse returns err, unless it is the server's refusal of batch, a single text: that is left in
// f.refused, and in the Scorer's refusal state for later calls, and its claim in bh let go at
// once, as a failed request's are.
func (f *fetcher[V]) refuse(ctx context.Context, batch []string, bh *cache.Claims, err error) error {
	if err == nil || refusal(err) == nil || len(batch) != 1 {
		return err
	}
	if f.state().alone(batch[0], err) {
		return err // the request is refused, not the text
	}
	f.state().remember(batch[0], err)
	f.mu.Lock()
	f.refused[batch[0]] = err
	f.mu.Unlock()
	if bh != nil {
		bh.ReleaseKeys(ctx, f.keysOf(batch))
	}
	return nil
}

// refusalState is what a Scorer's requests of one kind (a cache namespace: sbert's, or
// bertscore's) told of the server's refusals: whether any was served, the first text refused
// alone while none was, the refusal found to be of the request rather than of a text of it, and
// the texts refused on their own, which no later request of the run asks for again.
type refusalState struct {
	mu     sync.Mutex
	ok     bool             // a request was served
	lone   *statusError     // while none was served: the refusal of the first text refused alone
	loneOf string           // that text
	whole  *statusError     // while none was served: a refusal found to be the request's
	texts  map[string]error // each text refused on its own, and its refusal
}

// remember notes that the server refused text on its own with err.
func (st *refusalState) remember(text string, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.whole != nil && same(st.whole, err) {
		return // found the request's meanwhile
	}
	if st.texts == nil {
		st.texts = map[string]error{}
	}
	st.texts[text] = err
}

// known returns the texts of todo not refused on their own earlier in the run, and leaves
// those that were in refused with their refusal: a text over the model's context is asked for
// alone once a run, not again by every later batch that holds it.
func (st *refusalState) known(todo []string, refused map[string]error) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.texts) == 0 {
		return todo
	}
	var out []string
	for _, t := range todo {
		if err, ok := st.texts[t]; ok {
			refused[t] = err
			continue
		}
		out = append(out, t)
	}
	return out
}

// found sets whole, the refusal found to be the request's, and forgets the texts remembered as
// refused on their own with it: the refusal was none of theirs.
func (st *refusalState) found(whole *statusError) {
	st.whole = whole
	for t, err := range st.texts {
		if same(whole, err) {
			delete(st.texts, t)
		}
	}
}

// state returns the refusal state of f's kind of request.
func (f *fetcher[V]) state() *refusalState {
	f.s.refMu.Lock()
	defer f.s.refMu.Unlock()
	if f.s.refs == nil {
		f.s.refs = map[string]*refusalState{}
	}
	st := f.s.refs[f.c.namespace]
	if st == nil {
		st = &refusalState{}
		f.s.refs[f.c.namespace] = st
	}
	return st
}

func (st *refusalState) served() {
	st.mu.Lock()
	st.ok = true
	st.mu.Unlock()
}

func (st *refusalState) refusedWhole(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.ok {
		st.found(refusal(err))
	}
}

// every reports whether err is the refusal found to be the request's, while no request was
// served: a server that refuses every request so (a model that serves no embeddings, a
// parameter it does not take), whose texts are not asked for apart again unless its first text
// alone is served.
func (st *refusalState) every(err error) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return !st.ok && st.whole != nil && same(st.whole, err)
}

// alone notes that the server refused text, asked for alone, with err, and reports whether that
// is the request's refusal rather than the text's: no request was served, and another text was
// refused alone with the very same status and message (the refusal then found the request's).
// One request a text (--embed-batch 1), or two texts a request, so fails the call, as three or
// more do by their halves (see fetcher.request), not one request per text of the run.
func (st *refusalState) alone(text string, err error) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ok {
		return false
	}
	r := refusal(err)
	if st.whole != nil && *st.whole == *r {
		return true
	}
	if st.lone != nil && *st.lone == *r && st.loneOf != text {
		st.found(r)
		return true
	}
	if st.lone == nil {
		st.lone, st.loneOf = r, text
	}
	return false
}

// same reports whether a and b are refusals with one status and message.
func same(a, b error) bool {
	ra, rb := refusal(a), refusal(b)
	return ra != nil && rb != nil && *ra == *rb
}

// claim returns the texts of batch to ask for, and their claims: with h, or with no cache, batch
// and h as they are; else those of batch's texts it claims, the values of those another process
// stored meanwhile taken, and those another process claims left to f.others.
func (f *fetcher[V]) claim(ctx context.Context, batch []string, h *cache.Claims) ([]string, *cache.Claims, error) {
	if h != nil || f.s.cfg.Cache == nil {
		return batch, h, nil
	}
	stored, h, others, err := f.s.cfg.Cache.Claim(ctx, f.keysOf(batch), f.answers)
	if err != nil {
		return nil, nil, err
	}
	f.takeStored(stored)
	f.mu.Lock()
	f.others = append(f.others, others...)
	f.mu.Unlock()
	return f.texts(h.Keys()), h, nil
}

// answers says whether a stored value answers its text: one that does not decode, or that
// c.check refuses, is asked for again.
func (f *fetcher[V]) answers(b []byte) bool {
	v, err := f.c.decode(b)
	return err == nil && f.c.check(v) == nil
}

// takeStored takes the values other processes stored, by key, as answered from the cache.
func (f *fetcher[V]) takeStored(stored map[string][]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, b := range stored {
		v, _ := f.c.decode(b) // answers took it
		f.got[f.text[key]] = v
		f.s.hits.Add(1)
	}
}

// keysOf returns the keys of texts.
func (f *fetcher[V]) keysOf(texts []string) []string {
	keys := make([]string, len(texts))
	for i, t := range texts {
		keys[i] = f.keys[t]
	}
	return keys
}

// texts returns the texts of keys.
func (f *fetcher[V]) texts(keys []string) []string {
	texts := make([]string, len(keys))
	for i, key := range keys {
		texts[i] = f.text[key]
	}
	return texts
}

// blank reports whether t is empty or white space only (as Python's str.strip takes it): such a
// text is never sent, as servers refuse it (OpenAI answers 400), and counts as no text.
func blank(t string) bool { return textnorm.Strip(t) == "" }

// lookup returns the cached value of each distinct non-blank text in texts (got), every such
// text's cache key (keys), and the texts the cache does not hold, in order (miss).
func lookup[V any](ctx context.Context, s *Scorer, texts []string, c codec[V]) (got map[string]V, keys map[string]string, miss []string, err error) {
	got = make(map[string]V)
	keys = make(map[string]string)
	base := cache.KeyEndpoint(s.cfg.Provider, s.base)
	prefix := c.namespace == tokensNamespace && s.cfg.PrefixSpace // sent so (tokenEmbeddings)
	for _, t := range texts {
		if _, seen := keys[t]; seen || blank(t) {
			continue
		}
		key, err := cache.Key(c.namespace, cacheKey{s.cfg.Provider, base, s.cfg.Model, t, prefix})
		if err != nil {
			return nil, nil, nil, err
		}
		keys[t] = key
		if v, ok, err := cached(ctx, s, key, c); err != nil {
			return nil, nil, nil, err
		} else if ok {
			got[t] = v
			continue
		}
		miss = append(miss, t)
	}
	return got, keys, miss, nil
}

// fetchBatch asks call for the values of batch, one request, counts it, and stores the values
// under their keys in keys (storeBatch). It fails on a failed call, a reply whose values differ
// in dimension (none of it stored), a value c.check refuses or a failed store.
func fetchBatch[V any](ctx context.Context, s *Scorer, batch []string, keys map[string]string, c codec[V],
	call func(context.Context, []string) ([]V, error), h *cache.Claims) ([]V, error) {
	vs, err := call(ctx, batch)
	if model.NotMade(err) { // the transport did not make the call: no batch was sent
		s.notSent.Add(1)
	} else {
		s.requests.Add(1)
		s.texts.Add(int64(len(batch)))
	}
	if err != nil {
		return nil, err
	}
	// A reply whose embeddings differ in dimension holds some of another model, or none
	// of the model's: none of it is stored, so that a rerun asks for the batch again
	// instead of failing on the cached vectors for good.
	if err := oneDim(vs, c.dim); err != nil {
		return nil, fmt.Errorf("the server returned %w: a failing or misconfigured model?", err)
	}
	if err := storeBatch(ctx, s, batch, vs, keys, c, h); err != nil {
		return nil, err
	}
	return vs, nil
}

// storeBatch stores each of vs, the values of batch, that c.check takes, even if ctx is
// cancelled; a failed store stops it. The first value c.check refuses is its error, once the
// others are stored.
func storeBatch[V any](ctx context.Context, s *Scorer, batch []string, vs []V, keys map[string]string, c codec[V], h *cache.Claims) error {
	var bad error
	for i, v := range vs {
		if err := c.check(v); err != nil {
			if bad == nil {
				bad = fmt.Errorf("the server returned %w for %s: a failing or misconfigured model?", err, quoteShort(batch[i]))
			}
			continue
		}
		if err := s.store(context.WithoutCancel(ctx), keys[batch[i]], c.encode(v), h); err != nil {
			return err
		}
	}
	return bad
}

// cached returns the value stored under key, if the Scorer has a cache and it holds one. An entry
// that does not decode is an error rather than a miss: it means a bug or a corrupted file.
func cached[V any](ctx context.Context, s *Scorer, key string, c codec[V]) (V, bool, error) {
	var zero V
	if s.cfg.Cache == nil {
		return zero, false, nil
	}
	b, ok, err := s.cfg.Cache.Get(ctx, key)
	if err != nil || !ok {
		return zero, false, err
	}
	v, err := c.decode(b)
	if err != nil {
		return zero, false, fmt.Errorf("cache entry %s: %w", key[:12], err)
	}
	if c.check(v) != nil {
		return zero, false, nil // stored by an earlier version: asked for again
	}
	s.hits.Add(1)
	return v, true, nil
}

// store stores value under key, letting the key's claim in h go if h has one.
func (s *Scorer) store(ctx context.Context, key string, value []byte, h *cache.Claims) error {
	switch {
	case h != nil:
		return h.Store(ctx, key, value)
	case s.cfg.Cache != nil:
		return s.cfg.Cache.Put(ctx, key, value)
	}
	return nil
}

// A vector is stored as its float32 components, little-endian.
func encodeVector(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 || len(b) == 0 {
		return nil, fmt.Errorf("vector of %s", english.Count(len(b), "byte", "bytes"))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Tokens are stored as uvarint n and dim, then n × (uvarint id, special byte), then n×dim float32.
func encodeTokens(t tokens) []byte {
	dim := 0
	if len(t.vecs) > 0 {
		dim = len(t.vecs[0])
	}
	b := binary.AppendUvarint(nil, uint64(len(t.ids)))
	b = binary.AppendUvarint(b, uint64(dim))
	for i, id := range t.ids {
		b = binary.AppendUvarint(b, uint64(id))
		b = append(b, boolByte(t.special[i]))
	}
	for _, v := range t.vecs {
		b = append(b, encodeVector(v)...)
	}
	return b
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}

var errTokensEntry = errors.New("malformed token-embedding entry")

func decodeTokens(b []byte) (tokens, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return tokens{}, errTokensEntry
	}
	b = b[k:]
	dim, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) || (n > 0 && dim == 0) || dim > uint64(len(b)) {
		return tokens{}, errTokensEntry
	}
	b = b[k:]
	t := tokens{ids: make([]int, n), special: make([]bool, n), vecs: make([][]float32, n)}
	for i := range t.ids {
		id, k := binary.Uvarint(b)
		if k <= 0 || len(b) < k+1 || id > math.MaxInt32 || b[k] > 1 {
			return tokens{}, errTokensEntry
		}
		t.ids[i], t.special[i] = int(id), b[k] == 1
		b = b[k+1:]
	}
	if uint64(len(b)) != n*dim*4 {
		return tokens{}, errTokensEntry
	}
	for i := range t.vecs {
		t.vecs[i], _ = decodeVector(b[:4*dim])
		b = b[4*dim:]
	}
	return t, nil
}

// quoteShort quotes the first 40 characters of t.
func quoteShort(t string) string {
	if r := []rune(t); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "…"
	}
	return strconv.Quote(t)
}
