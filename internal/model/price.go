package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/qapipe/qapipe/pkg/record"
)

// PricesDate is the date of the providers' list prices the built-in table gives. Prices change,
// and newer models come; pass --prices to override or add.
const PricesDate = "2025-11-30"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
	// Cached, when set, is the price of the prompt tokens the provider served from its prompt
	// cache (Usage.CachedInputTokens), which OpenAI bills at a half to a tenth of the input
	// rate, and Anthropic at a tenth; 0 means none is known, and they are priced at the input
	// rate, as the upper bound, unless a --prices file gave it as 0 (free). A call priced at its Long rates prices them at Long.Cached, or
	// Long.Input without it.
	Cached float64 `json:"cached,omitzero" yaml:"cached,omitempty"`
	// CacheWrite, when set, is the price of the prompt tokens the provider wrote to its prompt
	// cache (Usage.CacheWriteInputTokens), which Anthropic bills at 1.25 times the input rate
	// (its 5-minute cache's writes; its 1-hour cache's, at twice the rate, are not told apart:
	// langchaingo does not pass on usage.cache_creation); 0 means none is known, and they are
	// priced at the input rate, unless a --prices file gave it as 0 (free). A call priced at its Long rates prices them at Long.CacheWrite,
	// or Long.Input without it.
	CacheWrite float64 `json:"cache_write,omitzero" yaml:"cache_write,omitempty"`
	// Long, when its Above is set, is the price of a call whose prompt has more than Above
	// tokens, its input and its output: Gemini's and Claude's long-context rates (gemini-2.5-pro's
	// and claude-sonnet-4's above 200,000 prompt tokens), which a flat rate would undercount by
	// up to half, and --max-cost with it.
	Long LongPrice `json:"long,omitzero" yaml:"long,omitempty"`

	free freeRates // the cache rates given as 0 (ParsePrices)
}

// LongPrice is a model's price for calls with a prompt of more than Above tokens: Cached and
// CacheWrite, when set, are its rates for the prompt tokens read from and written to the
// provider's prompt cache (see Price), which Input prices without them.
type LongPrice struct {
	Above      int     `json:"above" yaml:"above"`
	Input      float64 `json:"input" yaml:"input"`
	Output     float64 `json:"output" yaml:"output"`
	Cached     float64 `json:"cached,omitzero" yaml:"cached,omitempty"`
	CacheWrite float64 `json:"cache_write,omitzero" yaml:"cache_write,omitempty"`

	free freeRates // the cache rates given as 0 (ParsePrices)
}

// freeRates marks the cache rates of a Price or LongPrice that a --prices file gave as 0: the
// tokens read from or written to the cache are then free, as an input or output rate of 0 makes
// its tokens, where a rate of 0 that no one gave (left out, as the built-in table leaves out the
// Gemini models') is none known, and prices them at the input rate.
type freeRates uint8

const (
	freeCached freeRates = 1 << iota
	freeCacheWrite
)

// MarshalJSON writes pr as a --prices file gives it, a cache rate given as 0 included, so that
// it reads back the same.
func (pr Price) MarshalJSON() ([]byte, error) {
	type plain Price
	b, err := json.Marshal(plain(pr))
	return withFreeRates(b, pr.free, err)
}

// MarshalJSON writes l as Price.MarshalJSON writes a price.
func (l LongPrice) MarshalJSON() ([]byte, error) {
	type plain LongPrice
	b, err := json.Marshal(plain(l))
	return withFreeRates(b, l.free, err)
}

// withFreeRates is b, a price's JSON object (or err), with the cache rates free marks as 0.
func withFreeRates(b []byte, free freeRates, err error) ([]byte, error) {
	if err != nil || free == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if free&freeCached != 0 {
		m["cached"] = json.RawMessage("0")
	}
	if free&freeCacheWrite != 0 {
		m["cache_write"] = json.RawMessage("0")
	}
	return json.Marshal(m)
}

