package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type foldAnswer struct {
	Text string          `json:"text"`
	N    int             `json:"n"`
	Raw  json.RawMessage `json:"raw"`
	Key  string          `json:"key"`
	//lint:ignore U1000 an unexported field, which the decoder does not read: no key names it
	inner string
}

type foldEmbedded struct {
	Title string `json:"title"`
}

type foldItem struct {
	foldEmbedded
	Question string                  `json:"question"`
	Answers  []foldAnswer            `json:"answers"`
	Ptr      *[]*foldAnswer          `json:"ptr"`
	ByName   map[string]foldAnswer   `json:"by_name"`
	Grid     [][]foldAnswer          `json:"grid"`
	Any      any                     `json:"any"`
	Plain    string                  // no tag: its name is its key
	Skipped  string                  `json:"-"`
	Turns    map[string][]foldAnswer `json:"turns"`
}

func TestFoldedKey(t *testing.T) {
	for _, tc := range []struct {
		name, in    string
		path, field string
	}{
		{"none", `{"question":"q","answers":[{"text":"a","n":1}],"extra":{"Text":1}}`, "", ""},
		{"top", `{"question":"q","Question":"r"}`, "Question", "question"},
		{"top alone", `{"QUESTION":"r"}`, "QUESTION", "question"},
		{"in a list", `{"answers":[{"text":"a"},{"text":"b","Text":"c"}]}`, "answers[1].Text", "answers[1].text"},
		{"through a pointer", `{"ptr":[{"n":1},{"N":2}]}`, "ptr[1].N", "ptr[1].n"},
		{"in a map", `{"by_name":{"x":{"text":"a"},"y":{"tExt":"b"}}}`, "by_name.y.tExt", "by_name.y.text"},
		{"in a list of lists", `{"grid":[[],[{"n":1}],[{"Raw":1}]]}`, "grid[2][0].Raw", "grid[2][0].raw"},
		{"in a map of lists", `{"turns":{"session_1":[{"text":"a"},{"KEY":"b"}]}}`, "turns.session_1[1].KEY", "turns.session_1[1].key"},
		{"embedded field", `{"Title":"t"}`, "Title", "title"},
		{"untagged field", `{"plain":"p"}`, "plain", "Plain"},
		{"untagged field exact", `{"Plain":"p"}`, "", ""},
		{"Kelvin sign", `{"answers":[{"\u212aey":"k"}]}`, "answers[0].\u212aey", "answers[0].key"},
		{"escaped exact key", `{"answers":[{"\u0074ext":"a","N":1}]}`, "answers[0].N", "answers[0].n"},
		{"escaped variant", `{"\u0051uestion":"q"}`, "Question", "question"},
		{"unexported field", `{"answers":[{"Inner":"x"}]}`, "", ""},
		{"tag -", `{"skipped":"x","Skipped":"y"}`, "", ""},
		{"raw not looked into", `{"answers":[{"raw":{"Text":1}}]}`, "", ""},
		{"any not looked into", `{"any":{"Question":1}}`, "", ""},
		{"wrong kind not looked into", `{"answers":{"Text":1},"by_name":[{"Text":1}]}`, "", ""},
		{"not an object", `[{"Question":1}]`, "", ""},
		{"blanks", " { \"answers\" : [ { \"n\" : 1 } , { \"N\" : 2 } ] } ", "answers[1].N", "answers[1].n"},
		{"first of two", `{"answers":[{"Text":"a"}],"Question":"b"}`, "answers[0].Text", "answers[0].text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, field := FoldedKey([]byte(tc.in), reflect.TypeFor[foldItem]())
			if path != tc.path || field != tc.field {
				t.Errorf("FoldedKey(%s) = %q, %q; want %q, %q", tc.in, path, field, tc.path, tc.field)
			}
		})
	}
}

// TestFoldedKeyDecoder checks the premise: encoding/json reads each member FoldedKey names as the
// field it names, so that a value decoded from the input differs from one decoded without it.
// TestFoldedKeyList checks the paths of a value that is a list at its top.
func TestFoldedKeyList(t *testing.T) {
	path, field := FoldedKey([]byte(`[{"text":"a"},{"Text":"b"}]`), reflect.TypeFor[[]foldAnswer]())
	if path != "[1].Text" || field != "[1].text" {
		t.Errorf("FoldedKey = %q, %q; want %q, %q", path, field, "[1].Text", "[1].text")
	}
}

