package python

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseStrList reads s as Python's str() of a list of str, ['a', "it's", 'b\n'], the text pandas'
// to_csv writes for a cell that holds a list: the items, and true; false if s is anything else.
// Items are Python string literals without prefixes, in single or double quotes, with Python's
// escapes (\\ \' \" \n \r \t \a \b \f \v, octal, \xhh, \uXXXX, \UXXXXXXXX, a backslash before a
// line end); spaces around items and a trailing comma are allowed, as Python's parser allows them.
//
// Note: a researcher's answers often live in a DataFrame column of lists; to_csv writes each as
// its str(), which is no JSON (single quotes), so the cell would be one answer, "['x', 'y']", and
// every prediction would be scored against that text.
func ParseStrList(s string) ([]string, bool) { return parseList(s, strLiteral) }

// ParseAnswerList reads s as ParseStrList does, but an item may also be None or nan, which
// Python's str() writes for a missing value in a list (['a', None], ['a', nan] where the gap is a
// float NaN, as pandas fills one; pandas' to_csv writes either so), a number as str() writes an
// int or a float ([1989, 1990], ['a', 2.5], a column of lists of numbers), or True or False: the
// items, nil for each None or nan, a number as its text, True and False as JSON's true and false,
// and true; false if s is anything else. A number is taken in JSON's syntax, which Python's str()
// of an int or a finite float keeps to (1e+16, -0.5), so that the text is the one a JSON list of
// the same values gives (as to_json writes the list); inf and 1_000 are none.
//
// Note: a list with True or False among them ([True, 'x'], [True]) was one answer, its text,
// though the same list in JSON Lines, [true, "x"], is "true" and "x".
//
// An item may also be numpy 2's repr of one of its scalars (NEP 51), which str() of a list of
// them writes, as list(a) of an array gives them: np.str_('a'), np.int64(1989), np.float64(2.5)
// or np.float32(2.5) (np.float64(nan) a missing value), np.True_ and np.False_, read as the
// value inside.
//
// Note: such a list was one answer, its text, "[np.str_('a'), np.str_('b')]", that every
// prediction scored 0 against, where to_json writes the same list as ["a","b"].
func ParseAnswerList(s string) ([]*string, bool) { return parseList(s, listItem) }

// listItem reads an item of Python's str() of a list or tuple of answers at the start of s, as
// parseList's item: numpy 2's repr of a scalar (numpyScalar), else an answerItem.
func listItem(s string) (*string, int, bool) {
	if v, n, ok := numpyScalar(s); ok {
		return v, n, true
	}
	return answerItem(s)
}

// numpyScalar reads numpy 2's repr of a scalar at the start of s (NEP 51): np.str_ of a string
// literal, np.intN or np.uintN of an int, np.float16, np.float32 or np.float64 of a float (nan:
// nil) or np.True_ and np.False_, as listItem's item; false for any other text.
func numpyScalar(s string) (*string, int, bool) {
	rest, ok := strings.CutPrefix(s, "np.")
	if !ok {
		return nil, 0, false
	}
	for _, b := range [...]struct{ py, json string }{{"True_", "true"}, {"False_", "false"}} {
		if strings.HasPrefix(rest, b.py) {
			return &b.json, 3 + len(b.py), true
		}
	}
	typ, arg, ok := strings.Cut(rest, "(")
	if !ok {
		return nil, 0, false
	}
	var v *string
	var n int
	switch {
	case typ == "str_":
		t, m, ok := strLiteral(arg)
		if !ok {
			return nil, 0, false
		}
		v, n = &t, m
	case isNumpyFloat(typ) && strings.HasPrefix(arg, "nan"):
		n = 3
	case isNumpyFloat(typ) || isNumpyInt(typ):
		if n = NumberLen(arg); n == 0 || !isNumpyFloat(typ) && strings.ContainsAny(arg[:n], ".eE") {
			return nil, 0, false
		}
		t := arg[:n]
		v = &t
	default:
		return nil, 0, false
	}
	if n >= len(arg) || arg[n] != ')' {
		return nil, 0, false
	}
	return v, 3 + len(typ) + 1 + n + 1, true
}

// isNumpyFloat reports whether typ names one of numpy's float scalar types whose repr holds a
// number: float16, float32 (as a list of a float32 column's values, groupby().agg(list), holds
// them) and float64. (np.longdouble's holds a string literal.)
func isNumpyFloat(typ string) bool {
	return typ == "float16" || typ == "float32" || typ == "float64"
}