// Prices maps a model name to its price.
type Prices map[string]Price

// claudeLong is the rate of a Claude Sonnet 4 or 4.5 call whose prompt has more than 200,000
// tokens (the 1M-token context window), its prompt cache's rates Anthropic's multipliers of it.
var claudeLong = LongPrice{Above: 200_000, Input: 6.00, Output: 22.50, Cached: 0.60, CacheWrite: 7.50}

// DefaultPrices returns a copy of the built-in table (list prices as of PricesDate, standard tier,
// no batch discount). Cached is OpenAI's cached input rate, as its pricing page lists it (none for
// the models without one: gpt-4o-2024-05-13, the -pro models, gpt-4 and gpt-3.5), and Anthropic's
// cache-read rate, with CacheWrite its 5-minute cache-write rate, as its pricing page lists them
// (a tenth and 1.25 times the input rate, rounded for claude-3-haiku); the Gemini API's are not
// given. The extractive predictor is free; a local model served by Ollama or vLLM has no price
// unless --prices gives it one (0 for a free one).
func DefaultPrices() Prices {
	return Prices{
		"gpt-5":             {Input: 1.25, Output: 10.00, Cached: 0.125},
		"gpt-5.1":           {Input: 1.25, Output: 10.00, Cached: 0.125},
		"gpt-5-mini":        {Input: 0.25, Output: 2.00, Cached: 0.025},
		"gpt-5-nano":        {Input: 0.05, Output: 0.40, Cached: 0.005},
		"gpt-5-pro":         {Input: 15.00, Output: 120.00},
		"gpt-4o":            {Input: 2.50, Output: 10.00, Cached: 1.25},
		"gpt-4o-mini":       {Input: 0.15, Output: 0.60, Cached: 0.075},
		"gpt-4.1":           {Input: 2.00, Output: 8.00, Cached: 0.50},
		"gpt-4.1-mini":      {Input: 0.40, Output: 1.60, Cached: 0.10},
		"gpt-4.1-nano":      {Input: 0.10, Output: 0.40, Cached: 0.025},
		"gpt-4-turbo":       {Input: 10.00, Output: 30.00},
		"gpt-3.5-turbo":     {Input: 0.50, Output: 1.50},
		"gpt-3.5-turbo-16k": {Input: 3.00, Output: 4.00},
		// Snapshots whose list price is not their model's, which a dated or numbered name
		// would otherwise take (see Lookup): gpt-4o's first, gpt-4's turbo previews, and the
		// gpt-3.5-turbo releases before 0125, which LoCoMo-era runs called.
		"gpt-4o-2024-05-13":         {Input: 5.00, Output: 15.00},
		"gpt-4-1106-preview":        {Input: 10.00, Output: 30.00},
		"gpt-4-0125-preview":        {Input: 10.00, Output: 30.00},
		"gpt-4-1106-vision-preview": {Input: 10.00, Output: 30.00},
		"gpt-3.5-turbo-1106":        {Input: 1.00, Output: 2.00},
		"gpt-3.5-turbo-0613":        {Input: 1.50, Output: 2.00},
		"gpt-3.5-turbo-0301":        {Input: 1.50, Output: 2.00},
		"gpt-4":                     {Input: 30.00, Output: 60.00},
		"gpt-4-32k":                 {Input: 60.00, Output: 120.00},
		"o1":                        {Input: 15.00, Output: 60.00, Cached: 7.50},
		"o1-pro":                    {Input: 150.00, Output: 600.00},
		"o1-mini":                   {Input: 1.10, Output: 4.40, Cached: 0.55},
		"o3":                        {Input: 2.00, Output: 8.00, Cached: 0.50},
		"o3-pro":                    {Input: 20.00, Output: 80.00},
		"o3-mini":                   {Input: 1.10, Output: 4.40, Cached: 0.55},
		"o4-mini":                   {Input: 1.10, Output: 4.40, Cached: 0.275},
		"claude-opus-4-5":           {Input: 5.00, Output: 25.00, Cached: 0.50, CacheWrite: 6.25},
		"claude-opus-4-1":           {Input: 15.00, Output: 75.00, Cached: 1.50, CacheWrite: 18.75},
		"claude-opus-4-0":           {Input: 15.00, Output: 75.00, Cached: 1.50, CacheWrite: 18.75},
		"claude-opus-4":             {Input: 15.00, Output: 75.00, Cached: 1.50, CacheWrite: 18.75},
		"claude-sonnet-4-5":         {Input: 3.00, Output: 15.00, Cached: 0.30, CacheWrite: 3.75, Long: claudeLong},
		"claude-sonnet-4-0":         {Input: 3.00, Output: 15.00, Cached: 0.30, CacheWrite: 3.75, Long: claudeLong},
		"claude-sonnet-4":           {Input: 3.00, Output: 15.00, Cached: 0.30, CacheWrite: 3.75, Long: claudeLong},
		"claude-haiku-4-5":          {Input: 1.00, Output: 5.00, Cached: 0.10, CacheWrite: 1.25},
		"claude-3-7-sonnet":         {Input: 3.00, Output: 15.00, Cached: 0.30, CacheWrite: 3.75},
		"claude-3-5-sonnet":         {Input: 3.00, Output: 15.00, Cached: 0.30, CacheWrite: 3.75},
		"claude-3-5-haiku":          {Input: 0.80, Output: 4.00, Cached: 0.08, CacheWrite: 1.00},
		"claude-3-opus":             {Input: 15.00, Output: 75.00, Cached: 1.50, CacheWrite: 18.75},
		"claude-3-haiku":            {Input: 0.25, Output: 1.25, Cached: 0.03, CacheWrite: 0.30},
		"gemini-3-pro":              {Input: 2.00, Output: 12.00, Long: LongPrice{Above: 200_000, Input: 4.00, Output: 18.00}},
		"gemini-2.5-pro":            {Input: 1.25, Output: 10.00, Long: LongPrice{Above: 200_000, Input: 2.50, Output: 15.00}},
		"gemini-2.5-flash":          {Input: 0.30, Output: 2.50},
		"gemini-2.5-flash-lite":     {Input: 0.10, Output: 0.40},
		"gemini-2.0-flash":          {Input: 0.10, Output: 0.40},
		"gemini-2.0-flash-lite":     {Input: 0.075, Output: 0.30},
		"gemini-1.5-pro":            {Input: 1.25, Output: 5.00, Long: LongPrice{Above: 128_000, Input: 2.50, Output: 10.00}},
		"gemini-1.5-flash":          {Input: 0.075, Output: 0.30, Long: LongPrice{Above: 128_000, Input: 0.15, Output: 0.60}},
		"extractive":                {Input: 0, Output: 0},
		"extractive-bm25":           {Input: 0, Output: 0},
		"text-embedding-3-small":    {Input: 0.02, Output: 0},
		"text-embedding-3-large":    {Input: 0.13, Output: 0},
	}
}

