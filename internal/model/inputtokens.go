package model

import (
	"net/url"
	"strings"

	"github.com/qapipe/qapipe/internal/bpe"
)

// SentInputTokens is the input tokens the dry runs count for r's call: its messages as the call
// carries them (SentMessages), in the model's tiktoken encoding (bpe.ForModel). A call to OpenAI's
// own API (openai at api.openai.com, the default) or to Azure OpenAI's (at a host of
// openai.azure.com, whose deployments serve OpenAI's models and count their usage alike) is
// counted as its usage.prompt_tokens counts the chat format (OpenAI's cookbook, "How to count
// tokens with tiktoken", num_tokens_from_messages): each message's text and role (one token each
// of system, user and assistant) and 3 tokens more (4 for gpt-3.5-turbo-0301), and 3 that prime
// the reply. The cookbook checks its count against the API's for gpt-3.5-turbo, gpt-4, gpt-4o and
// gpt-4o-mini; later models (gpt-4.1, the o series, gpt-5) are counted alike. Every other call, to
// Anthropic, Gemini, Ollama or an OpenAI-compatible server at another base URL (vLLM, llama.cpp),
// counts the text alone: their chat templates and tokenizers are their own, so it is an estimate.
// A call with no message (o1's of system messages alone, SentMessages) is refused, and counts
// none.
func (r Request) SentInputTokens() int {
	enc := bpe.ForModel(r.Model)
	msgs := r.SentMessages()
	n := 0
	for _, m := range msgs {
		n += enc.Count(m.Content)
	}
	if !r.chatFormatCounted() || len(msgs) == 0 {
		return n
	}
	perMessage := 3
	if r.Model == "gpt-3.5-turbo-0301" {
		perMessage = 4 // <|im_start|>{role}\n{content}<|im_end|>\n
	}
	for _, m := range msgs {
		role := m.Role
		if role == "" {
			role = "user" // as chatRole sends it
		}
		n += perMessage + enc.Count(role)
	}
	return n + 3 // <|im_start|>assistant<|im_sep|>
}

// InputTokensCounted says how SentInputTokens counts r's input tokens, for a dry run's summary to
// say beside the count: the encoding's name, and that the count has the chat format's tokens
// where it has them ("o200k_base, with the chat format's tokens").
func (r Request) InputTokensCounted() string {
	name := bpe.ForModel(r.Model).Name()
	if r.chatFormatCounted() {
		return name + ", with the chat format's tokens"
	}
	return name
}

// chatFormatCounted reports whether SentInputTokens counts the chat format's tokens of r's call:
// an openai call to OpenAI's own API or Azure OpenAI's.
func (r Request) chatFormatCounted() bool {
	return r.Provider == "openai" && (openAIHost(r.BaseURL) || azureOpenAIHost(r.BaseURL))
}

// azureOpenAIHost reports whether base, an openai base URL, is Azure OpenAI's: a resource's host
// under openai.azure.com (https://RESOURCE.openai.azure.com/openai/v1).
func azureOpenAIHost(base string) bool {
	u, err := url.Parse(Endpoint("openai", base))
	return err == nil && strings.HasSuffix(strings.ToLower(u.Hostname()), ".openai.azure.com")
}
