package model

// This file reads the words of an error reply's JSON body, as each server puts them: one reading
// (readErrorBody), and the two rules that pick the message from it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// errorBody is what an error reply's JSON body words its error with, member by member, as
// readErrorBody finds them; a member that is absent, null or of another type is "".
type errorBody struct {
	listed  bool   // the body was a list, read by its first element ([{"error": {...}}]: Gemini's streamGenerateContent)
	errText string // "error" as a string: Ollama's and text-embeddings-inference's
	errMsg  string // "error"."message": OpenAI's, Anthropic's, Gemini's, llama.cpp's, vLLM's since 0.10.1
	message string // the top-level "message": vLLM's before 0.10.1 and Mistral's, with object "error"
	object  string // the top-level "object"
	detail  string // "detail": FastAPI's (a list of validation errors is none)
	// invalid is FastAPI's list of validation errors in "detail", worded "body.model: Field
	// required; …" (validationWords); "" for none.
	invalid string
	// typed is set when message and detail are strings (or absent, or null): a body whose
	// message is an object (Mistral's 422, {"message": {"detail": […]}}) is worded by no member.
	typed bool
}

// readErrorBody reads body, an error reply, as JSON: an object, or the list of one that
// streamGenerateContent wraps its errors in (errorObject). A body that is no JSON object reads as
// nothing.
func readErrorBody(body []byte) errorBody {
	obj, listed := errorObject(body)
	var r struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Object  json.RawMessage `json:"object"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(obj, &r) != nil {
		return errorBody{listed: listed}
	}
	e := errorBody{listed: listed}
	var okMessage, okDetail bool
	e.message, okMessage = jsonString(r.Message)
	e.detail, okDetail = jsonString(r.Detail)
	if !okDetail {
		e.invalid = validationWords(r.Detail)
	}
	e.typed = okMessage && okDetail
	e.object, _ = jsonString(r.Object)
	e.errText, _ = jsonString(r.Error)
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(r.Error, &o) == nil {
		e.errMsg = o.Message
	}
	return e
}

// errorObject is the error object of an error body: the first element of the array that
// streamGenerateContent wraps it in ([{"error": {...}}]), listed, where googleapi reads only a
// bare object and would show the whole body for want of a message; body itself otherwise (an
// empty array too).
func errorObject(body []byte) (obj []byte, listed bool) {
	var rs []json.RawMessage
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' && json.Unmarshal(t, &rs) == nil && len(rs) > 0 {
		return rs[0], true
	}
	return body, false
}

// jsonErrorMessage returns the message of an error reply's JSON body, or "": its "error" when a
// string (Ollama's, TEI's), else error.message (OpenAI's, Anthropic's, Gemini's), else its
// top-level message (vLLM's before 0.10.1, Mistral's), else its detail (FastAPI's). A
// StoppedError quotes it.
func jsonErrorMessage(body []byte) string {
	e := readErrorBody(body)
	switch {
	case !e.typed:
		return ""
	case e.errText != "":
		return e.errText
	case e.errMsg != "":
		return e.errMsg
	case e.message != "":
		return e.message
	}
	return e.detail
}

// bodyMessage is the message of an error body that the client does not read, trimmed: the
// top-level "message" of vLLM's errors before 0.10.1 and Mistral's ({"object": "error",
// "message": …}), which langchaingo's OpenAI client misses, the error.message of the Google API error that streamGenerateContent
// wraps in a list ([{"error": {"message": …}}]), where genai finds none, or an "error" that is
// a string (text-generation-inference's {"error": …, "error_type": …}), where the OpenAI,
// Anthropic and Gemini clients look for an object (Ollama's, which reads it, has its words
// already, and withCause adds none twice); "" otherwise. withCause adds it to the client's words.
//
// Note: it is narrower than jsonErrorMessage on purpose. The clients word the other bodies
// themselves (OpenAI's, Anthropic's and Ollama's error), or word them otherwise ("detail"), and
// adding jsonErrorMessage's pick to their words would change the message a user sees.
func bodyMessage(body []byte) string {
	e := readErrorBody(body)
	switch {
	case e.listed:
		return strings.TrimSpace(e.errMsg)
	case e.object == "error":
		return strings.TrimSpace(e.message)
	case e.errText != "":
		return strings.TrimSpace(e.errText)
	case e.errMsg != "" || e.message != "":
		return "" // the client's words (OpenAI's, Anthropic's error.message)
	case e.invalid != "":
		return e.invalid
	}
	return strings.TrimSpace(e.detail)
}

// maxInvalid bounds the validation errors validationWords words.
const maxInvalid = 3

// validationWords words detail, FastAPI's list of validation errors ([{"loc": ["body", "model"],
// "msg": "Field required", …}]), as "body.model: Field required; …", the first maxInvalid of them
// and how many more; "" when it is no such list.
func validationWords(detail json.RawMessage) string {
	var items []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(detail, &items) != nil {
		return ""
	}
	var words []string
	for _, it := range items {
		if it.Msg = strings.TrimSpace(it.Msg); it.Msg == "" {
			continue
		}
		var loc []string
		for _, l := range it.Loc {
			loc = append(loc, fmt.Sprint(l))
		}
		if len(loc) > 0 {
			it.Msg = strings.Join(loc, ".") + ": " + it.Msg
		}
		words = append(words, it.Msg)
	}
	if len(words) > maxInvalid {
		words = append(words[:maxInvalid], fmt.Sprintf("and %d more", len(words)-maxInvalid))
	}
	return strings.Join(words, "; ")
}

// jsonString is v, a JSON value, as a string: "" for none (left out or null); ok is false for a
// value that is no string.
func jsonString(v json.RawMessage) (s string, ok bool) {
	if len(v) == 0 {
		return "", true
	}
	return s, json.Unmarshal(v, &s) == nil
}
