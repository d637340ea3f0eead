package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/api/googleapi"
)

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

// RefusedError is the part of an empty reply's error that gives the refusal the reply held
// instead of text (OpenAI's message.refusal). Asked again, the model refuses again: qa-judge does
// not ask again, as for a reply the provider's filters block.
type RefusedError struct{ Refusal string }

func (e *RefusedError) Error() string { return fmt.Sprintf("refused: %q", e.Refusal) }

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

// GenerationError is an OpenAI-compatible reply whose server ended the generation as a failure:
// its first choice's finish_reason is "error" (OpenRouter's, for a model or provider that failed
// once the reply had begun, which may put an error object {code, message} in the choice or beside
// the choices; vLLM's, for a request that failed in its engine) or "abort" (vLLM's, for a request
// its engine aborted).
// Whatever text came before it is no answer, cut at a point nobody chose. The Transport retries
// it as the error's code would be as a status, and one without a code as a server's fault
// (failedRetry); the last one is the call's error, its usage kept, never an answer.
type GenerationError struct {
	Reason  string // the finish_reason: "error", "abort"
	Code    int    // the error's code, an HTTP status; 0 when it gives none that is an error status
	Message string // the error's message (or the error, a string), trimmed; "" for none
}

func (e *GenerationError) Error() string {
	msg := fmt.Sprintf("the server ended the reply with finish_reason %q, a failed generation", e.Reason)
	switch {
	case e.Code != 0 && e.Message != "":
		return fmt.Sprintf("%s: error %d: %s", msg, e.Code, e.Message)
	case e.Code != 0:
		return fmt.Sprintf("%s: error %d", msg, e.Code)
	case e.Message != "":
		return msg + ": " + e.Message
	}
	return msg
}

// failedRetry reports whether a reply that failed as e did is asked again, and whether the server
// throttled the call: as a status of e's code would be (429 and the transient ones, not a 4xx
// such as OpenRouter's 400 or 403), as inBandError's are; one without a code is a fault of the
// server's, which stopped what it had begun, and is retried as a 5xx is.
func (e *GenerationError) failedRetry() (retry, throttled bool) {
	if e.Code == 0 {
		return true, false
	}
	return e.Code == http.StatusTooManyRequests || isTransientStatus(e.Code), e.Code == http.StatusTooManyRequests
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

// withCause is err's text with the transport error of the last attempt when err does not show it
// (langchaingo words every network error alike), or the message of the error body it did not read;
// a reply the transport found at fault (an error in a 200 body, malformed JSON, JSON of another
// shape, an empty body, a body too large) is that fault alone.
func withCause(err error, attempts *Attempts) string {
	var ib *InBandError
	var se *ShapeError
	var be *bodyError
	var re *redirectError
	var tl *tooLargeError
	if cause := attempts.Err(); errors.As(cause, &ib) || errors.As(cause, &se) || errors.As(cause, &be) || errors.As(cause, &re) || errors.As(cause, &tl) || errors.Is(cause, errMalformedBody) || errors.Is(cause, errEmptyBody) {
		// The server replied, so langchaingo's words ("network error: failed to reach API
		// server") would mislead: the reply's fault is the message.
		return cause.Error()
	}
	// langchaingo's anthropic client puts its own words before the server's; the caller names
	// the provider and model already.
	msg := strings.TrimPrefix(err.Error(), "anthropic: failed to create message: ")
	if _, ok := errors.AsType[*googleapi.Error](err); ok {
		// The Gemini client words the details of an error body (ErrorInfo, LocalizedMessage)
		// on lines of their own after the status and message ("\nerror details: name =
		// ErrorInfo … metadata = map[…]"): a failure is one line, as every other provider's.
		msg, _, _ = strings.Cut(msg, "\n")
	}
	var fs *finalStatus
	if errors.As(err, &fs) { // the server's own words, without the request line the client put round them
		msg = fs.msg
	}
	if status, _ := attempts.Status(); status >= 400 {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			// The client read the error body as its own API words it and could not (Ollama's
			// reads "error" as a string, and an OpenAI-compatible proxy in front of it sends an
			// object): its words name a Go type, and the status and the server's are lost.
			msg = fmt.Sprintf("HTTP %d", status)
			if m := jsonErrorMessage(attempts.Body()); m != "" {
				msg += ": " + m
			}
		}
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

// Failure is the text of err, a call's error, without what CallError adds to it (the count of
// attempts the call took, a hint): the failure itself, as a reply served from the cache, which
// took no attempts, gives it again (the cache stores an empty reply with this text).
func Failure(err error) string {
	if ce, ok := errors.AsType[*CallError](err); ok {
		return ce.Err.Error()
	}
	return err.Error()
}

// ReplyFailure is Failure(err), err the error of a call of req, past the provider and model it
// begins with: what the reply was, in the words qa-predict's error gives it after them ("empty
// reply (no choices)", "empty reply (stop reason stop; content null)"), for an error that names
// the model apart (a judgment's).
func ReplyFailure(req Request, err error) string {
	return strings.TrimPrefix(Failure(err), req.Provider+" "+req.Model+": ")
}

// redact removes every occurrence of key from s.
func redact(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}
