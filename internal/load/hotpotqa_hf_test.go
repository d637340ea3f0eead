package load

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/pkg/record"
)

// toHF writes line, an official HotpotQA item, as the Hugging Face hotpot_qa export writes it:
// "id" for "_id", context and supporting_facts as objects of parallel lists. Values are copied as
// they are written, so that what the loader keeps verbatim (meta) compares byte for byte.
func toHF(t *testing.T, line []byte) []byte {
	t.Helper()
	ms, err := record.Members(line)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for k, m := range ms {
		if k > 0 {
			b.WriteByte(',')
		}
		v := line[m.ValueStart:m.End]
		switch m.Key {
		case "_id":
			b.WriteString(`"id":`)
			b.Write(v)
		case "context", "supporting_facts":
			second := map[string]string{"context": "sentences", "supporting_facts": "sent_id"}[m.Key]
			var pairs [][2]json.RawMessage
			if err := json.Unmarshal(v, &pairs); err != nil {
				t.Fatal(err)
			}
			var titles, seconds []string
			for _, p := range pairs {
				titles, seconds = append(titles, string(p[0])), append(seconds, string(p[1]))
			}
			b.WriteString(`"` + m.Key + `":{"title":[` + strings.Join(titles, ",") + `],"` + second + `":[` + strings.Join(seconds, ",") + `]}`)
		default:
			b.Write(line[m.Start:m.End])
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// TestHotpotQAHuggingFace: the 200 sample items written as the Hugging Face export writes them
// load to the very records the official items load to, and the export is told a HotpotQA file by
// its content.
func TestHotpotQAHuggingFace(t *testing.T) {
	official, err := os.ReadFile(filepath.Join("testdata", "hotpotqa_train_sample200.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var hf bytes.Buffer
	for line := range bytes.Lines(official) {
		hf.Write(toHF(t, bytes.TrimSpace(line)))
		hf.WriteByte('\n')
	}
	if got := format.Detect("train.jsonl", hf.Bytes()[:4096]); got != "hotpotqa" {
		t.Errorf("format.Detect of the export = %q, want hotpotqa", got)
	}
	want, bads := loadFile(t, HotpotQA, filepath.Join("testdata", "hotpotqa_train_sample200.jsonl"))
	if len(bads) > 0 || len(want) != 200 {
		t.Fatalf("official sample: %d records, bad items %v", len(want), bads)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "hotpot_hf.jsonl")
	if err := os.WriteFile(path, hf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, bads := loadFile(t, HotpotQA, path)
	if len(bads) > 0 || len(got) != len(want) {
		t.Fatalf("export: %d records, bad items %v; want %d", len(got), bads, len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Fatalf("record %d from the export:\n%s\nwant\n%s", i, g, w)
		}
	}
}

// TestHotpotQAHuggingFaceTestSplit: the fullwiki test split's export, whose answer, type and level
// the dataset's script fills in with None and whose facts with none, loads to the records the
// official test file's items (without those keys) load to: no answers, no type, no meta.
func TestHotpotQAHuggingFaceTestSplit(t *testing.T) {
	const official = `{"_id":"t1","question":"Q?","context":[["T",["s0."," s1."]],["U",["u0."]]]}` + "\n"
	const hf = `{"id":"t1","question":"Q?","answer":null,"type":null,"level":null,` +
		`"supporting_facts":{"title":[],"sent_id":[]},"context":{"title":["T","U"],"sentences":[["s0."," s1."],["u0."]]}}` + "\n"
	load := func(name, in string) []*record.Record {
		t.Helper()
		var recs []*record.Record
		err := HotpotQA(Input{Name: name, R: strings.NewReader(in)}, Options{}, func(r *record.Record, _ int, bad error) error {
			if bad != nil {
				t.Errorf("%s: bad item %v", name, bad)
			} else {
				recs = append(recs, r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	want, got := load("test.json", official), load("test.jsonl", hf)
	if len(want) != 1 || len(got) != 1 {
		t.Fatalf("records: official %d, export %d; want 1 each", len(want), len(got))
	}
	if !reflect.DeepEqual(got[0], want[0]) {
		g, _ := json.Marshal(got[0])
		w, _ := json.Marshal(want[0])
		t.Fatalf("record from the export:\n%s\nwant\n%s", g, w)
	}
}

// TestHotpotQAHuggingFaceFaults: an export's lists that do not pair, or an object of another
// shape, are bad items named by the item's id.
func TestHotpotQAHuggingFaceFaults(t *testing.T) {
	item := func(ctx, sp string) string {
		return `{"id":"h1","question":"Q?","answer":"A","type":"bridge","level":"easy","supporting_facts":` + sp + `,"context":` + ctx + "}\n"
	}
	const ctx = `{"title":["T","U"],"sentences":[["s0."," s1."],["u0."]]}`
	const sp = `{"title":["T"],"sent_id":[1]}`
	for _, tt := range []struct{ name, in, want string }{
		{"loads", item(ctx, sp), ""},
		{"context lists", item(`{"title":["T","U"],"sentences":[["s0."]]}`, sp),
			`h.jsonl:1 (id "hotpotqa:h1"): context: 2 titles and 1 sentences: the lists pair title with sentences, one for one`},
		{"facts lists", item(ctx, `{"title":["T"],"sent_id":[]}`),
			`h.jsonl:1 (id "hotpotqa:h1"): supporting_facts: 1 title and 0 sent_id: the lists pair title with sent_id, one for one`},
		{"title a string", item(`{"title":"T","sentences":[]}`, sp),
			`h.jsonl:1 (id "hotpotqa:h1"): context.title: want a list, got a string`},
		{"no sentences", item(`{"title":["T"]}`, sp),
			`h.jsonl:1 (id "hotpotqa:h1"): context: missing field "sentences"`},
		{"sent_id null", item(ctx, `{"title":[],"sent_id":null}`),
			`h.jsonl:1 (id "hotpotqa:h1"): supporting_facts.sent_id: want a list, got null`},
		{"facts as pairs", item(ctx, `[["T",1]]`), ""},
		// "_id" is the id when the item has both: its "id" is another member, not a second "_id"
		{"official id and id", `{"_id":"h1","id":"other","question":"Q?","answer":"A","context":` + ctx + "}\n", ""},
		// a test item's facts are left out only when both lists are empty, as the script fills them
		{"test item facts lists", `{"id":"h1","question":"Q?","answer":null,"supporting_facts":{"title":[],"sent_id":[3]},"context":` + ctx + "}\n",
			`h.jsonl:1 (id "hotpotqa:h1"): supporting_facts: 0 titles and 1 sent_id: the lists pair title with sent_id, one for one`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, HotpotQA, "h.jsonl", tt.in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && (len(bads) > 0 || len(ids) != 1 || ids[0] != "hotpotqa:h1"):
				t.Errorf("records %v, bad items %v; want hotpotqa:h1", ids, bads)
			case tt.want != "" && (len(ids) > 0 || len(bads) != 1 || bads[0] != tt.want):
				t.Errorf("records %v, bad items %q; want the bad item %q", ids, bads, tt.want)
			}
		})
	}
}

// FuzzHFHotpot: hfHotpot takes any JSON object without a panic, and what it rewrites is valid
// JSON whose context and supporting facts are lists, as the official items hold them.
func FuzzHFHotpot(f *testing.F) {
	for _, s := range []string{
		`{"id":"h1","question":"Q?","supporting_facts":{"title":["T"],"sent_id":[1]},"context":{"title":["T"],"sentences":[["a"," b"]]}}`,
		`{"_id":"h1","id":2,"context":{"title":[],"sentences":[]}}`,
		`{"context":{"title":["T"],"sentences":[]}}`, `{"context":{}}`, `{"context":[]}`, `{"context":{"title":null,"sentences":null}}`,
		`{"supporting_facts":null,"context":{"title":[1],"sentences":[{}]}}`, `{"context" : { "title" : [ "T" ] , "sentences" : [ [ ] ] } }`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.TrimSpace(raw)
		if !json.Valid(raw) || len(raw) == 0 || raw[0] != '{' {
			return
		}
		out, ok, err := hfHotpot(raw)
		if !ok || err != nil {
			return
		}
		var item map[string]json.RawMessage
		if err := json.Unmarshal(out, &item); err != nil {
			t.Fatalf("hfHotpot(%s) = %s, no JSON object: %v", raw, out, err)
		}
		for _, k := range []string{"context", "supporting_facts"} {
			if v := bytes.TrimSpace(item[k]); len(v) > 0 && v[0] == '{' {
				t.Fatalf("hfHotpot(%s) = %s: %s is still an object", raw, out, k)
			}
		}
	})
}
