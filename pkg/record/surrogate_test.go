package record

import (
	"strings"
	"testing"
)

// TestSurrogateClash: two keys of an object the decoder reads into Go strings that differ only
// in lone UTF-16 surrogates (or one with a surrogate and one with U+FFFD) would become one key,
// the first member lost without a word; such a line is an error naming both keys and where they
// are. Keys that are one key in JSON (a surrogate pair escaped and written as the character; a
// member given twice) are the decoder's last-wins duplicates, and a lone surrogate with no twin
// is read as U+FFFD, as documented; neither is an error. Values are kept as they came.
func TestSurrogateClash(t *testing.T) {
	const head = `{"schema":1,"id":"s","question":"q","answers":["a"]`
	for _, tc := range []struct {
		name, line, err string // err: "" for none
	}{
		{"top level", head + `,"x\ud800":1,"x\udc00":2}`, `keys "x\ud800" and "x\udc00" of the record`},
		{"meta", head + `,"meta":{"m\ud800":1,"m\udfff":2}}`, `keys "m\ud800" and "m\udfff" of meta`},
		{"upper-case escape", head + `,"meta":{"m\uD800":1,"m\uDC00":2}}`, `keys "m\uD800" and "m\uDC00" of meta`},
		{"judgment names", head + `,"judgments":{"j\ud800":{"score":0.25},"j\udc00":{"score":0.75}}}`, `keys "j\ud800" and "j\udc00" of judgments`},
		{"judgment usage", head + `,"judgments":{"j":{"score":1,"usage":{"u\udc00":1,"u\udc01":2}}}}`, `of judgments.j.usage`},
		{"passage", head + `,"context":[{"text":"t"},{"text":"t","a\ud800":1,"a\ufffd":2}]}`, `keys "a\ud800" and "a\ufffd" of context[1]`},
		{"raw U+FFFD", head + `,"meta":{"m\ud800":1,"m` + "\uFFFD" + `":2}}`, `keys "m\ud800" and "m` + "\uFFFD" + `" of meta`},
		{"prediction", head + `,"prediction":{"text":"a","p\ud800":1,"p\ud801":2}}`, `of prediction`},
		{"scores", head + `,"scores":{"s\ud800":1,"s\ud801":0.5}}`, `of scores`},
		{"pair and character", head + `,"meta":{"m\ud83d\ude00":1,"m😀":2}}`, ""},
		{"one lone surrogate", head + `,"meta":{"m\ud800":1,"n\ud800":2},"x\ud800":3}`, ""},
		{"same key twice", head + `,"x\ud800":1,"x\ud800":2}`, ""},
		{"inside a kept value", head + `,"extra":{"v\ud800":1,"v\udc00":2},"meta":{"m":{"v\ud800":1,"v\udc00":2}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Record
			err := Unmarshal([]byte(tc.line), &r)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("Unmarshal: %v, want no error", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("Unmarshal: %v, want an error with %q", err, tc.err)
			}
		})
	}
}

// TestSurrogateValuesKept: a value under a key with a lone surrogate, and values holding lone
// surrogates inside members kept verbatim, come out as they came.
func TestSurrogateValuesKept(t *testing.T) {
	line := `{"schema":1,"id":"s","question":"q","answers":["a"],"extra":{"v\ud800":1,"v\udc00":"\udc00"}}`
	var r Record
	if err := Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != line {
		t.Errorf("got  %s\nwant %s", out, line)
	}
}

// TestCodeUnits: a JSON string's UTF-16 code units, escapes read, lone surrogates kept.
func TestCodeUnits(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{`"a"`, "\x00a"},
		{`"\u0061"`, "\x00a"},
		{`"\ud800"`, "\xd8\x00"},
		{`"\uD800\uDC00"`, "\xd8\x00\xdc\x00"},
		{`"𐀀"`, "\xd8\x00\xdc\x00"},
		{`"é\n\"\\\/"`, "\x00\xe9\x00\n\x00\"\x00\\\x00/"},
	} {
		if got := codeUnits([]byte(tc.q)); got != tc.want {
			t.Errorf("codeUnits(%s) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestLoneSurrogate: only a line that may hold a lone surrogate's escape is walked again; pairs
// (an emoji as Python's json.dumps writes it) and other escapes are not.
func TestLoneSurrogate(t *testing.T) {
	for line, want := range map[string]bool{
		`{"a":"\u00e9\u4e2d"}`:              false,
		`{"a":"\ud83d\ude00 \uD83D\uDE00"}`: false,
		`{"a":"\ud7a3"}`:                    false, // a Hangul syllable, below the surrogates
		`{"a":"\ud800"}`:                    true,
		`{"a":"\udc00"}`:                    true,
		`{"a":"\ud800\u0041"}`:              true,
		`{"a":"\ud800\udbff"}`:              true, // two high ones
		`{"a":"\udc00\udc00"}`:              true, // two low ones
		`{"a":"x\ud83d`:                     true, // cut
		`{"a":"\u12"}`:                      false,
	} {
		if got := loneSurrogate([]byte(line)); got != want {
			t.Errorf("loneSurrogate(%s) = %v, want %v", line, got, want)
		}
	}
}