// isNumpyInt reports whether typ names one of numpy's integer scalar types: int8 to int64,
// uint8 to uint64.
func isNumpyInt(typ string) bool {
	switch strings.TrimPrefix(typ, "u") {
	case "int8", "int16", "int32", "int64":
		return true
	}
	return false
}

// ParseAnswerTuple reads s as Python's str() of a tuple that holds a string among its items,
// ('a', 'b'), ('a',), ('a', 1), the text pandas' to_csv writes for a cell that holds one (and
// to_json writes as a list): its items as ParseAnswerList reads them, and true; false if s is
// anything else, a tuple of numbers alone ((1, 2), a point's text) included, and ('a'), which
// str() of a tuple never writes.
//
// Note: such a cell was one answer, its text, which every prediction scored 0 against.
func ParseAnswerTuple(s string) ([]*string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, false
	}
	inner := s[1 : len(s)-1]
	strs := 0
	items, ok := parseList("["+inner+"]", func(s string) (*string, int, bool) {
		if s[0] == '\'' || s[0] == '"' || strings.HasPrefix(s, "np.str_(") {
			strs++
		}
		return listItem(s)
	})
	if !ok || strs == 0 || len(items) == 1 && !strings.HasSuffix(strings.TrimSpace(inner), ",") {
		return nil, false
	}
	return items, true
}

// answerItem reads the Python string literal, the None, the nan or the number at the start of s,
// as parseList's item.
func answerItem(s string) (*string, int, bool) {
	for _, missing := range []string{"None", "nan"} {
		if strings.HasPrefix(s, missing) {
			return nil, len(missing), true // what follows is parseList's to check: a comma or the end
		}
	}
	for _, b := range [...]struct{ py, json string }{{"True", "true"}, {"False", "false"}} {
		if strings.HasPrefix(s, b.py) {
			return &b.json, len(b.py), true
		}
	}
	if n := NumberLen(s); n > 0 {
		v := s[:n]
		return &v, n, true
	}
	v, n, ok := strLiteral(s)
	return &v, n, ok
}

// ParseArrayStr reads s as numpy's str() of a 1-D array that holds strings, ['a' 'b'], or of one of
// ints or bools alone, [1989 1990], [ True False], the text pandas' to_csv writes for a cell that
// holds one (a list column of a Hugging Face dataset's to_pandas): its items, as ParseAnswerList
// reads them (nil for None or nan, an object array's missing value; a number as its text, True
// and False as true and false), apart by white space rather than commas (numpy breaks a long array's line), and true; false if s is anything else,
// an array that ArrayStrLoss says lost items included.
//
// Note: Python reads ['a' 'b'] as ['ab'], the literals joined, but its str() of a list never
// writes that; numpy's str() of an array writes nothing else. An array of ints, [1989 1990], was
// left to be one answer, its text, though [1989] and [1989, 1990], Python's str() of a list, were
// read as their items; numpy writes a column of lists of ints so.
//
// An item may also be numpy 2's repr of one of its scalars, as ParseAnswerList reads it, which
// numpy 2's str() of an object array of them writes ([np.str_('a') np.str_('b')], where numpy 1
// wrote ['a' 'b']): an array with one among its items is read though it holds no string (the
// reprs in an object array are exact, np.float64(2.5) and 2.5 alike), unless summarized ("...").
//
// Note: such a cell was one answer, its text, that every prediction scored 0 against.
func ParseArrayStr(s string) ([]*string, bool) {
	a, ok := scanArray(s)
	switch {
	case !ok || len(a.elided) > 0 || len(a.items) == 0 || a.npFloats > 0 || a.infs > 0:
		return nil, false
	case a.strs > 0 || a.npScalars > 0:
		return a.items, true
	}
	if a.floats > 0 || a.missing > 0 {
		return nil, false
	}
	return a.items, true // ints alone
}

// ArrayLoss is what numpy's str() of an array lost of it, as ArrayStrLoss tells.
type ArrayLoss int

const (
	NoLoss       ArrayLoss = iota // no such text, or one that holds the array's items
	ElidedArray                   // items left out for "...", as numpy writes an array of over 1000
	RoundedArray                  // an array of floats, which numpy writes rounded to 8 digits
)

