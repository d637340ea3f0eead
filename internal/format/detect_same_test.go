package format

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sameHeads are heads whose detection TestDetectSame and FuzzDetectSame compare with the
// reference (detect_ref_test.go): each benchmark's first object, whole and cut, and JSON that
// goes wrong in the ways a json.Decoder tells apart (a value cut short or no JSON, a number that
// ends early or is out of float64's range, escapes, a key given twice, nesting deeper than
// encoding/json reads).
var sameHeads = []string{
	`{"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"qas": [{"id": "1", "question": "q", "answers": []}], "context": "长江"}]}`,
	`{"data": [{"paragraphs": [{"context": "长江（Yangtze）是中国最长的河流。", "qas": [{"id": "TRAIN_1_QUERY_0", "question": "长江是什么？"`,
	`{"data": [{"t\u0069tle": "\u957f\u6c5f", "paragraphs": [{"qas": [], "context": "\ud840\udc00 ab"}]}]}`,
	`[{"context_id": "TRIAL_0", "context_text": "长江", "qas": [{"query_id": "TRIAL_0_QUERY_0", "query_text": "q", "answers": ["a"]}]}]`,
	`[{"question_id":"q","question_type":"multi-session","question":"How many?","answer":3,"haystack_sessions":[[{"role":"user","content":"hi"}]]}, {"question_id":"r"}]`,
	`[{"qa":[{"question":"When?","answer":"May","evidence":["D1:3"],"category":2}],"conversation":{"speaker_a":"A","session_1":[]},"sample_id":"conv-1"}]`,
	`{"_id":"5a8b","answer":"yes","question":"q","supporting_facts":[["T",0]],"context":[["T",["s"]]],"type":"comparison","level":"easy"}`,
	`{"id":"5a7a","question":"q","answer":"a","supporting_facts":{"title":["A"],"sent_id":[0]},"context":{"title":["A"],"sentences":[["s"]]}}`,
	`{"_id": "5a8b57f2", "question": "Who?", "context": [["T", ["s0.", " s1."]], ["U", []]]}` + "\n" + `{"_id":"5a8b57f3"`,
	`{"_id": "5a8b57f2", "question": "Who?", "context": [["T", [null, "s"]]], "context": [["T", ["s"]]]}`,
	`{"id":"1","title":"T","context":"c","question":"q?","answers":{"text":["a"],"answer_start":[0]}}` + "\n",
	`[{"id":"1","context":"c","question":"q?","answers":null}]`,
	`{"id": 614, "type": "Extraction", "prompt": ["p"], "rubric": "r", "canonical_answer": "", "gpt4res": "a", "gpt4judge": "j"}`,
	`{"sequence_id": 1, "type": "Logical Reasoning", "question_ids": [614, 615]}`,
	`{"schema":1,"id":"hotpotqa:1","meta":{"supporting_facts":[],"_id":"x"}}` + "\n{",
	"[\n  {\n    \"qa\": [\n      {\n        \"question\": \"When?\",\n        \"evidence\": [\n          \"D1:3\"\n        ],\n        \"category\": 2\n",
	"x}\n" + `{"q":"generic"}` + "\n",
	`{"a": 12-3, "b": 1}`, `{"a": 0123}`, `{"a": -}`, `{"a": 1.}`, `{"a": 1e+}`, `{"a": 1.5e`, `{"a": -0.0E-7`, `{"title": 1e400, "context": "长"}`,
	`{"a": truex}`, `{"a": nul`, `{"a": null`, `{"a": fals`, `{"a"`, `{"a" `, `{"a": `, `{"a" x}`, `{"a":1 "b":2}`, `{"a":1,}`, `{"a":1]`,
	"{\"title\": \"x\x1f\", \"context\": \"长\"}", `{"title": "\u123x", "context": "长"}`, `{"context": "长", "n": -1e400, "title": "xy"}`,
	`{"a": "x\u12"}`, `{"a": "x\q"}`, "{\"a\": \"x\ty\"}", `{"a\"b": 1, "a\\": 2, "\u00e9": 3}`, "{\"\xff\": \"\xfe\"}", `{"a": [1, 2,]}`,
	`{"a": [}`, `{"a": {"b": "}"}, "c": "\\"}`, `[]`, `[1, {"a": 1}]`, `[[{"a": 1}]]`, `"title"`, `{}`, `{} {"title": "长"}`,
	`{"title": "长"} {"title": "x"}`, `{"title": ["长", {"context": "江"}]}`, `{"a": [` + strings.Repeat("[", 10001), `{"a": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"a": "cut`, `{"a": "cut\`, `{"a": "cut\u00`, `{"schema": 1, "id": "x"}`, ` {"schema": 1e999, "id": "x"} `, `["x"] `, `"x`, `1 2`, `{"a": {"b": [1, "x`, `{"a": {"b" 1}`, `{"a": {"b": 1}} trailing`,
}

// TestDetectSame: each function Detect is made of tells what the reference (the functions as
// they were, which decoded the head with encoding/json for each rule) tells (but for
// isRecordLine, which both share), so that Detect, whose rules call them in the order they
// did, tells what it did, of
// sameHeads and of the files in testdata, whole and cut at many lengths, as a head ends where
// MaxHead, a first article or the input does.
func TestDetectSame(t *testing.T) {
	heads := slices.Clone(sameHeads)
	files, _ := filepath.Glob("../../testdata/*/*.json*")
	more, _ := filepath.Glob("../load/testdata/*.json*")
	for _, path := range append(files, more...) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		heads = append(heads, string(HeadOf(text[:min(len(text), MaxHead)])))
	}
	if len(heads) < len(sameHeads)+10 {
		t.Fatalf("%d files of testdata found", len(heads)-len(sameHeads))
	}
	for _, head := range heads {
		for n := 0; n <= len(head); n = max(n+1, n+n/16) {
			checkSame(t, []byte(head[:n]))
		}
		checkSame(t, []byte(head))
	}
}

// FuzzDetectSame: each function Detect is made of tells what the reference tells, of
// any head.
func FuzzDetectSame(f *testing.F) {
	for _, head := range sameHeads {
		f.Add([]byte(head))
	}
	f.Fuzz(func(t *testing.T, head []byte) { checkSame(t, head) })
}

// checkSame reports where the detection of head, or a part of it, is not the reference's.
func checkSame(t *testing.T, head []byte) {
	t.Helper()
	has := func(key string) bool { return bytes.Contains(head, []byte(`"`+key+`"`)) }
	quoted := quotedHas(head)
	for key := range textKeys {
		if got, want := quoted(key), has(key); got != want {
			t.Errorf("quotedHas(%.200q)(%q) = %v, bytes.Contains %v", head, key, got, want)
		}
	}
	first := firstMembers(head)
	ms, cut, rest, whole := refFirstMembers(head)
	gotCut, gotRest := first.cut()
	if !maps.EqualFunc(first.ms, ms, sameRaw) || gotCut != cut || !bytes.Equal(gotRest, rest) || first.whole != whole {
		t.Errorf("firstMembers(%.200q) = %q, cut %q %.40q, whole %v; the reference %q, cut %q %.40q, whole %v",
			head, first.ms, gotCut, gotRest, first.whole, ms, cut, rest, whole)
	}
	refRecord, refJSON := refRecordLine(head)
	for _, tt := range []struct {
		what      string
		got, want bool
	}{
		{"mostlyHan", mostlyHan(head), refMostlyHan(head)},
		{"SQuADExport", SQuADExport(head), refSQuADExport(head)},
		{"hotpotItem", hotpotItem(first, has), refHotpotItem(head, has)},
		{"hotpotTestItem", hotpotTestItem(first), refHotpotTestItem(head)},
		{"squadLayout", squadLayout(first.ms), refSquadLayout(ms)},
		{"locomoSample", locomoSample(first.ms), refLocomoSample(ms)},
		{"cmrcTrialArticle", cmrcTrialArticle(first.ms), refCmrcTrialArticle(ms)},
	} {
		if tt.got != tt.want {
			t.Errorf("%s(%.200q) = %v, the reference %v", tt.what, head, tt.got, tt.want)
		}
	}
	if record, isJSON := recordLine(head); record != refRecord || isJSON != refJSON {
		t.Errorf("recordLine(%.200q) = %v, %v; the reference %v, %v", head, record, isJSON, refRecord, refJSON)
	}
	if json.Valid(head) {
		checkWalk(t, head)
	}
}

// checkWalk reports where members or items, and the values in them, read raw, valid JSON, other
// than json.Unmarshal does.
func checkWalk(t *testing.T, raw []byte) {
	t.Helper()
	switch {
	case isObject(raw):
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got := members(raw)
		if !maps.EqualFunc(got, want, sameRaw) {
			t.Errorf("members(%.200q) = %q, json.Unmarshal's %q", raw, got, want)
		}
		for _, v := range got {
			checkWalk(t, v)
		}
	case isList(raw):
		var want []json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got := slices.Collect(items(raw))
		if !slices.EqualFunc(got, want, func(a []byte, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			t.Errorf("items(%.200q) = %q, json.Unmarshal's %q", raw, got, want)
		}
		for _, v := range got {
			checkWalk(t, v)
		}
	default:
		if got := members(raw); got != nil {
			t.Errorf("members(%.200q) = %q, want nil", raw, got)
		}
	}
}

// sameRaw reports whether a and b hold the same bytes.
func sameRaw(a, b json.RawMessage) bool { return bytes.Equal(a, b) }
