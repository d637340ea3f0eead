package load

// This file walks a SQuAD file's JSON token by token, knowing the path of what it reads (see squad.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// squadWalker walks the JSON of a SQuAD file token by token, knowing the path of the value it
// reads (data[3].paragraphs[0].qas), which names a value out of place in a file that is all one
// line, as SQuAD's are.
type squadWalker struct {
	in    Input
	dec   *json.Decoder
	lines *lineCounter
	path  []string // the keys (".title") and indexes ("[3]") down to the value being read
}

// article reads an article of the "data" list. An article or a paragraph that is null or of
// another kind than an object, or has no list under "paragraphs" or "qas" (absent, null, or a
// value of another kind), is a bad item in art.qas, named by its path, as CMRC 2018's array of
// such articles has it. A title or a context that is no string makes its article or paragraph
// one bad item in place of its questions (and of their faults), saying how many are skipped with
// it, and so does a key that differs from one of these only in case ("Title"), as every loader
// refuses one (foldedKey): its questions are counted as if it were the key. A key given twice
// counts as its last value, as Python's json module (and so the official scripts) reads it.
func (w *squadWalker) article(art *squadArticle) error {
	pars := absent
	var title, list *squadItem // the title's fault, and that of a "paragraphs" of another kind
	var folded []string        // the first key that differs from a known one only in case, and it
	line, null, err := w.object(func(key string) error {
		switch w.known(key, &folded, "title", "paragraphs") {
		case "title":
			var err error
			title, err = w.text(&art.title)
			return err
		case "paragraphs":
			art.contexts, art.qas = art.contexts[:0], art.qas[:0] // the last "paragraphs" counts
			read, err := w.array(func() error { return w.paragraph(art) })
			pars, list, err = w.listRead(read, err, key)
			return err
		}
		return w.skip()
	})
	if w.otherKind(art, err) {
		return nil
	}
	if err == nil {
		w.missing(art, line, null, pars, list, "paragraphs")
		w.replace(art, 0, line, folded, title)
	}
	return err
}

// paragraph reads a paragraph of an article's "paragraphs" list into art.
func (w *squadWalker) paragraph(art *squadArticle) error {
	par, start := len(art.contexts), len(art.qas)
	art.contexts = append(art.contexts, "")
	qas := absent
	var context, list *squadItem // the context's fault, and that of a "qas" of another kind
	var folded []string
	line, null, err := w.object(func(key string) error {
		switch w.known(key, &folded, "context", "qas") {
		case "context":
			var err error
			context, err = w.text(&art.contexts[par])
			return err
		case "qas":
			art.qas = art.qas[:start] // the last "qas" counts
			read, err := w.array(func() error {
				var raw jsonRaw
				if err := w.dec.Decode(&raw); err != nil {
					return w.fail(err)
				}
				line := w.lines.lineAt(w.dec.InputOffset() - int64(len(raw)))
				art.qas = append(art.qas, squadItem{raw: raw, line: line, par: par, path: w.where()})
				return nil
			})
			qas, list, err = w.listRead(read, err, key)
			return err
		}
		return w.skip()
	})
	if w.otherKind(art, err) {
		return nil
	}
	if err == nil {
		w.missing(art, line, null, qas, list, "qas")
		w.replace(art, start, line, folded, context)
	}
	return err
}

// known returns key, or the one of keys it differs from only in case, which *folded records
// (the first such key, and the one it folds to) for replace to report.
func (w *squadWalker) known(key string, folded *[]string, keys ...string) string {
	for _, k := range keys {
		if key == k {
			return k
		}
	}
	for _, k := range keys {
		if strings.EqualFold(key, k) {
			if *folded == nil {
				*folded = []string{key, k}
			}
			return k
		}
	}
	return key
}

