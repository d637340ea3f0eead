package python

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseStrList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string // nil: not a list
	}{
		{`['x', 'y']`, []string{"x", "y"}},
		{`["it's", 'z']`, []string{"it's", "z"}},
		{` [ 'a' , "b" , ] `, []string{"a", "b"}},
		{`[]`, []string{}},
		{`['\x41\101\u00e9\U0001F600\n\\\'q']`, []string{"AAé😀\n\\'q"}},
		{`['\d']`, []string{`\d`}},       // an unknown escape keeps its backslash
		{"['a\\\nb']", []string{"ab"}},   // a continued line
		{"['a\\\r\nb']", []string{"ab"}}, // a continued line, CRLF
		{"['a\\\rb']", []string{"ab"}},   // a continued line, CR
		{`['\1234']`, []string{"S4"}},    // an octal escape has at most three digits
		{`['a' 'b']`, nil},               // concatenation is no list item
		{`['a',, 'b']`, nil},             //
		{`[,]`, nil},                     //
		{`['unclosed]`, nil},             //
		{`[1989]`, nil},                  // numbers are no strings
		{`['\ud800']`, nil},              // a lone surrogate
		{`['\U00110000']`, nil},          // past U+10FFFF
		{`['\N{DASH}']`, nil},            //
		{`['\x4']`, nil},                 //
		{`['\x+4']`, nil},                //
		{"['a\nb']", nil},                // a line end inside one-quote literal
		{"['a\rb']", nil},                // so does a bare CR
		{`[1] and ['b']`, nil},           //
		{`x`, nil},                       //
	} {
		got, ok := ParseStrList(tt.in)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("ParseStrList(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// FuzzParseStrList: Python's str() of any list of strings (as StrList writes it, and pandas writes a list
// cell) reads back as that list, and no input panics.
func FuzzParseStrList(f *testing.F) {
	f.Add("x\x00y", "it's \"q\"", "\u2028\t\\")
	f.Add("", "'", "\U0001F600\u00a0")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ParseStrList(a)
		items := []string{a, b, c}
		for i, s := range items {
			items[i] = strings.ToValidUTF8(s, "\uFFFD")
		}
		for n := range 4 {
			s := StrList(items[:n])
			got, ok := ParseStrList(s)
			if !ok || !slices.Equal(got, items[:n]) {
				t.Fatalf("ParseStrList(%q) = %q, %v; want %q", s, got, ok, items[:n])
			}
		}
	})
}

func TestParseStrIntPairs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []StrInt // nil: not such a list
	}{
		{`[["Arthur's Magazine", 0], ['First for Women', 1]]`, []StrInt{{"Arthur's Magazine", 0}, {"First for Women", 1}}},
		{`[('T', 0)]`, []StrInt{{"T", 0}}},
		{` [ ( 'T' , 12 , ) , ['U',-3], ] `, []StrInt{{"T", 12}, {"U", -3}}},
		{`[]`, []StrInt{}},
		{`[['\u00e9', 0]]`, []StrInt{{"é", 0}}},
		{`[['T', 0)]`, nil}, // the pair's brackets differ
		{`[['T']]`, nil},    // no index
		{`[['T', 0, 1]]`, nil},
		{`[[0, 'T']]`, nil},   // index first
		{`[['T', 1.0]]`, nil}, // no int
		{`[['T', True]]`, nil},
		{`[['T', 01]]`, nil},
		{`[['T', -0]]`, nil},
		{`[['T', 99999999999999999999]]`, nil},
		{`[['T', '0']]`, nil},
		// numpy 2's reprs of its scalars (NEP 51), as str() of list(zip(titles, sent_ids)) writes them
		{`[('Title', np.int64(0)), ('Other', np.int64(2))]`, []StrInt{{"Title", 0}, {"Other", 2}}},
		{`[(np.str_('T'), np.int32(-1)), [np.str_("it's"), np.uint8(3)]]`, []StrInt{{"T", -1}, {"it's", 3}}},
		{`[('T', np.float64(0.0))]`, nil}, // no int
		{`[('T', np.float64(1))]`, nil},
		{`[('T', np.True_)]`, nil},
		{`[('T', np.int64(01))]`, nil},
		{`[('T', np.int64('0'))]`, nil},
		{`[('T', np.int64(0)]`, nil},
		{`[('T', np.int64(0) )]`, []StrInt{{"T", 0}}},
		{`[('T', np.int64( 0))]`, nil},
		{`[('T', np.intc(0))]`, nil},
		{`[(np.str_(0), 1)]`, nil},
		{`[(np.str_('T'x, 1)]`, nil}, // np.str_( closes where its literal ends, or is none
		{`[(np.str_('T', 1)]`, nil},
		{`[[np.str_('T']`, nil},
		{`[(np.bytes_(b'T'), 1)]`, nil},
		{`[(np.str_('T'), 1, np.int64(2))]`, nil},
		{`['T', 0]`, nil}, // a pair, not a list of them
		{`[['T', 0] ['U', 1]]`, nil},
		{`[["T", 0]`, nil},
		{`x`, nil},
	} {
		got, ok := ParseStrIntPairs(tt.in)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("ParseStrIntPairs(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
		}
	}
}

