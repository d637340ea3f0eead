package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/qapipe/qapipe/internal/english"
)

// Default endpoints, used when Config.BaseURL is empty.
const (
	OpenAIURL    = "https://api.openai.com/v1"
	AnthropicURL = "https://api.anthropic.com/v1"
	OllamaURL    = "http://127.0.0.1:11434"
	GoogleAIURL  = "https://generativelanguage.googleapis.com"
)

// DefaultURL maps each provider with a default endpoint to it.
var DefaultURL = map[string]string{"openai": OpenAIURL, "anthropic": AnthropicURL, "ollama": OllamaURL, "googleai": GoogleAIURL}

// Endpoint returns the endpoint a client of provider calls when given base: base without its
// trailing slashes, or the provider's default when base is empty.
func Endpoint(provider, base string) string {
	if base = strings.TrimRight(base, "/"); base == "" {
		return DefaultURL[provider]
	}
	return base
}

// MaxTemperature returns the highest temperature provider's API at base (as Endpoint takes it)
// accepts, and false when it sets no bound; every provider refuses a negative one. OpenAI's is 2,
// Anthropic's 1 and Gemini's 2, as their API references give them; Ollama sets none, nor does an
// OpenAI-compatible server other than OpenAI's (vLLM and llama.cpp take any), which applies its own.
// langchaingo v0.1.14 sends the temperature as it is given, so one out of range fails, or is
// clamped, only at the provider. Its Ollama client holds the temperature as a float32, so the
// bound there is the largest float32: past it the option is +Inf, which no request can encode,
// and every call failed ("json: unsupported value: +Inf") where the dry run showed the number.
func MaxTemperature(provider, base string) (float64, bool) {
	switch provider {
	case "ollama":
		return math.MaxFloat32, true
	case "openai":
		if openAIHost(base) {
			return 2, true
		}
	case "anthropic":
		return 1, true
	case "googleai":
		return 2, true
	}
	return 0, false
}

// MaxStops returns the most stop sequences provider's API at base (as Endpoint takes it) accepts
// in one call, with the API's name, and 0 when it sets no bound: OpenAI's API takes 4 (its
// reference: "Up to 4 sequences"; a fifth is refused with HTTP 400), the Gemini API 5 ("up to
// 5"); an OpenAI-compatible server other than OpenAI's (vLLM, llama.cpp), Anthropic's and
// Ollama's set none that qapipe knows.
func MaxStops(provider, base string) (int, string) {
	switch {
	case provider == "openai" && openAIHost(base):
		return 4, "OpenAI's API"
	case provider == "googleai":
		return 5, "the Gemini API"
	}
	return 0, ""
}

// Providers lists the provider names New accepts.
var Providers = []string{"openai", "anthropic", "ollama", "googleai", "extractive"}

// KeyEnv maps each provider to the environment variables its key is usually read from, in order.
// Only the command layer reads them; this package takes the key in Config.
var KeyEnv = map[string][]string{
	"openai":    {"OPENAI_API_KEY"},
	"anthropic": {"ANTHROPIC_API_KEY"},
	"googleai":  {"GOOGLE_API_KEY", "GEMINI_API_KEY"},
}

// Config selects and configures a provider.
type Config struct {
	Provider string
	BaseURL  string
	APIKey   string // never logged, cached or returned in errors
	// HTTPClient carries the retrying Transport; nil means a plain client.
	HTTPClient *http.Client
	// TPM, if set, limits tokens per minute (estimated input + max_tokens, corrected by real usage):
	// HTTPClient's Transport, which must be a *Transport, reserves them as it sends a request.
	TPM *Limiter
	// Names are the flags a failed call's hint names, where they are not the chat flags' (an
	// EvaLearn judge's --judge-api-key-file, say); its NoKey is set from APIKey.
	Names HintNames
	// Gemini builds the googleai provider's model: package gemini's New, which qa-predict and
	// qa-judge pass and qa-score does not, so that it links none of the Google client libraries.
	// Without it googleai is refused.
	Gemini GeminiFunc
}

// The values of Request.MaxTokensField (the --max-tokens-field flags).
const (
	MaxTokensAuto       = "auto"
	MaxTokens           = "max_tokens"
	MaxCompletionTokens = "max_completion_tokens"
)

// MaxTokensFields lists the values Request.MaxTokensField takes ("" too, as auto).
var MaxTokensFields = []string{MaxTokensAuto, MaxTokens, MaxCompletionTokens}

// MaxTokensFieldFor is the member an openai call to base (as Endpoint takes it) carries its token
// budget in when field is "" or auto: max_completion_tokens on OpenAI's own API (openAIHost),
// whose reasoning models (o1, o3, gpt-5) refuse max_tokens, and max_tokens on any other server,
// which an OpenAI-compatible one (vLLM, llama.cpp, Ollama's /v1) reads where it may not know the
// newer name. A server that wants max_completion_tokens at another URL (an o-series model behind
// Azure OpenAI's v1 API) is given it by naming it. Otherwise field itself.
func MaxTokensFieldFor(field, base string) string {
	if field != "" && field != MaxTokensAuto {
		return field
	}
	if openAIHost(base) {
		return MaxCompletionTokens
	}
	return MaxTokens
}

