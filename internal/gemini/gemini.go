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
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/urfave/cli/v2"
	"google.golang.org/api/option"
)

// New returns langchaingo's googleai model for the Gemini API at base, calling it through hc,
// which must add the API key to each request (the Google client libraries drop
// option.WithAPIKey when a custom HTTP client is given; key is passed for the gRPC cache client
// genai also builds, which is never dialled). It dials nothing. Its calls carry the safety
// threshold DefaultSafety; WithSafety builds one whose calls carry another.
func New(base, key string, hc *http.Client) (llms.Model, error) {
	return WithSafety(DefaultSafety)(base, key, hc)
}

// WithSafety returns New with every call's safetySettings, the four harm categories
// langchaingo v0.1.14 sets (dangerous content, harassment, hate speech, sexually explicit), at
// the threshold named level, one of SafetyLevels; an unknown level is DefaultSafety's (ParseSafety
// refuses it first).
func WithSafety(level string) func(base, key string, hc *http.Client) (llms.Model, error) {
	threshold, ok := thresholds[level]
	if !ok {
		threshold = thresholds[DefaultSafety]
	}
	return func(base, key string, hc *http.Client) (llms.Model, error) {
		return googleai.New(context.Background(),
			googleai.WithRest(),
			googleai.WithAPIKey(key),
			googleai.WithHTTPClient(hc),
			googleai.WithHarmThreshold(threshold),
			func(o *googleai.Options) { o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(base)) },
		)
	}
}

// DefaultSafety is the threshold langchaingo v0.1.14 sends unless told otherwise, which the cache
// keys as none (model.DefaultGeminiSafety, the same: package model cannot import this one).
const DefaultSafety = "block_only_high"

// SafetyLevels are the thresholds of --gemini-safety, from blocking least to most, as the Gemini
// API names them (HarmBlockThreshold), in lower case.
var SafetyLevels = []string{"block_none", "block_only_high", "block_medium_and_above", "block_low_and_above"}

var thresholds = map[string]googleai.HarmBlockThreshold{
	"block_none":             googleai.HarmBlockNone,
	"block_only_high":        googleai.HarmBlockOnlyHigh,
	"block_medium_and_above": googleai.HarmBlockMediumAndAbove,
	"block_low_and_above":    googleai.HarmBlockLowAndAbove,
}

// ParseSafety returns the level s names (in any case, as the API's upper-case BLOCK_NONE), or an
// error that lists the levels.
func ParseSafety(s string) (string, error) {
	level := strings.ToLower(strings.TrimSpace(s))
	if _, ok := thresholds[level]; !ok {
		return "", fmt.Errorf("%q is no safety threshold: want one of %s", s, strings.Join(SafetyLevels, ", "))
	}
	return level, nil
}

// SafetyFlag reads the flag name (--gemini-safety): a level of SafetyLevels, DefaultSafety when
// it is unset or empty, and a usage error for another value, or for one set in a run none of
// whose calls, to providers, goes to googleai: no other API is sent a safety threshold. The
// extractive baseline, which calls nothing, ignores it, as it ignores the sampling flags.
func SafetyFlag(c *cli.Context, name string, providers ...string) (string, error) {
	v := c.String(name)
	if !c.IsSet(name) || strings.TrimSpace(v) == "" {
		return DefaultSafety, nil
	}
	level, err := ParseSafety(v)
	if err != nil {
		return "", command.Usagef("--%s%s: %v", name, command.FromEnv(c, name), err)
	}
	if !slices.Contains(providers, "googleai") && !slices.Contains(providers, "extractive") {
		return "", command.Usagef("--%s %s%s: only Gemini's API (--provider googleai) is sent a safety threshold, not %s",
			name, v, command.FromEnv(c, name), strings.Join(slices.Compact(slices.Clone(providers)), " or "))
	}
	return level, nil
}