// ArrayStrLoss reports whether s is numpy's str() of a 1-D array that does not hold the array's
// items, and how: ElidedArray when it is the summary numpy prints for an array of over 1000 items
// (its threshold), the first and last three items with "..." between, ['a' 'b' 'c' ... 'x' 'y'
// 'z']; RoundedArray when it is an array of floats alone, [1.5 2. ], which numpy prints rounded
// to 8 significant digits ([0.33333333 2.        ]), 2.0 as 2.; NoLoss otherwise, for any text
// ParseAnswerList reads ([2.5] is Python's list), one without items on both sides of its "..."
// ([...]), and one without a finite float ([inf], Python's str() of a list too).
func ArrayStrLoss(s string) ArrayLoss {
	a, ok := scanArray(s)
	if _, list := ParseAnswerList(s); !ok || list {
		return NoLoss
	}
	switch {
	case len(a.elided) == 1 && a.elided[0] > 0 && a.elided[0] < len(a.items):
		return ElidedArray
	case len(a.elided) == 0 && a.strs == 0 && a.npScalars == 0 && a.floats+a.npFloats > 0:
		return RoundedArray
	}
	return NoLoss
}

// arrayScan is what scanArray read of numpy's str() of a 1-D array.
type arrayScan struct {
	items     []*string // as listItem reads them, or a float as numpy writes one (npFloats)
	strs      int       // string literals among them, np.str_ of one included
	floats    int       // numbers with a point or an exponent among them (not numpy's scalars)
	npFloats  int       // floats that only numpy writes so among them: 2., 1.e-05
	npScalars int       // numpy 2's reprs of its scalars among them: np.str_('a'), np.int64(1)
	infs      int       // inf or -inf among them
	missing   int       // None or nan among them, np.float64(nan) included
	elided    []int     // where a "..." stands: the number of items before it
}

// scanArray reads s as numpy's str() of a 1-D array: items apart by white space between [ and ],
// each a listItem (numpy 2's repr of a scalar, which its str() of an object array of them writes,
// or an answerItem), a float as numpy writes one, or "...". It reports false for any other text.
func scanArray(s string) (arrayScan, bool) {
	var a arrayScan
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return a, false
	}
	inner := s[1 : len(s)-1]
	for i := skipSpace(inner, 0); i < len(inner); {
		var n int
		if strings.HasPrefix(inner[i:], "...") {
			a.elided = append(a.elided, len(a.items))
			n = 3
		} else if v, m, ok := numpyScalar(inner[i:]); ok {
			a.npScalars++
			switch {
			case v == nil:
				a.missing++
			case strings.HasPrefix(inner[i:], "np.str_("):
				a.strs++
			}
			a.items = append(a.items, v)
			n = m
		} else if v, m, ok := answerItem(inner[i:]); ok {
			switch {
			case v == nil:
				a.missing++
			case inner[i] == '\'' || inner[i] == '"':
				a.strs++
			case inner[i] == 'T' || inner[i] == 'F': // True or False
			case strings.ContainsAny(*v, ".eE"):
				a.floats++
			}
			a.items = append(a.items, v)
			n = m
		} else if n = numpyFloatLen(inner[i:]); n > 0 {
			v := inner[i : i+n]
			a.items = append(a.items, &v)
			if strings.HasSuffix(v, "inf") {
				a.infs++
			} else {
				a.npFloats++
			}
		} else {
			return a, false
		}
		j := skipSpace(inner, i+n)
		if j == i+n && j < len(inner) { // items not apart: 'a''b', or nan followed by more
			return a, false
		}
		i = j
	}
	return a, true
}

// numpyFloatLen returns the length of the float numpy writes in an array of floats at the start
// of s, -?[0-9]+\.[0-9]*([eE][+-]?[0-9]+)? (2., 1.e-05) or -?inf, or 0 if none starts it.
func numpyFloatLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if strings.HasPrefix(s[i:], "inf") {
		return i + 3
	}
	j := digitsEnd(s, i)
	if j == i || j == len(s) || s[j] != '.' {
		return 0
	}
	i = digitsEnd(s, j+1)
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if k := digitsEnd(s, j); k > j {
			i = k
		}
	}
	return i
}

