package model

import (
	"fmt"
	"slices"
	"strings"
)

// What a request's call carries on the wire, which is not always what the Request says:
// langchaingo v0.1.14 leaves some fields out for some providers and models, sends others the
// Request leaves out, and moves a system message for some models. The dry runs show a request by
// these, so that they show what the provider receives; the wire tests (TestSeedOnTheWire,
// TestSentOnTheWire, TestSamplingOnTheWire, TestMessagesOnTheWire) hold them to the bodies a
// loopback server receives, so that a langchaingo upgrade that changes a body fails them.

// SentSeed is the seed r's call carries on the wire, or nil when it carries none: langchaingo
// v0.1.14 sends a seed to openai and ollama only, and leaves a seed of 0 out (both request
// bodies mark it omitempty).
func (r Request) SentSeed() *int {
	if r.Seed == nil || *r.Seed == 0 {
		return nil
	}
	switch r.Provider {
	case "openai", "ollama":
		return r.Seed
	}
	return nil
}

// SentTemperature is the temperature r's call carries on the wire, or nil when it carries none:
// langchaingo v0.1.14 sends none to the OpenAI models it takes for reasoning models (see
// openAIReasoning), which accept only their default, and else always sends one: r's, or when r
// has none 0 (openai, anthropic, ollama) or googleai's default, 0.5.
func (r Request) SentTemperature() *float64 {
	unset := 0.0
	switch r.Provider {
	case "openai":
		if openAIReasoning(r.Model) {
			return nil
		}
	case "anthropic", "ollama":
	case "googleai":
		unset = googleTemperature
	default:
		return r.Temperature
	}
	if r.Temperature != nil {
		return r.Temperature
	}
	return &unset
}

// UnsentTemperature is the warning that a temperature flag given (flag, e.g. "--temperature",
// set to t; origin is " from QA_X" when its variable set it, else "") does nothing with
// provider's model name, as langchaingo sends that model no temperature (see SentTemperature); ""
// when the call carries it.
func UnsentTemperature(flag string, t float64, origin, provider, name string) string {
	if (Request{Provider: provider, Model: name, Temperature: &t}).SentTemperature() != nil {
		return ""
	}
	return fmt.Sprintf("%s %g%s does nothing with %s %s: langchaingo sends it no temperature (see --dry-run)", flag, t, origin, provider, name)
}

// googleTemperature is the temperature langchaingo v0.1.14 sends to googleai when a request sets
// none.
const googleTemperature = 0.5

// openAIReasoning reports whether langchaingo v0.1.14 takes an OpenAI model name for a reasoning
// model's and sends it no temperature: "o1-…", "o3", "o3-…" and "gpt-5…", as written (its
// isReasoningModel). Others of the kind ("o1", "o4-mini") get the temperature asked for.
func openAIReasoning(name string) bool {
	return strings.HasPrefix(name, "o1-") || name == "o3" || strings.HasPrefix(name, "o3-") || strings.HasPrefix(name, "gpt-5")
}

// SentTopP is the top_p r's call carries on the wire (Anthropic's top_p, Ollama's options.top_p,
// Gemini's generationConfig.topP), or nil when it carries none: langchaingo v0.1.14 sends r's to
// anthropic and ollama, but none of 0 (both request bodies mark it omitempty); to googleai always
// one, r's or when r has none its default, 0.95; and to openai none at all (its chat request has
// a top_p it never fills).
func (r Request) SentTopP() *float64 { return sentSampling(r.Provider, r.TopP, googleTopP, "openai") }

// SentTopK is the top_k r's call carries on the wire (Ollama's options.top_k, Gemini's
// generationConfig.topK), or nil when it carries none: langchaingo v0.1.14 sends r's to ollama,
// but none of 0 (its options mark it omitempty); to googleai always one, r's or when r has none
// its default, 3; and to openai and anthropic none at all (neither request has a top_k; OpenAI's
// API has none, but vLLM and llama.cpp take one, so its leaving out matters there too).
func (r Request) SentTopK() *int {
	return sentSampling(r.Provider, r.TopK, googleTopK, "openai", "anthropic")
}

