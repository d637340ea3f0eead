package gemini_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/tmc/langchaingo/llms"
	"github.com/urfave/cli/v2"
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

// TestSafetyFlag: --gemini-safety unset (whatever the flag's default) or empty is DefaultSafety; a level is taken in any case
// when a call goes to googleai, or when the extractive baseline ignores it; otherwise it is a usage
// error that names the variable it came from.
func TestSafetyFlag(t *testing.T) {
	const levels = "block_none, block_only_high, block_medium_and_above, block_low_and_above"
	for _, tc := range []struct {
		args      []string
		env       string
		def       string // the flag's default value, as qa-judge's
		providers []string
		want      string // the level, or the error
	}{
		{nil, "", "", []string{"openai"}, "block_only_high"},
		{nil, "", "block_only_high", []string{"anthropic"}, "block_only_high"}, // a default is no value set
		{[]string{"--gemini-safety", ""}, "", "", []string{"openai"}, "block_only_high"},
		{[]string{"--gemini-safety", " "}, "", "", []string{"googleai"}, "block_only_high"},
		{[]string{"--gemini-safety", "BLOCK_NONE"}, "", "", []string{"googleai"}, "block_none"},
		{[]string{"--gemini-safety", "block_low_and_above"}, "", "", []string{"openai", "googleai"}, "block_low_and_above"},
		{[]string{"--gemini-safety", "block_none"}, "", "", []string{"extractive"}, "block_none"},
		{nil, "Block_Medium_And_Above", "", []string{"googleai"}, "block_medium_and_above"},
		{[]string{"--gemini-safety", "block_none"}, "", "", []string{"openai", "openai"},
			"--gemini-safety block_none: only Gemini's API (--provider googleai) is sent a safety threshold, not openai"},
		{nil, "block_none", "", []string{"anthropic", "ollama"},
			"--gemini-safety block_none from QA_GEMINI_SAFETY: only Gemini's API (--provider googleai) is sent a safety threshold, not anthropic or ollama"},
		{nil, "off", "", []string{"googleai"}, `--gemini-safety from QA_GEMINI_SAFETY: "off" is no safety threshold: want one of ` + levels},
		{[]string{"--gemini-safety", "high"}, "", "", []string{"googleai"}, `--gemini-safety: "high" is no safety threshold: want one of ` + levels},
	} {
		t.Setenv("QA_GEMINI_SAFETY", tc.env)
		if tc.env == "" {
			os.Unsetenv("QA_GEMINI_SAFETY") // a variable set empty sets the flag (to "")
		}
		app := cli.NewApp()
		app.Flags = []cli.Flag{&cli.StringFlag{Name: "gemini-safety", Value: tc.def, EnvVars: []string{"QA_GEMINI_SAFETY"}}}
		var got string
		app.Action = func(c *cli.Context) error {
			level, err := gemini.SafetyFlag(c, "gemini-safety", tc.providers...)
			if got = level; err != nil {
				got = err.Error()
				if command.ExitCode(err) != command.ExitUsage {
					t.Errorf("SafetyFlag(%q, %q): exit %d, want %d", tc.args, tc.providers, command.ExitCode(err), command.ExitUsage)
				}
			}
			return nil
		}
		if err := app.Run(append([]string{"qa-x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("SafetyFlag(%q, QA_GEMINI_SAFETY=%q, %q) = %q, want %q", tc.args, tc.env, tc.providers, got, tc.want)
		}
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

// TestDefaultSafetyKeyed: the threshold the cache keys as none is the one calls carry by default,
// so that a run with --gemini-safety unset and one that names the default share their replies.
func TestDefaultSafetyKeyed(t *testing.T) {
	if gemini.DefaultSafety != model.DefaultGeminiSafety {
		t.Errorf("gemini.DefaultSafety = %q, model.DefaultGeminiSafety = %q; want one threshold", gemini.DefaultSafety, model.DefaultGeminiSafety)
	}
}