// digitsEnd returns the end of the run of ASCII digits in s from i (i itself if none).
func digitsEnd(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// HoldsList reports whether s is a list or a tuple, as Python's str() or JSON writes one, that
// holds a list or a tuple of strings among its items ([['a', 'b'], 'c'], [('Denver Broncos', 177)],
// ('a', ('b', 'c'))): a bracket or parenthesis, outside the string literals, opening on a string
// literal, not a call's (np.str_('a')). A wiki link's text, [[Paris]], holds none, nor does
// (Paris (or 'Lutetia')).
//
// The inner list's or tuple's first string may also be numpy 2's repr of a str scalar,
// [(np.str_('Denver Broncos'), np.int64(177))], as str() writes list(zip(texts, starts)) of two
// arrays.
//
// Note: a list of tuples, as a column of (text, start) pairs writes, was one answer, its text,
// where to_json writes it as a list of lists, which JSON Lines makes a bad item; so was such a
// list of numpy 2's scalars after ParseAnswerList learnt to read them in a flat list.
func HoldsList(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || !(s[0] == '[' && s[len(s)-1] == ']' || s[0] == '(' && s[len(s)-1] == ')') {
		return false
	}
	for i := 1; i < len(s)-1; {
		switch s[i] {
		case '\'', '"':
			_, n, ok := strLiteral(s[i:])
			if !ok {
				return false
			}
			i += n
		case '[', '(':
			if s[i] == '(' && isNameByte(s[i-1]) {
				i++ // a call's, np.str_('a'): no tuple
				continue
			}
			j := skipSpace(s, i+1)
			if k := j + len("np.str_("); strings.HasPrefix(s[j:], "np.str_(") && k < len(s) {
				j = k // numpy 2's repr of a str scalar, as str() of a list list() made of an array writes it
			}
			if j < len(s) && (s[j] == '\'' || s[j] == '"') {
				_, _, ok := strLiteral(s[j:])
				return ok
			}
			i++
		default:
			i++
		}
	}
	return false
}

// isNameByte reports whether b may end a Python name: a letter, a digit or an underscore.
func isNameByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// OpensDict reports whether s is a dict or a list of dicts as Python's str() writes them, or a
// JSON object or a list of them: it opens with { (after a [), a string literal and a colon, and
// closes with } (then a ]). A set's text, {1, 2, 3}, is none; what follows the first key is not
// read (a Hugging Face export's dict holds numpy's array(...), which is no literal).
func OpensDict(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return false
	}
	rest := s[skipSpace(s, 1):]
	_, n, ok := strLiteral(rest)
	return ok && strings.HasPrefix(rest[skipSpace(rest, n):], ":")
}

// NumberLen returns the length of the JSON number at the start of s, -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?, the text Python's str() writes for an int or a finite float, or 0 if none
// starts it.
func NumberLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digitsEnd(s, i)
	default:
		return 0
	}
	if i < len(s) && s[i] == '.' {
		j := digitsEnd(s, i+1)
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digitsEnd(s, j)
		if k == j {
			return 0
		}
		i = k
	}
	return i
}

// parseList reads s as Python's str() of a list whose items item reads (an item's value and its
// length in the text it starts, or false): the items, and true; false if s is anything else.
// Spaces around items and a trailing comma are allowed, as Python's parser allows them.
func parseList[T any](s string, item func(string) (T, int, bool)) ([]T, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	inner := s[1 : len(s)-1]
	items := []T{}
	i := skipSpace(inner, 0)
	for i < len(inner) {
		v, n, ok := item(inner[i:])
		if !ok {
			return nil, false
		}
		items = append(items, v)
		if i = skipSpace(inner, i+n); i == len(inner) {
			break
		}
		if inner[i] != ',' {
			return nil, false
		}
		i = skipSpace(inner, i+1)
	}
	return items, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n\f", s[i]) >= 0 {
		i++
	}
	return i
}

// strLiteral reads the Python string literal at the start of s: its value, its length in s, and
// whether it is one. An escape Python would reject (a lone surrogate, \N{…}, a code point past
// U+10FFFF) makes it none.
func strLiteral(s string) (string, int, bool) {
	if s == "" || s[0] != '\'' && s[0] != '"' {
		return "", 0, false
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, true
		case c == '\n' || c == '\r':
			return "", 0, false // a line end ends a one-quote literal unclosed
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", 0, false
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\n': // a continued line
		case '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+n > len(s) {
				return "", 0, false
			}
			r, err := strconv.ParseUint(s[i:i+n], 16, 32)
			if err != nil || strings.ContainsAny(s[i:i+n], "+-_") || !utf8.ValidRune(rune(r)) {
				return "", 0, false
			}
			b.WriteRune(rune(r))
			i += n
		case '0', '1', '2', '3', '4', '5', '6', '7':
			r := rune(e - '0')
			for k := 0; k < 2 && i < len(s) && '0' <= s[i] && s[i] <= '7'; k++ {
				r = r*8 + rune(s[i]-'0')
				i++
			}
			b.WriteRune(r)
		case 'N':
			return "", 0, false
		default: // an unknown escape keeps its backslash
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return "", 0, false
}

