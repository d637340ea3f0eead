package model

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
	"google.golang.org/api/googleapi"
)

// newGoogle returns a Client for the Gemini API (generateContent over REST) through langchaingo's
// googleai, built by cfg.Gemini (package gemini's New), or an error when cfg has none: qa-predict
// and qa-judge pass it, and a command that does not links none of the Google client libraries. The model is built on first use, because genai's constructor wants a
// context and dials eagerly; the API key travels in the x-goog-api-key header added by keyHeader,
// since the Google client libraries drop option.WithAPIKey when a custom HTTP client is given.
//
// The generated client under genai runs every generateContent call through gax with a policy of
// its own: a 503 retried for up to ten minutes, and a ten-minute deadline on a call that has none.
// Both would stack on the Transport's, which already retried (--max-retries, --timeout), so
// keyHeader hands a final 503 back as an error gax does not retry, and Generate gives each call a
// deadline (far away) so that gax sets none.
func newGoogle(base string, cfg Config, hc *http.Client) (Client, error) {
	build := cfg.Gemini
	if build == nil {
		return nil, errors.New("googleai: this command was built without the Gemini client (model.Config.Gemini)")
	}
	authed := &http.Client{Transport: &keyHeader{base: transportOf(hc), key: cfg.APIKey}, Timeout: hc.Timeout}
	g := &google{key: cfg.APIKey, tpm: cfg.TPM}
	g.init = sync.OnceValues(func() (*chat, error) {
		llm, err := build(base, cfg.APIKey, authed)
		if err != nil {
			return nil, err
		}
		return &chat{provider: "googleai", base: base, llm: llm, key: cfg.APIKey, names: cfg.Names, tpm: cfg.TPM}, nil
	})
	return g, nil
}

// GeminiFunc builds langchaingo's model for the Gemini API at base, calling it through hc, which
// adds the key to each request: package gemini's New.
type GeminiFunc func(base, key string, hc *http.Client) (llms.Model, error)

type google struct {
	key  string
	tpm  *Limiter
	init func() (*chat, error)
}

func (g *google) Generate(ctx context.Context, req Request) (Response, error) {
	if IsStoredOnly(ctx) {
		return Response{}, ErrNotStored
	}
	c, err := g.init()
	if err != nil {
		return Response{}, &CallError{Err: errors.New("googleai: " + redact(err.Error(), g.key))}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Now().Add(noDeadline))
		defer cancel()
	}
	return c.Generate(ctx, req)
}

// noDeadline is the deadline a Gemini call gets when its caller gives none: far enough to mean
// none, present so that gax does not put its own ten minutes on the call.
const noDeadline = 100 * 365 * 24 * time.Hour

func transportOf(hc *http.Client) http.RoundTripper {
	if hc.Transport != nil {
		return hc.Transport
	}
	return http.DefaultTransport
}

// keyHeader adds the Gemini API key to each request.
type keyHeader struct {
	base http.RoundTripper
	key  string
}

// RoundTrip sends req with the key. A 503 that comes back has outlasted the Transport's retries,
// and goes back as a plain error, holding the server's words, which gax does not retry again.
func (k *keyHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("x-goog-api-key", k.key)
	resp, err := k.base.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		return resp, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body) // held in memory by the Transport, which read it whole
	obj, _ := errorObject(body)
	return nil, &finalStatus{msg: googleapi.CheckResponseWithBody(resp, obj).Error()}
}

// finalStatus is an HTTP error status the Transport gave up retrying; it wraps no
// googleapi.Error, so gax takes it as final.
type finalStatus struct{ msg string }

func (e *finalStatus) Error() string { return e.msg }
