package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

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
	ctx, tokens := c.claimTokens(ctx, req)
	ctx, attempts := WithAttempts(withChatShape(ctx, c.provider))
	resp, err := c.generate(ctx, llm, msgs, opts, attempts)
	out, err := c.outcome(ctx, req, attempts, tokens, resp, err)
	return c.withEarlier(out, attempts.Earlier()), err
}

// outcome is the response and error of the call made for req, its attempts counted in attempts
// and its tokens claimed by tokens, that langchaingo returned resp and err for: the latest
// reply's.
func (c *chat) outcome(ctx context.Context, req Request, attempts *Attempts, tokens *tokenClaim, resp *llms.ContentResponse, err error) (Response, error) {
	r := &callResult{req: req, attempts: attempts, slot: tokens.Slot(), out: Response{Model: req.Model, Attempts: attempts.N()}}
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
	if r.body.failed != nil {
		return c.generationFailed(r)
	}
	if err != nil {
		return c.failed(ctx, r, err)
	}
	return c.answered(r, resp, fromBody)
}

// withEarlier is out, the response of a call's latest reply, with the usage of the replies before
// it that the server billed, earlier (their bodies: failed generations, retried) added: Usage is
// the sum of every reply paid for, and Replies each one's, to be priced as its own. One of them
// without usage makes the call's unknown (NoUsage), as the latest reply's does.
//
// Note: only the latest reply's usage was kept, and the call was counted, in its record and
// under --max-cost, as if the replies before it had cost nothing.
func (c *chat) withEarlier(out Response, earlier [][]byte) Response {
	if len(earlier) == 0 || out.NoUsage {
		return out
	}
	billed := make([]record.Usage, 0, len(earlier)+1)
	for _, body := range earlier {
		u, unknown := knownUsage(readReply(c.provider, body).usage, false)
		if unknown {
			out.Usage, out.NoUsage = record.Usage{}, true
			return out
		}
		billed = append(billed, u)
	}
	if !out.Usage.IsZero() { // the latest reply was paid for too (a failed call's may not be)
		billed = append(billed, out.Usage)
	}
	out.Usage = record.Usage{}
	for _, u := range billed {
		out.Usage.InputTokens += u.InputTokens
		out.Usage.OutputTokens += u.OutputTokens
		out.Usage.CachedInputTokens += u.CachedInputTokens
		out.Usage.CacheWriteInputTokens += u.CacheWriteInputTokens
	}
	if len(billed) > 1 {
		out.Replies = billed
	}
	return out
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
	r.out.Usage, r.out.NoUsage = knownUsage(r.body.usage, false)
	r.slot.Settle(0) // as for any failed call, unless its usage is known
	settle(r.slot, r.out)
	return r.out, &CallError{Attempts: r.out.Attempts, Err: fmt.Errorf("%s %s: %w", c.provider, r.req.Model, r.body.blocked)}
}

// generationFailed is the response and error of a call whose reply's server ended the generation
// as a failure (GenerationError), the Transport's retries spent or not for its code: no answer,
// whatever text it holds or langchaingo made of it, but paid for as far as it went, as a blocked
// reply is.
func (c *chat) generationFailed(r *callResult) (Response, error) {
	r.out.Usage, r.out.NoUsage = knownUsage(r.body.usage, false)
	r.slot.Settle(0) // as for any failed call, unless its usage is known
	settle(r.slot, r.out)
	return r.out, &CallError{Attempts: r.out.Attempts, Err: fmt.Errorf("%s %s: %w", c.provider, r.req.Model, r.body.failed)}
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
		// One that came whole without a usage is paid for all the same, its usage unknown
		// (as an empty reply's is), not a failure that cost nothing.
		if !r.body.usage.IsZero() || attempts.Err() == nil && json.Valid(attempts.Body()) {
			out.Usage, out.NoUsage = knownUsage(r.body.usage, false)
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
	_, stop, _ := strings.Cut(why, "stop reason ")
	if cutShort(stop) {
		out.Cut, out.Window = true, stop == contextFull
		if spent := c.cutWhy(r.req, out.Window); spent != "" {
			why += ": " + spent
		}
	}
	// A reply without text that langchaingo calls an error: an empty reply, paid for, with the
	// thinking its server sent, which says where the tokens went.
	out.Reasoning = r.body.reasoning
	out.Stopped = c.stoppedWhole(stop, r.body)
	if note := c.textMissing(stop, r.body); note != "" {
		why += "; " + note
	}
	out.Usage, out.NoUsage = knownUsage(r.body.usage, produced("", out.Reasoning, out.Cut, out.Window))
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
	if body.geminiUsage || fromBody {
		u = body.usage
	}
	if c.provider == "openai" && u.CachedInputTokens == 0 && u.InputTokens == body.usage.InputTokens {
		// DeepSeek's cache hits, which langchaingo drops (readOpenAI reads them).
		u.CachedInputTokens = body.usage.CachedInputTokens
	}
	out.Cut, out.Window = cutShort(ch.StopReason), ch.StopReason == contextFull
	out.Usage, out.NoUsage = knownUsage(u, produced(ch.Content, out.Reasoning, out.Cut, out.Window))
	out.Filtered = ch.StopReason == "content_filter" || ch.StopReason == "refusal"
	out.Stopped = c.stoppedWhole(ch.StopReason, body)
	settle(r.slot, out)
	if blank(ch.Content) {
		return out, c.noText(r.req, out, ch.StopReason, body.refusal, c.textMissing(ch.StopReason, body))
	}
	return out, nil
}

// noText is the error of a reply out with no text, stop its stop reason and refusal the refusal
// it holds, if any; missing, if any, says that its text was not there at all (textMissing).
func (c *chat) noText(req Request, out Response, stop, refusal, missing string) error {
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
		return &CallError{Attempts: out.Attempts, Err: fmt.Errorf("%s %s: %w (%w)", c.provider, req.Model, ErrEmptyReply, &RefusedError{refusal})}
	case stop != "" && missing != "":
		why = " (stop reason " + stop + "; " + missing + ")"
	case stop != "":
		why = " (stop reason " + stop + ")"
	}
	return &CallError{Attempts: out.Attempts, Err: fmt.Errorf("%s %s: %w%s", c.provider, req.Model, ErrEmptyReply, why)}
}

