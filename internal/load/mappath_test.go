package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// names is a path of names alone; at is an index step.
func names(ns ...string) []step {
	path := make([]step, len(ns))
	for i, n := range ns {
		path[i] = step{name: n}
	}
	return path
}

func at(i int) step { return step{index: i, list: true} }

func TestSourcePath(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []step
		err  string
	}{
		{"answers", names("answers"), ""},
		{"answers.text", names("answers", "text"), ""},
		{"a.b.c", names("a", "b", "c"), ""},
		{`a\.b`, names("a.b"), ""},
		{`a\.b.c`, names("a.b", "c"), ""},
		{`a\\b`, names(`a\b`), ""},
		{`a\\.b`, names(`a\`, "b"), ""},
		{`answers(a\,b\,c).text`, names("answers(a,b,c)", "text"), ""},
		{"resps[0][0]", []step{{name: "resps"}, at(0), at(0)}, ""},
		{"filtered_resps[0]", []step{{name: "filtered_resps"}, at(0)}, ""},
		{"filtered_resps[-1]", []step{{name: "filtered_resps"}, at(-1)}, ""},
		{"doc.answers[12].text", []step{{name: "doc"}, {name: "answers"}, at(12), {name: "text"}}, ""},
		{"a[0].b[1].c", []step{{name: "a"}, at(0), {name: "b"}, at(1), {name: "c"}}, ""},
		{`a\[0]`, names("a[0]"), ""},
		{`a\[0][1]`, []step{{name: "a[0]"}, at(1)}, ""},
		{`a\.[0]`, []step{{name: "a."}, at(0)}, ""},
		{"a]", names("a]"), ""},
		{"a.", nil, "a name of its path is empty"},
		{".a", nil, "a name of its path is empty"},
		{"a..b", nil, "a name of its path is empty"},
		{"a[0].", nil, "a name of its path is empty"},
		{"a[0]..b", nil, "a name of its path is empty"},
		{`a\`, nil, "a backslash ends it"},
		{"[0]", nil, "an index [N] follows no name"},
		{"a.[0]", nil, "an index [N] follows no name"},
		{"a[", nil, "index [ is not closed with ]"},
		{"a[0", nil, "index [0 is not closed with ]"},
		{"a[]", nil, "index []: want a whole number"},
		{"a[x]", nil, "index [x]: want a whole number"},
		{"a[ 0]", nil, "index [ 0]: want a whole number"},
		{"a[+1]", nil, "index [+1]: want a whole number"},
		{"a[1.5]", nil, "index [1.5]: want a whole number"},
		{"a[01]", nil, "index [01]: write it 1, without a leading zero"},
		{"a[-0]", nil, "index [-0]: write it 0 ("},
		{"a[-01]", nil, "index [-01]: write it -1, without a leading zero"},
		{"a[00]", nil, "index [00]: write it 0 ("},
		{"a[99999999999999999999]", nil, "index [99999999999999999999]: too large a number"},
		{"a[0]b", nil, `index [0] is followed by "b", not by a dot`},
		{`a[0]\[`, nil, `index [0] is followed by "\\[", not by a dot`},
		{"a[0]]", nil, `index [0] is followed by "]", not by a dot`},
	} {
		got, err := sourcePath(tt.src)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("sourcePath(%q) = %v, %v; want error %q", tt.src, got, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("sourcePath(%q) = %v, %v; want %v", tt.src, got, err, tt.want)
		}
		if back := pathName(got); back != tt.src && tt.src != `a\.b.c` {
			t.Errorf("pathName(%v) = %q, want %q", got, back, tt.src)
		}
	}
}

// A CSV column is named by the path written without its escapes, indexes and all.
func TestColumn(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"answers.text", "answers.text"},
		{`answers\.text`, "answers.text"},
		{"resps[0][0]", "resps[0][0]"},
		{"doc.answers[-1].text", "doc.answers[-1].text"},
		{`a\[0]`, "a[0]"},
		{`a\,b[1]`, "a,b[1]"},
	} {
		if got := column(tt.src); got != tt.want {
			t.Errorf("column(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestParseMapPath(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{"answers=answers.text,id=meta.qid", ""},
		{`question=q\.text`, ""},
		{"answers=answers.", `map "answers=answers.": source "answers.": a name of its path is empty (a dot within a name is written \.)`},
		{`answers=a\`, `map "answers=a\\": source "a\\": a backslash ends it (\. is a dot within a name, \[ a bracket, \\ a backslash)`},
		{"prediction=resps[0][0],answers=doc.answer.aliases", ""},
		{"prediction=resps[0", `map "prediction=resps[0": source "resps[0": index [0 is not closed with ] (a [ within a name is written \[)`},
		{"prediction=[0]", `map "prediction=[0]": source "[0]": an index [N] follows no name (a [ within a name is written \[)`},
		{"prediction=resps[x]", `map "prediction=resps[x]": source "resps[x]": index [x]: want a whole number, 0 for the first item or -1 for the last (a [ within a name is written \[)`},
		{"prediction=resps[0],answers=resps[0]", `map "answers=resps[0]": source "resps[0]" is mapped twice (to prediction and to answers)`},
		{`prediction=resps[0],answers=resp\s[0]`, `map "answers=resp\\s[0]": source "resps[0]" is mapped twice (to prediction and to answers)`},
		{"split=question", `split=question makes field "question" the split and leaves the question without a source; give question=SOURCE too`},
		{"context=question,answers=a", `context=question makes field "question" the context and leaves the question without a source; give question=SOURCE too`},
		{"split=question,question=q", ""},
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
		{"lm-evaluation-harness samples", JSONL, Mapping{"id": "doc_id", "question": "doc.question", "answers": "doc.answer.aliases", "prediction": "resps[0][0]"},
			`{"doc_id":0,"doc":{"question":"Who?","answer":{"aliases":["x","y"],"value":"x"}},"target":"x","resps":[["the answer"]],"filtered_resps":["the answer"]}`,
			[]string{`{"schema":1,"id":"0","question":"Who?","answers":["x","y"],"meta":{"doc":{"answer":{"value":"x"}},"filtered_resps":["the answer"],"resps":[["the answer"]],"target":"x"},"prediction":{"text":"the answer"}}`}},
		{"filtered_resps", JSONL, Mapping{"prediction": "filtered_resps[0]"}, `{"id":"1","question":"q","filtered_resps":["a","b"]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"filtered_resps":["a","b"]},"prediction":{"text":"a"}}`}},
		{"last item", JSONL, Mapping{"prediction": "filtered_resps[-1]"}, `{"id":"1","question":"q","filtered_resps":["a","b"]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"filtered_resps":["a","b"]},"prediction":{"text":"b"}}`}},
		{"object, list, object", JSONL, Mapping{"prediction": "out.choices[1].text"}, `{"id":"1","question":"q","out":{"choices":[{"text":"a"},{"text":"b","n":2}],"model":"m"}}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"out":{"choices":[{"text":"a"},{"text":"b","n":2}],"model":"m"}},"prediction":{"text":"b"}}`}},
		{"answers through a list", JSONL, Mapping{"answers": "answers[0].text"}, `{"id":"1","question":"q","answers":[{"text":["a","b"]}]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":["a","b"],"meta":{"answers":[{"text":["a","b"]}]}}`}},
		{"escaped bracket", JSONL, Mapping{"prediction": `out\[0]`}, `{"id":"1","question":"q","out[0]":"a","out":["b"]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"out":["b"]},"prediction":{"text":"a"}}`}},
		{"index past the end", JSONL, Mapping{"prediction": "resps[0][1]"}, `{"id":"1","question":"q","resps":[["a"]]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"resps":[["a"]]}}`}},
		{"empty list", JSONL, Mapping{"prediction": "resps[0][0]"}, `{"id":"1","question":"q","resps":[]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"resps":[]}}`}},
		{"index past the start", JSONL, Mapping{"prediction": "resps[-2]"}, `{"id":"1","question":"q","resps":["a"]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"resps":["a"]}}`}},
		{"null item on the path", JSONL, Mapping{"prediction": "resps[0][0]"}, `{"id":"1","question":"q","resps":[null]}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"resps":[null]}}`}},
		{"null list on the path", JSONL, Mapping{"prediction": "resps[0][0]"}, `{"id":"1","question":"q","resps":null}`,
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"resps":null}}`}},
		{"question past the end", JSONL, Mapping{"question": "qs[1]"}, `{"id":"1","qs":["Why?"]}`,
			[]string{`p.jsonl:1 (id "1"): missing field "qs[1]" (its fields: id, qs)`}},
		{"question null item", JSONL, Mapping{"question": "qs[0]"}, `{"id":"1","qs":[null]}`,
			[]string{`p.jsonl:1 (id "1"): field "qs[0]" is null`}},
		{"index into an object", JSONL, Mapping{"prediction": "resps[0][0]"}, `{"id":"1","question":"q","resps":[{"text":"a"}]}`,
			[]string{`p.jsonl:1 (id "1"): field "resps[0][0]": resps[0]: want a list, got an object`}},
		{"index into a string", JSONL, Mapping{"prediction": "resps[0]"}, `{"id":"1","question":"q","resps":"a"}`,
			[]string{`p.jsonl:1 (id "1"): field "resps[0]": resps: want a list, got a string`}},
		{"name into a list item", JSONL, Mapping{"prediction": "resps[0].text"}, `{"id":"1","question":"q","resps":[["a"]]}`,
			[]string{`p.jsonl:1 (id "1"): field "resps[0].text": resps[0]: want an object, got a list`}},
		{"name given twice in a list item", JSONL, Mapping{"prediction": "out[0].text"}, `{"id":"1","question":"q","out":[{"text":"a","text":"b"}]}`,
			[]string{`p.jsonl:1 (id "1"): field "out[0].text" is given twice`}},
		{"id through a list", JSONL, Mapping{"id": "ids[0]"}, `{"question":"q","ids":[7,8]}`,
			[]string{`{"schema":1,"id":"7","question":"q","answers":[],"meta":{"ids":[7,8]}}`}},
		{"id of a bad item through a list", JSONL, Mapping{"id": "ids[0]"}, `{"question":"","ids":["q7"]}`,
			[]string{`p.jsonl:1 (id "q7"): field "question" is empty`}},
		{"id path not a list", JSONL, Mapping{"id": "ids[0]"}, `{"question":"q","ids":{"a":1}}`,
			[]string{`p.jsonl:1: field "ids[0]": ids: want a list, got an object`}},
		{"csv column named with indexes", CSV, Mapping{"prediction": "resps[0][0]"}, "id,question,resps[0][0],resps\n1,q,a,\"[['a']]\"\n",
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"meta":{"resps":"[['a']]"},"prediction":{"text":"a"}}`}},
		{"csv column named with an escaped bracket", CSV, Mapping{"prediction": `resps\[0]`}, "id,question,resps[0]\n1,q,a\n",
			[]string{`{"schema":1,"id":"1","question":"q","answers":[],"prediction":{"text":"a"}}`}},
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
		{`{"resps":[["x"]],"f":["y"]}`, "resps[0][0]"},
		{`{"a":[{"b":1},{"b":2}]}`, "a[-1].b"},
		{`{"a":[1]}`, "a[3]"},
		{`{"a":{"b":1}}`, "a[0]"},
		{`{"a[0]":1}`, `a\[0]`},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	f.Fuzz(func(t *testing.T, raw []byte, src string) {
		path, err := sourcePath(src)
		if err != nil {
			return
		}
		if again, err := sourcePath(pathName(path)); err != nil || !slices.Equal(again, path) {
			t.Fatalf("sourcePath(pathName(%v)) = %v, %v", path, again, err)
		}
		if len(splitPairs(src)) == 1 && strings.TrimSpace(src) == src {
			// --map keeps the source in one spelling, which names the same path and CSV column
			m, err := ParseMap("prediction=" + src)
			if err != nil || m["prediction"] != pathName(path) || column(m["prediction"]) != column(src) {
				t.Fatalf("ParseMap(prediction=%s) = %q, %v; want %q, the column %q", src, m, err, pathName(path), column(src))
			}
		}
		obj, repeated, ok := members(raw)
		if !ok || repeated != "" {
			return
		}
		var plain any
		if json.Unmarshal(raw, &plain) != nil {
			return
		}
		top := obj[path[0].name]
		val, found, err := fields{obj: obj, nested: true}.take(src)
		want, wantFound := plain, true
		for _, s := range path {
			if want == nil {
				break // a null on the path is the value
			}
			if s.list {
				l, isList := want.([]any)
				if !isList {
					if err == nil {
						t.Fatalf("take(%s, %q) = %s, %v, nil; want an error (%T on the path)", raw, src, val, found, want)
					}
					return
				}
				i := s.index
				if i < 0 {
					i += len(l)
				}
				if wantFound = i >= 0 && i < len(l); !wantFound {
					break
				}
				want = l[i]
				continue
			}
			m, isObject := want.(map[string]any)
			if !isObject {
				if err == nil {
					t.Fatalf("take(%s, %q) = %s, %v, nil; want an error (%T on the path)", raw, src, val, found, want)
				}
				return
			}
			if want, wantFound = m[s.name]; !wantFound {
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
		if rest, ok := obj[path[0].name]; ok && !json.Valid(rest) {
			t.Fatalf("take(%s, %q) left %s", raw, src, rest)
		}
		if rest := obj[path[0].name]; throughList(path) && !bytes.Equal(rest, top) {
			t.Fatalf("take(%s, %q) left %s, want the member through a list kept whole", raw, src, rest)
		}
	})
}

// A file of questions, a question an object, read as a SQuAD file, as its name has it detected,
// fails saying how it loads, unless it is a Hugging Face export of SQuAD (its answers an object of
// lists), which loads; a file that is neither, or a SQuAD file, does not fail.
func TestSQuADHuggingFaceHint(t *testing.T) {
	const hint = `; a file of one question an object loads with --format jsonl (see --map), and a Hugging Face export of SQuAD as squad when its first question has a context and "answers": {"text": [...], "answer_start": [...]}`
	hf := `{"id":"1","title":"T","context":"c","question":"q","answers":{"text":["a"],"answer_start":[0]}}`
	q := `{"id":"1","title":"T","context":"c","question":"q","answers":["a"]}`
	for _, tt := range []struct{ name, in, want string }{
		{"export, json lines", hf + "\n" + strings.Replace(hf, `"1"`, `"2"`, 1) + "\n", ""},
		{"export, json array", "[" + hf + "]", ""},
		{"export, json array, indented", "[\n  " + strings.ReplaceAll(hf, `,"`, ",\n    \"") + "\n]\n", ""},
		{"json lines", q + "\n" + q + "\n", `s.json: no "data" list, so no squad file (its questions are in {"data": [articles]})` + hint},
		{"json array", "[" + q + "," + q + "]", `s.json: a JSON array of questions, so no squad file (its questions are in {"data": [articles]})` + hint},
		{"json array, indented", "[\n  " + strings.ReplaceAll(q, `,"`, ",\n    \"") + "\n]\n", `s.json: a JSON array of questions, so no squad file (its questions are in {"data": [articles]})` + hint},
		// The "data" list alone says to wrap it, whether its article's first key is "paragraphs"
		// or that comes after a long title, longer than 64 kB included; an array of something else
		// is a list where an object was wanted.
		{"articles", `[{"paragraphs":[{"context":"c","qas":[]}],"title":"t"}]`, `s.json: a JSON array of articles, so no squad file (its articles are in {"data": [articles]}): wrap the array as {"data": [...]}`},
		{"articles, long title", `[{"title":"` + strings.Repeat("t", 40000) + `","paragraphs":[]}]`, `s.json: a JSON array of articles, so no squad file (its articles are in {"data": [articles]}): wrap the array as {"data": [...]}`},
		{"articles past the buffer", `[{"title":"` + strings.Repeat("t", 70000) + `","paragraphs":[]}]`, `s.json: a JSON array of articles, so no squad file (its articles are in {"data": [articles]}): wrap the array as {"data": [...]}`},
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
