package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzReadErrorBody reads arbitrary bytes as an error body: no panic, and jsonErrorMessage and
// bodyMessage pick their words from readErrorBody's members by their rules; a body that is no
// JSON object (nor a list of one) reads as nothing.
func FuzzReadErrorBody(f *testing.F) {
	for _, s := range []string{
		`{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`,
		`{"type":"error","error":{"type":"not_found_error","message":"model: claude-9"}}`,
		"[{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted\"\n  }\n}\n]",
		`{"error":"model \"llama9\" not found"}`, `{"object":"error","message":"no model","code":404}`,
		`{"object":"error","message":{"detail":[{"msg":"Extra inputs are not permitted"}]}}`,
		`{"detail":"Not Found"}`, `{"detail":[{"msg":"Field required"}]}`, `[]`, `[1]`, `null`, `"error"`,
		`{"error":null,"message":null,"detail":null}`, `{"error":{"message":3}}`, `{"error":"\ud800\u0000"}`,
		"<html>502 Bad Gateway</html>", ``, `{"error":"a"} x`, `[{"error":{"message":" m "}}, 2]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := readErrorBody(body)
		msg := jsonErrorMessage(body)
		switch {
		case !e.typed && msg != "":
			t.Fatalf("jsonErrorMessage(%q) = %q, want none for a message or detail that is no string", body, msg)
		case e.typed && msg != firstOf(e.errText, e.errMsg, e.message, e.detail):
			t.Fatalf("jsonErrorMessage(%q) = %q, want the first of %+v", body, msg, e)
		}
		// bodyMessage: a listed error's message, else that of a body of object "error", else an
		// "error" that is a string, else none where the client has words (error.message, a
		// message), else FastAPI's detail: its validation errors, or its string.
		var want string
		switch {
		case e.listed:
			want = strings.TrimSpace(e.errMsg)
		case e.object == "error":
			want = strings.TrimSpace(e.message)
		case e.errText != "":
			want = strings.TrimSpace(e.errText)
		case e.errMsg != "" || e.message != "":
		case e.invalid != "":
			want = e.invalid
		default:
			want = strings.TrimSpace(e.detail)
		}
		if added := bodyMessage(body); added != want {
			t.Fatalf("bodyMessage(%q) = %q, want %q from %+v", body, added, want, e)
		}
		obj, _ := errorObject(body)
		var m map[string]json.RawMessage
		if json.Unmarshal(obj, &m) != nil && (e != errorBody{listed: e.listed}) {
			t.Fatalf("readErrorBody(%q) = %+v, want nothing from a body that is no JSON object", body, e)
		}
	})
}

// FuzzErrorBodyRoundTrip writes members as JSON in the body of an error reply, bare or listed as
// streamGenerateContent lists them, and reads them back.
func FuzzErrorBodyRoundTrip(f *testing.F) {
	f.Add("", "Incorrect API key", "", "", "", false, false)
	f.Add("model not found", "", "", "", "", false, false)
	f.Add("", "", "no model", "error", "", false, false)
	f.Add("", "", "", "", "Not Found", false, false)
	f.Add("", "Resource has been exhausted", "", "", "", true, false)
	f.Add("a", "b", "c", "d", "e", true, true)
	f.Add("\xff", "\ud7ff", "\x00", "error", " ", false, true)
	f.Fuzz(func(t *testing.T, errText, errMsg, message, object, detail string, listed, errIsText bool) {
		body := map[string]any{"message": message, "object": object, "detail": detail, "error": map[string]string{"message": errMsg}}
		if errIsText {
			body["error"] = errText
		}
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		if listed {
			b = append(append([]byte("[\n"), b...), "]"...)
		}
		want := errorBody{listed: listed, message: decoded(message), object: decoded(object), detail: decoded(detail), typed: true}
		if errIsText {
			want.errText = decoded(errText)
		} else {
			want.errMsg = decoded(errMsg)
		}
		if got := readErrorBody(b); got != want {
			t.Fatalf("readErrorBody(%s) = %+v, want %+v", b, got, want)
		}
	})
}

// decoded is s as encoding/json writes and reads it back: invalid UTF-8 becomes U+FFFD.
func decoded(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// firstOf returns the first of ss that is not "", or "".
func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
