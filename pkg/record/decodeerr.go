package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	gojson "github.com/goccy/go-json"
)

// DescribeDecodeError returns the message of an error from Unmarshal for a person reading it
// beside a file and line: a value of the wrong type is named by its field path and the JSON
// types wanted and found ("prediction.text: want a string, got a number") instead of Go's type
// names; other errors keep their text, without the "json: " prefix. It reads the type errors of
// encoding/json as well as those of the decoder the Reader uses, so that a program decoding its
// own input with the standard library words it as qapipe's stages do.
func DescribeDecodeError(err error) string {
	msg := err.Error()
	var te *gojson.UnmarshalTypeError
	var se *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Type != nil:
		msg = strings.Replace(msg, te.Error(), typeError(te.Field, te.Type, te.Value), 1)
	case errors.As(err, &se) && se.Type != nil:
		msg = strings.Replace(msg, se.Error(), typeError(se.Field, se.Type, se.Value), 1)
	}
	return strings.TrimPrefix(msg, "json: ")
}

// typeError words a type error: the field's path, if any, and what t wants and value is.
func typeError(field string, t reflect.Type, value string) string {
	plain := wantGot(t, value)
	if field != "" {
		plain = fieldPath(field) + ": " + plain
	}
	return plain
}

// fieldPath writes the decoder's path "answers.0.text" as "answers[0].text".
func fieldPath(p string) string {
	var b strings.Builder
	for i, seg := range strings.Split(p, ".") {
		switch {
		case seg != "" && strings.Trim(seg, "0123456789") == "":
			b.WriteString("[" + seg + "]")
		case i > 0:
			b.WriteString("." + seg)
		default:
			b.WriteString(seg)
		}
	}
	return b.String()
}

