package score

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	line := `{"answers":["yes","no"],"meta":{"label":2,"group":"q1","deep":{"x":[1,{"y":"z"}]},"nil":null},"prediction":{"text":"a","score":0.25,"loss":"3.5"}}`
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &top); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		label string
		ok    bool
	}{
		{"meta.label", "2", true},
		{"meta.group", "q1", true},
		{"answers[0]", "yes", true},
		{"answers.1", "no", true},
		{"answers[2]", "", false},
		{"answers.-1", "", false}, // no element, not a panic
		{"meta.deep.x[1].y", "z", true},
		{"meta.nil", "", false},
		{"meta.missing", "", false},
		{"prediction.text.more", "", false},
		{"prediction.score", "0.25", true},
		{"meta.deep", "", false}, // an object is no label
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p, err := parsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			raw, ok := p.lookup(top)
			label := ""
			if ok {
				label, ok = rawLabel(raw)
			}
			if label != tt.label || ok != tt.ok {
				t.Errorf("lookup(%q) = %q, %v, want %q, %v", tt.path, label, ok, tt.label, tt.ok)
			}
		})
	}
	p, _ := parsePath("prediction.loss")
	raw, _ := p.lookup(top)
	if v, ok := rawNumber(raw); !ok || v != 3.5 {
		t.Errorf("rawNumber(%s) = %v, %v, want 3.5, true", raw, v, ok)
	}
}

func TestParsePathErrors(t *testing.T) {
	for _, s := range []string{"", "  ", "meta..label", ".x", "x."} {
		if p, err := parsePath(s); err == nil {
			t.Errorf("parsePath(%q) = %q, want an error", s, p)
		}
	}
}

