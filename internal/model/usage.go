package model

import "github.com/qapipe/qapipe/pkg/record"

// usageKeys lists, per provider family, the GenerationInfo keys langchaingo v0.1.14 uses for input
// and output tokens: openai and ollama report PromptTokens/CompletionTokens, anthropic
// InputTokens/OutputTokens, and googleai input_tokens/output_tokens.
var usageKeys = [][2]string{
	{"PromptTokens", "CompletionTokens"},
	{"InputTokens", "OutputTokens"},
	{"input_tokens", "output_tokens"},
	{"prompt_tokens", "completion_tokens"},
}

// UsageFromInfo normalises the token counts in a langchaingo GenerationInfo map. The first key pair
// with any non-zero count wins; missing counts are zero.
func UsageFromInfo(info map[string]any) record.Usage {
	for _, k := range usageKeys {
		in, okIn := toInt(info[k[0]])
		out, okOut := toInt(info[k[1]])
		if (okIn || okOut) && in+out > 0 {
			return record.Usage{InputTokens: in, OutputTokens: out}
		}
	}
	return record.Usage{}
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	case float32:
		return int(n), true
	}
	return 0, false
}
