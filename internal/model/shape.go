package model

// This file tells a 200 reply of the provider's shape from JSON of another (an array, a string,
// a number, null, an object with none of the reply's members), which the Transport retries as it
// does malformed JSON: the chat calls' replies, and the embedding calls' (internal/embedding).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/qapipe/qapipe/internal/english"
)

// shape is what a provider's reply to a call is: its name, in the provider's words, and the
// members of its object, of which a reply holds at least one; or, for a reply that is a JSON array
// of arrays (one per text sent, as text-embeddings-inference answers), no members and list set.
// own, when set, lists those of members that other APIs' replies do not have ("choices", not
// "id", "model" or "usage"), of which a reply holds at least one too: another provider's reply
// shares some members with it, and would otherwise read as an empty reply of this one.
type shape struct {
	name    string
	members []string
	own     []string
	list    bool
	chat    bool // a chat call's reply, whose body is read up to maxReplyBody (replyLimit)
}

// chatShapes are the replies of the chat calls, by provider; each lists "error" too, which some
// servers put in a 200 reply (OpenRouter, a Gemini or Ollama stream), and which is read as an error.
//
// Note: a reply that holds some of its members but not the one that carries its answer (an OpenAI
// reply without choices) is of its shape: it is an empty reply, paid for, not retried.
var chatShapes = map[string]shape{
	"openai": {name: "chat completion", members: []string{"id", "object", "created", "model", "choices", "usage",
		"system_fingerprint", "service_tier", "error"}, own: []string{"choices", "object", "error"}},
	"anthropic": {name: "message", members: []string{"id", "type", "role", "model", "content", "stop_reason",
		"stop_sequence", "stop_details", "usage", "error"}, own: []string{"type", "content", "error"}},
	"googleai": {name: "generateContent reply", members: []string{"candidates", "promptFeedback", "usageMetadata",
		"modelVersion", "responseId", "createTime", "error"}},
	"ollama": {name: "chat reply", members: []string{"model", "created_at", "message", "done", "done_reason",
		"total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count",
		"eval_duration", "error"}, own: []string{"message", "done", "done_reason", "created_at", "error"}},
}

// embedShapes are the replies of the embedding calls, by provider and path. OpenAI's and
// Ollama's list "error" as the chat replies do; text-embeddings-inference answers a JSON array of
// arrays (vectors, token vectors or tokens), one per text sent.
var embedShapes = map[string]shape{
	"openai /embeddings": {name: "embedding list", members: []string{"object", "data", "model", "usage", "error"}},
	"ollama /api/embed": {name: "embed reply", members: []string{"model", "embeddings", "total_duration",
		"load_duration", "prompt_eval_count", "error"}},
	"tei /embed":     {name: "list of embeddings", list: true},
	"tei /embed_all": {name: "list of token embeddings", list: true},
	"tei /tokenize":  {name: "list of tokenizations", list: true},
}

type shapeKey struct{}

// WithEmbedShape returns a context under which a Transport checks a 200 reply against the shape
// of the reply of provider's embedding endpoint at path ("/embeddings", "/api/embed", "/embed",
// "/embed_all", "/tokenize"; another is not checked), as withChatShape does for a chat call.
func WithEmbedShape(ctx context.Context, provider, path string) context.Context {
	return withShape(ctx, embedShapes, provider+" "+path, false)
}

// withChatShape returns a context under which a Transport checks a 200 reply against the shape
// of provider's chat reply (a provider without one is not checked).
func withChatShape(ctx context.Context, provider string) context.Context {
	return withShape(ctx, chatShapes, provider, true)
}

// withShape returns a context naming shapes[key], the shape a Transport checks a 200 reply
// against, a chat call's when chat says so, or ctx when shapes has none under key.
func withShape(ctx context.Context, shapes map[string]shape, key string, chat bool) context.Context {
	s, ok := shapes[key]
	if !ok {
		return ctx
	}
	s.chat = chat
	return context.WithValue(ctx, shapeKey{}, &s)
}

