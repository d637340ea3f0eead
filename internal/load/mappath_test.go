package load

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSourcePath(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []string
		err  string
	}{
		{"answers", []string{"answers"}, ""},
		{"answers.text", []string{"answers", "text"}, ""},
		{"a.b.c", []string{"a", "b", "c"}, ""},
		{`a\.b`, []string{"a.b"}, ""},
		{`a\.b.c`, []string{"a.b", "c"}, ""},
		{`a\\b`, []string{`a\b`}, ""},
		{`a\\.b`, []string{`a\`, "b"}, ""},
		{`answers(a\,b\,c).text`, []string{"answers(a,b,c)", "text"}, ""},
		{"a.", nil, "a name of its path is empty"},
		{".a", nil, "a name of its path is empty"},
		{"a..b", nil, "a name of its path is empty"},
		{`a\`, nil, "a backslash ends it"},
	} {
		got, err := sourcePath(tt.src)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("sourcePath(%q) = %q, %v; want error %q", tt.src, got, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("sourcePath(%q) = %q, %v; want %q", tt.src, got, err, tt.want)
		}
		if back := pathName(got); back != tt.src && tt.src != `a\.b.c` {
			t.Errorf("pathName(%q) = %q, want %q", got, back, tt.src)
		}
	}
}

func TestParseMapPath(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{"answers=answers.text,id=meta.qid", ""},
		{`question=q\.text`, ""},
		{"answers=answers.", `map "answers=answers.": source "answers.": a name of its path is empty (a dot within a name is written \.)`},
		{`answers=a\`, `map "answers=a\\": source "a\\": a backslash ends it (\. is a dot within a name, \\ a backslash)`},
	} {
		_, err := ParseMap(tt.in)
		if got := errString(err); got != tt.err {
			t.Errorf("ParseMap(%q) = %q, want %q", tt.in, got, tt.err)
		}
	}
}

// A comma escaped with a backslash is part of a --map source, not the end of a pair: a CSV column
// named "answers (a, b, or c)" can be mapped.
func TestParseMapEscapedComma(t *testing.T) {
	m, err := ParseMap(`answers=answers (a\, b\, or c),id=q\\,type=kind`)
	if err != nil {
		t.Fatal(err)
	}
	if got := column(m["answers"]); got != "answers (a, b, or c)" {
		t.Errorf("answers column = %q, want %q", got, "answers (a, b, or c)")
	}
	if got := column(m["id"]); got != `q\` {
		t.Errorf("id column = %q, want %q (an escaped backslash does not escape the comma after it)", got, `q\`)
	}
	if m["type"] != "kind" || len(m) != 3 {
		t.Errorf("mapping = %q, want answers, id and type=kind", m)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A --map source of the jsonl format is a path into nested objects: the value at its end is the
// field's, and the object that held it goes to meta without it. A CSV column is named by the
// path written whole. Each fault of a path is a bad item naming the source, the record's id
// when it has one, and which name of the path does not hold.
func TestMapPaths(t *testing.T) {
	squad := Mapping{"answers": "answers.text"}
	for _, tt := range []struct {
		name string
		load Loader
		m    Mapping
		in   string
		want []string // each record as JSON, or the bad item
	}{
		{"hugging face squad v1.1", JSONL, squad,
			`{"id":"56be4db0acb8001400a502ec","title":"Super_Bowl_50","context":"c","question":"Which team?","answers":{"text":["Denver Broncos","Denver Broncos"],"answer_start":[177,177]}}`,
			[]string{`{"schema":1,"id":"56be4db0acb8001400a502ec","question":"Which team?","answers":["Denver Broncos","Denver Broncos"],"context":[{"text":"c"}],"meta":{"answers":{"answer_start":[177,177]},"title":"Super_Bowl_50"}}`}},
		{"hugging face squad v2.0 unanswerable", JSONL, squad,
			`{"id":"5ad39d53604f3c001a3fe8d1","question":"Who?","answers":{"text":[],"answer_start":[]}}`,
			[]string{`{"schema":1,"id":"5ad39d53604f3c001a3fe8d1","question":"Who?","answers":[],"meta":{"answers":{"answer_start":[]}}}`}},
		{"object left empty", JSONL, squad, `{"id":"1","question":"q","answers":{"text":"a"}}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":["a"]}`}},
		{"three names", JSONL, Mapping{"question": "item.q.text"}, `{"id":"1","item":{"q":{"text":"Why?","lang":"en"},"n":2}}`,
			[]string{`{"schema":1,"id":"1","question":"Why?","answers":[],"meta":{"item":{"q":{"lang":"en"},"n":2}}}`}},
		{"id", JSONL, Mapping{"id": "meta.qid"}, `{"question":"q","meta":{"qid":7}}`,
			[]string{`{"schema":1,"id":"7","question":"q","answers":[]}`}},
		{"escaped dot", JSONL, Mapping{"answers": `answers\.text`}, `{"id":"1","question":"q","answers.text":["a"],"answers":{"text":["b"]}}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":["a"],"meta":{"answers":{"text":["b"]}}}`}},
		{"dot without escape", JSONL, squad, `{"id":"1","question":"q","answers.text":["a"]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"answers.text":["a"]}}`}},
		{"name missing", JSONL, squad, `{"id":"1","question":"q","answers":{"answer_start":[1]}}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"answers":{"answer_start":[1]}}}`}},
		{"null on the path", JSONL, squad, `{"id":"1","question":"q","answers":null}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[]}`}},
		{"question missing", JSONL, Mapping{"question": "q.text"}, `{"id":"1","q":{"txt":"Why?"}}`,
			[]string{`p.jsonl:1 (id "1"): missing field "q.text" (its fields: id, q)`}},
		{"question null", JSONL, Mapping{"question": "q.text"}, `{"id":"1","q":{"text":null}}`,
			[]string{`p.jsonl:1 (id "1"): field "q.text" is null`}},
		{"a list on the path", JSONL, squad, `{"id":"1","question":"q","answers":[{"text":"a"}]}`,
			[]string{`p.jsonl:1 (id "1"): field "answers.text": answers: want an object, got a list`}},
		{"a string on the path", JSONL, Mapping{"question": "q.text"}, `{"id":"1","q":"Why?"}`,
			[]string{`p.jsonl:1 (id "1"): field "q.text": q: want an object, got a string`}},
		{"deeper", JSONL, Mapping{"question": "a.b.c"}, `{"id":"1","a":{"b":3}}`,
			[]string{`p.jsonl:1 (id "1"): field "a.b.c": a.b: want an object, got a number`}},
		{"wrong kind at the end", JSONL, squad, `{"id":"1","question":"q","answers":{"text":{"en":"a"}}}`,
			[]string{`p.jsonl:1 (id "1"): field "answers.text": want a string or a list of strings`}},
		{"name given twice", JSONL, squad, `{"id":"1","question":"q","answers":{"text":["a"],"text":["b"]}}`,
			[]string{`p.jsonl:1 (id "1"): field "answers.text" is given twice`}},
		{"id path not an object", JSONL, Mapping{"id": "meta.qid"}, `{"question":"q","meta":[7]}`,
			[]string{`p.jsonl:1: field "meta.qid": meta: want an object, got a list`}},
		{"fault after the question", JSONL, Mapping{"type": "x.t"}, `{"id":"1","question":"q","x":"t"}`,
			[]string{`p.jsonl:1 (id "1"): field "x.t": x: want an object, got a string`}},
		{"id of a line not JSON", JSONL, Mapping{"id": "meta.qid"}, `{"meta":{"qid":"q7"},"question":"q",}` + "\n",
			[]string{`p.jsonl:1 (id "q7"): invalid JSON: invalid character '}' looking for beginning of object key string`}},
		{"id in a repeated key", JSONL, Mapping{"id": "meta.qid"}, `{"meta":{"qid":"q7"},"question":"q","meta":{"qid":"q8"}}`,
			[]string{`p.jsonl:1: field "meta" is given twice`}},
		{"id of a repeated key", JSONL, Mapping{"id": "meta.qid"}, `{"meta":{"qid":"q7"},"question":"q","question":"r"}`,
			[]string{`p.jsonl:1 (id "q7"): field "question" is given twice`}},
		{"csv column named by the path", CSV, squad, "id,question,answers.text,answers.answer_start\n1,Which team?,\"['Denver Broncos', 'Denver Broncos']\",[177 177]\n",
			[]string{`{"schema":1,"id":"1","question":"Which team?","answers":["Denver Broncos","Denver Broncos"],"meta":{"answers.answer_start":"[177 177]"}}`}},
		{"csv escaped dot", CSV, Mapping{"answers": `answers\.text`}, "id,question,answers.text\n1,q,a\n",
			[]string{`{"schema":1,"id":"1","question":"q","answers":["a"]}`}},
		{"csv id path", CSV, Mapping{"id": "meta.qid"}, "meta.qid,question\nq1,\n",
			[]string{`p.jsonl:2 (id "q1"): field "question" is empty`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadInOrder(tt.load, "p.jsonl", tt.in, tt.m)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("load(%s) with --map %v = %q, %v; want %q", tt.in, tt.m, got, err, tt.want)
			}
		})
	}
}

