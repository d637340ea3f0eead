// Package gemini builds langchaingo's client for Google's Gemini API (googleai, generateContent
// over REST). It stands apart from package model, which wraps what it builds in a model.Client,
// because the Google client libraries behind it (gRPC, protobuf, the generated API clients) double
// the size and the start-up time of any command that links them: qa-predict and qa-judge pass
// New as model.Setup's Gemini; qa-score, whose embedding metrics share model's transport, links none
// of it. The tests of model's googleai client drive it against a loopback server speaking the
// Gemini API (internal/model/google_test.go, provider_test.go).
package gemini

import (
	"context"
	"net/http"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/googleai"
	"google.golang.org/api/option"
)

// New returns langchaingo's googleai model for the Gemini API at base, calling it through hc,
// which must add the API key to each request (the Google client libraries drop
// option.WithAPIKey when a custom HTTP client is given; key is passed for the gRPC cache client
// genai also builds, which is never dialled). It dials nothing.
func New(base, key string, hc *http.Client) (llms.Model, error) {
	return googleai.New(context.Background(),
		googleai.WithRest(),
		googleai.WithAPIKey(key),
		googleai.WithHTTPClient(hc),
		func(o *googleai.Options) { o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(base)) },
	)
}