// ShapeError is a 200 reply that is JSON but not of the reply's shape: another API's answer, a
// proxy's, or a server's fault. The Transport retries it as it does malformed JSON.
type ShapeError struct {
	Want string // what the reply should be: "chat completion"
	Got  string // what it is: "a JSON array"
	Body string // its first words, as replyKind cuts them
	// Cut is set for an Ollama stream of the reply's lines that ends before its last: the server
	// speaks the API, and stopped while it answered.
	Cut bool
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("reply with status 200 is no %s: %s (%q)", e.Want, e.Got, e.Body)
}

// meantAsJSON reports whether data, a 200 reply's body, is meant as the one JSON value of the
// reply shape ctx names (withChatShape, WithEmbedShape), whatever its Content-Type: it begins as
// JSON does, with { or [, and the shape is not Ollama's chat reply, whose stream is a reply a line.
// A server that labels its JSON text/plain or text/html (Flask's default), or not at all, and is
// cut off partway, is so retried as a malformed body is, not read once by the client, which
// failed with words of its own ("unexpected EOF").
func meantAsJSON(ctx context.Context, data []byte) bool {
	s, ok := ctx.Value(shapeKey{}).(*shape)
	if !ok || s.name == "chat reply" {
		return false
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// emptyBody reports whether data, a 200 reply's body, is empty or white space alone where the
// reply shape ctx names is one JSON value: retried as a malformed body is, whatever its
// Content-Type, where the client read it once and failed with "EOF". Ollama's stream is none: an
// empty one is read as an empty reply.
func emptyBody(ctx context.Context, data []byte) bool {
	s, ok := ctx.Value(shapeKey{}).(*shape)
	return ok && s.name != "chat reply" && len(bytes.TrimSpace(data)) == 0
}

// shapeFault returns the ShapeError of data, a 200 reply's body, under a context that names the
// reply's shape (withChatShape), or nil. A body that is not JSON is none of its business (the
// Transport's check of malformed JSON, or the client's reading, words it); nor is one that is
// empty, as an outage's empty reply is read as such. A stream (Gemini's array of replies, Ollama's
// lines) is checked reply by reply.
func shapeFault(ctx context.Context, data []byte) *ShapeError {
	s, ok := ctx.Value(shapeKey{}).(*shape)
	if !ok {
		return nil
	}
	t := bytes.TrimSpace(data)
	values, stream := [][]byte{t}, ""
	if !json.Valid(t) {
		if s.name != "chat reply" {
			return nil
		}
		values = values[:0] // Ollama's stream, a reply a line; one that is no JSON is not judged
		lines := slices.Collect(bytes.Lines(t))
		for i, line := range lines {
			if line = bytes.TrimSpace(line); len(line) > 0 {
				if !json.Valid(line) {
					if i == len(lines)-1 && truncatedJSON(line) {
						// The body ends inside its last line, a reply begun and not
						// ended: the stream was cut within a line, before its end.
						e := s.fault(cutStream(len(values) > 0), t)
						e.Cut = true
						return e
					}
					return nil
				}
				values = append(values, line)
			}
		}
		stream = "a stream holding "
	}
	if s.name == "generateContent reply" && len(t) > 0 && t[0] == '[' {
		// A streamed reply: a JSON array of replies.
		var rs []json.RawMessage
		if json.Unmarshal(t, &rs) != nil || len(rs) == 0 {
			return s.fault("an empty JSON array", t)
		}
		values, stream = values[:0], "a JSON array holding "
		for _, r := range rs {
			values = append(values, r)
		}
	}
	for _, v := range values {
		if got := s.misfit(v); got != "" {
			return s.fault(stream+got, t)
		}
	}
	if s.name == "chat reply" && len(values) > 0 && ollamaCut(values[len(values)-1], stream != "") {
		// A stream whose last line is not its end: the body ended early, as a truncated one
		// does, with the text sent so far, which would read as a whole (or empty) reply.
		e := s.fault(cutStream(stream != ""), t)
		e.Cut = true
		return e
	}
	return nil
}

// cutStream is what an Ollama chat body that ends before its last line is: a stream (of lines
// before the one it ends at) or a lone reply without its end.
func cutStream(stream bool) string {
	if stream {
		return "a stream holding no last line (\"done\": true): the stream was cut"
	}
	return "no last line (\"done\": true): the stream was cut"
}

// truncatedJSON reports whether line is JSON that ends before its value does: an object or array
// begun and not closed, as a body cut within its last line leaves it.
func truncatedJSON(line []byte) bool {
	var v any
	return (line[0] == '{' || line[0] == '[') && errors.Is(json.NewDecoder(bytes.NewReader(line)).Decode(&v), io.ErrUnexpectedEOF)
}

// ollamaCut reports whether v, the last reply of an Ollama chat body (its only one, or a
// stream's last line), leaves the reply unfinished: "done" false, or, in a stream, not true. A
// line with an "error" ends a stream (the client reads it as the failure it is). A lone reply
// without "done" is taken as whole: a server that speaks Ollama's API may leave the member out.
func ollamaCut(v []byte, stream bool) bool {
	var r struct {
		Done  *bool           `json:"done"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(v, &r) != nil || r.Error != nil {
		return false
	}
	if r.Done == nil {
		return stream
	}
	return !*r.Done
}

// fault is the ShapeError of body, which is got.
func (s *shape) fault(got string, body []byte) *ShapeError {
	return &ShapeError{Want: s.name, Got: got, Body: firstWords(body)}
}

// misfit says what v, one JSON value, is when it is not one of s's replies: "a JSON array", "a
// JSON object with none of its members", "a JSON array holding a JSON number"; "" when it is.
//
// Note: an embedding reply runs to megabytes, which the client decodes afterwards; v is read no
// further than its answer needs (an object up to its first member of the reply's, or of its own
// when it has some; a list by the first byte of each element), and nothing of it is copied.
func (s *shape) misfit(v []byte) string {
	if s.list {
		return listMisfit(v)
	}
	if v[0] != '{' {
		return jsonKind(v)
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	if _, err := dec.Token(); err != nil { // the object's '{'
		return "" // not for here to judge
	}
	own := s.own
	if own == nil {
		own = s.members
	}
	n, shared := 0, false
	for ; dec.More(); n++ {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := tok.(string)
		if slices.Contains(own, key) {
			return ""
		}
		shared = shared || slices.Contains(s.members, key)
		if err := dec.Decode(new(skipped)); err != nil {
			return ""
		}
	}
	switch {
	case n == 0:
		return "an empty JSON object"
	case shared:
		names := make([]string, len(own))
		for i, m := range own {
			names[i] = strconv.Quote(m)
		}
		return "a JSON object with none of " + english.List(names) // another API's reply
	}
	return "a JSON object with none of the reply's members"
}

// skipped is a JSON value read past: its bytes are neither kept nor copied.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// listMisfit says what v, valid JSON, is when it is not a JSON array of arrays: an empty array is
// one, of no text (the caller, which knows how many it sent, words that).
func listMisfit(v []byte) string {
	if v[0] != '[' {
		if string(bytes.Join(bytes.Fields(v), nil)) == "{}" {
			return "an empty JSON object"
		}
		return jsonKind(v)
	}
	got := ""
	elements(v, func(first byte) bool {
		if first != '[' {
			got = "a JSON array holding " + jsonKind([]byte{first})
		}
		return got == ""
	})
	return got
}

// elements calls f with the first byte of each element of v, a valid JSON array, in order, until
// f returns false. It scans v once, keeping only the depth and whether it is inside a string.
func elements(v []byte, f func(first byte) bool) {
	depth, inString, escaped, next := 0, false, false, true // next: an element may start here
	for _, c := range v {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		if depth == 1 && next && c != ']' {
			if !f(c) {
				return
			}
		}
		next = depth == 0 && c == '[' || depth == 1 && c == ','
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		}
	}
}

// jsonKind names the kind of v, one JSON value: "a JSON array", "JSON null".
func jsonKind(v []byte) string {
	switch v[0] {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "JSON null"
	default:
		return "a JSON number"
	}
}