// FuzzParseStrIntPairs: Python's str() of a list of [str, int] lists and (str, int) tuples, as
// pandas writes a cell of HotpotQA's supporting facts, reads back as those pairs, and no input
// panics.
func FuzzParseStrIntPairs(f *testing.F) {
	f.Add("Arthur's Magazine", "x\"y\\", 0, -7)
	f.Add("", "\u2028\U0001F600", 1<<40, 3)
	f.Fuzz(func(t *testing.T, a, b string, m, n int) {
		ParseStrIntPairs(a)
		want := []StrInt{{strings.ToValidUTF8(a, "\uFFFD"), m}, {strings.ToValidUTF8(b, "\uFFFD"), n}}
		s := fmt.Sprintf("[[%s, %d], (%s, %d)]", Repr(want[0].Str), m, Repr(want[1].Str), n)
		got, ok := ParseStrIntPairs(s)
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("ParseStrIntPairs(%q) = %v, %v; want %v", s, got, ok, want)
		}
	})
}

func TestParseAnswerList(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tt := range []struct {
		in   string
		want []*string
		ok   bool
	}{
		{`['x', 'y']`, []*string{s("x"), s("y")}, true},
		{`['a', None]`, []*string{s("a"), nil}, true},
		{`[None]`, []*string{nil}, true},
		{`[ None , 'b' , ]`, []*string{nil, s("b")}, true},
		{`[]`, []*string{}, true},
		{`['a', nan]`, []*string{s("a"), nil}, true},
		{`[nan, None]`, []*string{nil, nil}, true},
		{`[Nonesuch]`, nil, false},
		{`[nanny]`, nil, false},
		{`['a', NaN]`, nil, false},
		{`[None 'a']`, nil, false},
		{`['a', none]`, nil, false},
		{`['a', 1]`, []*string{s("a"), s("1")}, true},
		// numpy 2's repr of its scalars (NEP 51), as str() of a list of them writes them: list(a)
		// of an array gives them.
		{`[np.str_('Denver Broncos'), np.str_("it's")]`, []*string{s("Denver Broncos"), s("it's")}, true},
		{`[np.int64(1989), np.uint8(7), np.float64(2.5), np.True_, np.False_]`, []*string{s("1989"), s("7"), s("2.5"), s("true"), s("false")}, true},
		{`[np.float64(nan), np.str_('a')]`, []*string{nil, s("a")}, true},
		{`[np.str_('a'), np.int64(-3)]`, []*string{s("a"), s("-3")}, true},
		{`[np.str_('a')x]`, nil, false},
		{`[np.str_('a']`, nil, false},
		{`[np.str_(None)]`, nil, false},
		{`[np.float32(2.5), np.float16(nan), np.float32(1e+16)]`, []*string{s("2.5"), nil, s("1e+16")}, true}, // groupby().agg(list) of a float32 column
		{`[np.float64(inf)]`, nil, false},
		{`[np.int64(2.5)]`, nil, false},
		{`[np.int64(5x]`, nil, false},  // no closing parenthesis after the number
		{`[np.str_('a'b]`, nil, false}, // nor after the literal
		{`[np.bytes_(b'a')]`, nil, false},
		{`[np.True]`, nil, false},
		{`[1989, 1990]`, []*string{s("1989"), s("1990")}, true},
		{`[-0.5, 1e+16, 2.5E-07, 0, None]`, []*string{s("-0.5"), s("1e+16"), s("2.5E-07"), s("0"), nil}, true},
		{`[1989.0,]`, []*string{s("1989.0")}, true},
		{`[inf]`, nil, false},   // no JSON number: the cell is one answer
		{`[01]`, nil, false},    // no leading zero in Python's str() or JSON
		{`[1.]`, nil, false},    // nor a bare point
		{`[.5]`, nil, false},    // or a leading one
		{`[1e]`, nil, false},    // or an exponent without digits
		{`[1_000]`, nil, false}, // or Python's digit separators
		{`[+1]`, nil, false},    // or a plus sign
		{`[1 2]`, nil, false},   // two numbers need a comma
		{`['a' 1]`, nil, false}, // and so do a string and a number
		{`[1'a']`, nil, false},  // and a number and a string
		{`[-]`, nil, false},     // a sign alone is no number
		{`[0x10]`, nil, false},  // nor is a hexadecimal literal
		{`[1, 'a', nan]`, []*string{s("1"), s("a"), nil}, true},
		{`[True, 'x', False]`, []*string{s("true"), s("x"), s("false")}, true}, // JSON's text
		{`[Trueish]`, nil, false},
		{`[true]`, nil, false}, // no Python
	} {
		got, ok := ParseAnswerList(tt.in)
		if ok != tt.ok || !slices.EqualFunc(got, tt.want, func(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }) {
			t.Errorf("ParseAnswerList(%q) = %s, %v; want %s, %v", tt.in, showOpt(got), ok, showOpt(tt.want), tt.ok)
		}
	}
}

