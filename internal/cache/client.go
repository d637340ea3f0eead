package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Namespace is the key namespace of model replies; bump its version when Response changes meaning.
const Namespace = "model.Response/v1"

// RequestKey returns the cache key of req. Its base URL is keyed as the endpoint it names, so the
// same call made with a base URL written with or without a trailing slash, or with the provider's
// default endpoint written out or left out, finds the same reply. (A default written out keys as
// none, which keeps the keys of replies stored before this rule.) Its seed is keyed as the call
// carries it (model.Request.SentSeed): a seed of 0, or any seed to a provider that is sent none,
// makes no other key, so that an exported QA_SEED does not pay for calls already answered. A
// temperature to a model that is sent none (OpenAI's reasoning models) makes no other key either,
// nor does a context window to a provider other than Ollama (model.Request.SentNumCtx). The
// member an openai call carries its token budget in is keyed only where it departs from the one
// the base URL gets by default (model.MaxTokensFieldFor), so that replies stored before it could be
// chosen keep their keys, while a server that reads only one of the two names, and so answers
// the other with no budget, is never served the reply of the other. A budget that is the one the
// call carries without any (langchaingo's 2048 to anthropic and googleai) keys as none, as a
// default base URL does. A Gemini safety threshold keys only a googleai call, and the default
// one as none, as replies were stored before the threshold was keyed.
func RequestKey(req model.Request) (string, error) {
	req.Seed = req.SentSeed()
	req.NumCtx = req.SentNumCtx()
	if f := req.SentMaxTokensField(); f == model.MaxTokensFieldFor("", req.BaseURL) {
		req.MaxTokensField = ""
	} else {
		req.MaxTokensField = f
	}
	if req.MaxTokens == (model.Request{Provider: req.Provider}).SentMaxTokens() {
		req.MaxTokens = 0
	}
	if req.Provider != "googleai" || req.GeminiSafety == model.DefaultGeminiSafety {
		req.GeminiSafety = ""
	}
	if req.SentTemperature() == nil {
		req.Temperature = nil
	}
	if end := KeyEndpoint(req.Provider, req.BaseURL); end == KeyEndpoint(req.Provider, "") {
		req.BaseURL = ""
	} else {
		req.BaseURL = end
	}
	return Key(Namespace, req)
}

// KeyEndpoint is the endpoint a request to provider at base keys by: model.Endpoint's, its scheme
// and host in lower case, as they name the same server in any case (HTTP://127.0.0.1:8000/v1 is
// http://127.0.0.1:8000/v1), and without a query mark that asks nothing ("…/v1?"). The path keeps
// its case, which a server may tell apart. A base that does not parse as a URL with a host keys
// as it is written. qa-score's embedding keys take it too.
func KeyEndpoint(provider, base string) string {
	end := model.Endpoint(provider, base)
	u, err := url.Parse(end)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return end
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.ForceQuery = false
	return strings.TrimRight(u.String(), "/")
}

// Forget removes the reply stored for req, so that the next run asks for it again: a reply that
// was read and found to hold no answer at all, which the cache would otherwise serve to every
// retry.
func (c *Cache) Forget(ctx context.Context, req model.Request) error {
	key, err := RequestKey(req)
	if err != nil {
		return err
	}
	return c.Delete(ctx, key)
}

// Client is a model.Client that answers from the cache when it can and stores every successful
// reply of Next that has text. A cached Response has Cached set and Attempts zero. Calls of one
// key are made one at a time (see keyLocks), so that a request made twice at once (a question
// that two input files share) is asked once and the second is answered from the cache, as one
// call at a time would answer it: what a run pays does not depend on its concurrency (which of
// the two carries the call does: the one that got to it first).
//
// With KeepEmpty set it also stores an empty reply that came whole and stopped of itself
// (model.Response.Stopped, not cut: the error model.ErrEmptyReply), with its error, and serves it
// as that reply and error again, Stopped, so that a run that keeps such a reply as the answer ""
// (qa-predict --empty-reply keep) or reads it as an unparsable verdict (a judge, which asks the
// next sample) gets it again without a call. Without KeepEmpty such an entry is served once, as
// its error, and taken out of the cache, so that a rerun of the failed records asks for another
// reply, as it would had the reply not been stored (a cut, refused or blocked reply never is).
type Client struct {
	Next      model.Client
	Cache     *Cache
	KeepEmpty bool
	locks     keyLocks
}

// Wrap returns a Client over next backed by c.
func (c *Cache) Wrap(next model.Client) *Client { return &Client{Next: next, Cache: c} }

// keyLocks holds a lock for each key a call is being made for, and none for the others.
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]*keyLock
}

// keyLock is one key's lock: a channel of one slot, held while its value is in it, and how many
// calls hold it or wait for it (the lock goes when none does).
type keyLock struct {
	slot  chan struct{}
	users int
}

