// Package embedding computes the embedding-similarity metrics `sbert` and `bertscore` over batches of
// records, fetching embeddings from an HTTP endpoint: an OpenAI-compatible /v1/embeddings, Ollama's
// /api/embed, or Hugging Face text-embeddings-inference (TEI: /embed, and /tokenize with /embed_all
// for BERTScore's token embeddings). The arithmetic lives in pkg/metric.
//
// Every distinct text of a call is looked up in the shared SQLite cache (key: provider, base URL,
// model, text, and for token embeddings Config.PrefixSpace when set); the misses go out in requests of Batch texts, up to Parallel at once, through the
// retrying, rate-limited model.Transport, and each reply is stored before it is used, so a rerun
// makes no HTTP call. Vectors are stored as little-endian float32, the precision every server sends.
//
// Note: langchaingo's embedders were rejected: its Ollama client sends one request per text and
// its OpenAI client ignores the reply's "index" field; neither speaks TEI. The three wire formats
// are small enough to speak directly over net/http with the shared transport.
package embedding

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
)

// Provider names, the values of --embed-provider.
const (
	OpenAI = "openai" // POST {base}/embeddings, base default https://api.openai.com/v1
	Ollama = "ollama" // POST {base}/api/embed, base default http://127.0.0.1:11434
	TEI    = "tei"    // POST {base}/embed, /tokenize, /embed_all; base required
)

// Providers returns the provider names in the order --help shows them.
func Providers() []string { return []string{OpenAI, Ollama, TEI} }

// Metric names this package computes, as --metrics spells them.
const (
	SBERT     = "sbert"
	BERTScore = "bertscore"
)

// Defaults of Config's zero values (Batch, Parallel), and of the flags that set the others.
const (
	DefaultBatch = 32 // TEI's default max_client_batch_size
	// MaxBatch bounds --embed-batch: a batch's records are held until its vectors come back, so
	// a mistyped huge batch would hold the whole input.
	MaxBatch = 4096
	// MaxOpenAIInputs is the most texts OpenAI's /v1/embeddings takes in one request: a larger
	// --embed-batch still holds that many records, but sends them in requests of this many.
	MaxOpenAIInputs   = 2048
	DefaultParallel   = 2
	DefaultMaxRetries = 5               // --embed-max-retries, as qa-predict's --max-retries
	DefaultTimeout    = 2 * time.Minute // --embed-timeout, as qa-predict's --timeout
)

// Config configures a Scorer. Provider and Model are required; BaseURL is required for TEI.
type Config struct {
	Provider string // openai, ollama or tei
	Model    string // sent to openai and ollama; for tei it only names the served model in cache keys
	BaseURL  string // default per provider (see the constants)
	APIKey   string // sent as a bearer token when set; never part of a cache key or an error
	// KeyFile names, in a refused key's hint, what named the key's file: the command's flag
	// (default --embed-api-key-file), or the variable that set it (QA_EMBED_API_KEY_FILE).
	KeyFile  string
	Batch    int // texts per request (--embed-batch), default DefaultBatch
	Parallel int // requests in flight (--embed-concurrency), default DefaultParallel
	// MaxRetries is how many times a transient failure (429, 503, a timeout, ...) is retried
	// (--embed-max-retries; 0: none) and Timeout how long one attempt may take (--embed-timeout;
	// 0: no limit). Their zero values are none, not defaults: the command passes its flags'.
	MaxRetries int
	Timeout    time.Duration
	// PrefixSpace sends each of BERTScore's texts (stripped, not blank) to TEI's /tokenize and
	// /embed_all with a space before it, as bert_score's sent_encode encodes a sentence for a
	// RoBERTa or GPT-2 tokenizer (add_prefix_space=True): so that the first word is the token a
	// word after a space is ("ĠHello"), not the one of a word at the start of a text ("Hello").
	// TEI's tokenizer adds no space. The cache keys the token embeddings with it when set.
	PrefixSpace bool

	Cache      *cache.Cache // nil: no cache
	HTTPClient *http.Client // nil: a model.Transport client with MaxRetries, Timeout and Parallel
}

// ErrNotConfigured is wrapped by Validate's error when no endpoint is configured.
var ErrNotConfigured = errors.New("embedding metrics need an embedding endpoint")

