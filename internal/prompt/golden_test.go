package prompt

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// goldenCase is one expected rendering produced by the upstream expressions (see testdata/README.md).
type goldenCase struct {
	Name   string          `json:"name"`
	Inputs json.RawMessage `json:"inputs"`
	Want   string          `json:"want"`
}

func loadGolden(t *testing.T, prefix string) []goldenCase {
	t.Helper()
	b, err := os.ReadFile("testdata/golden/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var all, out []goldenCase
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no golden cases %q", prefix)
	}
	return out
}

// decodeGolden decodes a JSON value of a golden case, failing the test when it is missing or
// malformed.
func decodeGolden(t *testing.T, what string, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// readRecords reads a JSONL file of want records (the count testdata/README.md gives).
func readRecords(t *testing.T, path string, want int) []*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []*record.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r record.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &r)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) != want {
		t.Fatalf("%s: %d records, want %d", path, len(recs), want)
	}
	return recs
}

func TestLongMemEvalJudgeGolden(t *testing.T) {
	for _, c := range loadGolden(t, "longmemeval_judge/") {
		t.Run(c.Name, func(t *testing.T) {
			var in struct {
				QuestionID                 string `json:"question_id"`
				QuestionType               string `json:"question_type"`
				Question, Answer, Response string
			}
			decodeGolden(t, c.Name, c.Inputs, &in)
			abs, err := (&record.Record{ID: in.QuestionID}).Abstention()
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := LongMemEvalJudge(abs, in.QuestionType, in.Question, in.Answer, in.Response)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.Want {
				t.Errorf("LongMemEvalJudge(%s) = %q, want %q", c.Name, got, c.Want)
			}
		})
	}
	if _, _, err := LongMemEvalJudge(false, "made-up", "", "", ""); err == nil {
		t.Error("LongMemEvalJudge(unknown type): no error")
	}
}

func TestLoCoMoJudgesGolden(t *testing.T) {
	for _, c := range append(loadGolden(t, "mem0_judge"), loadGolden(t, "magma_judge")...) {
		var in struct{ Question, Gold, Generated string }
		decodeGolden(t, c.Name, c.Inputs, &in)
		var got string
		if c.Name == "mem0_judge" {
			got = Mem0Judge(in.Question, in.Gold, in.Generated)
		} else {
			sys, user := MAGMAJudge(in.Question, in.Gold, in.Generated)
			if want := "You are an expert grader that scores answers on a continuous scale from 0.0 to 1.0."; sys != want {
				t.Errorf("MAGMA system = %q, want %q", sys, want)
			}
			got = user
		}
		if got != c.Want {
			t.Errorf("%s = %q, want %q", c.Name, got, c.Want)
		}
	}
}

func TestLongMemEvalGenerationGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/golden/longmemeval_entry.json")
	if err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{ID: "longmemeval:gpt4_x1", Question: "How many {pets} do I have? \"quoted\""}
	var entry map[string]json.RawMessage
	decodeGolden(t, "longmemeval_entry.json", b, &entry)
	rec.Meta = map[string]json.RawMessage{"haystack_sessions": entry["haystack_sessions"],
		"haystack_dates": entry["haystack_dates"], "question_date": entry["question_date"]}
	for _, c := range loadGolden(t, "longmemeval_gen/") {
		t.Run(c.Name, func(t *testing.T) {
			var in struct {
				Format   string
				Con      bool
				TopK     int
				UserOnly bool
			}
			decodeGolden(t, c.Name, c.Inputs, &in)
			got, _, err := LongMemEvalPrompt(rec, HistoryOptions{Format: in.Format, TopK: in.TopK, UserOnly: in.UserOnly}, in.Con)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.Want {
				t.Errorf("LongMemEvalPrompt(%s) =\n%q\nwant\n%q", c.Name, got, c.Want)
			}
		})
	}
}

func TestLoCoMoQueryGolden(t *testing.T) {
	recs := readRecords(t, "testdata/golden/locomo_records.jsonl", 7)
	for _, c := range loadGolden(t, "locomo_query/") {
		t.Run(c.Name, func(t *testing.T) {
			var in struct {
				Record       int  `json:"record"`
				AbstainFirst bool `json:"abstain_first"`
			}
			decodeGolden(t, c.Name, c.Inputs, &in)
			got, _, err := LoCoMoQA(recs[in.Record], in.AbstainFirst, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.Want {
				t.Errorf("LoCoMoQA(%s) =\n%q\nwant\n%q", c.Name, got[len(got)-400:], c.Want[len(c.Want)-400:])
			}
			// README byte note: 2 + 2×sessions + 3 newlines between the oldest session's last turn and "Based on…".
			sessions := len(recs[in.Record].Context)
			want := strings.Repeat("\n", 2+2*sessions+3) + "Based on"
			if !strings.Contains(got, "\""+want) {
				t.Errorf("LoCoMoQA(%s): no %d newlines before \"Based on\"", c.Name, 2+2*sessions+3)
			}
		})
	}
}

func TestHotpotQAGolden(t *testing.T) {
	recs := readRecords(t, "testdata/golden/hotpotqa_records.jsonl", 4)
	for _, c := range loadGolden(t, "hotpotqa/") {
		var in struct{ Record int }
		decodeGolden(t, c.Name, c.Inputs, &in)
		if got := HotpotQA(recs[in.Record]); got != c.Want {
			t.Errorf("HotpotQA(%s) = %q, want %q", c.Name, got, c.Want)
		}
	}
}

func TestPythonGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		fn   func(string) string
	}{
		{"python/repr", python.Repr},
		{"python/strip", textnorm.Strip},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := loadGolden(t, tt.name)[0]
			items := goldenItems(t, c)
			var want []string
			decodeGolden(t, c.Name+" want", []byte(c.Want), &want)
			if len(want) != len(items) {
				t.Fatalf("%s: %d items, %d wants", c.Name, len(items), len(want))
			}
			for i, s := range items {
				if got := tt.fn(s); got != want[i] {
					t.Errorf("%s(%q) = %q, want %q", tt.name, s, got, want[i])
				}
			}
		})
	}
	c := loadGolden(t, "python/strlist")[0]
	if got := python.StrList(goldenItems(t, c)); got != c.Want {
		t.Errorf("StrList = %s, want %s", got, c.Want)
	}
	c = loadGolden(t, "python/json_dumps")[0]
	var raw struct{ Raw string }
	decodeGolden(t, c.Name, c.Inputs, &raw)
	if raw.Raw == "" {
		t.Fatalf("%s: no raw input", c.Name)
	}
	if v, err := python.Loads(raw.Raw); err != nil || v.Dumps() != c.Want {
		t.Errorf("json.dumps(json.loads(%s)) = %s, %v, want %s", raw.Raw, v.Dumps(), err, c.Want)
	}
}

// goldenItems returns a golden case's input items, failing the test when there are none.
func goldenItems(t *testing.T, c goldenCase) []string {
	t.Helper()
	var in struct{ Items []string }
	decodeGolden(t, c.Name, c.Inputs, &in)
	if len(in.Items) == 0 {
		t.Fatalf("%s: no items", c.Name)
	}
	return in.Items
}
