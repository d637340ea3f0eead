package model

import (
	"encoding/json"
	"maps"
	"math"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

func TestPricesLookup(t *testing.T) {
	p := DefaultPrices()
	tests := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o", Price{Input: 2.50, Output: 10.00, Cached: 1.25}, true},
		{"gpt-4o-mini", Price{Input: 0.15, Output: 0.60, Cached: 0.075}, true},
		{"gpt-4o-2024-08-06", Price{Input: 2.50, Output: 10.00, Cached: 1.25}, true},
		{"gpt-4o-mini-2024-07-18", Price{Input: 0.15, Output: 0.60, Cached: 0.075}, true},
		{"openai/gpt-4o-mini", Price{Input: 0.15, Output: 0.60, Cached: 0.075}, true},
		{"claude-3-5-haiku-20241022", Price{Input: 0.80, Output: 4.00, Cached: 0.08, CacheWrite: 1.00}, true},
		{"gpt-3.5-turbo-0125", Price{Input: 0.50, Output: 1.50}, true},
		{"claude-sonnet-4-20250514", Price{Input: 3.00, Output: 15.00, Cached: 0.30, CacheWrite: 3.75,
			Long: LongPrice{Above: 200_000, Input: 6.00, Output: 22.50, Cached: 0.60, CacheWrite: 7.50}}, true},
		{"claude-opus-4-20250514", Price{Input: 15.00, Output: 75.00, Cached: 1.50, CacheWrite: 18.75}, true},
		{"claude-opus-4-5-20251101", Price{Input: 5.00, Output: 25.00, Cached: 0.50, CacheWrite: 6.25}, true},
		{"claude-opus-4-1-20250805", Price{Input: 15.00, Output: 75.00, Cached: 1.50, CacheWrite: 18.75}, true},
		{"claude-haiku-4-5-20251001", Price{Input: 1.00, Output: 5.00, Cached: 0.10, CacheWrite: 1.25}, true},
		{"gpt-5-2025-08-07", Price{Input: 1.25, Output: 10.00, Cached: 0.125}, true},
		{"gpt-5-mini-2025-08-07", Price{Input: 0.25, Output: 2.00, Cached: 0.025}, true},
		{"gpt-4-0613", Price{Input: 30.00, Output: 60.00}, true},
		// Snapshots whose list price is not their model's: their own entries, not the base's.
		{"gpt-4o-2024-05-13", Price{Input: 5.00, Output: 15.00}, true},
		{"gpt-4-1106-preview", Price{Input: 10.00, Output: 30.00}, true},
		{"gpt-4-0125-preview", Price{Input: 10.00, Output: 30.00}, true},
		{"gpt-3.5-turbo-1106", Price{Input: 1.00, Output: 2.00}, true},
		{"gpt-3.5-turbo-0613", Price{Input: 1.50, Output: 2.00}, true},
		{"gpt-3.5-turbo-0301", Price{Input: 1.50, Output: 2.00}, true},
		{"gpt-3.5-turbo-16k-0613", Price{Input: 3.00, Output: 4.00}, true},
		{"gemini-3-pro-preview", Price{Input: 2.00, Output: 12.00, Long: LongPrice{Above: 200_000, Input: 4.00, Output: 18.00}}, true},
		{"claude-3-5-sonnet-latest", Price{Input: 3.00, Output: 15.00, Cached: 0.30, CacheWrite: 3.75}, true},
		{"gemini-2.0-flash-001", Price{Input: 0.10, Output: 0.40}, true},
		{"gemini-2.5-pro-preview-06-05", Price{Input: 1.25, Output: 10.00, Long: LongPrice{Above: 200_000, Input: 2.50, Output: 15.00}}, true},
		{"gemini-2.0-flash-exp", Price{Input: 0.10, Output: 0.40}, true},
		{"o1-pro", Price{Input: 150.00, Output: 600.00}, true},
		{"o1-pro-2025-03-19", Price{Input: 150.00, Output: 600.00}, true},
		{"llama3:8b", Price{}, false},
		{"gpt-4oo", Price{}, false},
		// Another model, not a version: no price rather than a lower one.
		{"o3-deep-research", Price{}, false},
		{"o3-deep-research-2025-06-26", Price{}, false},
		{"gemini-2.5-flash-image", Price{}, false},
		{"gpt-5-chat-latest", Price{}, false},
		// A minor version is another model (claude-opus-4-5 costs a third of claude-opus-4).
		{"claude-opus-4-6", Price{}, false},
		{"claude-sonnet-4-7-20260101", Price{}, false},
		{"claude-haiku-4", Price{}, false},
		{"gpt-4o-audio-preview", Price{}, false},
		{"gpt-4o-", Price{}, false},
		{"gpt-4o-2024--08", Price{}, false},
	}
	for _, tt := range tests {
		got, ok := p.Lookup(tt.model)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Lookup(%q) = %v, %v, want %v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPricesCost: a call costs its tokens at the model's rates per million; one whose prompt is
// longer than a long-context threshold costs all its tokens at the long rates (gemini-2.5-pro's
// and claude-sonnet-4-5's above 200,000 prompt tokens, gemini-1.5's above 128,000), as Google and
// Anthropic price them; an unknown model has no cost, not 0.
func TestPricesCost(t *testing.T) {
	p := DefaultPrices().Merge(Prices{"m": {Input: 2, Output: 8}})
	for _, tc := range []struct {
		model   string
		in, out int
		want    float64
	}{
		{"m", 1000, 500, 0.006},
		{"gemini-2.5-pro", 200_000, 1000, 0.26},      // at the threshold: 200000×1.25 + 1000×10
		{"gemini-2.5-pro", 200_001, 1000, 0.5150025}, // past it: 200001×2.50 + 1000×15
		{"gemini-2.5-pro-preview-06-05", 300_000, 1000, 0.765},
		{"gemini-1.5-flash", 128_001, 100, 0.01926015},       // 128001×0.15 + 100×0.60
		{"gemini-2.5-flash", 300_000, 1000, 0.0925},          // no long rate
		{"claude-sonnet-4-5-20250929", 200_000, 1000, 0.615}, // 200000×3 + 1000×15
		{"claude-sonnet-4-5-20250929", 250_000, 2000, 1.545}, // 250000×6 + 2000×22.50
		{"claude-opus-4-5", 250_000, 2000, 1.3},              // no long rate: 250000×5 + 2000×25
	} {
		c := p.Cost(tc.model, record.Usage{InputTokens: tc.in, OutputTokens: tc.out})
		if c == nil || *c != tc.want {
			t.Errorf("Cost(%s, %d in, %d out) = %v, want %v", tc.model, tc.in, tc.out, c, tc.want)
		}
	}
	if c := p.Cost("unknown", record.Usage{InputTokens: 1}); c != nil {
		t.Errorf("Cost(unknown) = %v, want nil", *c)
	}
	// A count left out of a usage read from a record (or a cache entry) is unknown, not 0.
	var u record.Usage
	if err := record.Unmarshal([]byte(`{"input_tokens":1000}`), &u); err != nil {
		t.Fatal(err)
	}
	if c := p.Cost("m", u); c != nil {
		t.Errorf("Cost(m, 1000 in, output unknown) = %v, want nil", *c)
	}
}

// TestPricesCostCached: the input tokens OpenAI served from its prompt cache are priced at the
// model's cached rate, a half (gpt-4o) to a tenth (gpt-5) of the input rate, as its pricing page
// lists them; a model without a cached rate (gpt-4o-2024-05-13, gemini-2.5-flash: none known)
// prices them at the input rate, as does a call priced at its long-context rates. A cached count
// above the input count is the input count.
func TestPricesCostCached(t *testing.T) {
	p := DefaultPrices().Merge(Prices{"m": {Input: 2, Output: 8, Cached: 0.5, Long: LongPrice{Above: 10_000, Input: 4, Output: 16}}})
	for _, tc := range []struct {
		model           string
		in, cached, out int
		want            float64
	}{
		{"gpt-4o-mini", 2000, 1536, 10, 0.0001908},     // 464×0.15 + 1536×0.075 + 10×0.60
		{"gpt-4o-2024-08-06", 2000, 1024, 10, 0.00382}, // 976×2.50 + 1024×1.25 + 10×10
		{"gpt-5", 10_000, 8192, 100, 0.004284},         // 1808×1.25 + 8192×0.125 + 100×10
		{"gpt-4.1-nano", 4000, 4000, 0, 0.0001},        // 4000×0.025
		{"o4-mini", 1000, 1000, 0, 0.000275},           // 1000×0.275
		{"gpt-4o-2024-05-13", 2000, 1024, 10, 0.01015}, // no cached rate: 2000×5 + 10×15
		{"gemini-2.5-flash", 2000, 1024, 10, 0.000625}, // none known: 2000×0.30 + 10×2.50
		{"m", 1000, 2000, 0, 0.0005},                   // the cached count at most the input's: 1000×0.5
		{"m", 20_000, 16_000, 0, 0.08},                 // long: 20000×4, cached or not
		{"m", 1000, -5, 0, 0.002},                      // a negative cached count is none: 1000×2
	} {
		c := p.Cost(tc.model, record.Usage{InputTokens: tc.in, OutputTokens: tc.out, CachedInputTokens: tc.cached})
		if c == nil || *c != tc.want {
			t.Errorf("Cost(%s, %d in of which %d cached, %d out) = %v, want %v", tc.model, tc.in, tc.cached, tc.out, c, tc.want)
		}
	}
}

// TestPricesCostCacheWrite: the prompt tokens Anthropic wrote to its prompt cache
// (cache_creation_input_tokens) are priced at the model's cache-write rate, 1.25 times the input
// rate, and those it read from it (cache_read_input_tokens) at its cached rate, a tenth; a call
// priced at its long-context rates (claude-sonnet-4-5 past 200,000 prompt tokens) prices them at
// the long rates' own (a tenth and 1.25 times its long input rate), or, when they give none, at
// its long input rate. A model without a cache-write rate prices the tokens written at its input
// rate; the written count is at most the input count less the cached.
func TestPricesCostCacheWrite(t *testing.T) {
	p := DefaultPrices().Merge(Prices{
		"m":    {Input: 2, Output: 8, Cached: 0.5},
		"w":    {Input: 2, Output: 8, CacheWrite: 2.5},
		"long": {Input: 2, Output: 8, Cached: 0.2, CacheWrite: 2.5, Long: LongPrice{Above: 10_000, Input: 4, Output: 16}},
	})
	for _, tc := range []struct {
		model                    string
		in, cached, written, out int
		want                     float64
	}{
		{"claude-sonnet-4-5", 23010, 20000, 3000, 30, 0.01773},        // 10×3 + 20000×0.30 + 3000×3.75 + 30×15
		{"claude-haiku-4-5-20251001", 4096, 0, 4000, 100, 0.005596},   // 96×1 + 4000×1.25 + 100×5
		{"claude-3-haiku-20240307", 2000, 1000, 1000, 0, 0.00033},     // 1000×0.03 + 1000×0.30
		{"claude-sonnet-4-5", 250_010, 200_000, 50_000, 100, 0.49731}, // long: 10×6 + 200000×0.60 + 50000×7.50 + 100×22.50
		{"m", 1000, 0, 1000, 0, 0.002},                                // no cache-write rate: 1000×2
		{"w", 1000, 800, 800, 0, 0.0021},                              // no cached rate: 800×2 read; written at most the 200 not read: 200×2.5
		{"long", 20_000, 10_000, 10_000, 0, 0.08},                     // long rates without cache rates: 20000×4
		{"claude-sonnet-4-5", 1000, 0, -5, 0, 0.003},                  // a negative written count is none: 1000×3
	} {
		c := p.Cost(tc.model, record.Usage{InputTokens: tc.in, OutputTokens: tc.out, CachedInputTokens: tc.cached, CacheWriteInputTokens: tc.written})
		if c == nil || *c != tc.want {
			t.Errorf("Cost(%s, %d in of which %d read from the cache and %d written to it, %d out) = %v, want %v", tc.model, tc.in, tc.cached, tc.written, tc.out, c, tc.want)
		}
	}
}

// TestPricesCostOf: calls are priced each as its own, a long-context rate by the call's prompt
// alone: two gemini-2.5-pro calls of 150,000 prompt tokens each cost twice one, at the base
// rate, not 300,000 tokens at the long one. The sum is exact: three calls of $0.003 cost $0.009,
// where adding their float costs gives 0.009000000000000001.
func TestPricesCostOf(t *testing.T) {
	p := DefaultPrices().Merge(Prices{"m": {Input: 2, Output: 8}})
	call := func(in, out int) record.Usage { return record.Usage{InputTokens: in, OutputTokens: out} }
	for _, tc := range []struct {
		model string
		calls []record.Usage
		want  float64
	}{
		{"gemini-2.5-pro", []record.Usage{call(150_000, 1000), call(150_000, 1000)}, 0.395}, // 2 × (150000×1.25 + 1000×10)
		{"gemini-2.5-pro", []record.Usage{call(250_000, 1000), call(10_000, 100)}, 0.6535},  // 250000×2.50 + 1000×15, 10000×1.25 + 100×10
		{"gemini-2.5-pro", nil, 0},
		{"m", []record.Usage{call(1000, 125), call(1000, 125), call(1000, 125)}, 0.009}, // 3 × (1000×2 + 125×8)
		{"gpt-4o-mini", []record.Usage{call(1000, 10), call(7, 1)}, 0.00015765},         // 1007×0.15 + 11×0.60
	} {
		c := p.CostOf(tc.model, tc.calls...)
		if c == nil || *c != tc.want {
			t.Errorf("CostOf(%s, %v) = %v, want %v", tc.model, tc.calls, c, tc.want)
		}
	}
	if c := p.CostOf("unknown"); c != nil {
		t.Errorf("CostOf(unknown) = %v, want nil", *c)
	}
	var unknown record.Usage
	if err := record.Unmarshal([]byte(`{"input_tokens":1000}`), &unknown); err != nil {
		t.Fatal(err)
	}
	if c := p.CostOf("gemini-2.5-pro", call(10, 1), unknown); c != nil {
		t.Errorf("CostOf(a call whose output is unknown) = %v, want nil", *c)
	}
}

func TestParsePrices(t *testing.T) {
	tests := []struct {
		name, in string
		want     Prices
		wantErr  bool
	}{
		{"json", `{"my-model": {"input": 1.5, "output": 2}}`, Prices{"my-model": {Input: 1.5, Output: 2}}, false},
		{"yaml", "my-model:\n  input: 0.1\n  output: 0.2\nother: {input: 0, output: 0}\n", Prices{"my-model": {Input: 0.1, Output: 0.2}, "other": {}}, false},
		{"long", "m: {input: 1, output: 2, long: {above: 1000, input: 3, output: 4}}", Prices{"m": {Input: 1, Output: 2, Long: LongPrice{Above: 1000, Input: 3, Output: 4}}}, false},
		{"cached", `{"gemini-2.5-flash": {"input": 0.30, "output": 2.50, "cached": 0.03}}`, Prices{"gemini-2.5-flash": {Input: 0.30, Output: 2.50, Cached: 0.03}}, false},
		{"cached, negative", "m: {input: 1, output: 2, cached: -0.5}", nil, true},
		{"cache_write", "m: {input: 3, output: 15, cached: 0.3, cache_write: 3.75, long: {above: 200000, input: 6, output: 22.5, cached: 0.6, cache_write: 7.5}}",
			Prices{"m": {Input: 3, Output: 15, Cached: 0.3, CacheWrite: 3.75, Long: LongPrice{Above: 200_000, Input: 6, Output: 22.5, Cached: 0.6, CacheWrite: 7.5}}}, false},
		{"cache_write, negative", "m: {input: 1, output: 2, cache_write: -1}", nil, true},
		{"cache_write, nan", "m: {input: 1, output: 2, cache_write: .nan}", nil, true},
		{"long cached, infinite", "m: {input: 1, output: 2, long: {above: 5, input: 3, output: 4, cached: .inf}}", nil, true},
		{"long cache_write, negative", "m: {input: 1, output: 2, long: {above: 5, input: 3, output: 4, cache_write: -2}}", nil, true},
		{"cached, infinite", "m: {input: 1, output: 2, cached: .inf}", nil, true},
		{"long without above", "m: {input: 1, output: 2, long: {input: 3, output: 4}}", nil, true},
		{"long, negative above", "m: {input: 1, output: 2, long: {above: -5, input: 3, output: 4}}", nil, true},
		{"long, nan", "m: {input: 1, output: 2, long: {above: 5, input: .nan, output: 4}}", nil, true},
		{"long, unknown field", "m: {input: 1, output: 2, long: {above: 5, in: 3}}", nil, true},
		{"unknown field", `{"m": {"inp": 1}}`, nil, true},
		{"negative", `{"m": {"input": -1, "output": 0}}`, nil, true},
		{"nan", "m: {input: .nan, output: 1}", nil, true},
		{"infinite", "m: {input: 1, output: .inf}", nil, true},
		// A finite price so large that a reply's cost is +Inf, which a run's total cannot add.
		{"huge", "m: {input: 1e308, output: 1}", nil, true},
		{"huge output", "m: {input: 1, output: 1000001}", nil, true},
		{"huge cached", "m: {input: 1, output: 1, cached: 1e300}", nil, true},
		{"huge long", "m: {input: 1, output: 1, long: {above: 5, input: 1e200, output: 1}}", nil, true},
		{"a dollar a token", "m: {input: 1000000, output: 1000000}", Prices{"m": {Input: 1e6, Output: 1e6}}, false},
		{"not a map", `[1, 2]`, nil, true},
		// A price left out was read as 0: a call of the model free, where an unknown price
		// leaves its cost unknown.
		{"null entry", `{"gpt-4o": null}`, nil, true},
		{"empty entry", `{"gpt-4o": {}}`, nil, true},
		{"input alone", "m: {input: 1}", nil, true},
		{"output null", "m: {input: 1, output: null}", nil, true},
		{"long without rates", "m: {input: 1, output: 2, long: {above: 10}}", nil, true},
		{"long without output", "m: {input: 1, output: 2, long: {above: 10, input: 3}}", nil, true},
		{"free, said", "m: {input: 0, output: 0}", Prices{"m": {}}, false},
		{"empty file", "", nil, true},
		{"two documents", "m: {input: 1, output: 1}\n---\nm: {input: 50, output: 50}\n", nil, true},
		{"one document, marked", "---\nm: {input: 1, output: 1}\n", Prices{"m": {Input: 1, Output: 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePrices([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParsePrices(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !tt.wantErr && len(got) != len(tt.want) {
				t.Fatalf("ParsePrices(%q) = %v, want %v", tt.in, got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("ParsePrices(%q)[%q] = %v, want %v", tt.in, k, got[k], v)
				}
			}
		})
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add(`{"m": {"input": 1, "output": 2}}`)
	f.Add("m:\n  input: 1\n")
	f.Add("m: {input: .NaN, output: -.Inf}")
	f.Add("m: {input: 1, output: 2, cached: 0, long: {above: 5, input: 3, output: 4, cache_write: 0.0}}")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrices([]byte(s))
		if err != nil {
			return
		}
		inRange := func(x float64) bool { return x >= 0 && x <= maxPrice }
		for m, pr := range p {
			if !inRange(pr.Input) || !inRange(pr.Output) || !inRange(pr.Cached) || !inRange(pr.CacheWrite) {
				t.Errorf("ParsePrices(%q) accepted price %v for %q, not 0 to %v", s, pr, m, maxPrice)
			}
			if l := pr.Long; l != (LongPrice{}) && (l.Above < 1 || !inRange(l.Input) || !inRange(l.Output) || !inRange(l.Cached) || !inRange(l.CacheWrite)) {
				t.Errorf("ParsePrices(%q) accepted long price %+v for %q", s, l, m)
			}
		}
		// What it accepted, written back as JSON, reads back the same.
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("ParsePrices(%q) = %v, which JSON does not encode: %v", s, p, err)
		}
		if back, err := ParsePrices(b); err != nil || !maps.Equal(back, p) {
			t.Fatalf("ParsePrices(%q) = %v, which as %s reads back as %v, %v", s, p, b, back, err)
		}
	})
}

// TestInputTally: requests' input is priced each at its own rate, the long-context one only for
// a request past the threshold, and input at one rate costs what its tokens together do.
func TestInputTally(t *testing.T) {
	p := DefaultPrices()
	var tally InputTally
	tally.Add(p, "gemini-2.5-pro", 150_000)
	tally.Add(p, "gemini-2.5-pro", 150_000)
	if c := tally.Cost(p, "gemini-2.5-pro"); c == nil || *c != 0.375 {
		t.Errorf("two requests of 150,000 tokens cost %v, want 0.375 (no long rate)", c)
	}
	tally.Add(p, "gemini-2.5-pro", 250_000)
	if c := tally.Cost(p, "gemini-2.5-pro"); c == nil || *c != 1.0 {
		t.Errorf("and one of 250,000 cost %v, want 1.0 (0.375 + 250,000 at $2.50)", c)
	}
	var o3 InputTally
	o3.Add(p, "o3-mini", 200)
	o3.Add(p, "o3-mini", 235)
	if c, want := o3.Cost(p, "o3-mini"), *p.Cost("o3-mini", record.Usage{InputTokens: 435}); c == nil || *c != want {
		t.Errorf("two o3-mini requests cost %v, want %v, what their 435 tokens cost together", c, want)
	}
	if c := tally.Cost(p, "unknown"); c != nil {
		t.Errorf("Cost(unknown) = %v, want nil", *c)
	}
}

// TestVersionOf: a dated, numbered or tagged release is a version of its model; another word, or
// a minor version of one or two digits, names another model.
func TestVersionOf(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		want       bool
	}{
		{"gpt-4o-2024-08-06", "gpt-4o", true},
		{"gemini-2.0-flash-001", "gemini-2.0-flash", true},
		{"gemini-2.5-pro-preview-06-05", "gemini-2.5-pro", true},
		{"claude-opus-4-20250514", "claude-opus-4", true},
		{"claude-3-5-sonnet-latest", "claude-3-5-sonnet", true},
		{"gpt-4-0613", "gpt-4", true},
		{"claude-opus-4-5", "claude-opus-4", false},
		{"claude-opus-4-10-20270101", "claude-opus-4", false},
		{"claude-sonnet-4-0", "claude-sonnet-4", false},
		{"o1-pro", "o1", false},
		{"gpt-4o", "gpt-4o", false},
		{"gpt-4oo-2024-08-06", "gpt-4o", false},
		{"gpt-4o-", "gpt-4o", false},
	} {
		if got := VersionOf(tc.name, tc.base); got != tc.want {
			t.Errorf("VersionOf(%q, %q) = %v, want %v", tc.name, tc.base, got, tc.want)
		}
	}
}

// TestParsePricesErrorsSayNoPrices: a price's error begins with its model, as LoadPrices and the
// commands put the file and the flag before it (`--prices: p.yaml: model "m": …`); one that said
// "prices:" again read `--prices: p.yaml: prices: model "m": …`.
func TestParsePricesErrorsSayNoPrices(t *testing.T) {
	for in, want := range map[string]string{
		"m: {input: -1, output: 2}":                                        `model "m": want a price of 0 to 1000000 USD a million tokens, got input -1, output 2`,
		"m: {input: 1, output: 2, cached: -0.5}":                           `model "m": cached: want a price of 0 to 1000000 USD a million tokens, got -0.5`,
		"m: {input: 1, output: 2, long: {above: 5, input: -3, output: 4}}": `model "m": long: want a price of 0 to 1000000 USD a million tokens, got input -3, output 4`,
		"m: {input: 1}": `model "m": no output price: give input and output, 0 for a free one`,
		"m: {input: 1, output: 2, long: {above: 5}}": `model "m": long: no input or output price: give input and output, 0 for a free one`,
		"": "the file is empty: want an object of model names and their prices",
	} {
		if _, err := ParsePrices([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("ParsePrices(%q): error %v, want %q", in, err, want)
		}
	}
}

// TestCostOfLargestPricesIsFinite: the largest prices ParsePrices accepts give a finite cost for
// the largest usage a call can report, which a run's total (Dollars) can add: a price of 1e308
// was accepted, and a reply of 3,000,000 tokens cost +Inf, which made qa-predict panic.
func TestCostOfLargestPricesIsFinite(t *testing.T) {
	p, err := ParsePrices([]byte("m: {input: 1000000, output: 1000000, cached: 1000000, cache_write: 1000000, long: {above: 1, input: 1000000, output: 1000000, cached: 1000000, cache_write: 1000000}}"))
	if err != nil {
		t.Fatal(err)
	}
	u := record.Usage{InputTokens: maxTokenCount, OutputTokens: maxTokenCount, CachedInputTokens: maxTokenCount, CacheWriteInputTokens: maxTokenCount}
	c := p.CostOf("m", u, u, u)
	if c == nil || math.IsInf(*c, 0) || math.IsNaN(*c) {
		t.Fatalf("CostOf = %v, want a finite cost", c)
	}
	var d Dollars
	d.Add(*c)
}