// openAIHost reports whether an openai base URL (as Endpoint takes it) is OpenAI's own API: its
// host is api.openai.com, in any case, at any port or path.
func openAIHost(base string) bool {
	u, err := url.Parse(Endpoint("openai", base))
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// New returns the Client for cfg.Provider. The extractive provider is not built here (it lives in
// its own package); New rejects it so that the caller wires it explicitly.
func New(ctx context.Context, cfg Config) (Client, error) {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	if _, ok := hc.Transport.(*Transport); cfg.TPM != nil && !ok {
		return nil, errors.New("a token limit (Config.TPM) is kept by the HTTP client's *Transport, and this client has none")
	}
	base := Endpoint(cfg.Provider, cfg.BaseURL)
	var (
		llm llms.Model
		err error
	)
	switch cfg.Provider {
	case "openai":
		// langchaingo takes the OpenAI-Organization header from OPENAI_ORGANIZATION unless told:
		// a variable qapipe documents nowhere, which, left from an old setup, fails every call
		// with a 401 that points at the key. This package reads no environment (see APIKey).
		llm, err = openai.New(openai.WithToken(keyOr(cfg.APIKey, "none")), openai.WithBaseURL(base),
			openai.WithHTTPClient(hc), openai.WithOrganization(""))
	case "anthropic":
		if cfg.APIKey == "" {
			return nil, errors.New("anthropic: no API key (set ANTHROPIC_API_KEY or --api-key-file)")
		}
		llm, err = anthropic.New(anthropic.WithToken(cfg.APIKey), anthropic.WithBaseURL(base),
			anthropic.WithHTTPClient(hc))
	case "ollama":
		u, perr := url.Parse(base)
		if perr != nil {
			return nil, fmt.Errorf("ollama: base url: %w", perr)
		}
		llm, err = newOllama(u.String(), hc, 0)
	case "googleai":
		if cfg.APIKey == "" {
			return nil, errors.New("googleai: no API key (set GOOGLE_API_KEY or --api-key-file)")
		}
		return newGoogle(base, cfg, hc)
	default:
		return nil, fmt.Errorf("unknown provider %q (want one of %s)", cfg.Provider, strings.Join(Providers, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", cfg.Provider, redact(err.Error(), cfg.APIKey))
	}
	return &chat{provider: cfg.Provider, base: base, llm: llm, hc: hc, key: cfg.APIKey, names: cfg.Names, tpm: cfg.TPM}, nil
}

// newOllama is langchaingo's Ollama client of the server at base, asking for a context window of
// numCtx tokens (options.num_ctx), none when 0: langchaingo v0.1.14 takes num_ctx only when the
// client is made, not with a call.
func newOllama(base string, hc *http.Client, numCtx int) (llms.Model, error) {
	opts := []ollama.Option{ollama.WithServerURL(base), ollama.WithHTTPClient(hc)}
	if numCtx > 0 {
		opts = append(opts, ollama.WithRunnerNumCtx(numCtx))
	}
	return ollama.New(opts...)
}

// model is the langchaingo model that makes req's call: c.llm, or for an Ollama request with a
// context window of its own a client made for that window (and kept for the next call).
func (c *chat) model(req Request) (llms.Model, error) {
	n := req.SentNumCtx()
	if n == 0 {
		return c.llm, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if llm, ok := c.windowed[n]; ok {
		return llm, nil
	}
	llm, err := newOllama(c.base, c.hc, n)
	if err != nil {
		return nil, fmt.Errorf("ollama: %w", err)
	}
	if c.windowed == nil {
		c.windowed = make(map[int]llms.Model)
	}
	c.windowed[n] = llm
	return llm, nil
}

func keyOr(key, def string) string {
	if key == "" {
		return def // OpenAI-compatible local servers take any token; langchaingo insists on one
	}
	return key
}

// EstimateTokens is a rough count of a request's input tokens (4 bytes a token), used only to
// reserve rate-limit budget before the real usage is known. It never downloads a tokenizer.
func EstimateTokens(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)/4 + 4
	}
	return n
}

// ProviderHint returns the ending of the message that rejects name, an unknown provider, among
// known (Providers, or those that can judge): english.DidYouMean's suggestion; else the provider
// behind a product's name ("claude": anthropic, "gemini": googleai); else, for a server that
// speaks OpenAI's API (vLLM, llama.cpp, LM Studio, OpenRouter, …), that it is openai's, at its
// URL given by baseFlag (--base-url).
func ProviderHint(name string, known []string, baseFlag string) string {
	if s := english.DidYouMean(name, known); s != "" {
		return s
	}
	key := strings.NewReplacer("-", "", "_", "", ".", "", " ", "").Replace(strings.ToLower(name))
	if p := productProviders[key]; p != "" && slices.Contains(known, p) {
		return english.Hint(p)
	}
	if openAICompatible[key] && slices.Contains(known, "openai") {
		return fmt.Sprintf("; %s speaks OpenAI's API: give --provider openai and its URL in %s", name, baseFlag)
	}
	return ""
}

// productProviders maps the names of model families, written without case or separators, to
// the provider that serves them.
var productProviders = map[string]string{
	"claude": "anthropic", "gemini": "googleai", "google": "googleai",
	"gpt": "openai", "chatgpt": "openai", "gpt4": "openai", "gpt4o": "openai",
}

// openAICompatible holds the servers and services, written without case or separators, that
// answer OpenAI's chat API and are reached as openai with a base URL.
var openAICompatible = map[string]bool{
	"vllm": true, "llamacpp": true, "lmstudio": true, "sglang": true, "tgi": true, "localai": true,
	"openrouter": true, "together": true, "togetherai": true, "groq": true, "deepseek": true,
	"fireworks": true, "mistral": true, "xai": true, "grok": true, "perplexity": true,
	"textgenerationinference": true,
}