func TestParseAnswerTuple(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tt := range []struct {
		in   string
		want []*string
		ok   bool
	}{
		{`('Denver Broncos', 'Denver')`, []*string{s("Denver Broncos"), s("Denver")}, true},
		{` ( 'a' , ) `, []*string{s("a")}, true},
		{`('a', 1, None, True)`, []*string{s("a"), s("1"), nil, s("true")}, true},
		{`(1, 'a')`, []*string{s("1"), s("a")}, true},
		{`(np.str_('a'), np.str_('b'))`, []*string{s("a"), s("b")}, true}, // str(tuple(arr)), numpy 2
		{`(np.int64(1), np.int64(2))`, nil, false},
		{`('a')`, nil, false},  // no tuple: str() writes ('a',)
		{`(1, 2)`, nil, false}, // a point's text
		{`(1,)`, nil, false},
		{`()`, nil, false},
		{`(see above)`, nil, false},
		{`('a', 'b']`, nil, false},
		{`['a', 'b']`, nil, false}, // a list: ParseAnswerList's
	} {
		got, ok := ParseAnswerTuple(tt.in)
		if ok != tt.ok || !slices.EqualFunc(got, tt.want, func(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }) {
			t.Errorf("ParseAnswerTuple(%q) = %s, %v; want %s, %v", tt.in, showOpt(got), ok, showOpt(tt.want), tt.ok)
		}
	}
}

