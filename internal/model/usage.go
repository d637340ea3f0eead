package model

import (
	"cmp"

	"github.com/qapipe/qapipe/pkg/record"
)

// usageKeys lists, per provider family, the GenerationInfo keys langchaingo v0.1.14 uses for input,
// output and total tokens: openai, ollama and googleai report PromptTokens/CompletionTokens/
// TotalTokens, anthropic InputTokens/OutputTokens (no total), and googleai also
// input_tokens/output_tokens/total_tokens.
var usageKeys = [][3]string{
	{"PromptTokens", "CompletionTokens", "TotalTokens"},
	{"InputTokens", "OutputTokens", ""},
	{"input_tokens", "output_tokens", "total_tokens"},
	{"prompt_tokens", "completion_tokens", "total_tokens"},
}

// maxTokenCount bounds the token counts of a call: no model reads or writes 2^40 tokens at once.
const maxTokenCount = 1 << 40

// tokenCount reports whether n can be a call's count of tokens: 0 to maxTokenCount.
func tokenCount(n int) bool { return n >= 0 && n <= maxTokenCount }

// UsageFromInfo normalises the token counts in a langchaingo GenerationInfo map. The first key pair
// with any non-zero count wins; missing counts are zero. A total above input and output counts
// the rest as output: Gemini's thinking models report their thoughts (billed as output) in
// totalTokenCount only, apart from candidatesTokenCount, and genai drops thoughtsTokenCount.
// Anthropic's prompt-cache counts add to its input, the read ones as cached and the written ones
// as written (anthropicInput). A
// count of the pair that no call has (negative, or over maxTokenCount) makes the usage zero:
// unknown, not a negative or overflowing count.
func UsageFromInfo(info map[string]any) record.Usage {
	for _, k := range usageKeys {
		in, okIn := toInt(info[k[0]])
		out, okOut := toInt(info[k[1]])
		total, okTotal := toInt(info[k[2]])
		if !tokenCount(in) || !tokenCount(out) || !tokenCount(total) {
			return record.Usage{}
		}
		if okTotal && total > in+out {
			out, okOut = total-in, true
		}
		cached, written := 0, 0
		if k[0] == "InputTokens" { // anthropic's: its cache counts apart
			created, _ := toInt(info["CacheCreationInputTokens"])
			read, _ := toInt(info["CacheReadInputTokens"])
			if !tokenCount(created) || !tokenCount(read) {
				return record.Usage{}
			}
			in, cached, written = anthropicInput(in, created, read)
		}
		if (okIn || okOut) && in+out > 0 {
			return record.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: cmp.Or(cached, cachedInput(info, in)), CacheWriteInputTokens: written}
		}
	}
	return record.Usage{}
}

// cachedKeys are the GenerationInfo keys under which langchaingo v0.1.14 gives the prompt tokens
// the provider served from its prompt cache, a part of the input count: openai's
// PromptCachedTokens (prompt_tokens_details.cached_tokens) and googleai's CachedTokens
// (cachedContentTokenCount). Anthropic's are counted apart from its input (anthropicInput).
var cachedKeys = []string{"PromptCachedTokens", "CachedTokens"}

// anthropicInput is the input count of an Anthropic reply whose usage gives in input tokens, and
// created and read tokens written to and read from its prompt cache, which Anthropic counts apart
// from its input_tokens (which counts only the tokens after the last cache breakpoint): all
// three, the read ones also as cached and the created ones as written, which Anthropic bills at a
// tenth and 1.25 times the input rate (Price.Cached, Price.CacheWrite). Anthropic caches only
// what a request marks with cache_control, which qapipe's never do, but a gateway in front of it
// may (OpenRouter's automatic caching): dropped, they made a prompt of 23,000 tokens a call of 10.
func anthropicInput(in, created, read int) (input, cached, written int) {
	return in + created + read, read, created
}

// cachedInput is the count of the prompt tokens the provider served from its cache that info
// gives, at most input, the prompt's.
func cachedInput(info map[string]any, input int) int {
	for _, k := range cachedKeys {
		if n, ok := toInt(info[k]); ok && n > 0 {
			return min(n, input)
		}
	}
	return 0
}

// toInt reads v, a count, as an int; one that is not a whole number from 0 to maxTokenCount reads
// as -1 (a float64 as large as 2^63, or NaN, has no int).
func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(max(min(n, maxTokenCount+1), -1)), true
	case float64:
		return floatCount(n), true
	case float32:
		return floatCount(float64(n)), true
	}
	return 0, false
}

// floatCount is n as a count, or -1 when n is no count of tokens.
func floatCount(n float64) int {
	if !(n >= 0 && n <= maxTokenCount) {
		return -1
	}
	return int(n)
}