func TestLabelMap(t *testing.T) {
	m, err := parseLabelMap(" Yes = 1 ,no=0,=empty")
	if err != nil {
		t.Fatal(err)
	}
	if want := (labelMap{"yes": "1", "no": "0", "": "empty"}); !cmp.Equal(m, want) {
		t.Errorf("parseLabelMap = %v, want %v", m, want)
	}
	tests := []struct{ in, want string }{
		{"Yes", "1"}, {"  YES\n", "1"}, {"no", "0"}, {"Maybe ", "Maybe"}, {"   ", "empty"}, {"yes.", "yes."},
	}
	for _, tt := range tests {
		if got := m.normalize(tt.in); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var none labelMap
	if got := none.normalize(" Yes "); got != " Yes " {
		t.Errorf("normalize without a map(%q) = %q, want it unchanged", " Yes ", got)
	}
	for _, bad := range []string{"yes=1,no", "a=1,A=2"} {
		if _, err := parseLabelMap(bad); err == nil {
			t.Errorf("parseLabelMap(%q) succeeded, want an error", bad)
		}
	}
}

// A --label-map file is a JSON object, whose keys Go reads in no fixed order: two keys that match
// the same label (one trimmed and lower-cased answer) but give it different labels would map it
// to either, run by run, so the file is refused, as the inline pairs are; keys that agree are kept.
func TestLabelMapFileKeysThatMatchOneLabel(t *testing.T) {
	tests := []struct {
		name, json string
		want       labelMap // nil: an error
		wantErr    string
	}{
		{"case twins agreeing", `{"Yes": "1", "yes": 1, "no": "0"}`, labelMap{"yes": "1", "no": "0"}, ""},
		{"case twins differing", `{"YES": "1", "yes": "yes", "no": "0"}`, nil, `keys "YES" and "yes" both match the label "yes" but map it to "1" and "yes"`},
		{"white space twins differing", `{" no": "0", "no ": "1"}`, nil, `keys " no" and "no " both match the label "no" but map it to "0" and "1"`},
		{"bad labels name the first key", `{"b": [], "a": {}}`, nil, `label of "a" is not a string or number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "labels.json")
			if err := os.WriteFile(path, []byte(tt.json), 0o644); err != nil {
				t.Fatal(err)
			}
			// Map order differs from run to run: ask often enough to meet both orders.
			for range 50 {
				m, err := parseLabelMap(path)
				if tt.want == nil {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("parseLabelMap = %v, %v; want an error with %q", m, err, tt.wantErr)
					}
					continue
				}
				if err != nil || !cmp.Equal(m, tt.want) {
					t.Fatalf("parseLabelMap = %v, %v; want %v", m, err, tt.want)
				}
			}
		})
	}
}

// TestLabelMapFileSyntax: a --label-map file that is no JSON object names the line and column of
// the byte at fault, as the other files the commands read do.
func TestLabelMapFileSyntax(t *testing.T) {
	for _, tt := range []struct{ name, json, want string }{
		{"trailing comma", "{\n \"yes\": 1,\n \"no\": 0,\n}\n", `:4: invalid character '}' looking for beginning of object key string at column 1`},
		{"cut", "{\n \"yes\": 1,\n \"no\": 0\n", `:3: unexpected end of JSON input`},
		{"a list", `["yes", "no"]`, `: want a JSON object of answer to label, got a list`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "labels.json")
			if err := os.WriteFile(path, []byte(tt.json), 0o644); err != nil {
				t.Fatal(err)
			}
			if m, err := parseLabelMap(path); err == nil || !strings.HasPrefix(err.Error(), path+tt.want) {
				t.Errorf("parseLabelMap(%q) = %v, %v; want error %q", tt.json, m, err, path+tt.want)
			}
		})
	}
}

func FuzzLabelMap(f *testing.F) {
	for _, s := range []string{"yes=1,no=0", " Yes = 1 ", "=x", "a=b=c", "İ=1", "entailment=0,neutral=1,contradiction=2"} {
		f.Add(s, "Yes")
	}
	f.Fuzz(func(t *testing.T, spec, label string) {
		if !strings.Contains(spec, "=") {
			return // a file name
		}
		m, err := parseLabelMap(spec)
		if err != nil {
			return
		}
		got := m.normalize(label)
		if utf8.ValidString(spec) && utf8.ValidString(label) && !utf8.ValidString(got) {
			t.Errorf("normalize(%q) = %q, not valid UTF-8", label, got)
		}
		if v, ok := m[strings.ToLower(strings.TrimSpace(label))]; ok && got != v {
			t.Errorf("normalize(%q) = %q, want the mapped %q", label, got, v)
		}
		for k, v := range m {
			if k != strings.ToLower(k) || k != strings.TrimSpace(k) || v != strings.TrimSpace(v) {
				t.Errorf("parseLabelMap(%q) has untrimmed or upper-case entry %q=%q", spec, k, v)
			}
		}
	})
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"meta.label", "answers[0]", "a.b.c", "x[1][2]", "..", "[]"} {
		f.Add(s)
	}
	top := map[string]json.RawMessage{"a": json.RawMessage(`{"b":[1,{"c":"d"}]}`)}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePath(s)
		if err != nil {
			return
		}
		for _, seg := range p {
			if seg == "" {
				t.Errorf("parsePath(%q) = %q has an empty segment", s, p)
			}
		}
		p.lookup(top) // must not panic
		if q, err := parsePath(p.String()); err != nil || !cmp.Equal(q, p) {
			t.Errorf("parsePath(%q) = %q, %v, want %q", p.String(), q, err, p)
		}
	})
}

// TestTopMembers: a key given twice is its last value, but two meta or judgments objects are
// merged, the later member's keys winning, as the record decoder reads them.
func TestTopMembers(t *testing.T) {
	for _, tc := range []struct {
		line string
		want map[string]string // key → raw value, compacted
	}{
		{`{"id":"a","meta":{"level":"easy"}}`, map[string]string{"id": `"a"`, "meta": `{"level":"easy"}`}},
		{`{"id":"a","meta":{"level":"easy","k":0},"meta":{"k":1}}`, map[string]string{"id": `"a"`, "meta": `{"k":1,"level":"easy"}`}},
		{`{"judgments":{"a":{"score":1}},"id":"x","judgments":{"b":{"score":0}}}`,
			map[string]string{"id": `"x"`, "judgments": `{"a":{"score":1},"b":{"score":0}}`}},
		{`{"meta":{"level":"easy"},"meta":null}`, map[string]string{"meta": `null`}},
		{`{"meta":null,"meta":{"k":1}}`, map[string]string{"meta": `{"k":1}`}},
		{`{"id":"a","id":"b","note":"meta meta \"meta\" \"meta\""}`, map[string]string{"id": `"b"`, "note": `"meta meta \"meta\" \"meta\""`}},
	} {
		top, err := topMembers([]byte(tc.line))
		if err != nil {
			t.Errorf("topMembers(%s): %v", tc.line, err)
			continue
		}
		got := map[string]string{}
		for k, v := range top {
			var b bytes.Buffer
			if err := json.Compact(&b, v); err != nil {
				t.Fatal(err)
			}
			got[k] = b.String()
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("topMembers(%s) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestRawNumber(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want float64
		ok   bool
	}{
		{`3.5`, 3.5, true},
		{`-0`, 0, true},
		{`1e-3`, 0.001, true},
		{`"0.9"`, 0.9, true},
		{`" .5 "`, 0.5, true},
		{`"NaN"`, 0, false},
		{`"Infinity"`, 0, false},
		{`"-inf"`, 0, false},
		{`"0x1p-1"`, 0, false},
		{`"1_000"`, 0, false},
		{`"0,5"`, 0, false},
		{`1e309`, 0, false},
		{`true`, 0, false},
		{`null`, 0, false},
		{`""`, 0, false},
	} {
		v, ok := rawNumber(json.RawMessage(tt.raw))
		if ok != tt.ok || ok && v != tt.want {
			t.Errorf("rawNumber(%s) = %v, %v, want %v, %v", tt.raw, v, ok, tt.want, tt.ok)
		}
	}
}