// Validate reports whether c can compute the named metrics (sbert, bertscore; none named checks the
// endpoint only), with an error naming the flags to set. The score app calls it at start whenever
// --metrics names an embedding metric: a heavy metric must fail then, never score 0.
func (c Config) Validate(metrics ...string) error {
	need := "set --embed-provider (" + strings.Join(Providers(), "|") + "), --embed-model and --embed-base-url"
	switch {
	case c.Provider == "":
		return fmt.Errorf("%w: %s", ErrNotConfigured, need)
	case !slices.Contains(Providers(), c.Provider):
		return fmt.Errorf("--embed-provider %q: want one of %s%s", c.Provider, strings.Join(Providers(), ", "),
			english.DidYouMean(c.Provider, Providers()))
	case c.Model == "":
		return fmt.Errorf("%w: --embed-model is not set (%s)", ErrNotConfigured, need)
	case c.Provider == TEI && c.BaseURL == "":
		return fmt.Errorf("%w: --embed-base-url is not set (the TEI server, e.g. http://127.0.0.1:8080)", ErrNotConfigured)
	case c.Provider == OpenAI && c.BaseURL == "" && c.APIKey == "":
		// As qa-predict refuses a hosted provider without a key: OpenAI's own endpoint answers
		// every call 401, and each record would be left unscored for it.
		return errors.New("no API key for openai's endpoint: set QA_EMBED_API_KEY or OPENAI_API_KEY, or give --embed-api-key-file (or --embed-base-url for a compatible server that needs none)")
	case c.Batch < 0:
		return fmt.Errorf("--embed-batch %d: want a positive number", c.Batch)
	}
	if slices.Contains(metrics, BERTScore) && c.Provider != TEI {
		return errNeedTEI(c.Provider)
	}
	return nil
}

// Scorer computes embedding metrics against one endpoint. It is safe for concurrent use.
type Scorer struct {
	cfg    Config
	base   string
	shown  string // base as messages show it, without a password it may carry
	client *http.Client
	tr     *model.Transport // the client's when NewScorer made it, for its StopWarning; else nil

	perRequest int // texts per request: Batch, at most MaxOpenAIInputs for OpenAI

	requests, texts, hits, notSent atomic.Int64

	refMu sync.Mutex
	refs  map[string]*refusalState // by cache namespace: sbert's requests and bertscore's apart
}

// NewScorer returns a Scorer for cfg after validating it.
func NewScorer(cfg Config) (*Scorer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Batch == 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = DefaultParallel
	}
	s := &Scorer{cfg: cfg, base: model.Endpoint(cfg.Provider, cfg.BaseURL), client: cfg.HTTPClient, perRequest: cfg.Batch}
	if cfg.Provider == OpenAI {
		s.perRequest = min(cfg.Batch, MaxOpenAIInputs)
	}
	s.shown = s.base
	if u, err := url.Parse(s.base); err == nil {
		s.shown = u.Redacted()
	}
	if s.client == nil {
		s.tr = model.NewTransport(model.TransportConfig{
			MaxRetries:  cfg.MaxRetries,
			Timeout:     cfg.Timeout,
			Concurrency: cfg.Parallel,
		})
		s.client = s.tr.Client()
	}
	return s, nil
}

// Stats counts a Scorer's work.
type Stats struct {
	Requests  int64 // embedding requests made (one per batch, and per part of one asked for apart; retries not counted)
	Texts     int64 // texts sent in them
	CacheHits int64 // distinct texts answered from the cache
	NotSent   int64 // requests not made: the run was finishing, or the server was stopped (model.NotMade)
}

// Stats returns the counts so far.
func (s *Scorer) Stats() Stats {
	return Stats{Requests: s.requests.Load(), Texts: s.texts.Load(), CacheHits: s.hits.Load(), NotSent: s.notSent.Load()}
}

// StopWarning returns the warning of a run whose embedding calls were stopped because the server
// was never reached or refused every call (see model.Transport.StopWarning), or "".
func (s *Scorer) StopWarning() string {
	return s.tr.StopWarning("run qa-score again")
}

// ErrNeedTEI is wrapped by the error of bertscore asked of a provider other than TEI. The error
// names bertscore, so that the caller need not ("--metrics: bertscore needs …", where it said
// "--metrics bertscore: bertscore needs …").
var ErrNeedTEI = errors.New("bertscore needs token embeddings, which only text-embeddings-inference serves")

func errNeedTEI(provider string) error {
	return fmt.Errorf("%w: set --embed-provider tei and --embed-base-url to its address (provider is %q)", ErrNeedTEI, provider)
}
