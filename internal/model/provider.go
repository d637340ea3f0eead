package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
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
// clamped, only at the provider.
func MaxTemperature(provider, base string) (float64, bool) {
	switch provider {
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
	// TPM, if set, limits tokens per minute (estimated input + max_tokens, corrected by real usage).
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
	base := Endpoint(cfg.Provider, cfg.BaseURL)
	var (
		llm llms.Model
		err error
	)
	switch cfg.Provider {
	case "openai":
		llm, err = openai.New(openai.WithToken(keyOr(cfg.APIKey, "none")), openai.WithBaseURL(base),
			openai.WithHTTPClient(hc))
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

// chat is a Client over a langchaingo model.
type chat struct {
	provider string
	base     string // the endpoint: for the hint of a failed call, and the budget's member (MaxTokensFieldFor)
	llm      llms.Model
	hc       *http.Client // llm's, for the Ollama clients of other context windows
	mu       sync.Mutex   // guards windowed
	windowed map[int]llms.Model
	key      string
	names    HintNames // the hint's flags (Config.Names)
	tpm      *Limiter
}

// Generate sends req and normalises the reply.
func (c *chat) Generate(ctx context.Context, req Request) (Response, error) {
	if IsStoredOnly(ctx) {
		return Response{}, ErrNotStored
	}
	msgs, err := c.messages(req)
	if err != nil {
		return Response{}, err
	}
	if f := req.MaxTokensField; f != "" && !slices.Contains(MaxTokensFields, f) {
		return Response{}, fmt.Errorf("max tokens field %q: want one of %s", f, strings.Join(MaxTokensFields, ", "))
	}
	opts, err := callOptions(req, c.provider == "openai" && MaxTokensFieldFor(req.MaxTokensField, c.base) == MaxTokens)
	if err != nil {
		return Response{}, err
	}
	llm, err := c.model(req)
	if err != nil {
		return Response{}, err
	}
	slot, err := c.waitTPM(ctx, req)
	if err != nil {
		return Response{}, err
	}
	ctx, attempts := WithAttempts(withChatShape(ctx, c.provider))
	resp, err := c.generate(ctx, llm, msgs, opts, attempts)
	r := &callResult{req: req, attempts: attempts, slot: slot, out: Response{Model: req.Model, Attempts: attempts.N()}}
	r.body = readReply(c.provider, attempts.Body())
	r.status, _ = attempts.Status()
	fromBody := err != nil && r.status == http.StatusOK && attempts.Err() == nil && r.body.answer != nil && r.body.empty == "" && r.body.blocked == nil
	if fromBody {
		// A reply of the provider's that langchaingo could not read (a content block of a
		// type it does not know, as Anthropic's redacted_thinking; content that is an array
		// of parts, as Mistral's; a Gemini part of data it does not know): valid, paid for,
		// and read from its body, as the provider's SDKs read it, to be answered as any other.
		resp, err = &llms.ContentResponse{Choices: []*llms.ContentChoice{r.body.answer.choice()}}, nil
	}
	if r.body.blocked != nil {
		return c.blocked(r)
	}
	if err != nil {
		return c.failed(ctx, r, err)
	}
	return c.answered(r, resp, fromBody)
}

// messages is req's messages as langchaingo sends them, without the empty system messages the
// provider refuses (emptySystem).
func (c *chat) messages(req Request) ([]llms.MessageContent, error) {
	msgs := make([]llms.MessageContent, 0, len(req.Messages))
	for _, m := range req.Messages {
		t, err := chatRole(m.Role)
		if err != nil {
			return nil, err
		}
		if emptySystem(c.provider, m) {
			continue
		}
		msgs = append(msgs, llms.TextParts(t, m.Content))
	}
	return msgs, nil
}

// callResult is a call made, as Generate reads it: the request, its attempts, the reply's body
// as qapipe reads it, the reply's HTTP status, the call's TPM slot and the response being made.
type callResult struct {
	req      Request
	attempts *Attempts
	body     reply
	status   int
	slot     *Slot
	out      Response
}

// blocked is the response and error of a call whose reply the provider blocked.
func (c *chat) blocked(r *callResult) (Response, error) {
	// No answer, whatever langchaingo made of it (an error, an empty reply, the text streamed
	// before the block), but paid for.
	r.out.Usage, r.out.NoUsage = knownUsage(r.body.usage, "")
	r.slot.Settle(0) // as for any failed call, unless its usage is known
	settle(r.slot, r.out)
	return r.out, &CallError{Attempts: r.out.Attempts, Err: fmt.Errorf("%s %s: %w", c.provider, r.req.Model, r.body.blocked)}
}

// failed is the response and error of a call that langchaingo returned err for: one not made,
// one the transport stopped making, an empty reply, or a failure, its usage kept when the reply
// reported it.
func (c *chat) failed(ctx context.Context, r *callResult, err error) (Response, error) {
	out, attempts := r.out, r.attempts
	r.slot.Settle(0)
	if errors.Is(attempts.Err(), interrupt.ErrNotCalled) && ctx.Err() == nil {
		return out, c.notCalled(out.Attempts)
	}
	if ue := (*StoppedError)(nil); errors.As(attempts.Err(), &ue) && ctx.Err() == nil {
		return out, &CallError{Attempts: out.Attempts, Err: fmt.Errorf("%s %s: %w", c.provider, r.req.Model, ue), Hint: hint(c.provider, c.base, c.key, c.names, attempts)}
	}
	if why := r.body.empty; why != "" && r.status == http.StatusOK {
		return c.emptyReply(r, why)
	}
	msg := redact(withCause(err, attempts), c.key)
	if r.status == http.StatusOK {
		// A reply langchaingo could not read, nor qapipe from its body (an OpenAI-compatible
		// content that is an object, a Claude block whose text is no string): no answer,
		// but its server reported what it cost, which the record and --max-cost count. The
		// client's words end at their first line: the anthropic client puts the block it
		// could not read after them whole (kilobytes, for a redacted_thinking block's data).
		if !r.body.usage.IsZero() {
			out.Usage, out.NoUsage = knownUsage(r.body.usage, "")
			settle(r.slot, out)
		}
		msg, _, _ = strings.Cut(msg, "\n")
	}
	return out, &CallError{Attempts: out.Attempts, Err: fmt.Errorf("%s %s: %s", c.provider, r.req.Model, msg),
		Hint: hint(c.provider, c.base, c.key, c.names, attempts)}
}

// emptyReply is the response and error of a call whose reply langchaingo called an error for
// having no text, why the body says: an empty reply, paid for, and cut short when its stop
// reason says so.
func (c *chat) emptyReply(r *callResult, why string) (Response, error) {
	out := r.out
	if _, stop, _ := strings.Cut(why, "reason "); cutShort(stop) {
		out.Cut, out.Window = true, stop == contextFull
		if spent := c.cutWhy(r.req, out.Window); spent != "" {
			why += ": " + spent
		}
	}
	// A reply without text that langchaingo calls an error: an empty reply, paid for.
	out.Usage, out.NoUsage = knownUsage(r.body.usage, "")
	settle(r.slot, out)
	return out, &CallError{Attempts: out.Attempts, Err: fmt.Errorf("%s %s: %w (%s)", c.provider, r.req.Model, ErrEmptyReply, why)}
}

// answered is the response of a call that got a reply, resp (read from the body when fromBody):
// its text, reasoning, usage and stop, or an error when it holds no text.
func (c *chat) answered(r *callResult, resp *llms.ContentResponse, fromBody bool) (Response, error) {
	out, body := r.out, r.body
	if len(resp.Choices) == 0 {
		return out, &CallError{Attempts: out.Attempts, Err: fmt.Errorf("%s %s: %w (no choices)", c.provider, r.req.Model, ErrEmptyReply)}
	}
	ch := answer(c.provider, resp.Choices)
	if c.provider == "googleai" && body.thoughts && body.answer != nil {
		// langchaingo reads a thought part's text as the answer's: the answer is the body's.
		ch.Content = body.answer.text
	}
	ch.StopReason = c.stopReason(ch.StopReason, body)
	out.Text = ch.Content
	out.Reasoning = c.reasoning(ch, body)
	u := UsageFromInfo(ch.GenerationInfo)
	if body.streamUsage || fromBody {
		u = body.usage
	}
	out.Usage, out.NoUsage = knownUsage(u, ch.Content)
	out.Cut, out.Window = cutShort(ch.StopReason), ch.StopReason == contextFull
	out.Filtered = ch.StopReason == "content_filter" || ch.StopReason == "refusal"
	settle(r.slot, out)
	if strings.TrimSpace(ch.Content) == "" {
		return out, c.noText(r.req, out, ch.StopReason, body.refusal)
	}
	return out, nil
}

// noText is the error of a reply out with no text, stop its stop reason and refusal the refusal
// it holds, if any.
func (c *chat) noText(req Request, out Response, stop, refusal string) error {
	// A reply with no text is no answer (an outage, a refusal in OpenAI's refusal field; a
	// provider's block is read first): an error on the record, never an empty answer. Its usage stays on the
	// response, for the budget: the reply was paid for.
	why, spent := "", ""
	if out.Cut {
		spent = c.cutWhy(req, out.Window)
	}
	switch {
	case spent != "":
		why = " (stop reason " + stop + ": " + spent + ")"
	case refusal != "":
		why = fmt.Sprintf(" (refused: %q)", refusal)
	case stop != "":
		why = " (stop reason " + stop + ")"
	}
	return &CallError{Attempts: out.Attempts, Err: fmt.Errorf("%s %s: %w%s", c.provider, req.Model, ErrEmptyReply, why)}
}

// emptySystem reports whether m is a system message without text that a call to provider leaves
// out (EvaLearn's judge sends one): the Gemini API refuses a part with empty text, which
// langchaingo v0.1.14 would send as the systemInstruction, and to Anthropic it sends no empty
// top-level system (its request marks it omitempty). OpenAI's and Ollama's calls carry it.
func emptySystem(provider string, m Message) bool {
	return m.Role == "system" && m.Content == "" && (provider == "googleai" || provider == "anthropic")
}

// stopReason is why the reply stopped, given langchaingo's reading of it, stop, and the body's:
// Ollama's done_reason, which langchaingo does not pass on, when it gives none, and Gemini's
// finishReason as the API names it (geminiFinish) over genai's names.
func (c *chat) stopReason(stop string, body reply) string {
	switch c.provider {
	case "ollama":
		if stop == "" {
			return body.stop
		}
	case "googleai":
		if body.stop != "" {
			return body.stop
		}
	}
	return stop
}

// generate has langchaingo ask the model, its client's panic turned into the call's error:
// langchaingo v0.1.14 dereferences nil on some replies that are JSON but no reply (its OpenAI
// client on a null choice; its Anthropic client on a body of null, which the Transport already
// finds of no message's shape), and its Google AI client on messages that are all system
// messages, before any request; a reply that cannot be read must fail its record, not end the
// run before the records not yet written are.
func (c *chat) generate(ctx context.Context, llm llms.Model, msgs []llms.MessageContent, opts []llms.CallOption, attempts *Attempts) (resp *llms.ContentResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			status, contentType := attempts.Status()
			if status == 0 { // no reply came: the client failed on the request it was to send
				resp, err = nil, fmt.Errorf("the client failed before any reply came, building the request: %v", p)
				return
			}
			resp, err = nil, fmt.Errorf("the client could not read the reply %s: %v", replyKind(contentType, bytes.TrimSpace(attempts.Body())), p)
		}
	}()
	return llm.GenerateContent(ctx, msgs, opts...)
}

// answer is the choice of a reply that holds its answer. Anthropic's reply is one message of
// content blocks, which langchaingo v0.1.14 turns into a choice each (a thinking or tool_use
// block into one without text), all with the message's stop reason and usage: its answer is
// the text of its text blocks joined in order, as the Anthropic SDKs' text helpers read it.
// The choices of the other providers are alternatives (OpenAI's n), of which the first is the
// answer asked for.
func answer(provider string, choices []*llms.ContentChoice) *llms.ContentChoice {
	if provider != "anthropic" || len(choices) == 1 {
		return choices[0]
	}
	ch := *choices[0]
	var b strings.Builder
	for _, c := range choices {
		b.WriteString(c.Content)
	}
	ch.Content = b.String()
	return &ch
}

// reasoning is the thinking a reply carries apart from its text, trimmed: an OpenAI-compatible
// server's message.reasoning_content (DeepSeek's API, llama-server --reasoning-format deepseek,
// vLLM --reasoning-parser before 0.11), which langchaingo v0.1.14 passes on as the choice's
// ReasoningContent (and which a reply read from its body, bodyAnswer, gives from a Mistral
// thinking part), else the body's (readOpenAI's message.reasoning, vLLM's name for it since
// 0.11, OpenRouter's, Ollama's /v1; readOllama's message.thinking; readAnthropic's thinking
// blocks; readGemini's thought parts), which it drops.
func (c *chat) reasoning(ch *llms.ContentChoice, body reply) string {
	if c.provider == "openai" {
		if r := strings.TrimSpace(ch.ReasoningContent); r != "" {
			return r
		}
	}
	return body.reasoning
}

// waitTPM reserves the request's estimated tokens (input and max_tokens, as the call carries it:
// langchaingo's 2048 to anthropic and googleai without one) with the TPM limiter. A finishing run
// stops waiting: the call is not made.
func (c *chat) waitTPM(ctx context.Context, req Request) (*Slot, error) {
	wctx, cancel := interrupt.Waiting(ctx)
	defer cancel()
	sent := req
	sent.Provider = c.provider
	slot, err := c.tpm.Wait(wctx, float64(EstimateTokens(req)+sent.SentMaxTokens()))
	switch {
	case err == nil:
		return slot, nil
	case ctx.Err() == nil && interrupt.Asked(ctx):
		return nil, c.notCalled(0)
	}
	return nil, err
}

// notCalled is the CallError of a call that a finishing run did not make: interrupt.ErrNotCalled
// in its own words, as the apps write them for a record they never hand to the model, so that a
// call stopped here (at a rate limit, or at the gate) reads as the others do.
//
// Note: the provider and model were put before the words, as before every other CallError's;
// they told nothing the record does not (its prediction or judgment names the model), and the
// same interruption was worded two ways.
func (c *chat) notCalled(attempts int) error {
	return &CallError{Attempts: attempts, Err: interrupt.ErrNotCalled}
}

// settle charges the tokens out's usage counts to the rate limiter's slot in place of the estimate
// it reserved; an unknown usage leaves the estimate.
func settle(slot *Slot, out Response) {
	if !out.NoUsage {
		slot.Settle(float64(out.Usage.InputTokens + out.Usage.OutputTokens))
	}
}

// knownUsage returns u, the usage a reply of text reported, and whether it is unknown (then u is
// returned zero). A count of 0 where there must be tokens (every request has input, and text is
// output) is a count the server left out, as old Ollama leaves out prompt_eval_count for a cached
// prompt: the usage is then unknown, not partly free. So is a count no call has (negative, or
// over maxTokenCount), which a broken server may send, rather than a negative cost.
func knownUsage(u record.Usage, text string) (record.Usage, bool) {
	if u.InputTokens == 0 || u.OutputTokens == 0 && strings.TrimSpace(text) != "" ||
		!tokenCount(u.InputTokens) || !tokenCount(u.OutputTokens) || !tokenCount(u.CachedInputTokens) {
		return record.Usage{}, true
	}
	return u, false
}

// spent says why a reply cut at max_tokens can hold no text, or "" when req's budget is not known:
// a reasoning model (o1, o3, gpt-5, Claude or Gemini thinking) counts its hidden thinking in
// max_tokens, and a budget set for answers can go on thinking alone.
func (c *chat) spent(req Request) string {
	return spent(c.provider, req.MaxTokens, "before any text")
}

// cutWhy says why a reply cut short (Response.Cut) holds no text: the max_tokens of req ran out
// (spent), or, window, the model's context window filled up; "" when that cannot be told.
func (c *chat) cutWhy(req Request, window bool) string {
	if window {
		return "the prompt left no room for any text in the model's context window"
	}
	return c.spent(req)
}

// spent says that the max_tokens of a call to provider ran out before what it names ("before any
// text"), a reasoning model's thinking counted in it, or returns "" when the budget is not known
// (none was sent, and the server applies its own).
func spent(provider string, maxTokens int, before string) string {
	why := "ran out " + before + "; a reasoning model's thinking counts in it"
	switch {
	case maxTokens > 0:
		return fmt.Sprintf("max_tokens %d %s", maxTokens, why)
	case provider == "anthropic" || provider == "googleai":
		return fmt.Sprintf("max_tokens %d, langchaingo's default without --max-tokens, %s", langchaingoMaxTokens, why)
	}
	return ""
}

// langchaingoMaxTokens is the max_tokens langchaingo v0.1.14 sends to anthropic and googleai when
// a request sets none.
const langchaingoMaxTokens = 2048

// ErrEmptyReply marks a reply that holds no text.
var ErrEmptyReply = errors.New("empty reply")

// BlockedError is a reply that the provider's filters blocked: Gemini's prompt
// (promptFeedback.blockReason) or reply (a finishReason such as SAFETY, RECITATION or SPII, its
// text left out), OpenAI's reply stopped by its content filter before any text (finish_reason
// content_filter), or Claude's stopped by Anthropic's safety classifiers before any text
// (stop_reason refusal). It is no transient failure (the same request is blocked again), so it is
// not retried, nor asked again as an empty judge reply is; the reply was paid for, and the
// response keeps its usage. A reply with text that OpenAI's filter or a refusal stopped is no
// block: its text is the answer, marked Response.Filtered.
type BlockedError struct {
	By     string // the provider, as its users name it: "Gemini", "OpenAI", "Anthropic"
	Prompt bool   // the prompt was blocked, else the reply
	Reason string // the provider's reason, as its API names it: SAFETY, content_filter, refusal, ...
}

func (e *BlockedError) Error() string {
	what := "reply"
	if e.Prompt {
		what = "prompt"
	}
	return what + " blocked by " + e.By + ": " + e.Reason
}

// cutShort reports whether a stop reason says the reply was cut short: at max_tokens (OpenAI's
// and Ollama's "length", Anthropic's "max_tokens", Gemini's MAX_TOKENS, which genai names
// "FinishReasonMaxTokens"), or at the model's context window (contextFull).
func cutShort(stop string) bool {
	switch stop {
	case "length", "max_tokens", "MAX_TOKENS", "FinishReasonMaxTokens", contextFull:
		return true
	}
	return false
}

// contextFull is Anthropic's stop reason of a reply cut short because the prompt and the reply
// filled the model's context window: the reply is as truncated as one cut at max_tokens.
const contextFull = "model_context_window_exceeded"

func callOptions(req Request, legacyMax bool) ([]llms.CallOption, error) {
	opts := []llms.CallOption{llms.WithModel(req.Model)}
	if req.Temperature != nil {
		opts = append(opts, llms.WithTemperature(*req.Temperature))
	}
	if req.MaxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(req.MaxTokens))
		if legacyMax {
			opts = append(opts, openai.WithLegacyMaxTokensField())
		}
	}
	if req.TopP != nil {
		opts = append(opts, llms.WithTopP(*req.TopP))
	}
	if req.TopK != nil {
		opts = append(opts, llms.WithTopK(*req.TopK))
	}
	if req.Seed != nil {
		opts = append(opts, llms.WithSeed(*req.Seed))
	}
	switch req.ResponseFormat {
	case "":
	case ResponseJSON:
		// langchaingo v0.1.14 maps JSON mode per provider: openai response_format json_object,
		// ollama format "json", googleai ResponseMIMEType application/json; anthropic ignores it.
		opts = append(opts, llms.WithJSONMode())
	default:
		return nil, fmt.Errorf("response format %q: unsupported (want %q or none)", req.ResponseFormat, ResponseJSON)
	}
	return opts, nil
}

