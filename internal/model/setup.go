package model

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/qapipe/qapipe/internal/textfile"
)

// ErrNoKey is wrapped by Setup.Client when a hosted provider is asked for without an API key.
var ErrNoKey = errors.New("no API key")

// Setup is how a command reaches a model: the provider and its endpoint and key, and the limits on
// its calls. qa-predict and qa-judge both build their clients from one, so their --concurrency,
// --rpm, --tpm, --max-retries, --timeout, --backoff and --seed flags mean the same thing.
type Setup struct {
	Provider string
	BaseURL  string
	APIKey   string // never logged, cached or returned in errors
	// Concurrency is the most calls in flight; RPM and TPM are requests and (estimated) tokens a
	// minute, 0 meaning no limit.
	Concurrency int
	RPM, TPM    float64
	// MaxRetries, Timeout and Backoff are TransportConfig's: retries of a transient failure, the
	// per-attempt timeout and the first retry wait (doubled per retry, with jitter seeded by Seed),
	// except that a Backoff of 0 means none, as the --backoff flag gives it: retry at once.
	MaxRetries int
	Timeout    time.Duration
	Backoff    time.Duration
	Seed       uint64
	// Transport, when set, carries the calls instead of a new one built from the fields above, so
	// that two clients (a reader and its judge) share one retry policy and request budget.
	Transport *Transport
	// Tokens, when set, is the limiter the calls reserve their tokens with instead of a new one of
	// TPM tokens a minute (NewTokens), so that two clients share one token budget as well.
	Tokens *Limiter
	// Sleep is the wait of the limiters and before a retry, or nil for a timer; tests inject one
	// that records the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Names are Config.Names: the flags a failed call's hint names, where not the chat flags'.
	Names HintNames
	// Gemini is Config.Gemini: the builder of googleai's model (package gemini's New).
	Gemini GeminiFunc
}

// NewTransport returns a new retrying, rate-limited Transport configured by s.
func (s Setup) NewTransport() *Transport {
	backoff := s.Backoff
	if backoff == 0 {
		backoff = -1 // none, where TransportConfig's 0 is its default
	}
	return NewTransport(TransportConfig{
		MaxRetries:  s.MaxRetries,
		Timeout:     s.Timeout,
		Backoff:     backoff,
		Concurrency: s.Concurrency,
		RPM:         s.RPM,
		Seed:        s.Seed,
		Sleep:       s.Sleep,
	})
}

// NewTokens returns a new limiter of s.TPM tokens a minute, or nil (no limit) when TPM is 0.
func (s Setup) NewTokens() *Limiter {
	if s.TPM <= 0 {
		return nil
	}
	return NewLimiter(s.TPM, s.Sleep)
}

// Client returns the Client for s, its calls going through s.Transport or else s.NewTransport(),
// their tokens reserved with s.Tokens or else s.NewTokens().
// A hosted provider (one with KeyEnv variables) without a key is refused with an error wrapping
// ErrNoKey, unless it is openai with a BaseURL: an OpenAI-compatible server (vLLM, llama.cpp) may
// need none. anthropic and googleai need one at any BaseURL, as langchaingo's clients do.
func (s Setup) Client(ctx context.Context) (Client, error) {
	if !KeyOptional(s.Provider, s.BaseURL) && s.APIKey == "" {
		env := KeyEnv[s.Provider]
		return nil, fmt.Errorf("%w for --provider %s: set %s or use --api-key-file", ErrNoKey, s.Provider, strings.Join(env, " or "))
	}
	tr := s.Transport
	if tr == nil {
		tr = s.NewTransport()
	}
	tpm := s.Tokens
	if tpm == nil {
		tpm = s.NewTokens()
	}
	return New(ctx, Config{Provider: s.Provider, BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: tr.Client(), TPM: tpm, Names: s.Names, Gemini: s.Gemini})
}

// KeyOptional reports whether provider, at baseURL, can be called without an API key: ollama and
// the extractive baseline take none, and openai at a base URL of its own is an OpenAI-compatible
// server that may need none. anthropic and googleai always need one (langchaingo's clients refuse
// to be built without), and so does OpenAI's own API.
func KeyOptional(provider, baseURL string) bool {
	return len(KeyEnv[provider]) == 0 || provider == "openai" && baseURL != ""
}

// APIKey returns the key in file (trimmed of surrounding space) when file is set, else the first
// non-empty value of provider's KeyEnv variables as getenv reports them (the command layer passes
// os.Getenv; this package never reads the environment itself). No key is "", nil; a file that
// holds nothing but space is an error naming it: whoever named the file meant to give a key.
func APIKey(provider, file string, getenv func(string) string) (string, error) {
	if file != "" {
		b, err := textfile.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) && keyLike(file) {
			give := "write the key to a file and name that"
			if env := KeyEnv[provider]; len(env) > 0 {
				give = fmt.Sprintf("give the key in %s, or write it to a file and name that", strings.Join(env, " or "))
			}
			return "", fmt.Errorf("no such file, and the name given (not shown) looks like a key itself: %s", give)
		}
		if err != nil {
			return "", err
		}
		key := strings.TrimSpace(string(b))
		if key == "" {
			return "", fmt.Errorf("%s is empty", file)
		}
		return key, nil
	}
	for _, v := range KeyEnv[provider] {
		if k := getenv(v); k != "" {
			return k, nil
		}
	}
	return "", nil
}

// keyLike reports whether name, given as a key's file and found to be none, looks like a key
// itself: 20 or more letters, digits, '-' and '_' alone, no path separator and no extension. The
// error of opening it would show it whole on stderr.
func keyLike(name string) bool {
	if len(name) < 20 {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// LoadPrices returns the built-in price table with the entries of the JSON or YAML price file
// merged over it (file wins); file "" means the built-in table alone.
func LoadPrices(file string) (Prices, error) {
	p := DefaultPrices()
	if file == "" {
		return p, nil
	}
	b, err := textfile.ReadFile(file)
	if err != nil {
		return nil, err
	}
	q, err := ParsePrices(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return p.Merge(q), nil
}
