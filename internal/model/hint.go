package model

// This file says what a failed call most likely needs, from what its last attempt got: the
// provider's words ("API returned unexpected status code: 404", "invalid character '<'") say
// what happened, and a first-time user's mistake (a key, a model name, a base URL) is behind most.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"unicode/utf8"
)

// HintNames names what a hint sends the user to check, in the words of the command that made the
// call: qa-predict's --provider and --api-key-file, qa-score's --embed-provider and so on.
type HintNames struct {
	ProviderFlag string   // the flag that names the provider: "--provider"
	KeyFileFlag  string   // the flag that names the key's file: "--api-key-file"
	TimeoutFlag  string   // the flag that sets the per-attempt timeout: "--timeout"
	KeyEnv       []string // the variables the key is read from; none: no advice on a refused key
	NoKey        bool     // no key was given (an OpenAI-compatible server's call): a 401 asks for one
	// Key is the call's API key, which a reply the hint quotes never shows: the quote is cut to
	// 40 bytes, so redacting the message afterwards would miss a key the cut falls in.
	Key string
}

// hint is Hint in the words of names, for a call made with key ("" for none): a name names leaves
// unset is the chat flags' (--provider, --api-key-file, the provider's KeyEnv).
func hint(provider, base, key string, names HintNames, attempts *Attempts) string {
	if names.ProviderFlag == "" {
		names.ProviderFlag = "--provider"
	}
	if names.KeyFileFlag == "" {
		names.KeyFileFlag = "--api-key-file"
	}
	if names.KeyEnv == nil {
		names.KeyEnv = KeyEnv[provider]
	}
	if names.TimeoutFlag == "" {
		names.TimeoutFlag = "--timeout"
	}
	names.NoKey, names.Key = key == "", key
	return Hint(provider, base, attempts, names)
}

// Hint returns the advice for a call of provider to base (its endpoint) that failed, from what
// attempts saw last, or "" when there is none to give; names words the flags and variables:
//   - a proxy (HTTPS_PROXY, HTTP_PROXY) that could not be reached: the proxy, or NO_PROXY, not the
//     server the call never reached;
//   - a refused connection or an unknown host: the server, or the base URL;
//   - a reply that is no JSON (an HTML page, "404 page not found"): a base URL that is a web
//     server's, not the API's, with where the provider's API is; with a 5xx status, a proxy
//     whose server is down; with a 4xx status that is retried (429, 408, 409, 425), a proxy that
//     turned the call away;
//   - a 200 reply that is JSON of another shape than the API's (a ShapeError): a base URL, or a
//     provider, that is not the server's; but for an Ollama stream cut before its last line,
//     which is of the API's shape: the server stopped while it answered;
//   - 401, or Gemini's invalid key (a 400): where the key came from (for a provider that sends one),
//     or, when none was given, where to give one;
//   - 404 in JSON: the model name, or the base URL;
//   - a 400 that refuses any temperature but the model's default, 1 (onlyDefaultTemperature):
//     --temperature 1, as langchaingo sends OpenAI's o1 and o4-mini and every Claude model one;
//   - an attempt that the per-attempt timeout ended (Attempts.TimedOut): that the timeout, which
//     the server's error does not name, stopped it, and that a call may need longer.
//
// Other statuses (400, 403, 429, 5xx) carry the server's own words, which say more than a guess.
// A call a Transport did not make as the server refused every call (a StoppedError) is advised as
// the first refusal was.
// Any HTTP client whose transport is a Transport, under WithAttempts, can ask for it: the embedding
// calls do, so that their failures say what the model calls' say.
func Hint(provider, base string, attempts *Attempts, names HintNames) string {
	cause := attempts.Err()
	status, contentType := attempts.Status()
	body := bytes.TrimSpace(attempts.Body())
	if se, ok := errors.AsType[*StoppedError](cause); ok && se.Status != 0 {
		// A call not made as every call was refused: the advice is the first refusal's.
		status, contentType, body = se.Status, se.contentType, bytes.TrimSpace(se.body)
	}
	body = []byte(redact(string(body), names.Key))
	var dns *net.DNSError
	var shape *ShapeError
	var op *net.OpError
	switch {
	case attempts.TimedOut() > 0:
		return fmt.Sprintf("every attempt stops at %s %s, and the last reached it: a slow server, or a long prompt or reply, can need longer (0: no limit)",
			cmp.Or(names.TimeoutFlag, "--timeout"), attempts.TimedOut())
	case errors.As(cause, &op) && op.Op == "proxyconnect":
		// net/http's words for a proxy it could not dial (refused, unknown host): the call never
		// left for the base URL, whose server the next cases would blame.
		return "the call goes through a proxy (HTTPS_PROXY or HTTP_PROXY) that could not be reached: is the proxy running, or should NO_PROXY name the base URL's host?"
	case errors.Is(cause, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing answers at %s: is the server running, and is the base URL right?", shownURL(base))
	case errors.As(cause, &dns) && dns.IsNotFound:
		return fmt.Sprintf("no host %q: check the base URL", dns.Name)
	case status >= 500 && len(body) > 0 && body[0] != '{' && body[0] != '[':
		return fmt.Sprintf("the server answered %s, not JSON: a proxy or gateway in front of the API, whose server is most likely down or starting",
			replyKind(contentType, body))
	case status/100 == 4 && (status == http.StatusTooManyRequests || isTransientStatus(status)) && len(body) > 0 && body[0] != '{' && body[0] != '[':
		// A status retried as the 5xx are (408, 409, 425, 429) is one only a server that took
		// the call gives: the base URL reached it, as a wrong one (a 404 page) does not.
		return fmt.Sprintf("the server answered %s, not JSON: a proxy or gateway in front of the API, which turned the call away with HTTP %d %s",
			replyKind(contentType, body), status, http.StatusText(status))
	case status/100 == 2 && mediaType(contentType) == "text/event-stream":
		return "the server streamed its reply (text/event-stream) where the call asked for it whole: " +
			"a server or proxy that streams whatever the request says; have it answer whole replies"
	case status != 0 && len(body) > 0 && body[0] != '{' && body[0] != '[':
		return fmt.Sprintf("the server answered %s, not JSON: %s is most likely not the API's base URL%s",
			replyKind(contentType, body), shownURL(base), apiPlace(provider, names.ProviderFlag, base))
	case errors.As(cause, &shape) && shape.Cut:
		return "the server stopped in the middle of its reply (its model runner crashed or was restarted, or a proxy in front of it cut the stream): see the server's log"
	case shape != nil:
		return fmt.Sprintf("check that %s is the API's base URL%s and that its server speaks %s %s's API",
			shownURL(base), apiPlace(provider, names.ProviderFlag, base), names.ProviderFlag, provider)
	case status == http.StatusUnauthorized || badKey(body) || provider == "googleai" && bytes.Contains(body, []byte("API key not valid")):
		// The Gemini API refuses a key with a 400, through its OpenAI-compatible endpoint too.
		return keyAdvice(names)
	case status == http.StatusNotFound:
		return fmt.Sprintf("no such model or endpoint: check the model name, and that %s is the API's base URL%s", shownURL(base), apiPlace(provider, names.ProviderFlag, base))
	case status == http.StatusBadRequest && onlyDefaultTemperature(body):
		return "the model takes no temperature but its default, 1, and langchaingo sends one with every call " +
			"(0 unless set): give --temperature 1 (qa-predict's EvaLearn judge: --judge-temperature 1)"
	}
	return ""
}

// onlyDefaultTemperature reports whether body, a 400's, refuses the request's temperature as a
// model that takes only its default does: OpenAI's o1 and o4-mini ("Unsupported value:
// 'temperature' does not support 0 with this model. Only the default (1) value is supported."),
// Claude models after Opus 4.6 ("`temperature` is deprecated for this model.", or "may only be
// set to 1" with thinking on). A temperature out of the API's range is refused in other words,
// which say what to do.
func onlyDefaultTemperature(body []byte) bool {
	if !bytes.Contains(body, []byte("temperature")) {
		return false
	}
	for _, words := range []string{"Only the default (1) value is supported", "`temperature` is deprecated", "temperature` may only be set to 1"} {
		if bytes.Contains(body, []byte(words)) {
			return true
		}
	}
	return false
}

// replyKind names a reply that is no JSON by its media type and its first words: `text/html
// ("<!DOCTYPE html>")`.
func replyKind(contentType string, body []byte) string {
	return fmt.Sprintf("%s (%q)", cmp.Or(mediaType(contentType), "text"), firstWords(body))
}

// mediaType is the media type of contentType, without its parameters, or "" when it has none.
func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return mt
}