func TestParseArrayStr(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tt := range []struct {
		in   string
		want []*string
		ok   bool
	}{
		{`['Denver Broncos' 'Denver']`, []*string{s("Denver Broncos"), s("Denver")}, true},
		{`['Denver Broncos' "it's" 'say "hi"' 'a\nb']`, []*string{s("Denver Broncos"), s("it's"), s(`say "hi"`), s("a\nb")}, true},
		{"['xx' 'yy'\n 'zz']", []*string{s("xx"), s("yy"), s("zz")}, true}, // a long array's lines break
		{`['a' None]`, []*string{s("a"), nil}, true},
		{`['a' nan]`, []*string{s("a"), nil}, true},
		{`['a' 1]`, []*string{s("a"), s("1")}, true},
		{`[ 'a'  'b' ]`, []*string{s("a"), s("b")}, true},
		{`['x']`, []*string{s("x")}, true},
		// numpy quotes an item that holds a ' in ", as repr does
		{`["it's" "he's"]`, []*string{s("it's"), s("he's")}, true},
		{`[1989 1990]`, []*string{s("1989"), s("1990")}, true}, // an array of ints
		{"[   1 -100\n 2]", []*string{s("1"), s("-100"), s("2")}, true},
		{`[5]`, []*string{s("5")}, true},
		{`[1. 2.5]`, nil, false}, // an array of floats, rounded: see ArrayStrLoss
		{`[1.5 2.5]`, nil, false},
		{`[1 nan]`, nil, false},
		{`[None None]`, nil, false},
		{`['a' 2.]`, nil, false}, // an object array writes repr(2.0), 2.0
		{`['a' inf]`, nil, false},
		{`['a' 'b' ... 'y' 'z']`, nil, false},
		{`[citation needed]`, nil, false},
		{`[1 2 a]`, nil, false},
		{`[]`, nil, false},
		{`['a''b']`, nil, false}, // numpy puts a space between items
		{`['a', 'b']`, nil, false},
		{`['a' 'b'`, nil, false},
		{`['a' b]`, nil, false},
		{`['a' nanny]`, nil, false},
		{`x ['a' 'b']`, nil, false},
		{`[1e+16 2]`, nil, false},                                 // a float's repr among ints: no array of ints
		{`[ True False]`, []*string{s("true"), s("false")}, true}, // an array of bools
		{`['a' True]`, []*string{s("a"), s("true")}, true},
		{`[ True False ... False  True]`, nil, false},
		{`[TrueFalse]`, nil, false},
		// numpy 2's str() of an object array of its scalars writes their reprs (NEP 51)
		{`[np.str_('a') np.str_('b')]`, []*string{s("a"), s("b")}, true},
		{"[np.str_('xx') np.str_(\"it's\")\n np.str_('zz')]", []*string{s("xx"), s("it's"), s("zz")}, true},
		{`[np.int64(1989) np.int64(1990)]`, []*string{s("1989"), s("1990")}, true},
		{`[np.float64(1.5) np.float64(2.0)]`, []*string{s("1.5"), s("2.0")}, true}, // repr: exact
		{`[np.float64(1.5) 2.5]`, []*string{s("1.5"), s("2.5")}, true},
		{`[np.True_ np.False_]`, []*string{s("true"), s("false")}, true},
		{`[np.str_('a') None]`, []*string{s("a"), nil}, true},
		{`[np.float64(nan) np.int64(1)]`, []*string{nil, s("1")}, true},
		{`[np.str_('a') 1]`, []*string{s("a"), s("1")}, true},
		{`[np.str_('a') np.str_('b') ... np.str_('y') np.str_('z')]`, nil, false},
		{`[np.str_('a')np.str_('b')]`, nil, false},
		{`[np.str_('a') 2.]`, nil, false},
		{`[np.str_(a) np.str_('b')]`, nil, false},
		{`[np.str_('a') np.object_('b')]`, nil, false},
	} {
		got, ok := ParseArrayStr(tt.in)
		if ok != tt.ok || !slices.EqualFunc(got, tt.want, func(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }) {
			t.Errorf("ParseArrayStr(%q) = %s, %v; want %s, %v", tt.in, showOpt(got), ok, showOpt(tt.want), tt.ok)
		}
	}
}