// ParsePrices reads a price file: a JSON or YAML object mapping model names to {input, output}
// USD per million tokens, and optionally long: {above, input, output}, the rates of calls with a
// prompt of more than above tokens. (YAML is a superset of JSON, so one decoder reads both.) Its
// errors do not say "prices": LoadPrices names the file, and the commands the flag
// (`--prices: p.yaml: model "m": …`, which read `--prices: p.yaml: prices: model "m": …`).
func ParsePrices(data []byte) (Prices, error) {
	var p Prices
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		if err == io.EOF {
			return nil, errors.New("the file is empty: want an object of model names and their prices")
		}
		return nil, err
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		// A second YAML document ("---") was read as if not there: its prices were never used.
		return nil, errors.New("the file holds more than one YAML document: want one object of model names and their prices")
	}
	if err := givenPrices(data); err != nil {
		return nil, err
	}
	markFree(p, data)
	for m, pr := range p {
		// YAML reads .nan and .inf as numbers. A NaN price makes every cost NaN, and a NaN spend
		// is never >= --max-cost, so the budget would never stop a run; a finite price past
		// maxPrice makes a long enough reply cost +Inf, which no total can add.
		if !finitePrice(pr.Input) || !finitePrice(pr.Output) {
			return nil, fmt.Errorf("model %q: want a price of 0 to 1000000 USD a million tokens, got input %v, output %v", m, pr.Input, pr.Output)
		}
		if err := cacheRates("", pr.Cached, pr.CacheWrite); err != nil {
			return nil, fmt.Errorf("model %q: %w", m, err)
		}
		switch l := pr.Long; {
		case l.Above < 0 || l.Above == 0 && l != LongPrice{}:
			return nil, fmt.Errorf("model %q: long: want above, the prompt tokens past which its prices apply, of 1 or more, got %d", m, l.Above)
		case !finitePrice(l.Input) || !finitePrice(l.Output):
			return nil, fmt.Errorf("model %q: long: want a price of 0 to 1000000 USD a million tokens, got input %v, output %v", m, l.Input, l.Output)
		}
		if err := cacheRates("long: ", pr.Long.Cached, pr.Long.CacheWrite); err != nil {
			return nil, fmt.Errorf("model %q: %w", m, err)
		}
	}
	return p, nil
}