// inField returns err with its field path under prefix: the decoders of the nested types report
// paths relative to themselves. A type error gets the prefix in its path, any other error in
// its text.
func inField(prefix string, err error) error {
	if fe, ok := err.(*fieldError); ok {
		return &fieldError{path: prefix + "." + fe.path, msg: fe.msg}
	}
	te, ok := err.(*gojson.UnmarshalTypeError)
	if !ok {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	moved := *te
	moved.Struct = ""
	if moved.Field == "" {
		moved.Field = prefix
	} else {
		moved.Field = prefix + "." + moved.Field
	}
	return &moved
}

// fieldError is a value of the right JSON type that a member cannot hold (a negative count),
// named by its path, which the decoders of the types that hold it extend (see inField).
type fieldError struct{ path, msg string }

func (e *fieldError) Error() string { return e.path + ": " + e.msg }

// counted returns a fieldError for the first of the named counts that is below 0, else nil: a
// token count, a number of attempts, a latency or a cost a stage sums or reports is never
// negative, and a sum over records with one would be wrong without a word.
func counted(counts ...namedCount) error {
	for _, c := range counts {
		if c.v < 0 {
			return &fieldError{path: c.name, msg: "want " + c.want + ", 0 or more, got " + strconv.FormatFloat(c.v, 'g', -1, 64)}
		}
	}
	return nil
}

// namedCount is a decoded count or amount with its member's name and what it holds.
type namedCount struct {
	name, want string
	v          float64
}

// judgmentPath puts the judgment's name into the path of a type error in one of the judgments of
// the record b ("judgment.score" becomes "judgments.NAME.score"): Judgment's decoder does not
// know the key it is under. The first judgment in b that does not decode is the one the error
// came from.
func judgmentPath(b []byte, err error) error {
	field, moved, ok := pathOf(err)
	if !ok || !strings.HasPrefix(field, "judgment.") && field != "judgment" {
		return err
	}
	ms, serr := Members(b)
	if serr != nil {
		return err
	}
	for _, m := range ms {
		if m.Key != "judgments" {
			continue
		}
		js, serr := Members(b[m.ValueStart:m.End])
		if serr != nil {
			return err
		}
		for _, j := range js {
			var v Judgment
			if unmarshal(b[m.ValueStart:m.End][j.ValueStart:j.End], &v) != nil {
				return moved("judgments." + j.Key + strings.TrimPrefix(field, "judgment"))
			}
		}
	}
	return err
}

// pathOf returns the field path of a type error or a fieldError, and a function that gives the
// error with another path; ok is false for other errors.
func pathOf(err error) (field string, moved func(string) error, ok bool) {
	switch e := err.(type) {
	case *gojson.UnmarshalTypeError:
		return e.Field, func(p string) error { m := *e; m.Field = p; return &m }, true
	case *fieldError:
		return e.path, func(p string) error { return &fieldError{path: p, msg: e.msg} }, true
	}
	return "", nil, false
}

// contextPath puts the passage's index into the path of a type error in one of the passages of
// the record b ("context.sentences[1]" becomes "context[2].sentences[1]"): Passage's decoder does
// not know its place in the list. The first passage in b that does not decode is the one the
// error came from.
func contextPath(b []byte, err error) error {
	te, ok := err.(*gojson.UnmarshalTypeError)
	if !ok || !strings.HasPrefix(te.Field, "context.") {
		return err
	}
	ms, serr := Members(b)
	if serr != nil {
		return err
	}
	for _, m := range ms {
		var items []json.RawMessage
		if m.Key != "context" || json.Unmarshal(b[m.ValueStart:m.End], &items) != nil {
			continue
		}
		for i, item := range items {
			var v Passage
			if unmarshal(item, &v) != nil {
				placed := *te
				placed.Field = fmt.Sprintf("context.%d.%s", i, strings.TrimPrefix(te.Field, "context."))
				return &placed
			}
		}
	}
	return err
}

var rawType = reflect.TypeFor[gojson.RawMessage]()

// jsonKind names the JSON values that decode into t.
func jsonKind(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[Fact]():
		return "a [title, sentence index] pair"
	case rawType:
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Slice, reflect.Array:
		if t.Elem() == rawType {
			return "a list" // of any values: "a list of JSON values" says no more
		}
		return "a list of " + plural(jsonKind(t.Elem()))
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a JSON value"
}

// count returns n and the form of a noun that agrees with it: "1 element", "2 elements".
//
// Note: it is internal/english.Count's twin, for nothing in pkg/ imports internal/.
func count(n int, singular, plural string) string {
	if n == 1 {
		return "1 " + singular
	}
	return strconv.Itoa(n) + " " + plural
}

// plural turns "a string" into "strings", "an object" into "objects".
func plural(kind string) string {
	switch {
	case kind == "true or false":
		return "booleans"
	case strings.HasPrefix(kind, "a list of "):
		return "lists of " + strings.TrimPrefix(kind, "a list of ")
	case strings.HasPrefix(kind, "an "):
		return strings.TrimPrefix(kind, "an ") + "s"
	case strings.HasPrefix(kind, "a "):
		return strings.TrimPrefix(kind, "a ") + "s"
	}
	return kind
}

// wantGot says what a field of type t wants and what the decoder found, v in its words. A
// number that fits the kind but not the type is said to be out of range, and an integer field's
// whole number in exponent form or past 64 bits says so, where "want a number, got the number
// 1e400" or "want an integer, got the number 1e3" would leave the reader guessing.
func wantGot(t reflect.Type, v string) string {
	want := jsonKind(t)
	if lit, ok := strings.CutPrefix(v, "number "); ok {
		switch f, err := strconv.ParseFloat(lit, 64); {
		case want == "a number":
			return "want a number within ±1.8e308, got " + lit
		case want == "an integer" && (err != nil || f == math.Trunc(f)):
			return "want an integer written in digits within 64 bits, got " + lit
		}
	}
	return "want " + want + ", got " + jsonValue(v)
}

// jsonValue names the JSON value a type error found, from the decoder's description of it
// ("string", "number -5", "array", "object", "bool").
func jsonValue(v string) string {
	word, literal, _ := strings.Cut(v, " ")
	switch word {
	case "string":
		return "a string"
	case "number":
		if literal != "" {
			return "the number " + literal
		}
		return "a number"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	case "null":
		return "null"
	}
	return v
}

// Kind names the JSON value raw as the decode errors name a value of the wrong kind: "a list",
// "an object", "a string", "a number", "true or false", "null" ("nothing" when raw is blank).
// qa-load words the faults of the benchmark files it reads with it.
func Kind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '[':
		return "a list"
	case '{':
		return "an object"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}
