package record

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestLoCoMoCategory(t *testing.T) {
	for _, c := range []struct {
		typ, category string // category "" leaves meta.category out
		want          int
		ok            bool
		err           string
	}{
		{typ: "single_hop", want: 4, ok: true},
		{typ: "multi_hop", want: 1, ok: true},
		{typ: "adversarial", want: 5, ok: true},
		{typ: "bridge"},
		{},
		{typ: "single_hop", category: "null", want: 4, ok: true},
		{typ: "single_hop", category: "5", want: 5, ok: true}, // meta.category wins over the type
		{category: "3.0", want: 3, ok: true},
		{category: `"2"`, want: 2, ok: true},
		{category: `" 1 "`, want: 1, ok: true},
		{typ: "single_hop", category: "6", err: "meta.category: want a LoCoMo category, 1 to 5, got 6"},
		{category: "0", err: "got 0"},
		{category: "-4", err: "got -4"},
		{category: "2.5", err: "got 2.5"},
		{category: "1e400", err: "got 1e400"},
		{category: "true", err: "got true"},
		{category: `"two"`, err: `got "two"`},
		{category: `""`, err: `got ""`},
		{category: "[1]", err: "got [1]"},
		{category: `{"n":1}`, err: `got {"n":1}`},
		{category: `"` + strings.Repeat("é", 30) + `"`, err: `got "` + strings.Repeat("é", 19) + "…"},
	} {
		r := &Record{ID: "x", Type: c.typ}
		if c.category != "" {
			r.Meta = map[string]json.RawMessage{"category": json.RawMessage(c.category)}
		}
		n, ok, err := r.LoCoMoCategory()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || n != 0 || ok {
				t.Errorf("type %q category %s: (%d, %v, %v), want an error with %q", c.typ, c.category, n, ok, err, c.err)
			}
			continue
		}
		if n != c.want || ok != c.ok || err != nil {
			t.Errorf("type %q category %s: (%d, %v, %v), want (%d, %v, nil)", c.typ, c.category, n, ok, err, c.want, c.ok)
		}
	}
}

