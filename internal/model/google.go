package model

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/tmc/langchaingo/llms/googleai"
	"google.golang.org/api/option"
)

// newGoogle returns a Client for the Gemini API (generateContent over REST) through langchaingo's
// googleai. The genai client is created on first use, because its constructor wants a context and
// dials eagerly; the API key travels in the x-goog-api-key header added by keyHeader, since the
// Google client libraries drop option.WithAPIKey when a custom HTTP client is given.
func newGoogle(base string, cfg Config, hc *http.Client) Client {
	authed := &http.Client{Transport: &keyHeader{base: transportOf(hc), key: cfg.APIKey}, Timeout: hc.Timeout}
	g := &google{key: cfg.APIKey, tpm: cfg.TPM}
	g.init = sync.OnceValues(func() (*chat, error) {
		llm, err := googleai.New(context.Background(),
			googleai.WithRest(),
			googleai.WithAPIKey(cfg.APIKey), // for the gRPC cache client genai also builds (never dialled)
			googleai.WithHTTPClient(authed),
			func(o *googleai.Options) { o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(base)) },
		)
		if err != nil {
			return nil, err
		}
		return &chat{provider: "googleai", llm: llm, key: cfg.APIKey, tpm: cfg.TPM}, nil
	})
	return g
}

type google struct {
	key  string
	tpm  *Limiter
	init func() (*chat, error)
}

func (g *google) Generate(ctx context.Context, req Request) (Response, error) {
	c, err := g.init()
	if err != nil {
		return Response{}, &CallError{Err: errors.New("googleai: " + redact(err.Error(), g.key))}
	}
	return c.Generate(ctx, req)
}

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

func (k *keyHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("x-goog-api-key", k.key)
	return k.base.RoundTrip(r)
}