func TestArrayStrLoss(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want ArrayLoss
	}{
		{`['a' 'b' ... 'y' 'z']`, ElidedArray},
		{`[   0    1    2 ... 1997 1998 1999]`, ElidedArray},
		{"['xx' 'yy'\n 'zz' ... 'a' 'b']", ElidedArray},
		{`[1.5 2. ]`, RoundedArray},
		{`[0.33333333 2.        ]`, RoundedArray},
		{`[1.e-05 1.e+10]`, RoundedArray},
		{`[ 1. nan]`, RoundedArray},
		{`[-inf  1.]`, RoundedArray},
		{`[inf]`, NoLoss},
		{`[.5]`, NoLoss}, // no float numpy writes: a text
		{`[. 1.]`, NoLoss},
		{`[ inf -inf]`, NoLoss},
		{`[2.]`, RoundedArray},
		{`[...]`, NoLoss}, // no items either side: a text
		{`['a' ...]`, NoLoss},
		{`[... 'a']`, NoLoss},
		{`['a' ... ... 'b']`, NoLoss},
		{`['a' ... b]`, NoLoss},
		{`['a' 'b']`, NoLoss},
		{`[1989 1990]`, NoLoss},
		{`['a' 2.5]`, NoLoss}, // an object array: repr(2.5), exact
		{`[1, 2.5]`, NoLoss},  // Python's list, not numpy's
		{`[citation needed]`, NoLoss},
		{`[1]`, NoLoss},
		{`[nan]`, NoLoss},
		{`[]`, NoLoss},
		{`see [1. 2.]`, NoLoss},
		{`[1.5 2.5]`, RoundedArray}, // floats numpy writes as Go reads them, rounded all the same
		{`[2.5]`, NoLoss},           // Python's list too
		{`[1.e 2.]`, NoLoss},        // no exponent's digits: no float numpy writes
		{`[1e 2]`, NoLoss},          // no number Python or numpy writes
		{`[... 1.5]`, NoLoss},
		{`[ True False ... False  True]`, ElidedArray},
		{`[ True False]`, NoLoss},
		{`[np.str_('a') np.str_('b') ... np.str_('y') np.str_('z')]`, ElidedArray},
		{`[np.int64(0) np.int64(1) ... np.int64(1998) np.int64(1999)]`, ElidedArray},
		{`[np.float64(1.5) 2.5]`, NoLoss}, // an object array: reprs, exact
		{`[np.str_('a') np.str_('b')]`, NoLoss},
	} {
		if got := ArrayStrLoss(tt.in); got != tt.want {
			t.Errorf("ArrayStrLoss(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzParseArrayStr: the items an array reads to, written back as the list str() writes (None
// for a missing one), read back the same with ParseAnswerList; and no input panics.
func FuzzParseArrayStr(f *testing.F) {
	f.Add("['a' 'b']")
	f.Add("['a' None]")
	f.Add("['x']")
	f.Add("['a' 1\n nan]")
	f.Add("[1989 1990]")
	f.Add("['a' 'b' ... 'y' 'z']")
	f.Add("[1.5 2. ]")
	f.Add("[np.str_('a') np.float64(nan)\n np.int64(-3)]")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseArrayStr(s)
		if loss := ArrayStrLoss(s); ok && loss != NoLoss {
			t.Fatalf("ParseArrayStr(%q) reads it, and ArrayStrLoss says %v", s, loss)
		}
		if !ok || !utf8.ValidString(s) { // Repr writes a byte that is no UTF-8 as U+FFFD
			return
		}
		parts := make([]string, len(got))
		for i, v := range got {
			parts[i] = "None"
			if v != nil {
				parts[i] = Repr(*v)
			}
		}
		list := "[" + strings.Join(parts, ", ") + "]"
		want, wantOK := ParseAnswerList(list)
		if !wantOK || !slices.EqualFunc(got, want, func(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }) {
			t.Fatalf("ParseArrayStr(%q) = %s; written as %q, ParseAnswerList reads %s, %v", s, showOpt(got), list, showOpt(want), wantOK)
		}
	})
}

func TestOpensDict(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{'text': ['x', 'y'], 'answer_start': [1, 2]}`, true},
		{`{'text': array(['x', 'y'], dtype=object), 'answer_start': array([1, 2], dtype=int32)}`, true},
		{` {"text": "a"} `, true},
		{`[{'text': 'z'}]`, true},
		{`[{'text': 'z'}, {'text': 'w'}]`, true},
		{`{ "text": "a" }`, true}, // JSON with blanks inside the braces
		{`{"text" : "a"}`, true},
		{`[ {"text": "a"} ]`, true},
		{`{1, 2, 3}`, false}, // a set's text, as a math answer writes one
		{`{'a', 'b'}`, false},
		{`{}`, false},
		{`{x: 1}`, false},
		{`{'a': 1`, false},
		{`{'a': 1} and more`, false},
		{`['{"a": 1}']`, false}, // a list of strings
		{`text {'a': 1}`, false},
	} {
		if got := OpensDict(tt.in); got != tt.want {
			t.Errorf("OpensDict(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestHoldsList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`[['a', 'b'], 'c']`, true},
		{`['c', ['a', 'b']]`, true},
		{`[["a", "b"], "c"]`, true},
		{` [ [ 'a' ] ] `, true},
		{`[['a' 'b']
 ['c' 'd']]`, true}, // numpy's str() of a 2-D array of strings
		{`[[Paris]]`, false}, // a wiki link's text
		{`['see [1]', 'x']`, false},
		{`['a [', 'b']`, false},
		{`["["x"]"]`, false}, // a list of one string
		{`[[1, 2], [3, 4]]`, false},
		{`[['a`, false},
		{`[['a, 'b']]`, true},
		{`[[ 'unclosed]`, false},
		{`x [['a']]`, false},
		{`[]`, false},
		{`[('Denver Broncos', 177)]`, true}, // a list of (text, start) tuples
		{`('a', ('b', 'c'))`, true},
		{`('a', ['b'])`, true},
		{`[('a',)]`, true},
		{`['see (a)', 'b']`, false},
		{`(see [1])`, false},
		{`(Paris (or 'Lutetia'))`, false},
		{`[(1, 2), (3, 4)]`, false},
		{`('a', 'b')`, false},                  // a tuple of strings: its answers
		{`[np.str_('a') np.str_('b')]`, false}, // a call's parenthesis opens no tuple
		// numpy 2's reprs of str scalars in the inner list or tuple, as str() writes a list of
		// lists that list() made of arrays, or list(zip(texts, starts)) of two arrays
		{`[[np.str_('a'), np.str_('b')], np.str_('c')]`, true},
		{`[[np.str_('a')]]`, true},
		{`[(np.str_('Denver Broncos'), np.int64(177))]`, true},
		{`(np.str_('a'), ( np.str_('b'),))`, true},
		{`[[np.int64(1), np.int64(2)]]`, false},
		{`[[np.str_(Paris)]]`, false},
		{`[f('a')]`, false},
	} {
		if got := HoldsList(tt.in); got != tt.want {
			t.Errorf("HoldsList(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// showOpt shows a list of optional strings, None for nil.
func showOpt(items []*string) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = "None"
		if it != nil {
			parts[i] = fmt.Sprintf("%q", *it)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// FuzzParseAnswerList: a list that ParseStrList reads, ParseAnswerList reads the same (no None
// among its items), and no input panics.
func FuzzParseAnswerList(f *testing.F) {
	f.Add("['a', None]")
	f.Add("[None, 'it''s', ]")
	f.Add("[nan, 'b']")
	f.Add("['x', 'y']")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseAnswerList(s)
		want, wantOK := ParseStrList(s)
		if !wantOK {
			return
		}
		if !ok || len(got) != len(want) {
			t.Fatalf("ParseAnswerList(%q) = %s, %v; want %q", s, showOpt(got), ok, want)
		}
		for i := range got {
			if got[i] == nil || *got[i] != want[i] {
				t.Fatalf("ParseAnswerList(%q) = %s; want %q", s, showOpt(got), want)
			}
		}
	})
}
