package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/format"
	"github.com/qapipe/qapipe/pkg/record"
)

// toSQuADExport writes the questions of official, a SQuAD file, as Dataset.to_json writes the
// Hugging Face squad and squad_v2 datasets made of it: a question a line (or, array, a JSON array
// of them, as to_json(lines=False) writes them), {id, title, context, question, answers: {text,
// answer_start}}, without is_impossible or plausible_answers, which the datasets do not hold.
// Values are copied as the file writes them.
func toSQuADExport(t *testing.T, official []byte, array bool) []byte {
	t.Helper()
	var file struct {
		Data []struct {
			Title      json.RawMessage `json:"title"`
			Paragraphs []struct {
				Context json.RawMessage `json:"context"`
				QAs     []struct {
					ID       json.RawMessage `json:"id"`
					Question json.RawMessage `json:"question"`
					Answers  []struct {
						Text        json.RawMessage `json:"text"`
						AnswerStart json.RawMessage `json:"answer_start"`
					} `json:"answers"`
				} `json:"qas"`
			} `json:"paragraphs"`
		} `json:"data"`
	}
	if err := json.Unmarshal(official, &file); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, art := range file.Data {
		for _, par := range art.Paragraphs {
			for _, qa := range par.QAs {
				var texts, starts []string
				for _, a := range qa.Answers {
					texts, starts = append(texts, string(a.Text)), append(starts, string(a.AnswerStart))
				}
				lines = append(lines, `{"id":`+string(qa.ID)+`,"title":`+string(art.Title)+`,"context":`+string(par.Context)+
					`,"question":`+string(qa.Question)+`,"answers":{"text":[`+strings.Join(texts, ",")+
					`],"answer_start":[`+strings.Join(starts, ",")+`]}}`)
			}
		}
	}
	if array {
		return []byte("[" + strings.Join(lines, ",") + "]")
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// TestSQuADExportAsOfficial: the questions of the official SQuAD v1.1 and v2.0 files, written as
// the Hugging Face export writes them (JSON Lines and a JSON array), are told SQuAD by their
// fields under any name and load to the records the official files give: the same ids, answers
// ([""] for v2.0's unanswerable questions), type (has_answer/no_answer in v2.0, none in v1.1),
// lang, passage and meta, but the plausible answers that the export does not hold.
func TestSQuADExportAsOfficial(t *testing.T) {
	for _, name := range []string{"squad_v11_synthetic.json", "squad_v20_synthetic.json",
		filepath.Join("..", "..", "..", "testdata", "squad", "squad_v20_synthetic.json")} {
		want, bads := loadAll(t, SQuAD, name)
		if len(bads) > 0 || len(want) == 0 {
			t.Fatalf("%s: %d records, bad items %v", name, len(want), bads)
		}
		for _, r := range want {
			delete(r.Meta, "plausible_answers")
			if len(r.Meta) == 0 {
				r.Meta = nil
			}
		}
		official, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, array := range []bool{false, true} {
			export := toSQuADExport(t, official, array)
			if got := format.Detect("validation.jsonl", export); got != "squad" {
				t.Errorf("%s (array %v): format.Detect = %q, want squad", name, array, got)
			}
			path := filepath.Join(t.TempDir(), "validation.jsonl")
			if err := os.WriteFile(path, export, 0o644); err != nil {
				t.Fatal(err)
			}
			got, bads := loadFile(t, SQuAD, path)
			if len(bads) > 0 || len(got) != len(want) {
				t.Fatalf("%s (array %v): %d records, bad items %v; want %d", name, array, len(got), bads, len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					g, _ := json.Marshal(got[i])
					w, _ := json.Marshal(want[i])
					t.Errorf("%s (array %v): record %d from the export:\n%s\nwant\n%s", name, array, i, g, w)
				}
			}
		}
	}
}

// TestSQuADExportTyping: an export is SQuAD v2.0's when it holds an unanswerable question
// (answers.text []), wherever it is, and its answered questions before it are typed has_answer
// too; without one, none is typed (v1.1). Past the bytes held, an unanswerable question is
// warned of, naming the answered ones that went out untyped.
func TestSQuADExportTyping(t *testing.T) {
	q := func(id string, texts string) string {
		starts := strings.Repeat("0,", strings.Count(texts, `"`)/2)
		return `{"id":"` + id + `","title":"T","context":"c","question":"q?","answers":{"text":[` + texts +
			`],"answer_start":[` + strings.TrimSuffix(starts, ",") + `]}}` + "\n"
	}
	// qi is q with an is_impossible of its own
	qi := func(id, texts, flag string) string {
		return strings.TrimSuffix(q(id, texts), "}\n") + `,"is_impossible":` + flag + "}\n"
	}
	// bad is a question with a null answer text: a bad item
	bad := `{"id":"z","title":"T","context":"c","question":"q?","answers":{"text":[null],"answer_start":[0]}}` + "\n"
	load := func(in string) ([]string, []string) {
		t.Helper()
		var types, warns []string
		opt := Options{Warn: func(msg string) { warns = append(warns, msg) }}
		err := SQuAD(Input{Name: "v.jsonl", R: strings.NewReader(in)}, opt, func(r *record.Record, _ int, bad error) error {
			if bad != nil {
				types = append(types, "bad")
				return nil
			}
			types = append(types, r.Type+"="+strings.Join(r.Answers, "|"))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return types, warns
	}
	tests := []struct {
		name, in string
		hold     int
		want     []string
		warn     string
	}{
		{"v2.0, unanswerable last", q("a", `"x"`) + q("b", `"y","y"`) + q("c", ``), 16 << 20,
			[]string{"has_answer=x", "has_answer=y|y", "no_answer="}, ""},
		{"v1.1", q("a", `"x"`) + q("b", `"y"`), 16 << 20, []string{"=x", "=y"}, ""},
		{"v2.0 past the bytes held", q("a", `"x"`) + q("b", `"y"`) + q("c", ``) + q("d", `"z"`), 1,
			[]string{"=x", "=y", "no_answer=", "has_answer=z"},
			`v.jsonl:3 (id "squad:c"): a SQuAD v2.0 question (answers.text [], or is_impossible) after the first 16 MiB of a SQuAD export held none, which read it as SQuAD v1.1's: 2 answered questions before it went out without type has_answer`},
		{"no question answered", q("a", ``) + q("b", ``), 16 << 20, []string{"no_answer=", "no_answer="},
			`v.jsonl: none of its 2 questions has an answer (answers.text [] in every one)`},
		{"one question, unanswerable", q("a", ``), 16 << 20, []string{"no_answer="},
			`v.jsonl: its one question has no answer (answers.text []): it is scored as SQuAD v2.0's unanswerable question`},
		// The warning is given once, at the first unanswerable question past the bytes held: the
		// answered questions after it are typed.
		{"two unanswerable past the bytes held", q("a", `"x"`) + q("b", ``) + q("c", `"z"`) + q("d", ``), 1,
			[]string{"=x", "no_answer=", "has_answer=z", "no_answer="},
			`v.jsonl:2 (id "squad:b"): a SQuAD v2.0 question (answers.text [], or is_impossible) after the first 16 MiB of a SQuAD export held none, which read it as SQuAD v1.1's: 1 answered question before it went out without type has_answer`},
		// A question with is_impossible of its own, of any value, shows the export v2.0's as an
		// unanswerable one does: the questions held before it are typed, and those after it.
		{"v2.0 by is_impossible", q("a", `"x"`) + qi("b", `"y"`, "false") + q("c", `"z"`), 16 << 20,
			[]string{"has_answer=x", "has_answer=y", "has_answer=z"}, ""},
		{"v2.0 by is_impossible past the bytes held", q("a", `"x"`) + qi("b", `"y"`, `"false"`) + q("c", `"z"`), 1,
			[]string{"=x", "has_answer=y", "has_answer=z"},
			`v.jsonl:2 (id "squad:b"): a SQuAD v2.0 question (answers.text [], or is_impossible) after the first 16 MiB of a SQuAD export held none, which read it as SQuAD v1.1's: 1 answered question before it went out without type has_answer`},
		// answers.text [] is unanswerable whatever is_impossible says, as in the official file
		{"no question answered, one flagged false", qi("a", ``, "false") + q("b", ``), 16 << 20, []string{"no_answer=", "no_answer="},
			`v.jsonl: none of its 2 questions has an answer (answers.text [] in every one)`},
		// Only bad items went out before it: no answered question went out untyped.
		{"bad items alone before the bytes held", bad + q("b", ``) + q("c", `"z"`), 1,
			[]string{"bad", "no_answer=", "has_answer=z"}, ""},
	}
	for _, tt := range tests {
		before := squadExportHold
		squadExportHold = tt.hold
		got, warns := load(tt.in)
		squadExportHold = before
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: type=answers %q, want %q", tt.name, got, tt.want)
		}
		if tt.warn == "" && len(warns) > 0 || tt.warn != "" && (len(warns) != 1 || !strings.HasPrefix(warns[0], tt.warn)) {
			t.Errorf("%s: warnings %q, want one opening %q", tt.name, warns, tt.warn)
		}
	}
}

// TestSQuADExportBad: a question of an export whose answers cannot be read as the official
// question's is a bad item naming the export's own fields; the others load, in the file's order.
func TestSQuADExportBad(t *testing.T) {
	good := `{"id":"g","title":"T","context":"c","question":"q?","answers":{"text":["a"],"answer_start":[0]}}`
	tests := []struct{ name, line, want string }{
		{"answers missing", `{"id":"b","title":"T","context":"c","question":"q?"}`,
			`v.jsonl:2 (id "squad:b"): field "answers.text" is missing or null; a question of a SQuAD export has "answers": {"text": [...], "answer_start": [...]}, "text": [] when it is unanswerable`},
		{"null text", `{"id":"b","title":"T","context":"c","question":"q?","answers":{"text":["a",null],"answer_start":[0,1]}}`,
			`v.jsonl:2 (id "squad:b"): answers.text[1]: want a string or a number, got null`},
		{"lists that do not pair", `{"id":"b","title":"T","context":"c","question":"q?","answers":{"text":["a","b"],"answer_start":[0]}}`,
			`v.jsonl:2 (id "squad:b"): answers: 2 texts and 1 answer_start: the lists pair each text with its answer_start, one for one`},
		{"answers a list", `{"id":"b","title":"T","context":"c","question":"q?","answers":[{"text":"a","answer_start":0}]}`,
			`v.jsonl:2 (id "squad:b"): answers: want an object, got a list`},
		{"no question", `{"id":"b","title":"T","context":"c","answers":{"text":["a"],"answer_start":[0]}}`,
			`v.jsonl:2 (id "squad:b"): missing field "question"`},
		{"not JSON", `{"id":"b",`, `v.jsonl:2`},
	}
	for _, tt := range tests {
		var got []string
		err := SQuAD(Input{Name: "v.jsonl", R: strings.NewReader(good + "\n" + tt.line + "\n" + good + "\n")}, Options{},
			func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					got = append(got, "bad: "+bad.Error())
				} else {
					got = append(got, r.ID)
				}
				return nil
			})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(got) != 3 || got[0] != "squad:g" || got[2] != "squad:g" || !strings.HasPrefix(got[1], "bad: "+tt.want) {
			t.Errorf("%s: %q, want squad:g, the bad item %q, squad:g", tt.name, got, tt.want)
		}
	}
}

// TestSQuADExportCMRC: CMRC 2018's export (no title, Chinese text) is told CMRC 2018 by its text,
// and loads as its official file's questions do: lang zh, no type.
func TestSQuADExportCMRC(t *testing.T) {
	const line = `{"id":"DEV_0_QUERY_0","context":"《战国无双3》是由光荣和ω-force开发的战国无双系列的正统第三续作。","question":"《战国无双3》是由哪两个公司合作开发的？","answers":{"text":["光荣和ω-force","光荣和ω-force"],"answer_start":[11,11]}}`
	if got := format.Detect("validation.jsonl", []byte(line)); got != "cmrc2018" {
		t.Errorf("format.Detect = %q, want cmrc2018", got)
	}
	path := filepath.Join(t.TempDir(), "validation.jsonl")
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, bads := loadFile(t, CMRC2018, path)
	if len(recs) != 1 || len(bads) > 0 {
		t.Fatalf("%d records, bad items %v; want 1 record", len(recs), bads)
	}
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(recs[0])
	want := `{"schema":1,"id":"cmrc2018:DEV_0_QUERY_0","dataset":"cmrc2018","lang":"zh","question":"《战国无双3》是由哪两个公司合作开发的？","answers":["光荣和ω-force","光荣和ω-force"],"context":[{"text":"《战国无双3》是由光荣和ω-force开发的战国无双系列的正统第三续作。"}],"meta":{"answer_start":[11,11]}}`
	if strings.TrimSpace(buf.String()) != want {
		t.Errorf("record %s, want %s", buf.String(), want)
	}
}

// TestSQuADExportCMRCEmpty: a CMRC 2018 export's question whose answers.text is [] loads as the
// official file's question with "answers": [] does (answers [], no type), and the others stay
// untyped: CMRC 2018 has no unanswerable question, and [""] would make cmrc_em score an empty
// prediction right where cmrc2018_evaluate.py stops on the question (max() of no score).
func TestSQuADExportCMRCEmpty(t *testing.T) {
	const official = `{"version":"v1.0","data":[{"title":"T","paragraphs":[{"context":"北京是中国的首都。","qas":[` +
		`{"id":"Q0","question":"中国的首都是哪里？","answers":[{"text":"北京","answer_start":0}]},` +
		`{"id":"Q1","question":"上海在哪里？","answers":[]}]}]}]}`
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want, bads := loadFile(t, CMRC2018, write("cmrc2018_dev.json", []byte(official)))
	if len(want) != 2 || len(bads) > 0 {
		t.Fatalf("official: %d records, bad items %v", len(want), bads)
	}
	for _, array := range []bool{false, true} {
		got, bads := loadFile(t, CMRC2018, write("validation.jsonl", toSQuADExport(t, []byte(official), array)))
		if len(got) != 2 || len(bads) > 0 {
			t.Fatalf("export (array %v): %d records, bad items %v", array, len(got), bads)
		}
		for i := range want {
			if got[i].Type != want[i].Type || !reflect.DeepEqual(got[i].Answers, want[i].Answers) {
				t.Errorf("export (array %v): record %s: type %q answers %q, want type %q answers %q as the official file's",
					array, got[i].ID, got[i].Type, got[i].Answers, want[i].Type, want[i].Answers)
			}
		}
	}
}

// TestSQuADExportReadError: a read error (a cut .gz file) while the questions of an export are
// held still lets the records read before it out, ahead of the error, as every other format's
// load writes the records it read before the file failed.
func TestSQuADExportReadError(t *testing.T) {
	const lines = `{"id":"a","title":"T","context":"c","question":"q?","answers":{"text":["x"],"answer_start":[0]}}` + "\n" +
		`{"id":"b","title":"T","context":"c","question":"q?","answers":{"text":["y"],"answer_start":[0]}}` + "\n"
	cut := errors.New("gzip data ends early")
	for _, dataset := range []Loader{SQuAD, CMRC2018} {
		var ids []string
		err := dataset(Input{Name: "v.jsonl.gz", R: io.MultiReader(strings.NewReader(lines), errReader{cut})}, Options{},
			func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					t.Errorf("bad item %v", bad)
				} else {
					ids = append(ids, r.ID)
				}
				return nil
			})
		if !errors.Is(err, cut) {
			t.Errorf("error %v, want the read error", err)
		}
		if len(ids) != 2 {
			t.Errorf("records before the read error %q, want the 2 read", ids)
		}
	}
}

