package model

import (
	"testing"

	"github.com/qapipe/qapipe/internal/bpe"
)

// TestChatRolesOneToken: each role the chat format writes is one token in both encodings, so
// the chat format adds 4 tokens a message (3 of its own and the role's) for OpenAI's models.
func TestChatRolesOneToken(t *testing.T) {
	for _, enc := range []*bpe.Encoding{bpe.O200k, bpe.Cl100k} {
		for _, role := range []string{"system", "user", "assistant"} {
			if got := enc.Count(role); got != 1 {
				t.Errorf("%s.Count(%q) = %d, want 1", enc.Name(), role, got)
			}
		}
	}
}

// TestSentInputTokens: a call to OpenAI's own API counts, as its usage.prompt_tokens does (OpenAI's
// cookbook, num_tokens_from_messages), the messages as sent, their roles, 3 tokens a message (4
// for gpt-3.5-turbo-0301) and 3 priming the reply; every other call the messages' text alone.
// The text's tokens are counted here by bpe, the overhead written out by hand.
func TestSentInputTokens(t *testing.T) {
	const (
		sysText  = "Answer briefly."
		userText = "Who wrote the play Hamlet, and in which year was it first printed?"
	)
	sys := Message{Role: "system", Content: sysText}
	user := Message{Role: "user", Content: userText}
	o, c := bpe.O200k.Count, bpe.Cl100k.Count
	if o(userText) == c(userText) { // the gpt-4 and gpt-3.5 cases tell the encodings apart
		t.Fatalf("%q: as many tokens in o200k_base as in cl100k_base", userText)
	}
	for _, tc := range []struct {
		name                  string
		provider, base, model string
		msgs                  []Message
		want                  int
	}{
		// 2 messages: 2·(3 + 1 for the role) + 3 priming the reply.
		{"gpt-4o-mini", "openai", "", "gpt-4o-mini", []Message{sys, user}, o(sysText) + o(userText) + 2*4 + 3},
		{"gpt-4o dated", "openai", "", "gpt-4o-2024-08-06", []Message{sys, user}, o(sysText) + o(userText) + 2*4 + 3},
		{"gpt-4.1", "openai", "", "gpt-4.1", []Message{sys, user}, o(sysText) + o(userText) + 2*4 + 3},
		{"gpt-4 cl100k", "openai", "", "gpt-4", []Message{sys, user}, c(sysText) + c(userText) + 2*4 + 3},
		{"gpt-3.5-turbo cl100k", "openai", "", "gpt-3.5-turbo", []Message{sys, user}, c(sysText) + c(userText) + 2*4 + 3},
		{"gpt-3.5-turbo-0613", "openai", "", "gpt-3.5-turbo-0613", []Message{user}, c(userText) + 4 + 3},
		// gpt-3.5-turbo-0301: 4 tokens a message besides its role.
		{"gpt-3.5-turbo-0301", "openai", "", "gpt-3.5-turbo-0301", []Message{sys, user}, c(sysText) + c(userText) + 2*5 + 3},
		{"one message", "openai", "", "gpt-4o-mini", []Message{user}, o(userText) + 4 + 3},
		{"explicit base", "openai", "https://api.openai.com/v1/", "gpt-4o-mini", []Message{sys, user}, o(sysText) + o(userText) + 2*4 + 3},
		{"base in capitals", "openai", "https://API.OpenAI.com:443/v1", "gpt-4o-mini", []Message{user}, o(userText) + 4 + 3},
		// The role "" goes as user; an assistant's turn is a message like the others.
		{"role unset", "openai", "", "gpt-4o-mini", []Message{{Content: userText}}, o(userText) + 4 + 3},
		{"assistant turn", "openai", "", "gpt-4o-mini", []Message{user, {Role: "assistant", Content: "Shakespeare."}, user},
			2*o(userText) + o("Shakespeare.") + 3*4 + 3},
		// o1 and o3 get no system message: its text and a blank line head the first user
		// message, one message on the wire.
		{"o1 merged", "openai", "", "o1", []Message{sys, user}, o(sysText+"\n\n"+userText) + 4 + 3},
		{"o3-mini merged", "openai", "", "o3-mini", []Message{sys, user}, o(sysText+"\n\n"+userText) + 4 + 3},
		{"o1 dated", "openai", "", "o1-2024-12-17", []Message{sys, user}, o(sysText) + o(userText) + 2*4 + 3},
		{"o1 system alone", "openai", "", "o1", []Message{sys}, 0},
		{"gpt-5", "openai", "", "gpt-5", []Message{sys, user}, o(sysText) + o(userText) + 2*4 + 3},
		{"no messages", "openai", "", "gpt-4o-mini", nil, 0},
		// Azure OpenAI's deployments serve OpenAI's models, whose usage.prompt_tokens counts the
		// chat format as OpenAI's API does.
		{"azure", "openai", "https://myres.openai.azure.com/openai/v1", "gpt-4o-mini", []Message{sys, user}, o(sysText) + o(userText) + 2*4 + 3},
		{"azure in capitals", "openai", "https://MyRes.OpenAI.Azure.com/openai/v1/", "gpt-4", []Message{user}, c(userText) + 4 + 3},
		// Other servers' chat templates are their own: the text alone.
		{"vllm", "openai", "http://127.0.0.1:8000/v1", "gpt-4o-mini", []Message{sys, user}, o(sysText) + o(userText)},
		{"azure lookalike", "openai", "https://openai.azure.com.example.org/v1", "gpt-4o-mini", []Message{sys, user}, o(sysText) + o(userText)},
		{"ollama", "ollama", "", "llama3.1:8b", []Message{sys, user}, o(sysText) + o(userText)},
		{"anthropic", "anthropic", "", "claude-sonnet-4-5", []Message{sys, user}, o(sysText) + o(userText)},
		{"googleai", "googleai", "", "gemini-2.5-flash", []Message{sys, user}, o(sysText) + o(userText)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Request{Provider: tc.provider, BaseURL: tc.base, Model: tc.model, Messages: tc.msgs}
			if got := r.SentInputTokens(); got != tc.want {
				t.Errorf("SentInputTokens() of %s %q at %q = %d, want %d", tc.provider, tc.model, tc.base, got, tc.want)
			}
		})
	}
}

