package score

// This file finds the keys the decoder would read otherwise than the other stages do (see view.go).

import (
	"bytes"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// viewKeys are the keys view reads at each level: top, meta, prediction, a judgment.
var viewKeys = map[string][]string{
	"":           {"schema", "id", "dataset", "lang", "type", "question", "answers", "meta", "prediction", "judgments", "scores", "score_errors"},
	"meta":       {"category", "abstention", "supporting_facts"},
	"prediction": {"text", "error", "supporting_facts", "score"},
	"judgment":   {"score", "error", "mode", "raw"},
}

// exactKeys returns data, or, when a member at a level view reads has a key that differs from one
// view reads there only in case, data without those members. The decoder matches keys
// case-insensitively, so an unknown "ID", "Prediction" or "Score" member would otherwise be read
// as the record's own, as the other stages no longer read it.
func exactKeys(data []byte) []byte {
	variant := func(key, level string) bool {
		for _, k := range viewKeys[level] {
			if key != k && strings.EqualFold(key, k) {
				return true
			}
		}
		return false
	}
	// strip returns obj without its variant members at level, and whether it had any; sub
	// handles the value of a member kept.
	strip := func(obj []byte, level string, sub func(key string, val []byte) []byte) ([]byte, bool) {
		ms, err := record.Members(obj)
		if err != nil {
			return obj, false
		}
		changed := false
		out := []byte{'{'}
		for _, m := range ms {
			if variant(m.Key, level) {
				changed = true
				continue
			}
			if len(out) > 1 {
				out = append(out, ',')
			}
			val := obj[m.ValueStart:m.End]
			if sub != nil {
				if nv := sub(m.Key, val); nv != nil {
					changed = true
					val = nv
				}
			}
			out = append(out, obj[m.Start:m.ValueStart]...)
			out = append(out, val...)
		}
		if !changed {
			return obj, false
		}
		return append(out, '}'), true
	}
	isObject := func(b []byte) bool { return len(b) > 0 && b[0] == '{' }
	out, changed := strip(data, "", func(key string, val []byte) []byte {
		if !isObject(val) {
			return nil
		}
		switch key {
		case "meta", "prediction":
			if nv, ok := strip(val, key, nil); ok {
				return nv
			}
		case "judgments":
			if nv, ok := strip(val, "judgments", func(_ string, j []byte) []byte {
				if !isObject(j) {
					return nil
				}
				if nj, ok := strip(j, "judgment", nil); ok {
					return nj
				}
				return nil
			}); ok {
				return nv
			}
		}
		return nil
	})
	if !changed {
		return data
	}
	return out
}

// oddKeys reports whether data may hold a key the decoder would read otherwise than the other
// stages do: one that differs from a key view reads only in case (exactKeys takes it out), and
// prediction given twice (lastPrediction reads the last alone). It looks at every key, the text
// from a quote to the next `":` (blanks allowed before the colon), and says true for a key that
// holds an escape, or folds to a key of viewKeys without being it, or for a second prediction,
// at any level. exactKeys walks every member of every level read, which cost qa-score a third of
// its speed on lines that, all but never, hold such a key; this looks only at the bytes before
// each colon.
func oddKeys(data []byte) bool {
	predictions := 0
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], ':')
		if j < 0 {
			return false
		}
		end := i + j - 1 // the quote that ends a key, if this colon follows one
		i += j + 1
		if end >= 0 && data[end] != '"' && blank(data[end]) {
			for end--; end >= 0 && blank(data[end]); end-- {
			}
		}
		if end < 0 || data[end] != '"' {
			continue
		}
		// Back to the key's opening quote, noting whether the key could fold to one read.
		start, odd := -1, false
		for k := end - 1; k >= 0 && end-k <= longestViewKey+1; k-- {
			c := data[k]
			if c == '"' {
				start = k
				break
			}
			odd = odd || 'A' <= c && c <= 'Z' || c >= 0x80 || c == '\\'
		}
		if start < 0 {
			continue // a long key
		}
		if !odd { // a key of lower-case ASCII, without an escape
			if end-start == len(`"prediction`) && string(data[start+1:end]) == "prediction" {
				if predictions++; predictions > 1 {
					return true
				}
			}
			continue
		}
		if escapedAt(data, end) {
			continue // a quote inside a string
		}
		key := data[start+1 : end]
		if bytes.IndexByte(key, '\\') >= 0 {
			return true // a key with an escape: let exactKeys read it
		}
		for _, keys := range viewKeys {
			for _, k := range keys {
				if string(key) != k && strings.EqualFold(string(key), k) {
					return true
				}
			}
		}
	}
}

// blank reports whether c is JSON white space.
func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// longestViewKey is the most bytes a key that folds to one of viewKeys takes in a line: the
// longest of them (supporting_facts), each character written as a \u escape.
var longestViewKey = func() int {
	n := 0
	for _, keys := range viewKeys {
		for _, k := range keys {
			n = max(n, 6*len(k))
		}
	}
	return n
}()

// escapedAt reports whether the quote at data[i] is escaped: an odd run of backslashes before it.
func escapedAt(data []byte, i int) bool {
	n := 0
	for i > 0 && data[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// lastPrediction sets v's prediction to the last top-level prediction member of data, decoded
// on its own, when data has several, as the other stages read such a line. The decoder reads
// each into the same struct, so members of an earlier one that the last leaves out (an error, a
// text, supporting facts) would be scored with the last one's; a record.Prediction is replaced.
// It walks the top level, so it is called only for a line oddKeys picks out.
func lastPrediction(data []byte, v *view) {
	ms, err := record.Members(data)
	if err != nil {
		return // cannot happen: data has been decoded
	}
	n, last := 0, record.Member{}
	for _, m := range ms {
		if m.Key == "prediction" {
			n, last = n+1, m
		}
	}
	if n > 1 {
		v.Prediction = nil
		// The decoder has read this value once already, into the same type.
		record.Unmarshal(data[last.ValueStart:last.End], &v.Prediction) //nolint:errcheck
	}
}

// withLastPrediction returns data without its top-level prediction members but the last, or data
// when it has one or none: for a line oddKeys picks out that is decoded again (see decodeLine).
func withLastPrediction(data []byte) []byte {
	ms, err := record.Members(data)
	if err != nil {
		return data
	}
	last, n := -1, 0
	for i, m := range ms {
		if m.Key == "prediction" {
			last, n = i, n+1
		}
	}
	if n < 2 {
		return data
	}
	out := []byte{'{'}
	for i, m := range ms {
		if m.Key == "prediction" && i != last {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, data[m.Start:m.End]...)
	}
	return append(out, '}')
}
