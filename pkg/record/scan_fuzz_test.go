package record

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"unicode/utf8"
)

// referenceMembers lists the top-level members of the JSON object b with encoding/json's
// streaming decoder: each key and the exact bytes of its value. ok is false when b is no object.
func referenceMembers(b []byte) (keys []string, vals [][]byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, false
		}
		keys, vals = append(keys, tok.(string)), append(vals, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, false // more after the object
	}
	return keys, vals, true
}

// FuzzMembers checks the hand-written member scanner, which score and the decode-error messages
// run over every line, against encoding/json: for a valid object, the same keys in the same order
// (repeats included) and each value's exact bytes; for anything the record decoder accepts, no
// panic and spans inside the line. EscapeLineBreaks must keep a valid line decoding to the same
// value, free of the three line breaks Python's splitlines() cuts at.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[1,{"c":"}"}],"a":null}`, ` {"a" : 1, "b\u0063":{"x":"}"} ,"d":[1,"]"]}`, `{}`, `[1]`, `"x"`,
		`{"k\"":"v\\","e":"\u2028"}`, "{\"a\":\"x\u2028y\u0085\"}", `{"a":-1.5e3,"b":true,"c":false}`, "{\"\xff\":1}",
		`{"a":{"b":{"c":[[[]]]}}}`, `{"a":1}x`, `{"a":1,}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := Members(b)
		if err == nil {
			for _, m := range ms {
				if m.Start < 0 || m.Start >= m.ValueStart || m.ValueStart >= m.End || m.End > len(b) || b[m.Start] != '"' {
					t.Fatalf("Members(%q): member %q spans [%d, %d, %d)", b, m.Key, m.Start, m.ValueStart, m.End)
				}
			}
			// UnknownMembers is Members without the known keys (here the first member's key and "a").
			known := map[string]bool{"a": true}
			if len(ms) > 0 {
				known[ms[0].Key] = true
			}
			want := slices.DeleteFunc(slices.Clone(ms), func(m Member) bool { return known[m.Key] })
			if got, err := UnknownMembers(b, known); err != nil || !slices.Equal(got, want) {
				t.Fatalf("UnknownMembers(%q, %v) = %v, %v; want %v", b, known, got, err, want)
			}
		}
		if !json.Valid(b) {
			return
		}
		keys, vals, ok := referenceMembers(b)
		if !ok {
			if err == nil {
				t.Fatalf("Members(%q) = %v, but it is no object", b, ms)
			}
			return
		}
		if err != nil {
			t.Fatalf("Members(%q): %v", b, err)
		}
		if len(ms) != len(keys) {
			t.Fatalf("Members(%q) = %d members, want %d (%q)", b, len(ms), len(keys), keys)
		}
		for i, m := range ms {
			if utf8.Valid(b) && m.Key != keys[i] {
				t.Errorf("Members(%q)[%d].Key = %q, want %q", b, i, m.Key, keys[i])
			}
			if v := b[m.ValueStart:m.End]; !bytes.Equal(v, vals[i]) {
				t.Errorf("Members(%q)[%d] (%q) = %q, want %q", b, i, keys[i], v, vals[i])
			}
		}
		esc := EscapeLineBreaks(bytes.Clone(b))
		if bytes.Contains(esc, []byte("\u0085")) || bytes.Contains(esc, []byte("\u2028")) || bytes.Contains(esc, []byte("\u2029")) {
			t.Fatalf("EscapeLineBreaks(%q) = %q, a line break left", b, esc)
		}
		var before, after any
		if json.Unmarshal(b, &before) != nil || json.Unmarshal(esc, &after) != nil ||
			mustJSON(t, before) != mustJSON(t, after) {
			t.Fatalf("EscapeLineBreaks(%q) = %q, which decodes to %v, want %v", b, esc, after, before)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