// TestInputTokensCounted: the dry runs' summary says how SentInputTokens counted a call's tokens:
// the encoding, and the chat format's tokens where the count has them (OpenAI's own API and Azure
// OpenAI's).
func TestInputTokensCounted(t *testing.T) {
	for _, tc := range []struct{ provider, base, model, want string }{
		{"openai", "", "gpt-4o-mini", "o200k_base, with the chat format's tokens"},
		{"openai", "https://api.openai.com/v1", "gpt-4", "cl100k_base, with the chat format's tokens"},
		{"openai", "https://myres.openai.azure.com/openai/v1", "gpt-4o", "o200k_base, with the chat format's tokens"},
		{"openai", "http://127.0.0.1:8000/v1", "gpt-4o-mini", "o200k_base"},
		{"ollama", "", "llama3.1:8b", "o200k_base"},
		{"anthropic", "", "claude-sonnet-4-5", "o200k_base"},
		{"googleai", "", "gemini-2.5-flash", "o200k_base"},
	} {
		r := Request{Provider: tc.provider, BaseURL: tc.base, Model: tc.model}
		if got := r.InputTokensCounted(); got != tc.want {
			t.Errorf("InputTokensCounted() of %s %q at %q = %q, want %q", tc.provider, tc.model, tc.base, got, tc.want)
		}
	}
}

// TestSentInputTokensCookbook: OpenAI's cookbook ("How to count tokens with tiktoken") shows the
// API's usage.prompt_tokens for its example conversation: 129 for gpt-4 and gpt-3.5-turbo, 124
// for gpt-4o and gpt-4o-mini. Four of its six messages carry a "name", which a Message has not:
// the test adds what the cookbook counts for each, the name's tokens and 1.
func TestSentInputTokensCookbook(t *testing.T) {
	type named struct{ role, name, content string }
	example := []named{
		{"system", "", "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
		{"system", "example_user", "New synergies will help drive top-line growth."},
		{"system", "example_assistant", "Things working well together will increase revenue."},
		{"system", "example_user", "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
		{"system", "example_assistant", "Let's talk later when we're less busy about how to do better."},
		{"user", "", "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
	var msgs []Message
	for _, m := range example {
		msgs = append(msgs, Message{Role: m.role, Content: m.content})
	}
	for model, want := range map[string]int{"gpt-3.5-turbo": 129, "gpt-4-0613": 129, "gpt-4": 129, "gpt-4o": 124, "gpt-4o-mini": 124} {
		names := 0
		for _, m := range example {
			if m.name != "" {
				names += bpe.ForModel(model).Count(m.name) + 1
			}
		}
		r := Request{Provider: "openai", Model: model, Messages: msgs}
		if got := r.SentInputTokens() + names; got != want {
			t.Errorf("%s: SentInputTokens() + %d for the names = %d, want %d (the API's prompt_tokens)", model, names, got, want)
		}
	}
}