func TestFoldedKeyDecoder(t *testing.T) {
	var v foldItem
	if err := json.Unmarshal([]byte(`{"answers":[{"text":"a","Text":"b"}],"QUESTION":"q"}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Answers[0].Text != "b" || v.Question != "q" {
		t.Errorf("encoding/json no longer reads keys by case folding: %+v", v)
	}
}

func TestFoldedKeyAllocs(t *testing.T) {
	b := []byte(`{"question":"q","answers":[{"text":"a","n":1},{"text":"b"}],"by_name":{"x":{"key":"k"}},"extra":{"Text":1}}`)
	typ := reflect.TypeFor[foldItem]()
	FoldedKey(b, typ) // fills the field cache
	if n := testing.AllocsPerRun(100, func() { FoldedKey(b, typ) }); n != 0 {
		t.Errorf("FoldedKey allocates %v times for an input without a folded key, want 0", n)
	}
}

// FuzzFoldedKey checks FoldedKey against encoding/json: where it finds no member, decoding the
// input into the type gives what reading each member by its exact key gives (the reference
// decoder below, over the input decoded as plain JSON values); where it finds one, the two
// paths name members of the input whose keys differ only in case.
func FuzzFoldedKey(f *testing.F) {
	for _, s := range []string{
		`{"question":"q","answers":[{"text":"a","n":1}]}`, `{"Question":"q"}`, `{"answers":[{"TEXT":"a"}]}`,
		`{"by_name":{"a":{"text":"x"},"a":{"N":1}}}`, `{"answers":[{"text":"a"}],"answers":[{"Text":"b"}]}`,
		`{"\u0071uestion":"q","answers":null}`, `{"answers":[{"\u212aey":"k"}]}`,
	} {
		f.Add([]byte(s))
	}
	type answer struct {
		Text string `json:"text"`
		N    int    `json:"n"`
		Key  string `json:"key"`
	}
	type item struct {
		Question string            `json:"question"`
		Answers  []answer          `json:"answers"`
		ByName   map[string]answer `json:"by_name"`
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got item
		if json.Unmarshal(b, &got) != nil || strings.Contains(string(b), "null") || repeatsKey(b) {
			return // a null member, or a key given again, keeps (part of) what an earlier one gave: not modelled below
		}
		path, field := FoldedKey(b, reflect.TypeFor[item]())
		if path != "" {
			if !strings.EqualFold(path, field) || path == field {
				t.Fatalf("FoldedKey(%s) = %q, %q: not the same but for case", b, path, field)
			}
			return
		}
		var plain any
		if json.Unmarshal(b, &plain) != nil {
			t.Fatalf("%s decodes into the type but not as plain JSON", b)
		}
		str := func(v any) string { s, _ := v.(string); return s }
		num := func(v any) int { n, _ := v.(float64); return int(n) }
		ans := func(v any) answer {
			m, _ := v.(map[string]any)
			return answer{Text: str(m["text"]), N: num(m["n"]), Key: str(m["key"])}
		}
		top, _ := plain.(map[string]any)
		var want item
		want.Question = str(top["question"])
		if l, ok := top["answers"].([]any); ok {
			want.Answers = make([]answer, len(l))
			for i, a := range l {
				want.Answers[i] = ans(a)
			}
		}
		if m, ok := top["by_name"].(map[string]any); ok {
			want.ByName = map[string]answer{}
			for k, a := range m {
				want.ByName[k] = ans(a)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("FoldedKey(%s) found nothing, but encoding/json decodes %+v, the exact keys %+v", b, got, want)
		}
	})
}

// repeatsKey reports whether an object in the JSON value b has two members of one key.
func repeatsKey(b []byte) bool {
	repeated := false
	if ms, err := Members(b); err == nil {
		seen := map[string]bool{}
		for _, m := range ms {
			repeated = repeated || seen[m.Key] || repeatsKey(b[m.ValueStart:m.End])
			seen[m.Key] = true
		}
		return repeated
	}
	walkElements(b, func(_, start, end int) bool {
		repeated = repeatsKey(b[start:end])
		return repeated
	})
	return repeated
}