// Found reports a path's source as had only by an item whose objects hold it to its end.
func TestMapFoundPath(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{"q":"x","answers":{"text":["a"]}}`, true},
		{`{"q":"x","answers":{"text":null}}`, true},
		{`{"q":"x","answers":{"answer_start":[1]}}`, false},
		{`{"q":"x","answers":["a"]}`, false},
		{`{"q":"x","answers.text":["a"]}`, false},
	} {
		found := false
		opt := Options{Map: Mapping{"question": "q", "answers": "answers.text"}, Found: func(has func(string) bool) {
			found = found || has("answers.text")
		}}
		if _, _, err := loadString(t, JSONL, "g", tt.in, opt); err != nil {
			t.Fatal(err)
		}
		if found != tt.want {
			t.Errorf("after %s: has(answers.text) = %v, want %v", tt.in, found, tt.want)
		}
	}
}

// FuzzMapPath checks take against a plain decoding: for a valid object and a source that parses,
// the value taken is the one at the path (unless a name on it is given twice, an error), and the
// member left in its place is valid JSON that no longer holds it; a source written back by
// pathName parses to the same names.
func FuzzMapPath(f *testing.F) {
	for _, s := range [][2]string{
		{`{"answers":{"text":["a"],"answer_start":[1]}}`, "answers.text"},
		{`{"a":{"b":{"c":1,"d":2}},"e":3}`, "a.b.c"},
		{`{"a.b":1,"a":{"b":2}}`, `a\.b`},
		{`{"a":[1]}`, "a.b"},
		{`{"a":{"b":1,"b":2}}`, "a.b"},
		{`{"a":null}`, "a.b"},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	f.Fuzz(func(t *testing.T, raw []byte, src string) {
		path, err := sourcePath(src)
		if err != nil {
			return
		}
		if again, err := sourcePath(pathName(path)); err != nil || !slices.Equal(again, path) {
			t.Fatalf("sourcePath(pathName(%q)) = %q, %v", path, again, err)
		}
		obj, repeated, ok := members(raw)
		if !ok || repeated != "" {
			return
		}
		var plain any
		if json.Unmarshal(raw, &plain) != nil {
			return
		}
		val, found, err := fields{obj: obj, nested: true}.take(src)
		want, wantFound := plain, true
		for _, name := range path {
			m, isObject := want.(map[string]any)
			if want == nil {
				break // a null on the path is the value
			}
			if !isObject {
				if err == nil {
					t.Fatalf("take(%s, %q) = %s, %v, nil; want an error (%T on the path)", raw, src, val, found, want)
				}
				return
			}
			if want, wantFound = m[name]; !wantFound {
				break
			}
		}
		if err != nil {
			if _, twice := errors.AsType[*givenTwice](err); !twice {
				t.Fatalf("take(%s, %q) = %v", raw, src, err)
			}
			return
		}
		if found != wantFound {
			t.Fatalf("take(%s, %q) found = %v, want %v", raw, src, found, wantFound)
		}
		if !found {
			return
		}
		var got any
		if json.Unmarshal(val, &got) != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("take(%s, %q) = %s, want %v", raw, src, val, want)
		}
		if rest, ok := obj[path[0]]; ok && !json.Valid(rest) {
			t.Fatalf("take(%s, %q) left %s", raw, src, rest)
		}
	})
}

// A Hugging Face export of SQuAD (a question an object) read as a SQuAD file, as its name has it
// detected, fails saying how it loads; a file that is neither, or a SQuAD file, does not.
func TestSQuADHuggingFaceHint(t *testing.T) {
	const hint = "; a file of one question an object, as a Hugging Face export holds them, loads with --format jsonl --map answers=answers.text"
	q := `{"id":"1","title":"T","context":"c","question":"q","answers":{"text":["a"],"answer_start":[0]}}`
	for _, tt := range []struct{ name, in, want string }{
		{"json lines", q + "\n" + q + "\n", `s.json: no "data" list, so no squad file (its questions are in {"data": [articles]})` + hint},
		{"json array", "[" + q + "," + q + "]", `s.json: a JSON array of questions, so no squad file (its questions are in {"data": [articles]})` + hint},
		{"json array, indented", "[\n  " + strings.ReplaceAll(q, `,"`, ",\n    \"") + "\n]\n", `s.json: a JSON array of questions, so no squad file (its questions are in {"data": [articles]})` + hint},
		// The "data" list alone says to wrap it, whether its article's first key is "paragraphs"
		// or that comes after a long title; an array of something else is a list where an object
		// was wanted.
		{"articles", `[{"paragraphs":[{"context":"c","qas":[]}],"title":"t"}]`, `s.json: a JSON array of articles, so no squad file (its articles are in {"data": [articles]}): wrap the array as {"data": [...]}`},
		{"articles, long title", `[{"title":"` + strings.Repeat("t", 40000) + `","paragraphs":[]}]`, `s.json: a JSON array of articles, so no squad file (its articles are in {"data": [articles]}): wrap the array as {"data": [...]}`},
		{"articles past the buffer", `[{"title":"` + strings.Repeat("t", 70000) + `","paragraphs":[]}]`, `s.json:1: want an object, got a list`},
		{"array of numbers", "\n[1, 2]", `s.json:2: want an object, got a list`},
		{"other object", `{"version":"1.1"}`, `s.json: no "data" list, so no squad file (its questions are in {"data": [articles]})`},
		{"squad", `{"data":[{"title":"t","paragraphs":[{"context":"c","qas":[{"id":"1","question":"q","answers":[]}]}]}]}`, ""},
	} {
		_, _, err := loadString(t, SQuAD, "s.json", tt.in, Options{})
		if got := errString(err); got != tt.want {
			t.Errorf("%s: SQuAD = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A source written with an escape it does not need (go\ld is gold) is the same source: mapped to
// two fields, it is refused as a source written alike is, and it takes its name away from the field
// of that name, where it left one of the two fields empty without a word.
func TestParseMapSpelledTwice(t *testing.T) {
	_, err := ParseMap(`answers=gold,type=go\ld`)
	if want := `map "type=go\\ld": source "gold" is mapped twice (to answers and to type)`; errString(err) != want {
		t.Errorf("ParseMap(answers=gold,type=go\\ld) = %q, want %q", errString(err), want)
	}
	m, err := ParseMap(`split=typ\e`)
	if err != nil {
		t.Fatal(err)
	}
	const row = `{"id":"7","question":"q","answers":"a","type":"dev"}`
	got, err := loadInOrder(JSONL, "m.jsonl", row, m)
	if want := `{"schema":1,"id":"7","split":"dev","question":"q","answers":["a"]}`; err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("JSONL(%s) with --map split=typ\\e = %q, %v; want %s", row, got, err, want)
	}
}