func TestLoCoMoType(t *testing.T) {
	for n, want := range map[int]string{-1: "", 0: "", 1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial", 6: ""} {
		if got := LoCoMoType(n); got != want {
			t.Errorf("LoCoMoType(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestExcerpt: a meta value an error quotes is quoted whole up to 40 bytes, and cut to 40 after.
func TestExcerpt(t *testing.T) {
	s40 := `"` + strings.Repeat("x", 38) + `"`
	for _, c := range []struct{ raw, want string }{
		{" 5 ", "5"},
		{s40, s40},
		{s40 + " ", s40},
		{`"` + strings.Repeat("x", 39) + `"`, `"` + strings.Repeat("x", 39) + "…"},
	} {
		if got := excerpt([]byte(c.raw)); got != c.want {
			t.Errorf("excerpt(%q) = %q, want %q", c.raw, got, c.want)
		}
	}
}

func TestAbstention(t *testing.T) {
	for _, c := range []struct {
		id, abstention string // abstention "" leaves meta.abstention out
		want           bool
		err            string
	}{
		{id: "longmemeval:gpt4_2655b836"},
		{id: "longmemeval:gpt4_2655b836_abs", want: true},
		{id: "q_abs_2", want: true}, // anywhere in the question id, as upstream tests it
		// a generic row's default id, FILE:LINE or FILE:LINE:COLUMN: the file's name is no question id
		{id: "paper_abstracts.csv:2"},
		{id: "semeval14_absa.jsonl:3:17"},
		{id: "data:q_abs:3"}, // only what follows the last ":" is the question id
		{id: "run_abs.jsonl:4", abstention: "true", want: true},
		{id: "q", abstention: "true", want: true},
		{id: "q", abstention: "false"},
		{id: "q", abstention: "null"},
		{id: "q_abs", abstention: "false", want: true},
		{id: "q", abstention: `"yes"`, err: `meta.abstention: want true or false, got "yes"`},
		{id: "q", abstention: "1", err: "got 1"},
	} {
		r := &Record{ID: c.id}
		if c.abstention != "" {
			r.Meta = map[string]json.RawMessage{"abstention": json.RawMessage(c.abstention)}
		}
		got, err := r.Abstention()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: (%v, %v), want an error with %q", c.id, c.abstention, got, err, c.err)
			}
			continue
		}
		if got != c.want || err != nil {
			t.Errorf("%s %s: (%v, %v), want (%v, nil)", c.id, c.abstention, got, err, c.want)
		}
	}
}

// FuzzFacts: whatever JSON meta.category and meta.abstention hold, reading them never panics; a
// category read is one of LoCoMo's five, and a value that is not read is an error, not absent.
func FuzzFacts(f *testing.F) {
	for _, s := range []string{"4", `"2"`, "7", "null", "true", "2.5", "1e400", `"five"`, "[1]", `{"n":1}`} {
		f.Add(s, "single_hop", "q_abs")
	}
	f.Fuzz(func(t *testing.T, raw, typ, id string) {
		if !json.Valid([]byte(raw)) {
			return // meta holds what a valid line decoded to
		}
		r := &Record{ID: id, Type: typ, Meta: map[string]json.RawMessage{"category": json.RawMessage(raw), "abstention": json.RawMessage(raw)}}
		n, ok, err := r.LoCoMoCategory()
		switch {
		case err != nil && (n != 0 || ok):
			t.Fatalf("LoCoMoCategory(%s) = (%d, %v, %v): an error with a category", raw, n, ok, err)
		case err == nil && ok && LoCoMoType(n) == "":
			t.Fatalf("LoCoMoCategory(%s) = %d, not a LoCoMo category", raw, n)
		case err == nil && !ok && strings.TrimSpace(raw) != "null":
			t.Fatalf("LoCoMoCategory(%s): neither read nor an error", raw)
		}
		abs, err := r.Abstention()
		if raw := strings.TrimSpace(raw); err == nil && raw != "true" && raw != "false" && raw != "null" {
			t.Fatalf("Abstention(%s) = %v without an error", raw, abs)
		}
	})
}

func TestInDataset(t *testing.T) {
	for _, c := range []struct {
		dataset, name string
		want          bool
	}{
		{"locomo", "locomo", true},
		{"LoCoMo", "locomo", true},
		{"LONGMEMEVAL", "longmemeval", true},
		{"locomo10", "locomo", false},
		{"", "locomo", false},
	} {
		if got := (&Record{Dataset: c.dataset}).InDataset(c.name); got != c.want {
			t.Errorf("Record{Dataset: %q}.InDataset(%q) = %v, want %v", c.dataset, c.name, got, c.want)
		}
	}
}

func TestIsChinese(t *testing.T) {
	for _, c := range []struct {
		lang string
		want bool
	}{
		{"zh", true},
		{"ZH", true},
		{"zh-CN", true},
		{"zh-Hans", true},
		{"zh_TW", true},
		{"", false},
		{"en", false},
		{"zho", true},
		{"ZHO-Hant", true},
		{"chi", true},
		{"cmn", true},
		{"cmn-Hans-CN", true},
		{"yue_HK", true},
		{"lzh", true},
		{"nan-Hant", true},
		{"NaN", false}, // a missing value written out, not Min Nan
		{"nan", false},
		{"zh.", false},
		{"x-zh", false},
		{"-zh", false},
		{"zhx", false},
		{"ja", false},
		{"cm", false},
		{" zh", true}, // a CSV cell after ", "
		{"zh-CN\t", true},
		{" nan ", false},
		{" ", false},
	} {
		if got := (&Record{Lang: c.lang}).IsChinese(); got != c.want {
			t.Errorf("Record{Lang: %q}.IsChinese() = %v, want %v", c.lang, got, c.want)
		}
	}
}

// FuzzParseLoCoMoCategory: any JSON value is read without a panic as a category from 1 to 5 or
// refused, and a category read writes back as a number that reads the same.
func FuzzParseLoCoMoCategory(f *testing.F) {
	for _, s := range []string{"1", "5", "5.0", "3e0", `"2"`, `" 4 "`, `"+3"`, "0", "6", "-1", "2.5", "1e400",
		"null", "true", `""`, `"two"`, "[1]", `{"n":1}`, `"\u0035"`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, err := ParseLoCoMoCategory(raw)
		if err != nil {
			if n != 0 {
				t.Fatalf("ParseLoCoMoCategory(%q) = %d, %v, want 0 with the error", raw, n, err)
			}
			return
		}
		if LoCoMoType(n) == "" {
			t.Fatalf("ParseLoCoMoCategory(%q) = %d, want 1 to 5", raw, n)
		}
		if again, err := ParseLoCoMoCategory(json.RawMessage(strconv.Itoa(n))); again != n || err != nil {
			t.Fatalf("ParseLoCoMoCategory(%d) = %d, %v, want %d, as %q gave", n, again, err, n, raw)
		}
	})
}
