package model

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/qapipe/qapipe/pkg/record"
)

// PricesDate is the date the built-in price table was taken from the providers' public price
// pages. Prices change; pass --prices to override.
const PricesDate = "2025-06-01"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
}

// Prices maps a model name to its price.
type Prices map[string]Price

// DefaultPrices returns a copy of the built-in table (list prices as of PricesDate, standard tier,
// no batch or cache discounts). The extractive predictor is free; a local model served by Ollama
// or vLLM has no price unless --prices gives it one (0 for a free one).
func DefaultPrices() Prices {
	return Prices{
		"gpt-4o":                 {2.50, 10.00},
		"gpt-4o-mini":            {0.15, 0.60},
		"gpt-4.1":                {2.00, 8.00},
		"gpt-4.1-mini":           {0.40, 1.60},
		"gpt-4.1-nano":           {0.10, 0.40},
		"gpt-4-turbo":            {10.00, 30.00},
		"gpt-3.5-turbo":          {0.50, 1.50},
		"gpt-3.5-turbo-16k":      {3.00, 4.00},
		"gpt-4":                  {30.00, 60.00},
		"gpt-4-32k":              {60.00, 120.00},
		"o1":                     {15.00, 60.00},
		"o1-pro":                 {150.00, 600.00},
		"o1-mini":                {1.10, 4.40},
		"o3":                     {2.00, 8.00},
		"o3-mini":                {1.10, 4.40},
		"o4-mini":                {1.10, 4.40},
		"claude-opus-4-0":        {15.00, 75.00},
		"claude-sonnet-4-0":      {3.00, 15.00},
		"claude-3-7-sonnet":      {3.00, 15.00},
		"claude-3-5-sonnet":      {3.00, 15.00},
		"claude-3-5-haiku":       {0.80, 4.00},
		"claude-3-opus":          {15.00, 75.00},
		"claude-3-haiku":         {0.25, 1.25},
		"claude-opus-4":          {15.00, 75.00},
		"claude-sonnet-4":        {3.00, 15.00},
		"gemini-2.5-pro":         {1.25, 10.00},
		"gemini-2.5-flash":       {0.30, 2.50},
		"gemini-2.0-flash":       {0.10, 0.40},
		"gemini-2.0-flash-lite":  {0.075, 0.30},
		"gemini-1.5-pro":         {1.25, 5.00},
		"gemini-1.5-flash":       {0.075, 0.30},
		"extractive":             {0, 0},
		"extractive-bm25":        {0, 0},
		"text-embedding-3-small": {0.02, 0},
		"text-embedding-3-large": {0.13, 0},
	}
}

// ParsePrices reads a price file: a JSON or YAML object mapping model names to {input, output}
// USD per million tokens. (YAML is a superset of JSON, so one decoder reads both.)
func ParsePrices(data []byte) (Prices, error) {
	var p Prices
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	for m, pr := range p {
		// YAML reads .nan and .inf as numbers. A NaN price makes every cost NaN, and a NaN spend
		// is never >= --max-cost, so the budget would never stop a run.
		if !(pr.Input >= 0 && pr.Output >= 0) || math.IsInf(pr.Input, 0) || math.IsInf(pr.Output, 0) {
			return nil, fmt.Errorf("prices: model %q: want a finite price of 0 or more, got input %v, output %v", m, pr.Input, pr.Output)
		}
	}
	return p, nil
}

// Merge returns p with the entries of q added, q winning on conflicts.
func (p Prices) Merge(q Prices) Prices {
	out := make(Prices, len(p)+len(q))
	for k, v := range p {
		out[k] = v
	}
	for k, v := range q {
		out[k] = v
	}
	return out
}

// Lookup finds model's price: an exact match, else the longest entry k such that model is k
// followed by a version tag, "-" and words that are each all digits, "latest", "preview" or
// "exp" ("gpt-4o-2024-08-06", "claude-3-5-haiku-20241022", "gemini-2.0-flash-001",
// "gemini-2.5-pro-preview-06-05" and "claude-3-5-sonnet-latest" find their base model's entry).
// Another suffix names another model, which may cost more ("o1-pro" is not "o1", nor
// "gemini-2.5-flash-lite" "gemini-2.5-flash"): it has no price unless it has its own entry. A
// provider prefix such as "openai/" is ignored.
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return p.Lookup(model[i+1:])
	}
	// The longest key k with model = k + "-" + tag. Two keys of one length cannot both be
	// prefixes of model, so the result does not depend on map order.
	best, found := -1, Price{}
	for k, pr := range p {
		if len(k) > best && VersionOf(model, k) {
			best, found = len(k), pr
		}
	}
	if best >= 0 {
		return found, true
	}
	return Price{}, false
}

// VersionOf reports whether name is a version of the model base: base, "-" and "-"-separated
// words that are each all digits, "latest", "preview" or "exp" (a server names gpt-4o-mini's
// replies gpt-4o-mini-2024-07-18). "o1-pro" is no version of "o1" but another model.
func VersionOf(name, base string) bool {
	if len(name) <= len(base)+1 || name[len(base)] != '-' || !strings.HasPrefix(name, base) {
		return false
	}
	for w := range strings.SplitSeq(name[len(base)+1:], "-") {
		switch w {
		case "latest", "preview", "exp":
			continue
		case "":
			return false
		}
		for i := 0; i < len(w); i++ {
			if w[i] < '0' || w[i] > '9' {
				return false
			}
		}
	}
	return true
}

// Cost returns the cost of usage u on model, or nil when the model has no price (unknown is not
// free).
func (p Prices) Cost(model string, u record.Usage) *float64 {
	pr, ok := p.Lookup(model)
	if !ok {
		return nil
	}
	c := (float64(u.InputTokens)*pr.Input + float64(u.OutputTokens)*pr.Output) / 1e6
	return &c
}
