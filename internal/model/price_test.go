package model

import (
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
		{"gpt-4o", Price{2.50, 10.00}, true},
		{"gpt-4o-mini", Price{0.15, 0.60}, true},
		{"gpt-4o-2024-08-06", Price{2.50, 10.00}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true},
		{"openai/gpt-4o-mini", Price{0.15, 0.60}, true},
		{"claude-3-5-haiku-20241022", Price{0.80, 4.00}, true},
		{"gpt-3.5-turbo-0125", Price{0.50, 1.50}, true},
		{"claude-sonnet-4-20250514", Price{3.00, 15.00}, true},
		{"claude-3-5-sonnet-latest", Price{3.00, 15.00}, true},
		{"gemini-2.0-flash-001", Price{0.10, 0.40}, true},
		{"gemini-2.5-pro-preview-06-05", Price{1.25, 10.00}, true},
		{"gemini-2.0-flash-exp", Price{0.10, 0.40}, true},
		{"o1-pro", Price{150.00, 600.00}, true},
		{"o1-pro-2025-03-19", Price{150.00, 600.00}, true},
		{"llama3:8b", Price{}, false},
		{"gpt-4oo", Price{}, false},
		// Another model, not a version: no price rather than a lower one.
		{"o3-pro", Price{}, false},
		{"o3-pro-2025-06-10", Price{}, false},
		{"gemini-2.5-flash-lite", Price{}, false},
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

func TestPricesCost(t *testing.T) {
	p := Prices{"m": {Input: 2, Output: 8}}
	c := p.Cost("m", record.Usage{InputTokens: 1000, OutputTokens: 500})
	if c == nil || *c != 0.006 {
		t.Errorf("Cost = %v, want 0.006", c)
	}
	if c := p.Cost("unknown", record.Usage{InputTokens: 1}); c != nil {
		t.Errorf("Cost(unknown) = %v, want nil", *c)
	}
}

func TestParsePrices(t *testing.T) {
	tests := []struct {
		name, in string
		want     Prices
		wantErr  bool
	}{
		{"json", `{"my-model": {"input": 1.5, "output": 2}}`, Prices{"my-model": {1.5, 2}}, false},
		{"yaml", "my-model:\n  input: 0.1\n  output: 0.2\nother: {input: 0, output: 0}\n", Prices{"my-model": {0.1, 0.2}, "other": {}}, false},
		{"unknown field", `{"m": {"inp": 1}}`, nil, true},
		{"negative", `{"m": {"input": -1, "output": 0}}`, nil, true},
		{"nan", "m: {input: .nan, output: 1}", nil, true},
		{"infinite", "m: {input: 1, output: .inf}", nil, true},
		{"not a map", `[1, 2]`, nil, true},
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
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrices([]byte(s))
		if err != nil {
			return
		}
		for m, pr := range p {
			if !(pr.Input >= 0 && pr.Output >= 0) || math.IsInf(pr.Input, 0) || math.IsInf(pr.Output, 0) {
				t.Errorf("ParsePrices(%q) accepted price %v for %q, not finite and 0 or more", s, pr, m)
			}
		}
	})
}
