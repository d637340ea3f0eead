package gemini_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/tmc/langchaingo/llms"
)

// TestParseSafety: a level is named as the API names it, in any case; another name is an error
// that lists the levels.
func TestParseSafety(t *testing.T) {
	for in, want := range map[string]string{
		"block_none": "block_none", "BLOCK_NONE": "block_none", " Block_Only_High ": "block_only_high",
		"block_medium_and_above": "block_medium_and_above", "block_low_and_above": "block_low_and_above",
	} {
		if got, err := gemini.ParseSafety(in); err != nil || got != want {
			t.Errorf("ParseSafety(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"none", "off", "", "block_high"} {
		if got, err := gemini.ParseSafety(in); err == nil || !strings.Contains(err.Error(), strings.Join(gemini.SafetyLevels, ", ")) {
			t.Errorf("ParseSafety(%q) = %q, %v; want an error listing the levels", in, got, err)
		}
	}
	// The error quotes the value as given and lists the levels from blocking least to most.
	const want = `" Off " is no safety threshold: want one of block_none, block_only_high, block_medium_and_above, block_low_and_above`
	if _, err := gemini.ParseSafety(" Off "); err == nil || err.Error() != want {
		t.Errorf("ParseSafety(%q) error %v, want %q", " Off ", err, want)
	}
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNewCallsThroughClient: New's model makes its calls through the HTTP client it is given
// (model's transport: retries, rate limits, the finish request), not one of its own.
func TestNewCallsThroughClient(t *testing.T) {
	srv := clitest.NewGeminiServer(t, "Paris")
	var calls atomic.Int32
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	m, err := gemini.New(srv.URL, "test-key-0123456789", hc)
	if err != nil {
		t.Fatal(err)
	}
	text, err := llms.GenerateFromSinglePrompt(context.Background(), m, "Capital of France?")
	if err != nil || text != "Paris" {
		t.Fatalf("GenerateFromSinglePrompt = %q, %v; want Paris", text, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests went through the given HTTP client, want 1", n)
	}
}

// TestSafetyOnTheWire: every Gemini call carries safetySettings for langchaingo's four harm
// categories at the threshold WithSafety names (the API's enum numbers: BLOCK_LOW_AND_ABOVE 1 up
// to BLOCK_NONE 4), New's and an unknown level's at BLOCK_ONLY_HIGH; a loopback server speaks the Gemini REST API.
func TestSafetyOnTheWire(t *testing.T) {
	for level, want := range map[string]int{"": 3, "bogus": 3, "block_none": 4, "block_only_high": 3, "block_medium_and_above": 2, "block_low_and_above": 1} {
		t.Run(level, func(t *testing.T) {
			srv := clitest.NewGeminiServer(t, "Paris")
			build := gemini.New
			if level != "" {
				build = gemini.WithSafety(level)
			}
			c, err := model.New(context.Background(), model.Config{Provider: "googleai", BaseURL: srv.URL, APIKey: "test-key-0123456789",
				HTTPClient: model.NewTransport(model.TransportConfig{}).Client(), Gemini: build})
			if err != nil {
				t.Fatal(err)
			}
			temp := 0.0
			resp, err := c.Generate(context.Background(), model.Request{Provider: "googleai", Model: "gemini-2.0-flash", Temperature: &temp,
				MaxTokens: 16, Messages: []model.Message{{Role: "user", Content: "Capital of France?"}}})
			if err != nil || resp.Text != "Paris" {
				t.Fatalf("Generate = %+v, %v; want Paris", resp, err)
			}
			if got := srv.Thresholds(); !slices.Equal(got, []int{want}) {
				t.Errorf("the call carried thresholds %v, want [%d] for its four categories", got, want)
			}
		})
	}
}