// sentSampling is a sampling parameter v as a call to provider carries it: none to the providers
// that never send it, googleai's default when v is nil, and none of 0 to the others.
func sentSampling[T float64 | int](provider string, v *T, google T, never ...string) *T {
	switch {
	case slices.Contains(never, provider):
		return nil
	case provider == "googleai":
		if v == nil {
			return &google
		}
	case v != nil && *v == 0:
		return nil
	}
	return v
}

// googleTopP and googleTopK are the top_p and top_k langchaingo v0.1.14 sends to googleai when a
// request sets none.
const (
	googleTopP = 0.95
	googleTopK = 3
)

// SentNumCtx is the context window r's call asks for on the wire (Ollama's options.num_ctx), 0 for
// none: r's to ollama (a num_ctx of 0 is left out, its options mark it omitempty); the other
// providers have no such option.
func (r Request) SentNumCtx() int {
	if r.Provider != "ollama" {
		return 0
	}
	return r.NumCtx
}

// SentResponseFormat is the reply format r's call asks for on the wire, "" for none: r's, but
// for anthropic, which has no JSON mode, and to which langchaingo v0.1.14 sends none.
func (r Request) SentResponseFormat() string {
	if r.Provider == "anthropic" {
		return ""
	}
	return r.ResponseFormat
}

// SentMaxTokens is the most tokens r's call asks for on the wire (OpenAI's max_tokens or
// max_completion_tokens, Ollama's num_predict, Gemini's maxOutputTokens), 0 for none: r's, or
// when r sets none, langchaingo v0.1.14's 2048 for anthropic and googleai, which always send one.
func (r Request) SentMaxTokens() int {
	if r.MaxTokens > 0 {
		return r.MaxTokens
	}
	switch r.Provider {
	case "anthropic", "googleai":
		return langchaingoMaxTokens
	}
	return 0
}

// SentMaxTokensField is the member r's call carries its token budget in: "" when it carries none
// or is not an openai call, else MaxTokensFieldFor's choice for r's field and base URL.
func (r Request) SentMaxTokensField() string {
	if r.Provider != "openai" || r.SentMaxTokens() == 0 {
		return ""
	}
	return MaxTokensFieldFor(r.MaxTokensField, r.BaseURL)
}

// SentMessages is the messages r's call carries on the wire: r's, but for a system message without
// text to anthropic or googleai, which is left out (emptySystem), and for the OpenAI models
// langchaingo v0.1.14 takes for having no system message (openAINoSystem), which it sends none:
// the system messages' text, joined by blank lines, and a blank line go at the head of the first
// user message.
func (r Request) SentMessages() []Message {
	if slices.ContainsFunc(r.Messages, func(m Message) bool { return emptySystem(r.Provider, m) }) {
		return slices.DeleteFunc(slices.Clone(r.Messages), func(m Message) bool { return emptySystem(r.Provider, m) })
	}
	if r.Provider != "openai" || !openAINoSystem(r.Model) {
		return r.Messages
	}
	system := ""
	for _, m := range r.Messages {
		if m.Role == "system" {
			if system != "" {
				system += "\n\n"
			}
			system += m.Content
		}
	}
	out := make([]Message, 0, len(r.Messages))
	for _, m := range r.Messages {
		switch m.Role {
		case "system":
			continue
		case "user", "":
			if system != "" {
				m.Content = system + "\n\n" + m.Content
				system = ""
			}
		}
		out = append(out, m)
	}
	return out
}

// NoSystemMessage reports whether a call of provider to model carries no system message on the
// wire, its text going at the head of the first user message (SentMessages): a request of system
// messages alone is sent with none.
func NoSystemMessage(provider, model string) bool {
	return provider == "openai" && openAINoSystem(model)
}

// openAINoSystem reports whether langchaingo v0.1.14 takes an OpenAI model name for one without
// system messages: "o1", "o3", and their "-mini" and "-preview", in any case, but not dated.
func openAINoSystem(name string) bool {
	switch strings.ToLower(name) {
	case "o1", "o1-mini", "o1-preview", "o3", "o3-mini", "o3-preview":
		return true
	}
	return false
}