// stagedReader reads chunks in turn, and calls next before it reads from each after the first.
type stagedReader struct {
	chunks []string
	read   int // the chunks begun
	next   func()
}

func (r *stagedReader) Read(p []byte) (int, error) {
	for r.read > 0 && r.chunks[r.read-1] == "" {
		if r.read == len(r.chunks) {
			return 0, io.EOF
		}
		r.read++
		r.next()
	}
	if r.read == 0 {
		r.read = 1
	}
	c := &r.chunks[r.read-1]
	n := copy(p, *c)
	*c = (*c)[n:]
	return n, nil
}

// TestSQuADExportStreams: the questions of an export come out as they are read once it is known
// whose export it is (loadSQuADExport): a SQuAD export's from its first unanswerable question
// on, those held before it with them, and a CMRC 2018 export's from the first, which is never
// held; the records are out before the rest of the file is read (a pipe that is still being
// written, say).
func TestSQuADExportStreams(t *testing.T) {
	q := func(id, question, texts string) string {
		starts := strings.Repeat("0,", strings.Count(texts, `"`)/2)
		return `{"id":"` + id + `","context":"北京是中国的首都。","question":"` + question + `","answers":{"text":[` + texts +
			`],"answer_start":[` + strings.TrimSuffix(starts, ",") + `]}}` + "\n"
	}
	// many is line written over 256 KiB, past what the loaders read ahead to tell the format
	many := func(line string) string { return strings.Repeat(line, (256<<10)/len(line)+1) }
	tests := []struct {
		name        string
		load        Loader
		first, rest string
		want        int // the records out before the rest is read
	}{
		{"SQuAD v2.0", SQuAD, q("a", "Where?", `"x"`) + q("b", "Who?", ``) + many(q("c", "When?", `"y"`)), q("d", "Why?", `"z"`), 2},
		{"CMRC 2018", CMRC2018, many(q("a", "中国的首都是哪里？", `"北京"`)), q("c", "首都？", `"北京"`), 1},
	}
	for _, tt := range tests {
		var ids []string
		before := -1
		in := &stagedReader{chunks: []string{tt.first, tt.rest}, next: func() { before = len(ids) }}
		lines := strings.Count(tt.first+tt.rest, "\n")
		err := tt.load(Input{Name: "v.jsonl", R: in}, Options{}, func(r *record.Record, _ int, bad error) error {
			if bad != nil {
				t.Errorf("%s: bad item %v", tt.name, bad)
			} else {
				ids = append(ids, r.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if before < tt.want || len(ids) != lines {
			t.Errorf("%s: %d records out before the rest of the file was read, %d in all; want at least %d, and one a line",
				tt.name, before, len(ids), tt.want)
		}
	}
}