// StrInt is one [str, int] pair of a list ParseStrIntPairs reads.
type StrInt struct {
	Str string
	Int int
}

// ParseStrIntPairs reads s as Python's str() of a list of [str, int] lists or (str, int) tuples,
// [["Arthur's Magazine", 0], ('First for Women', 1)], the text pandas' to_csv writes for a cell
// that holds HotpotQA's supporting facts: the pairs, and true; false if s is anything else. The
// strings are literals as ParseStrList reads them; an int is Python's str() of one, an optional
// minus sign and decimal digits (True, 1.0 or an int past Go's int are none). Spaces around items
// and a trailing comma are allowed, as Python's parser allows them. A title may also be numpy 2's
// repr of its str scalar, np.str_('Title'), and an index its repr of an int scalar,
// np.int64(0) (np.int8 to np.int64, np.uint8 to np.uint64), which str() of a list of pairs of
// them writes (list(zip(titles, sent_ids)) of two arrays); np.float64(0.0) and np.True_ are none.
//
// Note: such a list was no pairs, and the cell a bad item, though ParseAnswerList reads the same
// scalars in an answers cell.
func ParseStrIntPairs(s string) ([]StrInt, bool) { return parseList(s, strIntPair) }

// strIntPair reads the [str, int] list or (str, int) tuple at the start of s: its value, its
// length in s, and whether it is one.
func strIntPair(s string) (StrInt, int, bool) {
	var p StrInt
	if s == "" || s[0] != '[' && s[0] != '(' {
		return p, 0, false
	}
	closing := byte(']')
	if s[0] == '(' {
		closing = ')'
	}
	i := skipSpace(s, 1)
	str, n, ok := pairTitle(s[i:])
	if !ok {
		return p, 0, false
	}
	i = skipSpace(s, i+n)
	if i == len(s) || s[i] != ',' {
		return p, 0, false
	}
	i = skipSpace(s, i+1)
	v, n, ok := pairIndex(s[i:])
	if !ok {
		return p, 0, false
	}
	i = skipSpace(s, i+n)
	if i < len(s) && s[i] == ',' { // a trailing comma: [1, 2,] and (1, 2,)
		i = skipSpace(s, i+1)
	}
	if i == len(s) || s[i] != closing {
		return p, 0, false
	}
	p.Str, p.Int = str, v
	return p, i + 1, true
}

// pairTitle reads the title of a pair strIntPair reads at the start of s, a string literal or
// numpy 2's np.str_ of one: its value, its length in s, and whether it is one.
func pairTitle(s string) (string, int, bool) {
	arg, ok := strings.CutPrefix(s, "np.str_(")
	if !ok {
		return strLiteral(s)
	}
	v, n, ok := strLiteral(arg)
	if !ok || n >= len(arg) || arg[n] != ')' {
		return "", 0, false
	}
	return v, len("np.str_(") + n + 1, true
}

// pairIndex reads the sentence index of a pair strIntPair reads at the start of s, Python's str()
// of an int or numpy 2's repr of an int scalar, np.int64(0): its value, its length in s, and
// whether it is one.
func pairIndex(s string) (int, int, bool) {
	if rest, ok := strings.CutPrefix(s, "np."); ok {
		typ, arg, ok := strings.Cut(rest, "(")
		if !ok || !isNumpyInt(typ) {
			return 0, 0, false
		}
		v, n, ok := intLiteral(arg)
		if !ok || n >= len(arg) || arg[n] != ')' {
			return 0, 0, false
		}
		return v, len("np.") + len(typ) + 1 + n + 1, true
	}
	return intLiteral(s)
}

// intLiteral reads Python's str() of an int at the start of s, an optional minus sign and decimal
// digits without a leading zero (nor a sign before 0), that fits Go's int: its value, its length in
// s, and whether it is one.
func intLiteral(s string) (int, int, bool) {
	j := 0
	if j < len(s) && s[j] == '-' {
		j++
	}
	j = digitsEnd(s, j)
	digits := strings.TrimPrefix(s[:j], "-")
	v, err := strconv.Atoi(s[:j])
	if err != nil || s[:j] == "-0" || len(digits) > 1 && digits[0] == '0' {
		return 0, 0, false // Python's str() of an int has no leading zero (nor does 0 a sign)
	}
	return v, j, true
}