// cacheRates returns the error of a price's cached or cache_write rate that is no price (see
// finitePrice), named after prefix ("long: " for the long rates'), or nil.
func cacheRates(prefix string, cached, write float64) error {
	for _, r := range [...]struct {
		name string
		rate float64
	}{{"cached", cached}, {"cache_write", write}} {
		if !finitePrice(r.rate) {
			return fmt.Errorf("%s%s: want a price of 0 to 1000000 USD a million tokens, got %v", prefix, r.name, r.rate)
		}
	}
	return nil
}

// givenPrices returns the error of a price file, data (which decodes), one of whose models, or of
// their long rates, leaves out its input or output price (null, {}, an entry of input alone): it
// was read as 0, a call of it as free, where an unknown price leaves the cost unknown.
func givenPrices(data []byte) error {
	var raw map[string]map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil // decoded as Prices already: a shape this one does not take is no entry left out
	}
	for _, m := range slices.Sorted(maps.Keys(raw)) {
		entry := raw[m]
		if missing := missingRates(entry); missing != "" {
			return fmt.Errorf("model %q: no %s price: give input and output, 0 for a free one", m, missing)
		}
		if long, ok := entry["long"].(map[string]any); ok {
			if missing := missingRates(long); missing != "" {
				return fmt.Errorf("model %q: long: no %s price: give input and output, 0 for a free one", m, missing)
			}
		}
	}
	return nil
}

// markFree marks the cache rates of p, decoded from data, that data gives as 0 (freeRates).
func markFree(p Prices, data []byte) {
	var raw map[string]map[string]any
	if yaml.Unmarshal(data, &raw) != nil {
		return
	}
	for m, entry := range raw {
		pr, ok := p[m]
		if !ok {
			continue
		}
		pr.free = zeroRates(entry)
		if long, ok := entry["long"].(map[string]any); ok {
			pr.Long.free = zeroRates(long)
		}
		p[m] = pr
	}
}

// zeroRates is the cache rates entry gives as 0.
func zeroRates(entry map[string]any) freeRates {
	var free freeRates
	for key, bit := range map[string]freeRates{"cached": freeCached, "cache_write": freeCacheWrite} {
		switch n := entry[key].(type) {
		case int:
			if n == 0 {
				free |= bit
			}
		case float64:
			if n == 0 {
				free |= bit
			}
		}
	}
	return free
}