// stoppedWhole reports whether a reply that stopped for stop, its body read as body, came whole
// and stopped of itself (Response.Stopped).
func (c *chat) stoppedWhole(stop string, body reply) bool {
	return body.refusal == "" && c.ownEnd(stop, body) && c.textMissing(stop, body) == ""
}

// ownEnd reports whether stop, a reply's stop reason, its body read as body, is the model's own
// end: OpenAI's and Ollama's stop, Anthropic's end_turn or stop_sequence, Gemini's STOP, an
// Ollama reply done without a done_reason.
func (c *chat) ownEnd(stop string, body reply) bool {
	switch c.provider {
	case "openai":
		return stop == "stop"
	case "anthropic":
		return stop == "end_turn" || stop == "stop_sequence"
	case "googleai":
		return stop == "STOP"
	case "ollama":
		return stop == "stop" || stop == "" && body.done
	}
	return false
}

// textMissing says why a reply that stopped for stop, its body read as body, with the model's own
// end, is not Stopped for want of its text: an OpenAI content null, left out or of parts, an
// Anthropic message without a text block, a Gemini candidate without parts; "" for any other, so
// that an empty reply's error says why --empty-reply keep did not keep it.
func (c *chat) textMissing(stop string, body reply) string {
	if !c.ownEnd(stop, body) {
		return ""
	}
	switch {
	case c.provider == "openai" && body.notString:
		return body.content
	case c.provider == "anthropic" && !body.textPart:
		return "no text block"
	case c.provider == "googleai" && !body.textPart:
		return "no parts"
	}
	return ""
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

// claimTokens returns ctx with the request's estimated tokens (input and max_tokens, as the call
// carries it: langchaingo's 2048 to anthropic and googleai without one) claimed from the TPM
// limiter: the Transport reserves them as it sends each attempt (withTokens).
func (c *chat) claimTokens(ctx context.Context, req Request) (context.Context, *tokenClaim) {
	sent := req
	sent.Provider = c.provider
	return withTokens(ctx, c.tpm, float64(EstimateTokens(req)+sent.SentMaxTokens()))
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

// knownUsage returns u, the usage a reply reported, and whether it is unknown (then u is returned
// zero); produced says the reply must have had output: text, thinking, or a stop at max_tokens. A
// count of 0 where there must be tokens (every request has input, and such a reply output) is a
// count the server left out, as old Ollama leaves out prompt_eval_count for a cached prompt: the
// usage is then unknown, not partly free. So is a count no call has (negative, or over
// maxTokenCount), which a broken server may send, rather than a negative cost.
//
// Note: only a reply's text counted as output, so an empty reply cut at max_tokens, or with
// thinking, whose server left completion_tokens out was recorded and priced with 0 output tokens.
func knownUsage(u record.Usage, produced bool) (record.Usage, bool) {
	if u.InputTokens == 0 || u.OutputTokens == 0 && produced ||
		!tokenCount(u.InputTokens) || !tokenCount(u.OutputTokens) || !tokenCount(u.CachedInputTokens) ||
		!tokenCount(u.CacheWriteInputTokens) {
		return record.Usage{}, true
	}
	return u, false
}

// produced reports whether a reply of text and reasoning, cut short (at max_tokens or the
// server's token limit, not the context window, which the input may have filled) or not, must
// have had output tokens.
func produced(text, reasoning string, cut, window bool) bool {
	return !blank(text) || !blank(reasoning) || cut && !window
}

// callOptions are langchaingo's call options for req: its model, and its temperature, max_tokens
// (sent as max_tokens, not max_completion_tokens, with legacyMax), top_p, top_k, seed, stop
// sequences and JSON mode where set; a response format other than JSON mode is an error.
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
	if len(req.Stop) > 0 {
		// langchaingo v0.1.14 sends them to every provider (TestStopOnTheWire).
		opts = append(opts, llms.WithStopWords(req.Stop))
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