// replace replaces the items of the article or paragraph just read at line, art.qas[start:], by
// one bad item that says how many questions are skipped with it: for its key that differs from a
// known one only in case (folded, as decodeItem words it), or else text, its title's or context's
// fault; with neither it leaves them.
func (w *squadWalker) replace(art *squadArticle, start, line int, folded []string, text *squadItem) {
	bad := text
	if folded != nil {
		bad = &squadItem{line: line, bad: errors.New(w.at(foldedMessage(folded[0], folded[1])))}
	}
	if bad == nil {
		return
	}
	art.qas = append(art.qas[:start], skipping(*bad, art.qas[start:]))
}

// otherKind reports whether err is the fault of the article or paragraph being read being of
// another kind than an object, which it then adds to art as a bad item.
func (w *squadWalker) otherKind(art *squadArticle, err error) bool {
	ke, ok := errors.AsType[*kindError](err)
	if !ok {
		return false
	}
	art.qas = append(art.qas, squadItem{line: ke.line, bad: errors.New(w.at("want an object, got " + ke.got))})
	return true
}

// text reads a string into dst: null is "", and a value of another kind is no error of the
// walk but the fault it returns, a bad item named by the value's path and line.
func (w *squadWalker) text(dst *string) (*squadItem, error) {
	var raw jsonRaw
	if err := w.value(&raw); err != nil {
		return nil, err
	}
	*dst = ""
	if err := jsonUnmarshal(raw, dst); err != nil {
		line := w.lines.lineAt(w.dec.InputOffset() - int64(len(raw)))
		return &squadItem{line: line, bad: errors.New(w.at(record.DescribeDecodeError(err)))}, nil
	}
	return nil, nil
}

// skipping returns bad, the fault of an article or paragraph whose items were items, saying how
// many questions are skipped with it (items' other faults are not reported apart).
func skipping(bad squadItem, items []squadItem) squadItem {
	n := 0
	for _, it := range items {
		if it.raw != nil {
			n++
		}
	}
	bad.bad = skippedWith(bad.bad, n, "question", "questions")
	return bad
}

// listState is what an object held under the key of a list it needs: none, null, a list, or a
// value of another kind.
type listState int

const (
	absent listState = iota
	nullList
	list
	otherList // a value of another kind
)

// listRead returns the listState of key, whose value array read (true: a list; false: null or,
// err a kindError, a value of another kind, whose fault it returns in place of err: `qas: want a
// list, got a string`, worded as null is, at the line of the value).
func (w *squadWalker) listRead(read bool, err error, key string) (listState, *squadItem, error) {
	if ke, ok := errors.AsType[*kindError](err); ok {
		above := strings.Join(w.path[:len(w.path)-1], "") // the object's path
		return otherList, &squadItem{line: ke.line, bad: fmt.Errorf("%s: %s: want a list, got %s", above, key, ke.got)}, nil
	}
	if read {
		return list, nil, err
	}
	return nullList, nil, err
}

// missing adds to art the bad item of the object just read at line, the value at the walker's
// path, when it was null or had no list under key: `qas: want a list, got null` where the key
// holds null, as the other layouts name a null value, rather than missing; other, the fault of
// a value of another kind there.
func (w *squadWalker) missing(art *squadArticle, line int, null bool, state listState, other *squadItem, key string) {
	switch {
	case null:
		art.qas = append(art.qas, squadItem{line: line, bad: fmt.Errorf("%s: want an object, got null", w.where())})
	case state == absent:
		art.qas = append(art.qas, squadItem{line: line, bad: missingField(w.where() + "." + key)})
	case state == nullList:
		art.qas = append(art.qas, squadItem{line: line, bad: fmt.Errorf("%s: %s: want a list, got null", w.where(), key)})
	case state == otherList:
		art.qas = append(art.qas, *other)
	}
}

// where returns the path of the value being read ("" for the top-level value).
func (w *squadWalker) where() string { return strings.Join(w.path, "") }

// at prefixes msg with the path of the value being read, if it is not the top-level value.
func (w *squadWalker) at(msg string) string {
	if len(w.path) == 0 {
		return msg
	}
	return w.where() + ": " + msg
}