// missingRates names the rates entry does not give, or gives as null ("input", "output", "input
// or output").
func missingRates(entry map[string]any) string {
	in, out := entry["input"] != nil, entry["output"] != nil
	switch {
	case !in && !out:
		return "input or output"
	case !in:
		return "input"
	case !out:
		return "output"
	}
	return ""
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
// followed by a version tag (see VersionOf: "gpt-4o-2024-08-06", "claude-3-5-haiku-20241022",
// "gemini-2.0-flash-001", "gemini-2.5-pro-preview-06-05" and "claude-3-5-sonnet-latest" find
// their base model's entry). Another suffix names another model, which may cost more or less
// ("o1-pro" is not "o1", "gemini-2.5-flash-lite" not "gemini-2.5-flash", and "claude-opus-4-5"
// not "claude-opus-4"): it has no price unless it has its own entry. A provider prefix such as
// "openai/" is ignored.
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
// replies gpt-4o-mini-2024-07-18). "o1-pro" is no version of "o1" but another model, and so is a
// name whose first word is a number of one or two digits: a minor version ("claude-opus-4-5" of
// "claude-opus-4", a model of another price), where a dated or numbered release has three digits
// or more ("gemini-2.0-flash-001", "gpt-4-0613", "claude-opus-4-20250514").
func VersionOf(name, base string) bool {
	if len(name) <= len(base)+1 || name[len(base)] != '-' || !strings.HasPrefix(name, base) {
		return false
	}
	if minorVersion(name[len(base)+1:]) {
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

// minorVersion reports whether tag, the words after a model name, begins with a word of one or
// two digits.
func minorVersion(tag string) bool {
	w, _, _ := strings.Cut(tag, "-")
	return len(w) > 0 && len(w) <= 2 && strings.Trim(w, "0123456789") == ""
}

// Cost returns the cost of usage u, one call's, on model, or nil when the model has no price or
// a count of u is unknown, left out of the usage it was read from (unknown is not free). A call
// whose prompt is longer than the price's Long.Above is priced at its Long rates, input and
// output. The input tokens the provider served from its prompt cache are priced at the Cached
// rate, and those it wrote to it at the CacheWrite rate, when the price has one (Long.Cached and
// Long.CacheWrite for a call priced at its Long rates), and at the input rate else. The cost is worked
// out in decimal (see Price.dollars), so that it is the nearest float64 to the sum of tokens ×
// rate, with no noise in its last digits.
func (p Prices) Cost(model string, u record.Usage) *float64 {
	return p.CostOf(model, u)
}

// CostOf returns the cost of calls to model, one usage a call, each priced as Cost prices it: a
// call's own prompt decides whether it takes the long-context rates (Price.Long), not the prompts
// of the calls together, as the provider bills them. It is nil when the model has no price or a
// count of a usage is unknown. The calls' tokens are added up by rate and priced once, so that
// three calls of $0.003 cost $0.009, not 0.009000000000000001.
func (p Prices) CostOf(model string, calls ...record.Usage) *float64 {
	pr, ok := p.Lookup(model)
	if !ok {
		return nil
	}
	var b bill
	for _, u := range calls {
		if !u.Known() {
			return nil
		}
		b.add(pr, u)
	}
	c := pr.dollars(b)
	return &c
}

// bill counts a model's tokens by the rate each is priced at: the base rates' (in, cached,
// written, out) and the long rates' (Price.Long).
type bill struct{ base, long tokens }

// tokens counts a call's tokens by kind: input that the provider's prompt cache did not serve nor
// was written to it, read from it, written to it, and output.
type tokens struct{ in, cached, written, out int64 }

// add counts the tokens of u, one call's usage, at the rates pr prices them at. The input tokens
// read from the cache, at most the input's, and those written to it, at most the rest, are
// counted apart when the rates price them (Price.Cached, Price.CacheWrite), and as input else.
func (b *bill) add(pr Price, u record.Usage) {
	t, cachedRate, writeRate, free := &b.base, pr.Cached, pr.CacheWrite, pr.free
	if pr.long(u.InputTokens) {
		t, cachedRate, writeRate, free = &b.long, pr.Long.Cached, pr.Long.CacheWrite, pr.Long.free
	}
	read := min(max(u.CachedInputTokens, 0), u.InputTokens)
	written := min(max(u.CacheWriteInputTokens, 0), u.InputTokens-read)
	if cachedRate == 0 && free&freeCached == 0 {
		read = 0
	}
	if writeRate == 0 && free&freeCacheWrite == 0 {
		written = 0
	}
	t.in += int64(u.InputTokens - read - written)
	t.cached += int64(read)
	t.written += int64(written)
	t.out += int64(u.OutputTokens)
}

// dollars returns the price of the tokens b counts, the rates being per million tokens. It adds
// the products in decimal, each rate read as the shortest decimal that is that float64 (0.15,
// not 0.1499999999999999944…), and rounds once, at the end: the sum of a few float products
// carries noise in its last digits (464×0.15 + 1536×0.075 + 10×0.60 came to
// 0.00019079999999999998), which a cost_usd would show.
func (pr Price) dollars(b bill) float64 {
	var sum, term big.Rat
	for _, t := range [...]struct {
		tokens int64
		rate   float64
	}{{b.base.in, pr.Input}, {b.base.cached, pr.Cached}, {b.base.written, pr.CacheWrite}, {b.base.out, pr.Output},
		{b.long.in, pr.Long.Input}, {b.long.cached, pr.Long.Cached}, {b.long.written, pr.Long.CacheWrite}, {b.long.out, pr.Long.Output}} {
		if t.tokens == 0 || t.rate == 0 {
			continue
		}
		if _, ok := term.SetString(strconv.FormatFloat(t.rate, 'g', -1, 64)); !ok {
			panic(fmt.Sprintf("model: rate %v is no decimal", t.rate)) // finitePrice refuses Inf and NaN
		}
		sum.Add(&sum, term.Mul(&term, new(big.Rat).SetInt64(t.tokens)))
	}
	c, _ := sum.Quo(&sum, big.NewRat(1_000_000, 1)).Float64()
	return c
}

// InputTally counts requests' input tokens by the rate each request's prompt is priced at (see
// Price.Long), to price them all as their calls would be: a long-context rate applies to a
// request, not to a run whose requests add up past it. It keeps counts, not a sum of costs, so
// that requests priced at one rate cost what their tokens together do, to the last digit.
type InputTally struct{ base, long int }

// Add counts a request of tokens input tokens to model.
func (t *InputTally) Add(p Prices, model string, tokens int) {
	if pr, ok := p.Lookup(model); ok && pr.long(tokens) {
		t.long += tokens
		return
	}
	t.base += tokens
}

// Cost is the price of the input counted, or nil when model has no price.
func (t InputTally) Cost(p Prices, model string) *float64 {
	pr, ok := p.Lookup(model)
	if !ok {
		return nil
	}
	c := pr.dollars(bill{base: tokens{in: int64(t.base)}, long: tokens{in: int64(t.long)}})
	return &c
}

// long reports whether a call with a prompt of tokens tokens is priced at the Long rates.
func (p Price) long(tokens int) bool { return p.Long.Above > 0 && tokens > p.Long.Above }

// maxPrice is the highest price a --prices file may give, in USD per million tokens: a dollar a
// token, far above any model's (o1-pro's output is 600). Priced at it, a call of the most tokens
// a usage may count (maxTokenCount of each kind) costs some 3e15 dollars, which a float64 and a
// run's total hold; a price of 1e308 made a reply of a few million tokens cost +Inf.
const maxPrice = 1_000_000

// finitePrice reports whether v is a price: 0 to maxPrice, so neither NaN nor infinite.
func finitePrice(v float64) bool { return v >= 0 && v <= maxPrice }
