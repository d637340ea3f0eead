package model

// This file tells a 200 reply of the provider's shape from JSON of another (an array, a string,
// a number, null, an object with none of the reply's members), which the Transport retries as it
// does malformed JSON.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// shape is what a provider's reply to a chat call is: its name, in the provider's words, and the
// members of its object, of which a reply holds at least one.
type shape struct {
	name    string
	members []string
}

// chatShapes are the replies of the chat calls, by provider; each lists "error" too, which some
// servers put in a 200 reply (OpenRouter, a Gemini or Ollama stream), and which is read as an error.
//
// Note: a reply that holds some of its members but not the one that carries its answer (an OpenAI
// reply without choices) is of its shape: it is an empty reply, paid for, not retried.
var chatShapes = map[string]shape{
	"openai": {"chat completion", []string{"id", "object", "created", "model", "choices", "usage",
		"system_fingerprint", "service_tier", "error"}},
	"anthropic": {"message", []string{"id", "type", "role", "model", "content", "stop_reason",
		"stop_sequence", "stop_details", "usage", "error"}},
	"googleai": {"generateContent reply", []string{"candidates", "promptFeedback", "usageMetadata",
		"modelVersion", "responseId", "createTime", "error"}},
	"ollama": {"chat reply", []string{"model", "created_at", "message", "done", "done_reason",
		"total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count",
		"eval_duration", "error"}},
}

type shapeKey struct{}

// withChatShape returns a context under which a Transport checks a 200 reply against the shape
// of provider's chat reply (a provider without one is not checked).
func withChatShape(ctx context.Context, provider string) context.Context {
	s, ok := chatShapes[provider]
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, shapeKey{}, &s)
}

// ShapeError is a 200 reply that is JSON but not of the reply's shape: another API's answer, a
// proxy's, or a server's fault. The Transport retries it as it does malformed JSON.
type ShapeError struct {
	Want string // what the reply should be: "chat completion"
	Got  string // what it is: "a JSON array"
	Body string // its first words, as replyKind cuts them
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("reply with status 200 is no %s: %s (%q)", e.Want, e.Got, e.Body)
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
		for line := range bytes.Lines(t) {
			if line = bytes.TrimSpace(line); len(line) > 0 {
				if !json.Valid(line) {
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
	return nil
}

// fault is the ShapeError of body, which is got.
func (s *shape) fault(got string, body []byte) *ShapeError {
	return &ShapeError{Want: s.name, Got: got, Body: firstWords(body)}
}

// misfit says what v, one JSON value, is when it is not one of s's replies: "a JSON array", "a
// JSON object with none of its members"; "" when it is.
func (s *shape) misfit(v []byte) string {
	switch v[0] {
	case '{':
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
	var members map[string]json.RawMessage
	if json.Unmarshal(v, &members) != nil {
		return "" // not for here to judge
	}
	for _, m := range s.members {
		if _, ok := members[m]; ok {
			return ""
		}
	}
	if len(members) == 0 {
		return "an empty JSON object"
	}
	return "a JSON object with none of the reply's members"
}