// object reads a JSON object, calling f with each key to read its value. It returns the line
// the object starts on, or that of null, which reads as {} (null true).
func (w *squadWalker) object(f func(key string) error) (line int, null bool, err error) {
	ok, err := w.open('{', "an object")
	if err != nil {
		return 0, false, err
	}
	line = w.lines.lineAt(w.dec.InputOffset())
	if !ok {
		return line, true, nil
	}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return line, false, w.fail(err)
		}
		key := tok.(string)
		if len(w.path) > 0 {
			key = "." + key
		}
		w.path = append(w.path, key)
		err = f(tok.(string))
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return line, false, err
		}
	}
	return line, false, w.close()
}

// array reads a JSON array, calling f to read each element; null reads as [] (read false).
func (w *squadWalker) array(f func() error) (read bool, err error) {
	if ok, err := w.open('[', "a list"); !ok || err != nil {
		return false, err
	}
	for i := 0; w.dec.More(); i++ {
		w.path = append(w.path, "["+strconv.Itoa(i)+"]")
		err := f()
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return true, err
		}
	}
	return true, w.close()
}

// open reads the delimiter that starts a value of the kind named, or null (false). A value of
// another kind is read past and returned as a kindError, worded as the record reader words a
// line that is not an object, after the value's path: "data: want a list, got an object".
func (w *squadWalker) open(delim json.Delim, kind string) (bool, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return false, w.fail(err)
	}
	if tok == nil {
		return false, nil
	}
	if tok != delim {
		ke := &kindError{name: w.in.DisplayName(), line: w.lines.lineAt(w.dec.InputOffset()), got: describeToken(tok)}
		ke.msg = w.at(fmt.Sprintf("want %s, got %s", kind, ke.got))
		if _, ok := tok.(json.Delim); ok { // a list or an object: read to its end
			for depth := 1; depth > 0; {
				tok, err := w.dec.Token()
				if err != nil {
					return false, w.fail(err)
				}
				switch tok {
				case json.Delim('['), json.Delim('{'):
					depth++
				case json.Delim(']'), json.Delim('}'):
					depth--
				}
			}
		}
		return false, ke
	}
	return true, nil
}

// kindError is a value of another kind than the walk wants, read past: it stops the load where
// the file's own structure is wrong (its "data"), and an article or paragraph reads it as its bad
// item.
type kindError struct {
	name string // the input's
	line int
	got  string // the kind of value found: "a number"
	msg  string // the value's path, what it wants and got: "data: want a list, got an object"
}

func (e *kindError) Error() string { return fmt.Sprintf("%s:%d: %s", e.name, e.line, e.msg) }

func (w *squadWalker) close() error {
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err)
	}
	return nil
}

// value decodes the next value into v.
func (w *squadWalker) value(v any) error {
	if err := w.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) { // the value was read: name the line it ends on
			return fmt.Errorf("%s:%d: %s", w.in.DisplayName(), w.lines.lineAt(w.dec.InputOffset()), w.at(record.DescribeDecodeError(err)))
		}
		return w.fail(err)
	}
	return nil
}

// skip reads past the next value.
func (w *squadWalker) skip() error {
	var raw jsonRaw
	return w.value(&raw)
}

// fail places a decoding error at the line where the decoder stopped (a syntax error at its byte,
// see syntaxAt), or at the end of the input when it ended early.
func (w *squadWalker) fail(err error) error {
	off := w.dec.InputOffset()
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = errors.New("unexpected end of JSON input")
		off = w.lines.read
	}
	if _, ok := errors.AsType[*lineError](err); ok {
		return atLine(w.in, w.lines.lineAt(off), err)
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return syntaxAt(w.in, w.dec, w.lines, se)
	}
	return fmt.Errorf("%s:%d: %s", w.in.DisplayName(), w.lines.lineAt(off), record.DescribeDecodeError(err))
}

// describeToken names the JSON value a token starts, in the record reader's words (see
// record.Kind).
func describeToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' || t == '}' {
			return "an object"
		}
		return "a list"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "true or false"
	}
	return fmt.Sprint(tok)
}