func chatRole(role string) (llms.ChatMessageType, error) {
	switch role {
	case "system":
		return llms.ChatMessageTypeSystem, nil
	case "user", "":
		return llms.ChatMessageTypeHuman, nil
	case "assistant":
		return llms.ChatMessageTypeAI, nil
	}
	return "", fmt.Errorf("unknown message role %q", role)
}

// withCause is err's text with the transport error of the last attempt when err does not show it
// (langchaingo words every network error alike), or the message of the error body it did not read;
// a reply the transport found at fault (an error in a 200 body, malformed JSON, JSON of another
// shape) is that fault alone.
func withCause(err error, attempts *Attempts) string {
	var ib *InBandError
	var se *ShapeError
	if cause := attempts.Err(); errors.As(cause, &ib) || errors.As(cause, &se) || errors.Is(cause, errMalformedBody) {
		// The server replied, so langchaingo's words ("network error: failed to reach API
		// server") would mislead: the reply's fault is the message.
		return cause.Error()
	}
	// langchaingo's anthropic client puts its own words before the server's; the caller names
	// the provider and model already.
	msg := strings.TrimPrefix(err.Error(), "anthropic: failed to create message: ")
	var fs *finalStatus
	if errors.As(err, &fs) { // the server's own words, without the request line the client put round them
		msg = fs.msg
	}
	if m := bodyMessage(attempts.Body()); m != "" && !strings.Contains(msg, m) {
		// The server's words where the client looked for them elsewhere (vLLM's top-level message).
		msg = strings.TrimSuffix(strings.TrimRight(msg, " "), ":") + ": " + m
	}
	if cause := attempts.Err(); cause != nil && !strings.Contains(msg, cause.Error()) {
		msg += " (" + cause.Error() + ")"
	}
	return msg
}

// CallError is a failed model call: the error, how many HTTP attempts were made, and what the
// failure most likely needs (a key, a model name, a base URL), when that can be told.
type CallError struct {
	Attempts int
	Err      error
	Hint     string
}

func (e *CallError) Error() string {
	msg := e.Err.Error()
	if e.Attempts > 1 {
		msg = fmt.Sprintf("%s (after %d attempts)", msg, e.Attempts)
	}
	if e.Hint != "" {
		// "Error 404:" and "…api-keys." end otherwise than before a semicolon.
		msg = strings.TrimSuffix(strings.TrimRight(msg, ": "), ".") + "; " + e.Hint
	}
	return msg
}

func (e *CallError) Unwrap() error { return e.Err }

// redact removes every occurrence of key from s.
func redact(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
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