// lock waits until no other call holds key's lock, or ctx is done, and returns the function that
// releases it.
func (k *keyLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyLock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &keyLock{slot: make(chan struct{}, 1)}
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()
	leave := func() {
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
	select {
	case l.slot <- struct{}{}:
		return func() { <-l.slot; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// Generate answers req from the cache, or asks Next and stores a successful reply; under
// model.StoredOnly it answers from the cache alone (model.ErrNotStored). The call is counted by
// interrupt.Storing until its reply is stored. Before it asks, it claims the request's key in the
// file, and waits while another process holds the key's claim, to be answered by that process's
// reply (see claim.go).
func (c *Client) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	done := interrupt.Storing(ctx)
	defer func() { done() }()
	key, err := RequestKey(req)
	if err != nil {
		return model.Response{}, err
	}
	unlock, err := c.locks.lock(ctx, key)
	if err != nil {
		return model.Response{}, err
	}
	defer unlock()
	if resp, ok, err := c.stored(ctx, key); ok || err != nil {
		return resp, err
	}
	if model.IsStoredOnly(ctx) {
		return model.Response{}, model.ErrNotStored
	}
	resp, ok, h, err := c.await(ctx, key, &done)
	if ok || err != nil {
		return resp, err
	}
	defer h.Release(ctx)
	resp, err = c.Next.Generate(ctx, req)
	why := ""
	switch {
	case err == nil && textnorm.Strip(resp.Text) != "":
	case c.KeepEmpty && resp.Stopped && !resp.Cut && errors.Is(err, model.ErrEmptyReply):
		why = model.Failure(err) // without the attempts its call took: one served from here takes none
	default:
		return resp, err // errors, and replies without text, are never stored
	}
	stored := entry{Response: resp, Stopped: resp.Stopped, EmptyReply: why}
	stored.Cached, stored.Attempts = false, 0
	v, merr := json.Marshal(stored)
	if merr != nil {
		return resp, fmt.Errorf("cache entry: %w", merr)
	}
	// A reply that was paid for is stored even if the run is being interrupted, and answers its
	// record even when it cannot be stored: the failure is counted for the run's warning
	// (Cache.Unstored), where failing the record threw the paid reply away.
	if err := h.Store(context.WithoutCancel(ctx), key, v); err != nil {
		c.Cache.unstoredReply(err)
	}
	return resp, err
}

// entry is a stored reply: the Response, whether it stopped of itself (Response.Stopped, which
// the Response's own encoding leaves out), and, for an empty reply (Client.KeepEmpty), the text of
// its error. Versions before empty replies were stored read such an entry as none, and ask again.
type entry struct {
	model.Response
	Stopped    bool   `json:"stopped,omitempty"`
	EmptyReply string `json:"empty_reply,omitempty"`
}

// storedEmpty is the error of an empty reply served from the cache: the text its call's error
// had, which is model.ErrEmptyReply.
type storedEmpty string

func (e storedEmpty) Error() string { return string(e) }
func (e storedEmpty) Unwrap() error { return model.ErrEmptyReply }

// served is what Generate gives for resp and err, a reply stored under key: as they are, but for
// an empty reply served to a Client without KeepEmpty, which is then taken out of the cache (see
// Client); one that cannot be taken out stays, and its error says so.
func (c *Client) served(ctx context.Context, key string, resp model.Response, err error) (model.Response, error) {
	if err == nil || c.KeepEmpty {
		return resp, err
	}
	if derr := c.Cache.Delete(context.WithoutCancel(ctx), key); derr != nil {
		err = &model.CallError{Err: storedEmpty(err.Error() + "; it stays in the cache: " + derr.Error())}
	}
	return resp, err
}

// await waits until this Client holds key's claim or another process has stored key's reply,
// and returns the stored reply (ok) or the claim, which stores the reply and lets the claim go
// (see Cache.Claim and Cache.Await).
//
// While it waits for another process's call, the call of this one is not counted as a reply to
// be stored (*storing, the interrupt.Storing count, is ended, and counted again once the claim is
// won: a run whose output has nowhere to go need not wait for another process's call).
func (c *Client) await(ctx context.Context, key string, storing *func()) (resp model.Response, ok bool, h *Claims, err error) {
	answers := func(v []byte) bool { _, ok, _ := replyOf(v); return ok }
	stored, h, others, err := c.Cache.Claim(ctx, []string{key}, answers)
	waited := false
	for err == nil && len(others) > 0 {
		if !waited {
			(*storing)()
			*storing, waited = func() {}, true
		}
		stored, h, others, err = c.Cache.Await(ctx, others, answers)
	}
	if err != nil {
		return model.Response{}, false, nil, err
	}
	if v, ok := stored[key]; ok {
		resp, _, err := replyOf(v)
		resp, err = c.served(ctx, key, resp, err)
		return resp, true, nil, err
	}
	if waited {
		*storing = interrupt.Storing(ctx)
	}
	return model.Response{}, false, h, nil
}

// stored returns the reply stored under key, if there is one (ok), and, for an empty reply, its
// error. An entry that does not decode (a damaged file) or holds no text and no empty reply's
// error (an empty reply, which versions before such replies were errors stored as answers) is no
// reply: it is asked for again and replaced, rather than failing or answering with nothing on
// every run.
func (c *Client) stored(ctx context.Context, key string) (resp model.Response, ok bool, err error) {
	v, ok, err := c.Cache.Get(ctx, key)
	if !ok || err != nil {
		return model.Response{}, false, err
	}
	resp, ok, err = replyOf(v)
	if !ok {
		return model.Response{}, false, nil
	}
	resp, err = c.served(ctx, key, resp, err)
	return resp, true, err
}

// replyOf decodes a stored reply, as a cached Response, with the error of an empty reply; ok is
// false for an entry that is no reply (see stored).
func replyOf(v []byte) (resp model.Response, ok bool, err error) {
	var e entry
	if json.Unmarshal(v, &e) != nil {
		return model.Response{}, false, nil
	}
	resp = e.Response
	resp.Stopped, resp.Cached, resp.Attempts = e.Stopped, true, 0
	if textnorm.Strip(resp.Text) != "" {
		return resp, true, nil
	}
	if e.EmptyReply == "" || !resp.Stopped || resp.Cut {
		return model.Response{}, false, nil
	}
	return resp, true, &model.CallError{Err: storedEmpty(e.EmptyReply)}
}