// firstWords is the first line of body, trimmed and cut to 40 bytes (a cut marked "…"): enough
// to tell what a reply is.
func firstWords(body []byte) string {
	first, _, _ := bytes.Cut(body, []byte("\n"))
	first = bytes.TrimSpace(first)
	const most = 40
	if len(first) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(first[cut]) {
			cut--
		}
		first = append(first[:cut:cut], "…"...)
	}
	return string(first)
}

// apiPlace says where provider's API is, for a base URL that is not it; providerFlag is the flag
// that names the provider. An openai base that ends in /v1 already is not reminded of it, which
// would only puzzle: its host, port or model are what to check.
func apiPlace(provider, providerFlag, base string) string {
	switch provider {
	case "openai":
		if u, err := url.Parse(base); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
			return ""
		}
		return " (an OpenAI-compatible server's usually ends in /v1)"
	case "anthropic":
		return " (Anthropic's is " + AnthropicURL + ")"
	case "ollama":
		return " (Ollama's own API is at the server's root, without /v1; its /v1 is " + providerFlag + " openai's)"
	case "googleai":
		return " (the Gemini API's is the server's root, " + GoogleAIURL + ", to which the client adds /v1beta)"
	}
	return ""
}

// keyAdvice says where a refused key came from, or where to give one when none was given, "" for a
// provider that sends none.
func keyAdvice(names HintNames) string {
	if len(names.KeyEnv) > 0 && names.NoKey {
		return fmt.Sprintf("the server wants an API key and none was given: set %s, or give %s", strings.Join(names.KeyEnv, " or "), names.KeyFileFlag)
	}
	if len(names.KeyEnv) > 0 {
		return fmt.Sprintf("the API key was refused: check %s, or the file %s names", strings.Join(names.KeyEnv, " or "), names.KeyFileFlag)
	}
	return ""
}

// shownURL is base as a message may show it: without a password or a query, which may hold a key.
func shownURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.RawQuery, u.Fragment = "", ""
	return u.Redacted()
}
