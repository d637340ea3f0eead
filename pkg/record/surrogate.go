package record

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// keyShape is where a record holds objects whose keys the decoder reads into Go strings (the
// maps: meta, judgments, scores, score_errors, and every object's unknown members), and so
// where two keys can become one (see surrogateClash). members names the objects under a member
// of this one, each under every member (judgments' judgments), items under every element of a
// list (context's passages).
type keyShape struct {
	members map[string]*keyShape
	each    *keyShape
	items   *keyShape
}

// recordShape is a record's keyShape.
var recordShape = func() *keyShape {
	flat := &keyShape{}
	judgment := &keyShape{members: map[string]*keyShape{"usage": flat}}
	return &keyShape{members: map[string]*keyShape{
		"meta":         flat,
		"judgments":    {each: judgment},
		"scores":       flat,
		"score_errors": flat,
		"prediction":   {members: map[string]*keyShape{"usage": flat, "batch": flat}},
		"context":      {items: flat},
		"sequence":     flat,
	}}
}()

// surrogateClash returns an error when two keys of one object of the record encoded in b that
// the decoder reads into Go strings differ only in lone UTF-16 surrogates (`"x\ud800"` and
// `"x\udc00"`), or when a key with one equals a key holding U+FFFD: Go's strings cannot hold a
// lone surrogate, so the decoder reads each as U+FFFD, and the two members would become one, the
// first lost without a word. The line is then bad. Keys that are one key as JSON has it (a
// member given twice, however its key is escaped) are the last-wins duplicates the decoder
// reads, and no clash. Only a line holding an escape of a surrogate is looked at.
func surrogateClash(b []byte) error {
	if !loneSurrogate(b) {
		return nil
	}
	return clashIn(b, "", recordShape)
}

// KeyClash is surrogateClash for the object under the record's top-level member (the last of
// that key) alone, for a reader that decodes that member and keeps the rest of the line as it came
// (qa-score's judgments): nil when the member is absent or holds no clash.
func KeyClash(line []byte, member string) error {
	if !loneSurrogate(line) {
		return nil
	}
	shape := recordShape.members[member]
	obj := lastMember(line, member)
	if shape == nil || len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	return clashIn(obj, member, shape)
}

// loneSurrogate reports whether b may hold the escape of a lone UTF-16 surrogate: a \uD800 to
// \uDFFF that is not a high surrogate followed by the escape of a low one (a pair, such as the
// emoji Python's json.dumps writes so). An escaped backslash before the u is not told apart: such
// a line is looked at in full, which finds no clash in it.
func loneSurrogate(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i >= len(b) || b[i] != 'd' && b[i] != 'D' {
			continue // most escapes (\u00e9, a CJK character's) are no surrogate's
		}
		u, ok := hex4(b, i)
		if !ok || u < 0xD800 || u > 0xDFFF {
			continue
		}
		if u >= 0xDC00 { // a low surrogate with no high one before it
			return true
		}
		if lo, ok := hex4(b, i+6); !ok || i+4 >= len(b) || b[i+4] != '\\' || b[i+5] != 'u' || lo < 0xDC00 || lo > 0xDFFF {
			return true
		}
		i += 10 // past the pair
	}
}

// hex4 reads the four hexadecimal digits at b[i:].
func hex4(b []byte, i int) (uint16, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	var v uint16
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint16(c)
	}
	return v, true
}

// clashIn checks the object obj, at path, and the objects under it that shape names.
func clashIn(obj []byte, path string, shape *keyShape) error {
	type seen struct {
		units string // the key's UTF-16 code units, lone surrogates kept
		q     []byte // its quoted form in the line
	}
	var keys map[string]seen // by the key as decoded, for keys that decode with U+FFFD in them
	err := walkMembers(obj, func(q []byte, escaped bool, _, vStart, vEnd int) error {
		key, err := decodeKey(q, escaped)
		if err != nil {
			return nil // the decoder's own error says what is wrong
		}
		if strings.ContainsRune(key, utf8.RuneError) {
			units := codeUnits(q)
			if s, dup := keys[key]; dup && s.units != units {
				where := "the record"
				if path != "" {
					where = path
				}
				return fmt.Errorf("keys %s and %s of %s differ only in lone UTF-16 surrogates, which are read as U+FFFD alike: one member would be lost (rename one)", s.q, q, where)
			}
			if keys == nil {
				keys = map[string]seen{}
			}
			keys[key] = seen{units, q}
		}
		child := shape.each
		if child == nil {
			child = shape.members[key]
		}
		if child == nil {
			return nil
		}
		val := obj[vStart:vEnd]
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		switch {
		case child.items != nil && len(val) > 0 && val[0] == '[':
			return eachItem(val, func(i int, item []byte) error {
				if len(item) > 0 && item[0] == '{' {
					return clashIn(item, sub+"["+strconv.Itoa(i)+"]", child.items)
				}
				return nil
			})
		case len(val) > 0 && val[0] == '{':
			return clashIn(val, sub, child)
		}
		return nil
	})
	if err == errScan {
		return nil // not an object: the decoder says so
	}
	return err
}

// eachItem calls fn with each element of the JSON array b.
func eachItem(b []byte, fn func(i int, item []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errScan
	}
	for n, i := 0, skipSpace(b, i+1); i < len(b) && b[i] != ']'; n++ {
		end, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(n, b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return nil
}

// codeUnits returns the UTF-16 code units of the JSON string q (quoted), two bytes each, with
// every \u escape kept as the unit it names, a lone surrogate included, where a decoder into a
// Go string reads one as U+FFFD. q has been read by the decoder, so its escapes are well formed.
func codeUnits(q []byte) string {
	var out []byte
	unit := func(u uint16) { out = append(out, byte(u>>8), byte(u)) }
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			r, n := utf8.DecodeRune(s[i:])
			for _, u := range utf16.Encode([]rune{r}) {
				unit(u)
			}
			i += n
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch c := s[i+1]; c {
		case 'u':
			if v, ok := hex4(s, i+2); ok {
				unit(v)
			}
			i += 6
			continue
		case 'b':
			unit('\b')
		case 'f':
			unit('\f')
		case 'n':
			unit('\n')
		case 'r':
			unit('\r')
		case 't':
			unit('\t')
		default: // \" \\ \/
			unit(uint16(c))
		}
		i += 2
	}
	return string(out)
}
