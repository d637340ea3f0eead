package gemini_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
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
}

// TestSafetyOnTheWire: every Gemini call carries safetySettings for langchaingo's four harm
// categories at the threshold WithSafety names (the API's enum numbers: BLOCK_LOW_AND_ABOVE 1 up
// to BLOCK_NONE 4), New's at BLOCK_ONLY_HIGH; a loopback server speaks the Gemini REST API.
func TestSafetyOnTheWire(t *testing.T) {
	for level, want := range map[string]int{"": 3, "block_none": 4, "block_only_high": 3, "block_medium_and_above": 2, "block_low_and_above": 1} {
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
