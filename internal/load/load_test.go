package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qapipe/qapipe/pkg/record"
)

// loadAll runs a loader over a testdata file and returns its records and bad items.
func loadAll(t *testing.T, load Loader, name string) ([]*record.Record, []error) {
	t.Helper()
	return loadFile(t, load, filepath.Join("testdata", name))
}

// loadFile runs a loader over the file at path and returns its records and bad items.
func loadFile(t *testing.T, load Loader, name string) ([]*record.Record, []error) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []*record.Record
	var bads []error
	err = load(Input{Name: name, R: f}, Options{}, func(rec *record.Record, _ int, bad error) error {
		if bad != nil {
			bads = append(bads, bad)
			return nil
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return recs, bads
}

func typeCounts(recs []*record.Record) map[string]int {
	m := make(map[string]int)
	for _, r := range recs {
		m[r.Type]++
	}
	return m
}

func TestLoaderCounts(t *testing.T) {
	tests := []struct {
		format, file string
		want         map[string]int
		bad          int
	}{
		{"hotpotqa", "hotpotqa_train_sample200.jsonl", map[string]int{"bridge": 151, "comparison": 49}, 0},
		{"hotpotqa", "hotpotqa_array5.json", map[string]int{"bridge": 2, "comparison": 3}, 0},
		{"cmrc2018", "cmrc2018_dev_sample.json", map[string]int{"": 301}, 0},
		{"squad", "squad_v11_synthetic.json", map[string]int{"": 2}, 0},
		{"squad", "squad_v20_synthetic.json", map[string]int{"has_answer": 2, "no_answer": 1}, 0},
		{"locomo", "locomo10.json", map[string]int{"multi_hop": 282, "temporal": 321, "open_domain": 96,
			"single_hop": 841, "adversarial": 446}, 0},
		{"longmemeval", "longmemeval_synthetic.json", map[string]int{"single-session-user": 2,
			"single-session-assistant": 1, "single-session-preference": 1, "multi-session": 1,
			"temporal-reasoning": 1, "knowledge-update": 1}, 0},
		{"evalearn-results", "evalearn_results_edge.jsonl", map[string]int{"Logical Reasoning": 707,
			"Extraction": 120, "Sequential Reasoning": 119, "Mathematical Reasoning": 117,
			"Summarization": 112, "Classification": 92, "unknown": 1}, 0},
		{"evalearn-results", "evalearn_results_edge60.json", map[string]int{"Logical Reasoning": 35,
			"Summarization": 9, "Extraction": 5, "Mathematical Reasoning": 5, "Classification": 3,
			"Sequential Reasoning": 3}, 0},
		{"jsonl", "generic.jsonl", map[string]int{}, 3}, // no --map: "question" is missing
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			load, err := LoaderFor(tt.format)
			if err != nil {
				t.Fatal(err)
			}
			recs, bads := loadAll(t, load, tt.file)
			if diff := cmp.Diff(tt.want, typeCounts(recs)); diff != "" {
				t.Errorf("%s types (-want +got):\n%s", tt.file, diff)
			}
			if len(bads) != tt.bad {
				t.Errorf("%s: %d bad items, want %d: %v", tt.file, len(bads), tt.bad, bads)
			}
			seen := make(map[string]bool)
			for _, r := range recs {
				if seen[r.ID] {
					t.Errorf("%s: duplicate id %q", tt.file, r.ID)
				}
				seen[r.ID] = true
				if err := r.Validate(); err != nil {
					t.Errorf("%s: record %q: %v", tt.file, r.ID, err)
				}
			}
		})
	}
}

// find returns the record with id, or fails.
func find(t *testing.T, recs []*record.Record, id string) *record.Record {
	t.Helper()
	for _, r := range recs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no record %q", id)
	return nil
}

// metaJSON returns rec.Meta[key] as compact JSON text.
func metaJSON(rec *record.Record, key string) string {
	raw, ok := rec.Meta[key]
	if !ok {
		return "<absent>"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "<invalid>"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func checkMeta(t *testing.T, rec *record.Record, want map[string]string) {
	t.Helper()
	for k, w := range want {
		if got := metaJSON(rec, k); got != w {
			t.Errorf("%s meta[%q] = %s, want %s", rec.ID, k, got, w)
		}
	}
}

func TestHotpotQARecord(t *testing.T) {
	recs, _ := loadAll(t, HotpotQA, "hotpotqa_train_sample200.jsonl")
	r := find(t, recs, "hotpotqa:5ab4435b5542990594ba9bdf")
	want := &record.Record{Schema: 1, ID: "hotpotqa:5ab4435b5542990594ba9bdf", Dataset: "hotpotqa", Lang: "en",
		Type:     "bridge",
		Question: "What is the genre of the film for which Danilo Donati fist won the Academy Award for Costume Design?",
		Answers:  []string{"romance"}}
	got := *r
	got.Context, got.Meta = nil, nil
	if diff := cmp.Diff(want, &got, cmpopts.IgnoreUnexported(record.Record{}, record.Prediction{}, record.Usage{}, record.Passage{}, record.Judgment{}, record.Sequence{}, record.Batch{})); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if len(r.Context) != 10 {
		t.Fatalf("%d passages, want 10", len(r.Context))
	}
	p := r.Context[0]
	wantText := "Corinne Jorry (born 23 April 1943) is a French costume designer. She was nominated four times"
	if p.Title != "Corinne Jorry" || len(p.Sentences) != 3 || !strings.HasPrefix(p.Text, wantText) {
		t.Errorf("passage 0 = %q, %d sentences, %q…; want Corinne Jorry, 3, %q…", p.Title, len(p.Sentences), p.Text[:40], wantText)
	}
	checkMeta(t, r, map[string]string{"level": `"medium"`,
		"supporting_facts": `[["Danilo Donati",1],["Romeo and Juliet (1968 film)",0]]`})
}

func TestHotpotQAArrayMatchesJSONL(t *testing.T) {
	lines, _ := loadAll(t, HotpotQA, "hotpotqa_train_sample200.jsonl")
	array, _ := loadAll(t, HotpotQA, "hotpotqa_array5.json")
	if diff := cmp.Diff(lines[:5], array, cmpopts.IgnoreUnexported(record.Record{}, record.Prediction{}, record.Usage{}, record.Passage{}, record.Judgment{}, record.Sequence{}, record.Batch{})); diff != "" {
		t.Errorf("array form differs from JSONL (-jsonl +array):\n%s", diff)
	}
}

func TestSQuADRecords(t *testing.T) {
	recs, _ := loadAll(t, SQuAD, "squad_v20_synthetic.json")
	no := find(t, recs, "squad:syn-q4")
	if no.Type != "no_answer" || !cmp.Equal(no.Answers, []string{""}) {
		t.Errorf("syn-q4 = %q %q, want no_answer [\"\"]", no.Type, no.Answers)
	}
	checkMeta(t, no, map[string]string{"plausible_answers": `[{"answer_start":4,"text":"Loire"}]`})
	yes := find(t, recs, "squad:syn-q3")
	if yes.Type != "has_answer" || !cmp.Equal(yes.Answers, []string{"the Atlantic"}) || yes.Context[0].Title != "Loire" {
		t.Errorf("syn-q3 = %q %q %q, want has_answer [the Atlantic] Loire", yes.Type, yes.Answers, yes.Context[0].Title)
	}
	v1, _ := loadAll(t, SQuAD, "squad_v11_synthetic.json")
	if got := v1[0].Answers; !cmp.Equal(got, []string{"Loire", "The Loire"}) || v1[0].Type != "" {
		t.Errorf("syn-q1 answers = %q type %q, want [Loire The Loire] and no type", got, v1[0].Type)
	}
}

func TestCMRC2018Records(t *testing.T) {
	recs, _ := loadAll(t, CMRC2018, "cmrc2018_dev_sample.json")
	r := find(t, recs, "cmrc2018:DEV_0_QUERY_0")
	if r.Lang != "zh" || r.Dataset != "cmrc2018" || r.Question != "《战国无双3》是由哪两个公司合作开发的？" ||
		!cmp.Equal(r.Answers, []string{"光荣和ω-force", "光荣和ω-force", "光荣和ω-force"}) || r.Context[0].Title != "战国无双3" {
		t.Errorf("DEV_0_QUERY_0 = %+v", r)
	}
	// answer_start -1: the text is kept, the offset only in meta.
	r = find(t, recs, "cmrc2018:DEV_72_QUERY_1")
	if !cmp.Equal(r.Answers, []string{"147位", "147位", "147.0"}) {
		t.Errorf("DEV_72_QUERY_1 answers = %q", r.Answers)
	}
	checkMeta(t, r, map[string]string{"answer_start": "[125,125,-1]"})
}

func TestLoCoMoRecords(t *testing.T) {
	recs, _ := loadAll(t, LoCoMo, "locomo10.json")
	r := find(t, recs, "locomo:conv-26:1")
	if r.Type != "temporal" || r.Question != "When did Melanie paint a sunrise?" || !cmp.Equal(r.Answers, []string{"2022"}) {
		t.Errorf("conv-26:1 = %q %q %q, want temporal, When did Melanie paint a sunrise?, [2022]", r.Type, r.Question, r.Answers)
	}
	// an answer that is no string is kept as it is, for a judge that reads it as Python does
	// (MAGMA grades only a gold true to Python: 0 is none, "0" is one)
	checkMeta(t, r, map[string]string{"category": "2", "evidence": `["D1:12"]`, "adversarial_answer": "<absent>", "answer": "2022"})
	checkMeta(t, find(t, recs, "locomo:conv-26:0"), map[string]string{"answer": "<absent>"})
	if len(r.Context) != 19 {
		t.Errorf("conv-26 has %d session passages, want 19 (it has 35 session dates)", len(r.Context))
	}
	// every session in number order (session_10 after session_9), not only the first
	for i, p := range r.Context {
		if want := fmt.Sprintf("session_%d", i+1); p.Title != want {
			t.Errorf("conv-26 passage %d is %s, want %s", i, p.Title, want)
		}
	}
	s := r.Context[0]
	if s.Title != "session_1" || s.Date != "1:56 pm on 8 May, 2023" ||
		!strings.HasPrefix(s.Text, "Caroline: Hey Mel! Good to see you! How have you been?\nMelanie: Hey Caroline!") {
		t.Errorf("session 1 = %q %q %q", s.Title, s.Date, s.Text[:60])
	}
	var turns []map[string]any
	if err := json.Unmarshal(s.Extra["turns"], &turns); err != nil || len(turns) != strings.Count(s.Text, "\n")+1 ||
		turns[0]["dia_id"] != "D1:1" {
		t.Errorf("session 1 turns = %s (%v), want the turn list verbatim", s.Extra["turns"], err)
	}
	checkMeta(t, r, map[string]string{"speaker_a": `"Caroline"`, "speaker_b": `"Melanie"`})
	captions := 0
	for _, p := range r.Context {
		captions += strings.Count(string(p.Extra["turns"]), `"blip_caption":`)
	}
	if captions == 0 {
		t.Errorf("conv-26 passages keep no blip_caption")
	}
	adv := find(t, recs, "locomo:conv-26:152")
	if adv.Type != "adversarial" || !cmp.Equal(adv.Answers, []string{"self-care is important"}) {
		t.Errorf("conv-26:152 = %q %q, want adversarial [self-care is important]", adv.Type, adv.Answers)
	}
	checkMeta(t, adv, map[string]string{"category": "5", "adversarial_answer": `"self-care is important"`})
	if last := recs[len(recs)-1]; !strings.HasPrefix(last.ID, "locomo:conv-50:") {
		t.Errorf("last record %q, want conv-50", last.ID)
	}
}

func TestLongMemEvalRecords(t *testing.T) {
	recs, _ := loadAll(t, LongMemEval, "longmemeval_synthetic.json")
	ms := find(t, recs, "longmemeval:syn_ms_1")
	if !cmp.Equal(ms.Answers, []string{"3"}) || ms.Type != "multi-session" {
		t.Errorf("syn_ms_1 = %q %q, want multi-session [3]", ms.Type, ms.Answers)
	}
	p := ms.Context[1]
	if p.Title != "s_d" || p.Date != "2023/05/25 (Thu) 19:30" || p.Text != "user: Got one more book, a cookbook.\nassistant: Happy cooking!" {
		t.Errorf("syn_ms_1 passage 1 = %+v", p)
	}
	if got, want := string(p.Extra["turns"]), `[{"role":"user","content":"Got one more book, a cookbook.","has_answer":true},{"role":"assistant","content":"Happy cooking!"}]`; got != want {
		t.Errorf("syn_ms_1 passage 1 turns = %s, want %s", got, want)
	}
	checkMeta(t, ms, map[string]string{"question_date": `"2023/06/02 (Fri) 12:00"`, "answer_session_ids": `["s_c","s_d"]`,
		"haystack_session_ids": `["s_c","s_d"]`, "haystack_dates": `["2023/05/03 (Wed) 18:00","2023/05/25 (Thu) 19:30"]`,
		"abstention": "<absent>"})
	abs := find(t, recs, "longmemeval:syn_ssu_2_abs")
	if abs.Type != "single-session-user" {
		t.Errorf("abstention type = %q, want the official single-session-user", abs.Type)
	}
	checkMeta(t, abs, map[string]string{"abstention": "true"})
}

// TestLongMemEvalRetrievalLog: an entry of LongMemEval's retrieval log keeps its ranking's corpus
// ids and texts, in order (the texts only with the full context; an item without text has null, so
// the two lists stay parallel); a plain entry has none; a
// ranking that is not a list is a bad item.
func TestLongMemEvalRetrievalLog(t *testing.T) {
	entry := `{"question_id": "q%d", "question_type": "multi-session", "question": "?", "answer": "a", "question_date": "d",` +
		` "haystack_session_ids": ["answer_x_1"], "haystack_dates": ["d1"], "haystack_sessions": [[{"role": "user", "content": "hi", "has_answer": true}]]%s}` + "\n"
	in := fmt.Sprintf(entry, 1, `, "retrieval_results": {"query": "?", "ranked_items": [{"corpus_id": "noans_x_1_1", "text": "hi", "timestamp": "d1"}, {"corpus_id": "answer_x_1", "text": {"facts": ["f"]}, "timestamp": "d1"}, {"corpus_id": "noans_x_2_1", "timestamp": "d1"}], "metrics": {"session": {}, "turn": {}}}`) +
		fmt.Sprintf(entry, 2, "") + fmt.Sprintf(entry, 3, `, "retrieval_results": {"ranked_items": {"corpus_id": "a"}}`)
	var recs []*record.Record
	var bads []string
	err := LongMemEval(Input{Name: "log.jsonl", R: strings.NewReader(in)}, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			bads = append(bads, bad.Error())
			return nil
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	checkMeta(t, recs[0], map[string]string{"retrieval_corpus_ids": `["noans_x_1_1","answer_x_1","noans_x_2_1"]`, "retrieval_texts": `["hi",{"facts":["f"]},null]`})
	checkMeta(t, recs[1], map[string]string{"retrieval_corpus_ids": "<absent>", "retrieval_texts": "<absent>"})
	trimContext(recs[0], "text")
	checkMeta(t, recs[0], map[string]string{"retrieval_corpus_ids": `["noans_x_1_1","answer_x_1","noans_x_2_1"]`, "retrieval_texts": "<absent>"})
	if len(bads) != 1 || !strings.HasPrefix(bads[0], `log.jsonl:3 (id "longmemeval:q3")`) {
		t.Errorf("bad items = %q, want line 3 naming longmemeval:q3", bads)
	}
}

// TestLongMemEvalAbstentionIDs: as in print_qa_metrics.py, a question is an abstention question
// when "_abs" occurs anywhere in its id, not only at the end.
func TestLongMemEvalAbstentionIDs(t *testing.T) {
	entry := `{"question_id": %q, "question_type": "multi-session", "question": "?", "answer": "a", "question_date": "d",` +
		` "haystack_session_ids": ["s"], "haystack_dates": ["d1"], "haystack_sessions": [[{"role": "user", "content": "hi"}]]}` + "\n"
	ids := map[string]string{"q_abs": "true", "q_abs_2": "true", "q_abstract": "true", "q_ab_s": "<absent>", "qabs": "<absent>"}
	var in strings.Builder
	for id := range ids {
		fmt.Fprintf(&in, entry, id)
	}
	n := 0
	err := LongMemEval(Input{Name: "q.json", R: strings.NewReader(in.String())}, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			t.Error(bad)
			return nil
		}
		n++
		checkMeta(t, r, map[string]string{"abstention": ids[strings.TrimPrefix(r.ID, "longmemeval:")]})
		return nil
	})
	if err != nil || n != len(ids) {
		t.Fatalf("%d records, %v", n, err)
	}
}

func TestEvaLearnRecords(t *testing.T) {
	open := func(name string) Input {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return Input{Name: name, R: f}
	}
	var recs []*record.Record
	err := EvaLearn(open("EvaLearn_Problem.json"), open("EvaLearn_Sequence.json"), Options{},
		func(rec *record.Record, _ int, bad error) error {
			if bad != nil {
				t.Errorf("bad item: %v", bad)
			}
			recs = append(recs, rec)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Logical Reasoning": 714, "Extraction": 119, "Mathematical Reasoning": 119,
		"Sequential Reasoning": 119, "Summarization": 112, "Classification": 91}
	if diff := cmp.Diff(want, typeCounts(recs)); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	r := find(t, recs, "evalearn:1:2") // sequence 1 = problems 252, 258, …
	if r.Type != "Extraction" || r.Sequence.ID != "1" || r.Sequence.Position != 2 || len(r.Turns) != 1 ||
		r.Question != r.Turns[0] || r.Rubric == "" || len(r.Answers) != 0 {
		t.Errorf("evalearn:1:2 = %q %+v %d turns", r.Type, r.Sequence, len(r.Turns))
	}
	checkMeta(t, r, map[string]string{"problem_id": "258"})
	// A multi-turn problem keeps its prompt list exactly; the question is the last turn.
	for _, r := range recs {
		if len(r.Turns) > 1 {
			if r.Question != r.Turns[len(r.Turns)-1] || len(r.Turns)%2 != 1 {
				t.Errorf("%s: %d turns, question is not the last one", r.ID, len(r.Turns))
			}
		}
	}
}

// TestEvaLearnQuestionIDs checks that a sequence's question id finds a problem id exactly when the two
// JSON values are equal, with the same hash, in Python after json.load (each pair was checked there:
// {json.loads(a): 1}.get(json.loads(b))), as evaluate.py looks problems up.
func TestEvaLearnQuestionIDs(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`3`, `3.0`, true},
		{`3`, `3e0`, true},
		{`3`, `30e-1`, true},
		{`1E2`, `100`, true},
		{`3.0000000000000001`, `3`, true},
		{`-0`, `0`, true},
		{`3.5`, `35e-1`, true},
		{`0.1`, `0.10`, true},
		{`10000000000000000000`, `1e19`, true},
		{`10000000000000000001`, `1e19`, false},
		{`9007199254740992`, `9007199254740993.0`, true},
		{`9007199254740993`, `9007199254740993.0`, false},
		{`1e400`, `2e400`, true},
		{`-1e400`, `1e400`, false},
		{`1`, `2`, false},
		{`true`, `1`, true},
		{`true`, `1.0`, true},
		{`false`, `0`, true},
		{`false`, `-0.0`, true},
		{`true`, `true`, true},
		{`true`, `false`, false},
		{`3`, `"3"`, false},
		{`0.5`, `"0.5"`, false},
		{`true`, `"true"`, false},
		{`"3"`, `"3"`, true},
		{`"3"`, `"\u0033"`, true},
		{`"3"`, `"3.0"`, false},
		{`"3"`, `" 3"`, false},
	} {
		problems := `[{"id": ` + tt.a + `, "type": "T", "prompt": ["Q?"], "rubric": "R"}]`
		sequences := `[{"sequence_id": 1, "type": "T", "question_ids": [` + tt.b + `]}]`
		var found, bads int
		err := EvaLearn(Input{Name: "p", R: strings.NewReader(problems)}, Input{Name: "s", R: strings.NewReader(sequences)},
			Options{}, func(rec *record.Record, _ int, bad error) error {
				if rec != nil {
					found++
				}
				if bad != nil {
					bads++
				}
				return nil
			})
		if err != nil || found+bads != 1 {
			t.Fatalf("problem id %s, question id %s: %d records, %d bad, %v; want one of them", tt.a, tt.b, found, bads, err)
		}
		if got := found == 1; got != tt.want {
			t.Errorf("problem id %s found by question id %s = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestEvaLearnLostItems: a sequence without question_ids (absent, null, a misspelt key) or with
// an empty list, and a problem that does not decode though its id reads, are bad items that say
// so, one for each record they would have given, never records that go missing without a word,
// nor "not in the problem file" for a problem that is.
func TestEvaLearnLostItems(t *testing.T) {
	good := `{"id": 1, "type": "T", "prompt": ["Q?"], "rubric": "R"}`
	for _, tt := range []struct {
		name, problems, sequence string
		records                  int
		bads                     []string
	}{
		{"no question_ids", good, `{"sequence_id": 4, "type": "T"}`, 0,
			[]string{`s:2 (id "evalearn:4"): missing field "question_ids"`}},
		{"misspelt question_ids", good, `{"sequence_id": 4, "type": "T", "questions_ids": [1]}`, 0,
			[]string{`s:2 (id "evalearn:4"): missing field "question_ids"`}},
		{"null question_ids", good, `{"sequence_id": 4, "type": "T", "question_ids": null}`, 0,
			[]string{`s:2 (id "evalearn:4"): question_ids: want a list of problem ids, got null`}},
		{"no prompt", good + ",\n" + `{"id": 2, "type": "T", "rubric": "R"}`, `{"sequence_id": 4, "type": "T", "question_ids": [2]}`, 0,
			[]string{`p:3 (id "evalearn:4:1"): problem 2: missing field "prompt"`}},
		{"null prompt", good + ",\n" + `{"id": 2, "type": "T", "prompt": null, "rubric": "R"}`, `{"sequence_id": 4, "type": "T", "question_ids": [2]}`, 0,
			[]string{`p:3 (id "evalearn:4:1"): problem 2: prompt: want a list that ends with the question, got null`}},
		{"empty question_ids", good, `{"sequence_id": 4, "type": "T", "question_ids": []}`, 0,
			[]string{`s:2 (id "evalearn:4"): question_ids: want a list of problem ids, got an empty list`}},
		{"problem prompt holds a number", good + ",\n" + `{"id": 2, "type": "T", "prompt": ["Q?", 5], "rubric": "R"}`,
			`{"sequence_id": 4, "type": "T", "question_ids": [2, 1, 2]}`, 1,
			[]string{`p:3 (id "evalearn:4:1"): problem 2: prompt[1]: want a string, got a number`,
				`p:3 (id "evalearn:4:3"): problem 2: prompt[1]: want a string, got a number`}},
		{"problem id a list", good + ",\n" + `{"id": [2], "type": 5, "prompt": ["Q?"]}`,
			`{"sequence_id": 4, "type": "T", "question_ids": [1]}`, 1,
			[]string{`p:3: type: want a string, got a number`}},
	} {
		problems := "[\n" + tt.problems + "\n]"
		sequences := "[\n" + tt.sequence + "\n]"
		var records int
		var bads []string
		err := EvaLearn(Input{Name: "p", R: strings.NewReader(problems)}, Input{Name: "s", R: strings.NewReader(sequences)},
			Options{}, func(rec *record.Record, _ int, bad error) error {
				if rec != nil {
					records++
				}
				if bad != nil {
					bads = append(bads, bad.Error())
				}
				return nil
			})
		if err != nil || records != tt.records || !slices.Equal(bads, tt.bads) {
			t.Errorf("%s: %d records, bad %q, %v; want %d records, bad %q", tt.name, records, bads, err, tt.records, tt.bads)
		}
	}
}

// TestEvaLearnCanonicalAnswer: a canonical_answer that is a number is str() of it, as an answer is
// in every benchmark's format; "" and null are no answer; a list is a bad item of each record that
// asks the problem.
func TestEvaLearnCanonicalAnswer(t *testing.T) {
	for _, tt := range []struct {
		answer string
		want   []string
		bad    string
	}{
		{`"four"`, []string{"four"}, ""},
		{`3.0`, []string{"3.0"}, ""},
		{`-12.50`, []string{"-12.5"}, ""},
		{`true`, []string{"True"}, ""},
		{`""`, []string{}, ""},
		{`null`, []string{}, ""},
		{`["4"]`, nil, `p:1 (id "evalearn:1:1"): problem 1: canonical_answer: want a string or a number, got a list`},
	} {
		problems := `[{"id": 1, "type": "T", "prompt": ["Q?"], "rubric": "R", "canonical_answer": ` + tt.answer + `}]`
		var recs []*record.Record
		var bads []string
		err := EvaLearn(Input{Name: "p", R: strings.NewReader(problems)}, Input{Name: "s", R: strings.NewReader(`[{"sequence_id": 1, "question_ids": [1]}]`)},
			Options{}, func(rec *record.Record, _ int, bad error) error {
				if rec != nil {
					recs = append(recs, rec)
				}
				if bad != nil {
					bads = append(bads, bad.Error())
				}
				return nil
			})
		switch {
		case err != nil:
			t.Errorf("canonical_answer %s: %v", tt.answer, err)
		case tt.bad != "" && (len(recs) != 0 || len(bads) != 1 || bads[0] != tt.bad):
			t.Errorf("canonical_answer %s: %d records, bad %q; want bad %q", tt.answer, len(recs), bads, tt.bad)
		case tt.bad == "" && (len(recs) != 1 || len(bads) != 0 || !slices.Equal(recs[0].Answers, tt.want)):
			t.Errorf("canonical_answer %s: %d records, bad %q; want answers %q", tt.answer, len(recs), bads, tt.want)
		}
	}
}

// TestHistoryTurnFaults: a LoCoMo or LongMemEval history turn that is null or lacks the members
// the prompts read (a LoCoMo speaker or text, a LongMemEval role or content), and a session that
// is null, are faults named by their place, as the benchmarks' scripts stop on them, never a
// turn that reads "speaker: " with its text lost.
func TestHistoryTurnFaults(t *testing.T) {
	locomo := func(session string) string {
		return `[{"sample_id": "c", "conversation": {"session_1_date_time": "1:00 pm on 8 May, 2023", "session_1": [{"speaker": "A", "text": "hi"}], ` +
			`"session_2_date_time": "2:00 pm on 9 May, 2023", "session_2": ` + session + `}, "qa": [{"question": "q?", "answer": "x", "category": 1}]}]`
	}
	lme := func(session string) string {
		return `[{"question_id": "a", "question_type": "t", "question": "q?", "answer": "x", "question_date": "d", ` +
			`"haystack_dates": ["d1", "d2"], "haystack_sessions": [[{"role": "user", "content": "hi"}], ` + session + `]}]`
	}
	for _, tt := range []struct {
		name string
		load Loader
		in   string
		want string // the bad item, "" for a record
	}{
		{"locomo good", LoCoMo, locomo(`[{"speaker": "B", "text": ""}]`), ""},
		{"locomo turn null", LoCoMo, locomo(`[{"speaker": "B", "text": "yo"}, null]`),
			`l.json:1 (id "locomo:c"): [0]: session_2[1]: want an object, got null (1 QA item skipped with it)`},
		{"locomo no text", LoCoMo, locomo(`[{"speaker": "B", "blip_caption": "a cat"}]`),
			`l.json:1 (id "locomo:c"): [0]: session_2[0]: missing field "text" (1 QA item skipped with it)`},
		{"locomo text null", LoCoMo, locomo(`[{"speaker": "B", "text": null}]`),
			`l.json:1 (id "locomo:c"): [0]: session_2[0]: missing field "text" (1 QA item skipped with it)`},
		{"locomo no speaker", LoCoMo, locomo(`[{"text": "yo"}]`),
			`l.json:1 (id "locomo:c"): [0]: session_2[0]: missing field "speaker" (1 QA item skipped with it)`},
		{"locomo session null", LoCoMo, locomo(`null`),
			`l.json:1 (id "locomo:c"): [0]: session_2: want a list of turns, got null (1 QA item skipped with it)`},
		// LoCoMo's prompts put 'DATE: ' + a session's date_time before it (a KeyError without
		// one, a TypeError for one that is no string).
		{"locomo no date", LoCoMo, strings.Replace(locomo(`[]`), `"session_2_date_time": "2:00 pm on 9 May, 2023", `, "", 1),
			`l.json:1 (id "locomo:c"): [0]: missing field "session_2_date_time" (1 QA item skipped with it)`},
		{"locomo date null", LoCoMo, strings.Replace(locomo(`[]`), `"2:00 pm on 9 May, 2023"`, "null", 1),
			`l.json:1 (id "locomo:c"): [0]: session_2_date_time: want a string, got null (1 QA item skipped with it)`},
		{"longmemeval good", LongMemEval, lme(`[]`), ""},
		{"longmemeval session null", LongMemEval, lme(`null`),
			`l.json:1 (id "longmemeval:a"): [0]: haystack session 2: want a list of turns, got null`},
		{"longmemeval turn null", LongMemEval, lme(`[{"role": "user", "content": "yo"}, null]`),
			`l.json:1 (id "longmemeval:a"): [0]: haystack session 2, turn 2: want an object, got null`},
		{"longmemeval no content", LongMemEval, lme(`[{"role": "user", "has_answer": true}]`),
			`l.json:1 (id "longmemeval:a"): [0]: haystack session 2, turn 1: missing field "content"`},
		{"longmemeval no role", LongMemEval, lme(`[{"content": "yo"}]`),
			`l.json:1 (id "longmemeval:a"): [0]: haystack session 2, turn 1: missing field "role"`},
		{"longmemeval content a number", LongMemEval, lme(`[{"role": "user", "content": 5}]`),
			`l.json:1 (id "longmemeval:a"): [0]: haystack session 2, turn 1: content: want a string, got a number`},
	} {
		ids, bads, err := loadString(t, tt.load, "l.json", tt.in, Options{})
		switch {
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want == "" && (len(ids) != 1 || len(bads) != 0):
			t.Errorf("%s: records %q, bad %q; want one record", tt.name, ids, bads)
		case tt.want != "" && (len(ids) != 0 || len(bads) != 1 || bads[0] != tt.want):
			t.Errorf("%s: records %q, bad %q; want bad %q", tt.name, ids, bads, tt.want)
		}
	}
}

// TestWholeItemFaults: an item that holds questions and is bad as a whole (a LoCoMo conversation
// with a session that does not decode, or without a qa list; a CMRC 2018 article; an EvaLearn
// sequence) is one bad item that says how many questions go with it, and a conversation without
// qa is one at all, rather than records that go missing without a word.
func TestWholeItemFaults(t *testing.T) {
	qa := `[{"question": "q1?", "answer": "x", "category": 1}, {"question": "q2?", "answer": "y", "category": 2}]`
	for _, tt := range []struct {
		name string
		load Loader
		in   string
		ids  []string
		bads []string
	}{
		{"locomo session", LoCoMo, `[{"sample_id": "c", "conversation": {"session_1": [{"speaker": "A", "text": 5}]}, "qa": ` + qa + `}]`, nil,
			[]string{`l.json:1 (id "locomo:c"): [0]: session_1[0].text: want a string, got a number (2 QA items skipped with it)`}},
		{"locomo sample_id", LoCoMo, `[{"sample_id": 5, "conversation": {}, "qa": ` + qa + `}]`, nil,
			[]string{`l.json:1 (id "locomo:5"): [0]: sample_id: want a string, got a number (2 QA items skipped with it)`}},
		{"locomo no qa", LoCoMo, `[{"sample_id": "c", "conversation": {"session_1": []}, "qas": ` + qa + `},` + "\n" + `{"sample_id": "d", "qa": null}]`, nil,
			[]string{`l.json:1 (id "locomo:c"): [0]: missing field "qa"`, `l.json:2 (id "locomo:d"): qa: want a list, got null`}},
		{"locomo empty qa", LoCoMo, `[{"sample_id": "c", "conversation": {}, "qa": []}]`, nil, nil},
		// an article of no paragraph holds no question, as for the script: nothing, and no bad item
		{"cmrc empty paragraphs", CMRC2018, `[{"title": "t", "paragraphs": []},` + "\n" +
			`{"context_id": "U", "context_text": "c", "title": "t", "qas": [{"query_id": "q2", "query_text": "问?", "answers": ["a"]}]}]`,
			[]string{"cmrc2018:q2"}, nil},
		{"cmrc context_text", CMRC2018, `[{"context_id": "T", "context_text": 5, "title": "t", "qas": [{"query_id": "q1", "query_text": "问?", "answers": ["a"]}]},` +
			"\n" + `{"context_id": "U", "context_text": "c", "title": "t", "qas": [{"query_id": "q2", "query_text": "问?", "answers": ["a"]}]}]`,
			[]string{"cmrc2018:q2"}, []string{`l.json:1 (id "cmrc2018:T"): [0]: context_text: want a string, got a number (1 question skipped with it)`}},
		// an article is named by its context_id, as a conversation by its sample_id
		{"cmrc no qas", CMRC2018, `[{"context_id": "T", "context_text": "c", "title": "t", "QA": []},` + "\n" +
			`{"context_id": "U", "context_text": "c", "title": "t", "qas": null},` + "\n" + `{"context_text": "c", "title": "t"}]`, nil,
			[]string{`l.json:1 (id "cmrc2018:T"): [0]: missing field "qas"`, `l.json:2 (id "cmrc2018:U"): qas: want a list, got null`,
				`l.json:3: missing field "qas"`}},
		{"cmrc no qas, one line", CMRC2018, `[{"context_id": "T", "qas": [{"query_id": "q1", "query_text": "问?", "answers": ["a"]}]}, {"context_id": "U"}]`,
			[]string{"cmrc2018:q1"}, []string{`l.json:1 (id "cmrc2018:U"): [1]: missing field "qas"`}},
		{"cmrc paragraph qas null", CMRC2018, `[{"title": "t", "paragraphs": [{"context": "c", "qas": null}, {"context": "c"}]}]`,
			nil, []string{`l.json:1: [0].paragraphs[0]: qas: want a list, got null`, `l.json:1: [0].paragraphs[1]: missing field "qas"`}},
		{"cmrc article title", CMRC2018, `[{"title": 7, "paragraphs": [{"context": "c", "qas": [{"id": "x", "question": "问", "answers": []}, {"id": "y", "question": "问", "answers": []}]}, {"qas": [{}]}]}]`,
			nil, []string{`l.json:1: [0]: title: want a string, got a number (3 questions skipped with it)`}},
	} {
		ids, bads, err := loadString(t, tt.load, "l.json", tt.in, Options{})
		if err != nil || !slices.Equal(ids, tt.ids) || !slices.Equal(bads, tt.bads) {
			t.Errorf("%s: records %q, bad %q, %v; want %q, bad %q", tt.name, ids, bads, err, tt.ids, tt.bads)
		}
	}
	var bads []string
	err := EvaLearn(Input{Name: "p", R: strings.NewReader(`[{"id": 1, "type": "T", "prompt": ["Q?"]}]`)},
		Input{Name: "s", R: strings.NewReader(`[{"sequence_id": 9, "type": 5, "question_ids": [1, 1, 1]}]`)},
		Options{}, func(_ *record.Record, _ int, bad error) error {
			if bad != nil {
				bads = append(bads, bad.Error())
			}
			return nil
		})
	want := []string{`s:1 (id "evalearn:9"): [0]: type: want a string, got a number (3 positions skipped with it)`}
	if err != nil || !slices.Equal(bads, want) {
		t.Errorf("evalearn sequence of the wrong type: bad %q, %v; want %q", bads, err, want)
	}
	// a sequence whose sequence_id does not read loses its positions with it, as one whose type
	// does not
	for _, tt := range []struct{ seq, want string }{
		{`{"type": "T", "question_ids": [1, 1]}`, `s:1: [0]: missing field "sequence_id" (2 positions skipped with it)`},
		{`{"sequence_id": null, "question_ids": [1, 1]}`, `s:1: [0]: missing field "sequence_id" (2 positions skipped with it)`},
		{`{"sequence_id": [9], "question_ids": [1, 1]}`, `s:1: [0]: sequence_id: want a string or a number, got a list (2 positions skipped with it)`},
		{`{"sequence_id": "", "question_ids": [1]}`, `s:1: [0]: field "sequence_id" is empty (1 position skipped with it)`},
	} {
		bads = nil
		err := EvaLearn(Input{Name: "p", R: strings.NewReader(`[{"id": 1, "type": "T", "prompt": ["Q?"]}]`)},
			Input{Name: "s", R: strings.NewReader("[" + tt.seq + "]")},
			Options{}, func(_ *record.Record, _ int, bad error) error {
				if bad != nil {
					bads = append(bads, bad.Error())
				}
				return nil
			})
		if err != nil || !slices.Equal(bads, []string{tt.want}) {
			t.Errorf("evalearn sequence %s: bad %q, %v; want [%q]", tt.seq, bads, err, tt.want)
		}
	}
}

// TestEvaLearnResultsKeys checks that sequence ids and positions are keyed as Python's dicts key
// them after json.load: by value across int, float and bool, strings apart from numbers.
func TestEvaLearnResultsKeys(t *testing.T) {
	lines := []string{
		`{"sequence_id": 117.0, "position_in_sequence": 2}`,
		`{"sequence_id": 1.17e2, "position_in_sequence": 3e0}`,
		`{"sequence_id": true, "position_in_sequence": true}`,
		`{"sequence_id": "\u0041", "position_in_sequence": -0.0}`,
		`{"sequence_id": -0, "position_in_sequence": 2.5}`,
		`{"sequence_id": 1e23, "position_in_sequence": "4"}`,
	}
	want := []struct {
		id  string
		seq record.Sequence
	}{
		{"evalearn:117:2", record.Sequence{ID: "117", Position: 2}},
		{"evalearn:117:3", record.Sequence{ID: "117", Position: 3}},
		{"evalearn:1:1", record.Sequence{ID: "1", Position: 1}},
		{`evalearn:"A":0`, record.Sequence{ID: `"A"`, Position: 0}},
		{"evalearn:0:2.5", record.Sequence{ID: "0", Position: 0}},
		{`evalearn:99999999999999991611392:"4"`, record.Sequence{ID: "99999999999999991611392", Position: 0}},
	}
	var recs []*record.Record
	in := Input{Name: "keys.jsonl", R: strings.NewReader(strings.Join(lines, "\n"))}
	err := EvaLearnResults(in, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			t.Errorf("bad item: %v", bad)
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil || len(recs) != len(want) {
		t.Fatalf("%d records, err %v; want %d", len(recs), err, len(want))
	}
	for i, w := range want {
		if r := recs[i]; r.ID != w.id || r.Sequence == nil || !reflect.DeepEqual(*r.Sequence, w.seq) {
			t.Errorf("line %d: %s %+v, want %s %+v", i+1, r.ID, r.Sequence, w.id, w.seq)
		}
	}
}

// TestEvaLearnResultsTypes: a type that is a name is the record's type; "", null, numbers and a
// name holding a lone surrogate, which upstream keys by value, are also kept verbatim in
// meta.evalearn_type; a missing type is unknown.
func TestEvaLearnResultsTypes(t *testing.T) {
	for _, c := range []struct {
		field, typ, meta string // meta "" means none
	}{
		{`"type": "Maths", `, "Maths", ""},
		{``, "unknown", ""},
		{`"type": "", `, "", `""`},
		{`"type": null, `, "", `null`},
		{`"type": 1.0, `, "1.0", `1.0`},
		{`"type": 1e2, `, "100.0", `1e2`},
		{`"type": true, `, "True", `true`},
		{`"type": 3, `, "3", `3`},
		{`"type": ["x"], `, "", `["x"]`},
		// A lone surrogate, which Python keeps in a str and the type field cannot hold (it is
		// U+FFFD there), so that "A\ud800" and "A\ud801" stay two types, as upstream.
		{`"type": "A\ud800", `, "A\ufffd", `"A\ud800"`},
		{`"type": "\ud83d\ude00", `, "\U0001f600", ""}, // a pair is one character
	} {
		line := `{` + c.field + `"sequence_id": 1, "position_in_sequence": 1}`
		var got *record.Record
		in := Input{Name: "types.jsonl", R: strings.NewReader(line)}
		err := EvaLearnResults(in, Options{}, func(r *record.Record, _ int, bad error) error {
			if bad != nil {
				t.Errorf("%s: bad item: %v", line, bad)
			}
			got = r
			return nil
		})
		if err != nil || got == nil {
			t.Fatalf("%s: no record (%v)", line, err)
		}
		if got.Type != c.typ || string(got.Meta["evalearn_type"]) != c.meta {
			t.Errorf("%s: type %q, meta.evalearn_type %s; want %q, %s", line, got.Type, got.Meta["evalearn_type"], c.typ, c.meta)
		}
	}
}

func TestEvaLearnResultsEdgeCases(t *testing.T) {
	recs, _ := loadAll(t, EvaLearnResults, "evalearn_results_edge.jsonl")
	tests := []struct {
		id      string
		seq     *record.Sequence
		typ     string
		metaSeq string
		metaPos string
	}{
		{`evalearn:176:"4"`, &record.Sequence{ID: "176", Position: 0}, "Summarization", "176", `"4"`},
		{"evalearn:98:3", &record.Sequence{ID: "98", Position: 3}, "Extraction", "98", "3"},
		{`evalearn:"117":7`, &record.Sequence{ID: `"117"`, Position: 7}, "Mathematical Reasoning", `"117"`, "7"},
		{"evalearn:72:1", &record.Sequence{ID: "72", Position: 1}, "unknown", "72", "1"},
		{"evalearn:problem:9", nil, "Logical Reasoning", "6", "<absent>"},
		{"evalearn:problem:105", nil, "Logical Reasoning", "null", "4"},
		{"evalearn:130:1#2", &record.Sequence{ID: "130", Position: 1}, "Logical Reasoning", "130", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			r := find(t, recs, tt.id)
			if !cmp.Equal(r.Sequence, tt.seq, cmpopts.IgnoreUnexported(record.Sequence{})) || r.Type != tt.typ {
				t.Errorf("%s = %+v %q, want %+v %q", tt.id, r.Sequence, r.Type, tt.seq, tt.typ)
			}
			checkMeta(t, r, map[string]string{"evalearn_sequence_id": tt.metaSeq, "evalearn_position": tt.metaPos})
		})
	}
	r := find(t, recs, "evalearn:98:3")
	if metaJSON(r, "evalearn_position") != "3" || string(r.Meta["evalearn_position"]) != "3.0" {
		t.Errorf("position kept as %s, want 3.0 verbatim", r.Meta["evalearn_position"])
	}
	first := recs[0]
	if first.Prediction == nil || first.Judgments["evalearn"] == nil || first.Judgments["evalearn"].Raw == "" {
		t.Fatalf("first record has no prediction or judge text: %+v", first)
	}
	var src map[string]any
	line, _ := os.ReadFile("testdata/evalearn_results_edge.jsonl")
	json.Unmarshal([]byte(strings.SplitN(string(line), "\n", 2)[0]), &src)
	if first.Prediction.Text != src["gpt4res"] || first.Judgments["evalearn"].Raw != src["gpt4judge"] {
		t.Errorf("first record prediction/judge = %q / %q, want gpt4res/gpt4judge verbatim", first.Prediction.Text, first.Judgments["evalearn"].Raw)
	}
}

func TestEvaLearnResultsArrayMatchesJSONL(t *testing.T) {
	lines, _ := loadAll(t, EvaLearnResults, "evalearn_results_edge.jsonl")
	array, _ := loadAll(t, EvaLearnResults, "evalearn_results_edge60.json")
	if diff := cmp.Diff(lines[:60], array, cmpopts.IgnoreUnexported(record.Record{}, record.Prediction{}, record.Usage{}, record.Passage{}, record.Judgment{}, record.Sequence{}, record.Batch{})); diff != "" {
		t.Errorf("array form differs from JSONL (-jsonl +array):\n%s", diff)
	}
}

// TestEvaLearnResultsGoldenArray loads both EvaLearn golden results files as evaluate.py writes
// them, a JSON array, and as JSONL (the golden set's results.jsonl, copied elsewhere in the
// repository), and wants the same records and the same bad items from the two; the item counts
// are the golden README's.
func TestEvaLearnResultsGoldenArray(t *testing.T) {
	for _, tt := range []struct {
		array, jsonl string
		items        int
	}{
		{"testdata/evalearn_results_clean.json", "../learncurve/testdata/evalearn/case1_clean/results.jsonl", 1274},
		{"testdata/evalearn_results_edge.json", "testdata/evalearn_results_edge.jsonl", 1268},
	} {
		t.Run(filepath.Base(tt.array), func(t *testing.T) {
			lines, lineBads := loadFile(t, EvaLearnResults, tt.jsonl)
			array, arrayBads := loadFile(t, EvaLearnResults, tt.array)
			if n := len(lines) + len(lineBads); n != tt.items {
				t.Errorf("%s: %d records and %d bad items, want %d items", tt.jsonl, len(lines), len(lineBads), tt.items)
			}
			if diff := cmp.Diff(lines, array, cmpopts.IgnoreUnexported(record.Record{}, record.Prediction{}, record.Usage{}, record.Passage{}, record.Judgment{}, record.Sequence{}, record.Batch{})); diff != "" {
				t.Errorf("array form differs from JSONL (-jsonl +array):\n%s", diff)
			}
			if diff := cmp.Diff(badItems(t, lineBads), badItems(t, arrayBads)); diff != "" {
				t.Errorf("array form's bad items differ from JSONL's (-jsonl +array):\n%s", diff)
			}
			// And so through qa-load --format evalearn-results: the same records out, byte for byte.
			var out [2]bytes.Buffer
			for i, path := range []string{tt.jsonl, tt.array} {
				var stderr bytes.Buffer
				if err := Run(context.Background(), []string{"qa-load", "--format", "evalearn-results", path}, nil, &out[i], &stderr); err != nil {
					t.Fatalf("qa-load %s: %v; stderr %s", path, err, stderr.String())
				}
			}
			if n := bytes.Count(out[0].Bytes(), []byte("\n")); n != len(lines) {
				t.Errorf("qa-load %s: %d records out, want %d", tt.jsonl, n, len(lines))
			}
			if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
				t.Errorf("qa-load %s and %s write different records", tt.jsonl, tt.array)
			}
		})
	}
}

// badItems returns each bad item's id and error, without its file and line, which differ between
// a JSON array and JSONL.
func badItems(t *testing.T, bads []error) []string {
	t.Helper()
	var out []string
	for _, err := range bads {
		var e *record.Error
		if !errors.As(err, &e) {
			t.Fatalf("bad item %v: not a *record.Error", err)
		}
		out = append(out, fmt.Sprintf("id %q: %v", e.ID, e.Err))
	}
	return out
}

func TestGeneric(t *testing.T) {
	m, err := ParseMap("question=q,answers=gold,id=qid,type=category")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file string
		load Loader
		ids  []string
	}{
		{"generic.jsonl", JSONL, []string{"g1", "2", "g3"}},
		{"generic.csv", CSV, []string{"c1", "c2", "c3"}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, _ := os.Open(filepath.Join("testdata", tt.file))
			defer f.Close()
			var recs []*record.Record
			err := tt.load(Input{Name: tt.file, R: f}, Options{Map: m}, func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					t.Errorf("bad: %v", bad)
					return nil
				}
				recs = append(recs, r)
				return nil
			})
			if err != nil || len(recs) != 3 {
				t.Fatalf("%s: %d records, err %v", tt.file, len(recs), err)
			}
			wantAnswers := [][]string{{"4", "four"}, {"Lima"}, {"1989"}}
			wantTypes := []string{"math", "geo", "history"}
			for i, r := range recs {
				if r.ID != tt.ids[i] || !cmp.Equal(r.Answers, wantAnswers[i]) || r.Type != wantTypes[i] {
					t.Errorf("record %d = %q %q %q, want %q %q %q", i, r.ID, r.Answers, r.Type, tt.ids[i], wantAnswers[i], wantTypes[i])
				}
			}
			if !strings.Contains(recs[1].Question, "Peru") {
				t.Errorf("question = %q", recs[1].Question)
			}
		})
	}
}

func TestBadItems(t *testing.T) {
	in := "{\"_id\": \"a\", \"question\": \"q?\", \"answer\": \"x\", \"type\": \"bridge\"}\n" +
		"{not json\n" +
		"{\"question\": \"no id\"}\n" +
		"{\"_id\": \"b\", \"question\": \"q2?\", \"answer\": \"y\", \"type\": \"comparison\"}\n" +
		"null\n[]\n"
	var ids []string
	var bads []string
	err := HotpotQA(Input{Name: "h.jsonl", R: strings.NewReader(in)}, Options{}, func(r *record.Record, _ int, bad error) error {
		if bad != nil {
			var re *record.Error
			if !errors.As(bad, &re) {
				t.Errorf("bad item %v is not a *record.Error", bad)
			}
			bads = append(bads, bad.Error())
			return nil
		}
		ids = append(ids, r.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(ids, []string{"hotpotqa:a", "hotpotqa:b"}) {
		t.Errorf("ids = %q", ids)
	}
	if len(bads) != 4 || !strings.HasPrefix(bads[0], "h.jsonl:2: invalid JSON") || bads[1] != `h.jsonl:3: missing field "_id"` ||
		bads[2] != "h.jsonl:5: want an object, got null" || bads[3] != "h.jsonl:6: want an object, got a list" {
		t.Errorf("bad items = %q", bads)
	}
}

// TestPyStrAnswer checks that LoCoMo and LongMemEval answers are str() of the loaded value, as
// their scripts insert them.
func TestPyStrAnswer(t *testing.T) {
	for _, tt := range []struct {
		raw, want string
		ok        bool
	}{
		{`2022`, "2022", true}, {`3.0`, "3.0", true}, {`1e5`, "100000.0", true}, {`true`, "True", true},
		{` "x" `, "x", true}, {`-0`, "0", true}, {`null`, "", false}, {`[1]`, "", false}, {`{}`, "", false},
	} {
		if got, ok := pyStrAnswer([]byte(tt.raw)); got != tt.want || ok != tt.ok {
			t.Errorf("pyStrAnswer(%s) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReadFile(t *testing.T) {
	recs, err := ReadFile(HotpotQA, "testdata/hotpotqa_array5.json")
	if err != nil || len(recs) != 5 {
		t.Fatalf("ReadFile = %d records, %v", len(recs), err)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"q\": \"x\"}\nnot json\n"), 0o644) //nolint:errcheck // read back below
	if _, err := ReadFile(EvaLearnResults, bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("ReadFile(bad) error = %v, want one naming bad.jsonl:2", err)
	}
	if _, err := ReadFile(HotpotQA, filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("ReadFile(missing) succeeded")
	}
}

// TestNotAnObjectWording: an item that is not an object, on a JSON Lines line, in a JSON array or
// among a SQuAD paragraph's questions, is worded as the record reader words the same line read
// as a record (what qa-predict, qa-judge, qa-score and qa-learncurve say of it), after the path
// that finds a SQuAD question without an id in a file that is all one line.
func TestNotAnObjectWording(t *testing.T) {
	for _, item := range []string{`["q"]`, `5`, `"q"`, `null`, `true`} {
		_, err := record.NewReader(strings.NewReader(item+"\n"), "r.jsonl").Read()
		var rerr *record.Error
		if !errors.As(err, &rerr) {
			t.Fatalf("record reader on %s: %v, want a *record.Error", item, err)
		}
		want := strings.TrimPrefix(rerr.Err.Error(), "invalid record: ")
		for _, tc := range []struct {
			name string
			load Loader
			in   string
			path string
		}{
			{"jsonl line", HotpotQA, `{"_id":"a","question":"q","answer":"x"}` + "\n" + item + "\n", ""},
			{"array item", HotpotQA, `[{"_id":"a","question":"q","answer":"x"},` + "\n" + item + "]", ""},
			{"generic line", JSONL, `{"id":"a","question":"q"}` + "\n" + item + "\n", ""},
			{"squad question", SQuAD, `{"data":[{"title":"t","paragraphs":[{"context":"c","qas":[{"id":"a","question":"q"},` + "\n" + item + "]}]}]}",
				"data[0].paragraphs[0].qas[1]: "},
		} {
			_, bads, err := loadString(t, tc.load, "i.json", tc.in, Options{})
			if err != nil || len(bads) != 1 || bads[0] != "i.json:2: "+tc.path+want {
				t.Errorf("%s %s: bad items %q, %v; want [%q]", tc.name, item, bads, err, "i.json:2: "+tc.path+want)
			}
		}
	}
}

// TestHotpotContextFaults: a HotpotQA context out of shape is named by the pair at fault and
// worded as the record reader words a supporting fact, never by Go's struct ("want a list of
// objects"); a well-formed one still becomes passages with their sentences.
func TestHotpotContextFaults(t *testing.T) {
	for _, tt := range []struct{ context, want string }{
		{`"s"`, "context: want a list of [title, sentences] pairs, got a string"},
		{`{}`, `context: missing field "title"`}, // an object is the Hugging Face export's {"title": [...], "sentences": [...]}
		{`["s"]`, "context[0]: want a [title, sentences] pair, got a string"},
		{`[["t",["a"]],null]`, "context[1]: want a [title, sentences] pair, got null"},
		{`[["t"]]`, "context[0]: want [title, sentences], got 1 element"},
		{`[["t",["a"],"x"]]`, "context[0]: want [title, sentences], got 3 elements"},
		{`[[1,["a"]]]`, "context[0] title: want a string, got a number"},
		{`[["t","a"]]`, "context[0] sentences: want a list of strings, got a string"},
		{`[["t",["a",true]]]`, "context[0] sentences: want a string, got true or false"},
		{`[["t",["a"]],[null,["b"]]]`, "context[1] title: want a string, got null"},
		{`[["t",null]]`, "context[0] sentences: want a list of strings, got null"},
		{`[["t",["a",null," c"]]]`, "context[0] sentences[1]: want a string, got null"},
	} {
		in := `{"_id":"a","question":"q","answer":"x","context":` + tt.context + "}\n"
		ids, bads, err := loadString(t, HotpotQA, "h.jsonl", in, Options{})
		want := `h.jsonl:1 (id "hotpotqa:a"): ` + tt.want
		if err != nil || len(ids) != 0 || len(bads) != 1 || bads[0] != want {
			t.Errorf("context %s: ids %q, bad items %q, %v; want [%q]", tt.context, ids, bads, err, want)
		}
	}
	var got *record.Record
	in := `{"_id":"a","question":"q","answer":"x","context":[["T",["One."," Two."]],["U",[]]]}`
	err := HotpotQA(Input{Name: "h.jsonl", R: strings.NewReader(in)}, Options{}, func(r *record.Record, _ int, bad error) error {
		got = r
		return bad
	})
	want := []record.Passage{{Title: "T", Text: "One. Two.", Sentences: []string{"One.", " Two."}}, {Title: "U", Sentences: []string{}}}
	if err != nil || got == nil || !cmp.Equal(got.Context, want, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(record.Passage{})) {
		t.Errorf("context = %+v, %v; want %+v", got, err, want)
	}
}

// TestFieldTypeWording: a field of the wrong kind in an item of any benchmark's layout is worded
// as the record reader words the same field in a record line (what qa-predict, qa-judge,
// qa-score and qa-learncurve say of it), by its path and the JSON kinds wanted and found, and
// the item is named by the id its record would have had.
func TestFieldTypeWording(t *testing.T) {
	_, err := record.NewReader(strings.NewReader(`{"schema":1,"id":"a","question":5}`+"\n"), "r.jsonl").Read()
	var rerr *record.Error
	if !errors.As(err, &rerr) {
		t.Fatalf("record reader: %v, want a *record.Error", err)
	}
	want := strings.TrimPrefix(rerr.Err.Error(), "invalid record: ")
	if want != "question: want a string, got a number" {
		t.Fatalf("record reader says %q", want)
	}
	for _, tc := range []struct {
		name string
		load Loader
		in   string
		id   string
		path string // where the question is, if not under "question"
		at   string // the question's path in an array on one line, if not the item's index [0]
	}{
		{"hotpotqa line", HotpotQA, `{"_id":"a","question":5,"answer":"x"}`, "hotpotqa:a", "", ""},
		{"hotpotqa array", HotpotQA, `[{"_id":"a","question":5,"answer":"x"}]`, "hotpotqa:a", "", ""},
		{"longmemeval", LongMemEval, `[{"question_id":"a","question_type":"t","question":5,"answer":"x"}]`, "longmemeval:a", "", ""},
		{"locomo", LoCoMo, `[{"sample_id":"c","conversation":{"speaker_a":"A","speaker_b":"B"},"qa":[{"question":5,"answer":"x","category":1}]}]`, "locomo:c:0", "", "[0].qa[0]"},
		{"squad", SQuAD, `{"data":[{"title":"t","paragraphs":[{"context":"c","qas":[{"id":"a","question":5,"answers":[]}]}]}]}`, "squad:a", "", ""},
		{"cmrc2018", CMRC2018, `{"data":[{"title":"t","paragraphs":[{"context":"c","qas":[{"id":"a","question":5,"answers":[]}]}]}]}`, "cmrc2018:a", "", ""},
		{"cmrc2018 first layout", CMRC2018, `[{"context_id":"c","context_text":"c","title":"t","qas":[{"query_id":"a","query_text":5,"answers":[]}]}]`, "cmrc2018:a", "query_text", "[0].qas[0]"},
	} {
		_, bads, err := loadString(t, tc.load, "i.json", tc.in, Options{})
		w := fmt.Sprintf("i.json:1 (id %q): %s", tc.id, want)
		if strings.HasPrefix(tc.in, "[") { // an item of an array on one line is named by its index too
			at := "[0]"
			if tc.at != "" {
				at = tc.at
			}
			w = fmt.Sprintf("i.json:1 (id %q): %s: %s", tc.id, at, want)
		}
		if tc.path != "" {
			w = strings.Replace(w, "question:", tc.path+":", 1)
		}
		if err != nil || len(bads) != 1 || bads[0] != w {
			t.Errorf("%s: bad items %q, %v; want [%q]", tc.name, bads, err, w)
		}
	}
}

// TestSQuADLayoutWording: a "data" out of place in a SQuAD-layout file (SQuAD, CMRC 2018) stops
// the load with its line and path (the files are one line), worded as the record reader words a
// line of the wrong kind: a "data" that is an object reads "data: want a list, got an object".
// An article, a paragraph, their lists or an article's title or a paragraph's context of the
// wrong kind is worded so too ("data[0]: want an object, got a list"), but as a bad item of that
// article or paragraph, which says how many questions are skipped with it, and the load goes on
// (see TestSQuADTextFaults and TestSQuADStructureFaults).
func TestSQuADLayoutWording(t *testing.T) {
	_, err := record.NewReader(strings.NewReader(`["t"]`+"\n"), "r.jsonl").Read()
	var rerr *record.Error
	if !errors.As(err, &rerr) || rerr.Err.Error() != "invalid record: want an object, got a list" {
		t.Fatalf("record reader on a list: %v", err)
	}
	for _, tt := range []struct{ in, want string }{
		{"{\"data\":\n {\"title\": \"t\"}}", "s.json:2: data: want a list, got an object"},
		{"{\"data\":\n 5}", "s.json:2: data: want a list, got a number"},
	} {
		for _, load := range []Loader{SQuAD, CMRC2018} {
			_, _, err := loadString(t, load, "s.json", tt.in, Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("%q: %v, want %q", tt.in, err, tt.want)
			}
		}
	}
}

// TestSQuADTextFaults: an article's title or a paragraph's context that is no string (a number, a
// list, an object) is a bad item of that article or paragraph, named by its path and saying how
// many questions are skipped with it, and the articles and paragraphs after it load; it used to
// stop the load. The streaming reader (a SQuAD file, CMRC 2018's in the SQuAD layout) and CMRC
// 2018's array of SQuAD-layout articles (a file's "data" list alone) agree; null is no title.
func TestSQuADTextFaults(t *testing.T) {
	q := func(id string) string {
		return `{"id":"` + id + `","question":"?","answers":[{"text":"x","answer_start":0}]}`
	}
	for _, tc := range []struct {
		name      string
		data      string // the "data" list
		bads      string // the bad items, "|"-separated, of the streaming reader ("[]" paths)
		arrayBads string // the array layout's, when it words them otherwise ("" for bads)
		ids       string // the questions loaded
	}{
		{"context a number",
			`[{"title":"A","paragraphs":[{"context":5,"qas":[` + q("q1") + `]}]},{"title":"B","paragraphs":[{"context":"x","qas":[` + q("q2") + `]}]}]`,
			`s.json:1: data[0].paragraphs[0].context: want a string, got a number (1 question skipped with it)`,
			`s.json:1: [0].paragraphs[0]: context: want a string, got a number (1 question skipped with it)`,
			"q2"},
		{"context a list, the next paragraph loads",
			`[{"title":"A","paragraphs":[{"qas":[` + q("q1") + `,` + q("q2") + `],"context":["x"]},{"context":"x","qas":[` + q("q3") + `]}]}]`,
			`s.json:1: data[0].paragraphs[0].context: want a string, got a list (2 questions skipped with it)`,
			`s.json:1: [0].paragraphs[0]: context: want a string, got a list (2 questions skipped with it)`,
			"q3"},
		{"context an object, no questions",
			`[{"title":"A","paragraphs":[{"context":{},"qas":[]},{"context":"x","qas":[` + q("q1") + `]}]}]`,
			`s.json:1: data[0].paragraphs[0].context: want a string, got an object`,
			`s.json:1: [0].paragraphs[0]: context: want a string, got an object`,
			"q1"},
		{"context bad, qas missing: the context is named",
			`[{"title":"A","paragraphs":[{"context":1},{"context":"x","qas":[` + q("q1") + `]}]}]`,
			`s.json:1: data[0].paragraphs[0].context: want a string, got a number`,
			`s.json:1: [0].paragraphs[0]: context: want a string, got a number`,
			"q1"},
		{"title a number, after the paragraphs",
			`[{"paragraphs":[{"context":"x","qas":[` + q("q1") + `]},{"context":"x","qas":[` + q("q2") + `,null]}],"title":7},{"title":"B","paragraphs":[{"context":"x","qas":[` + q("q3") + `]}]}]`,
			`s.json:1: data[0].title: want a string, got a number (3 questions skipped with it)`,
			`s.json:1: [0]: title: want a string, got a number (3 questions skipped with it)`,
			"q3"},
		{"title a list, with a paragraph without qas: the title is named",
			`[{"title":["t"],"paragraphs":[{"context":"x"},{"context":"x","qas":[` + q("q1") + `]}]},{"title":"B","paragraphs":[{"context":"x","qas":[` + q("q2") + `]}]}]`,
			`s.json:1: data[0].title: want a string, got a list (1 question skipped with it)`,
			`s.json:1: [0]: title: want a string, got a list (1 question skipped with it)`,
			"q2"},
		{"title null loads",
			`[{"title":null,"paragraphs":[{"context":"x","qas":[` + q("q1") + `]}]}]`,
			``, ``, "q1"},
	} {
		checkSQuADLayouts(t, tc.name, tc.data, tc.bads, tc.arrayBads, tc.ids)
	}
	// Over lines, the streaming reader names the line the value starts on.
	in := "{\"data\": [{\"paragraphs\": []},\n{\"title\":\n[\"t\"], \"paragraphs\": [{\"context\": \"c\", \"qas\": [" + q("q1") + "]}]}]}"
	_, bads, err := loadString(t, SQuAD, "s.json", in, Options{})
	if want := "s.json:3: data[1].title: want a string, got a list (1 question skipped with it)"; err != nil || len(bads) != 1 || bads[0] != want {
		t.Errorf("over lines: bad items %q, %v; want [%q]", bads, err, want)
	}
}

// TestSQuADStructureFaults: an article or a paragraph of the wrong kind (a number, a list), or one
// whose "paragraphs" or "qas" is (a string, an object), is a bad item named by its path, and the
// articles and paragraphs after it load; the streaming reader stopped the load on it, where CMRC
// 2018's array of SQuAD-layout articles skipped it. An article or paragraph with a key that differs
// from one it is read by only in case ("Title", "Context") is a bad item too, as every loader has
// it (foldedKey), saying how many questions are skipped with it; the streaming reader ignored the
// key (an article without a title, a paragraph without text). Both layouts word each alike.
func TestSQuADStructureFaults(t *testing.T) {
	q := func(id string) string {
		return `{"id":"` + id + `","question":"?","answers":[{"text":"x","answer_start":0}]}`
	}
	good := `{"title":"B","paragraphs":[{"context":"x","qas":[` + q("q9") + `]}]}`
	fold := func(key, field string) string {
		return `member "` + key + `" differs from "` + field + `" only in case: the benchmark's script does not read it, where the decoder may read it as "` + field + `" (rename it)`
	}
	for _, tc := range []struct {
		name      string
		data      string // the "data" list
		bads      string // the bad items, "|"-separated, of the streaming reader
		arrayBads string // the array layout's
		ids       string // the questions loaded
	}{
		{"qas a string",
			`[{"title":"A","paragraphs":[{"context":"x","qas":"q"}]},` + good + `]`,
			`s.json:1: data[0].paragraphs[0]: qas: want a list, got a string`,
			`s.json:1: [0].paragraphs[0]: qas: want a list, got a string`,
			"q9"},
		{"qas a number, after a paragraph that loads",
			`[{"title":"A","paragraphs":[{"context":"x","qas":[` + q("q1") + `]},{"qas":5,"context":"x"}]},` + good + `]`,
			`s.json:1: data[0].paragraphs[1]: qas: want a list, got a number`,
			`s.json:1: [0].paragraphs[1]: qas: want a list, got a number`,
			"q1,q9"},
		{"qas an object",
			`[{"title":"A","paragraphs":[{"context":"x","qas":{"a":[` + q("q1") + `]}},{"context":"x","qas":[` + q("q2") + `]}]},` + good + `]`,
			`s.json:1: data[0].paragraphs[0]: qas: want a list, got an object`,
			`s.json:1: [0].paragraphs[0]: qas: want a list, got an object`,
			"q2,q9"},
		{"paragraphs a string",
			`[{"title":"A","paragraphs":"p"},` + good + `]`,
			`s.json:1: data[0]: paragraphs: want a list, got a string`,
			`s.json:1: [0]: paragraphs: want a list, got a string`,
			"q9"},
		{"paragraphs an object",
			`[{"paragraphs":{"context":"x","qas":[` + q("q1") + `]},"title":"A"},` + good + `]`,
			`s.json:1: data[0]: paragraphs: want a list, got an object`,
			`s.json:1: [0]: paragraphs: want a list, got an object`,
			"q9"},
		{"a paragraph a number, the next loads",
			`[{"title":"A","paragraphs":[5,{"context":"x","qas":[` + q("q1") + `]}]},` + good + `]`,
			`s.json:1: data[0].paragraphs[0]: want an object, got a number`,
			`s.json:1: [0].paragraphs[0]: want an object, got a number`,
			"q1,q9"},
		{"a paragraph a list",
			`[{"title":"A","paragraphs":[[` + q("q1") + `],true]},` + good + `]`,
			`s.json:1: data[0].paragraphs[0]: want an object, got a list|s.json:1: data[0].paragraphs[1]: want an object, got true or false`,
			`s.json:1: [0].paragraphs[0]: want an object, got a list|s.json:1: [0].paragraphs[1]: want an object, got true or false`,
			"q9"},
		{"an article a number",
			`[5,` + good + `]`,
			`s.json:1: data[0]: want an object, got a number`,
			`s.json:1: [0]: want an object, got a number`,
			"q9"},
		{"articles a string, a list, true",
			`["a",[` + good + `],true,` + good + `]`,
			`s.json:1: data[0]: want an object, got a string|s.json:1: data[1]: want an object, got a list|s.json:1: data[2]: want an object, got true or false`,
			`s.json:1: [0]: want an object, got a string|s.json:1: [1]: want an object, got a list|s.json:1: [2]: want an object, got true or false`,
			"q9"},
		{"Title",
			`[{"Title":"A","paragraphs":[{"context":"x","qas":[` + q("q1") + `]},{"context":"x","qas":[` + q("q2") + `]}]},` + good + `]`,
			`s.json:1: data[0]: ` + fold("Title", "title") + ` (2 questions skipped with it)`,
			`s.json:1: [0]: ` + fold("Title", "title") + ` (2 questions skipped with it)`,
			"q9"},
		{"TITLE beside title",
			`[{"title":"A","TITLE":"B","paragraphs":[{"context":"x","qas":[` + q("q1") + `]}]},` + good + `]`,
			`s.json:1: data[0]: ` + fold("TITLE", "title") + ` (1 question skipped with it)`,
			`s.json:1: [0]: ` + fold("TITLE", "title") + ` (1 question skipped with it)`,
			"q9"},
		{"Paragraphs: its questions are counted",
			`[{"title":"A","Paragraphs":[{"context":"x","qas":[` + q("q1") + `]}]},` + good + `]`,
			`s.json:1: data[0]: ` + fold("Paragraphs", "paragraphs") + ` (1 question skipped with it)`,
			`s.json:1: [0]: ` + fold("Paragraphs", "paragraphs") + ` (1 question skipped with it)`,
			"q9"},
		{"Context, the next paragraph loads",
			`[{"title":"A","paragraphs":[{"Context":"x","qas":[` + q("q1") + `]},{"context":"x","qas":[` + q("q2") + `]}]},` + good + `]`,
			`s.json:1: data[0].paragraphs[0]: ` + fold("Context", "context") + ` (1 question skipped with it)`,
			`s.json:1: [0].paragraphs[0]: ` + fold("Context", "context") + ` (1 question skipped with it)`,
			"q2,q9"},
		{"QAS",
			`[{"title":"A","paragraphs":[{"context":"x","QAS":[` + q("q1") + `]}]},` + good + `]`,
			`s.json:1: data[0].paragraphs[0]: ` + fold("QAS", "qas") + ` (1 question skipped with it)`,
			`s.json:1: [0].paragraphs[0]: ` + fold("QAS", "qas") + ` (1 question skipped with it)`,
			"q9"},
		{"a case-different key in a member of no one's loads",
			`[{"title":"A","x":{"Title":1},"paragraphs":[{"context":"x","y":{"Context":1},"qas":[` + q("q1") + `]}]}]`,
			``, ``, "q1"},
	} {
		checkSQuADLayouts(t, tc.name, tc.data, tc.bads, tc.arrayBads, tc.ids)
	}
	// Over lines, the streaming reader names the line the value starts on, or its object's.
	for _, tt := range []struct{ in, want string }{
		{"{\"data\": [\n5, " + good + "]}", "s.json:2: data[0]: want an object, got a number"},
		{"{\"data\": [{\"paragraphs\": [\ntrue]}, " + good + "]}", "s.json:2: data[0].paragraphs[0]: want an object, got true or false"},
		{"{\"data\": [{\"paragraphs\": [{\"qas\":\n\"q\"}]}, " + good + "]}", "s.json:2: data[0].paragraphs[0]: qas: want a list, got a string"},
		{"{\"data\": [" + good + ",\n{\"paragraphs\": [{\"Context\": \"c\", \"qas\": [" + q("q1") + "]}]}]}", "s.json:2: data[1].paragraphs[0]: " + fold("Context", "context") + " (1 question skipped with it)"},
	} {
		ids, bads, err := loadString(t, SQuAD, "s.json", tt.in, Options{})
		if err != nil || len(bads) != 1 || bads[0] != tt.want || !slices.Equal(ids, []string{"squad:q9"}) {
			t.Errorf("%q: records %q, bad items %q, %v; want [%q]", tt.in, ids, bads, err, tt.want)
		}
	}
}

// TestCRLineEndings: a JSON Lines file whose lines carriage returns alone end is one bad item
// that says so, in every loader of JSON Lines, as the other stages say it, not "invalid JSON" or
// a type error about what follows the first line; CRLF lines load.
func TestCRLineEndings(t *testing.T) {
	const want = `i.jsonl:1: the file has CR line endings (a carriage return with no line feed after it, at column %d): convert them to LF with tr '\r' '\n'`
	for _, tc := range []struct {
		name string
		load Loader
		a, b string // two lines
		ids  string // the ids CRLF lines load as
	}{
		{"jsonl", JSONL, `{"id":"a","question":"q","answers":["x"]}`, `{"id":"b","question":"q","answers":["y"]}`, "a,b"},
		{"hotpotqa", HotpotQA, `{"_id":"a","question":"q","answer":"x"}`, `{"_id":"b","question":"q","answer":"y"}`, "hotpotqa:a,hotpotqa:b"},
		{"records", Records, `{"schema":1,"id":"a"}`, `{"schema":1,"id":"b"}`, "a,b"},
	} {
		ids, bads, err := loadString(t, tc.load, "i.jsonl", tc.a+"\r"+tc.b+"\r", Options{})
		if w := fmt.Sprintf(want, len(tc.a)+1); err != nil || len(ids) > 0 || len(bads) != 1 || bads[0] != w {
			t.Errorf("%s, CR: records %q, bad items %q, %v; want none and [%q]", tc.name, ids, bads, err, w)
		}
		ids, bads, err = loadString(t, tc.load, "i.jsonl", tc.a+"\r\n"+tc.b+"\r\n", Options{})
		if err != nil || len(bads) > 0 || strings.Join(ids, ",") != tc.ids {
			t.Errorf("%s, CRLF: records %q, bad items %q, %v; want %s", tc.name, ids, bads, err, tc.ids)
		}
	}
}

// TestCutLastLine: a last JSON Lines line with no line end that is no whole JSON value is a bad
// item whose message says the input may have been cut short, in every loader of JSON Lines, as the
// record reader says it; the same line followed by a line end, or a bad line before the last, is
// plain invalid JSON.
func TestCutLastLine(t *testing.T) {
	const hint = " (" + "the input ends inside this line, which has no line end: was it cut short, or did its writer stop?" + ")"
	for _, tc := range []struct {
		name  string
		load  Loader
		whole string
		cut   string // a prefix of another line
		want  string // the bad item's message for cut with a line end; the hint follows it unended
	}{
		{"jsonl", JSONL, `{"id":"a","question":"q","answers":["x"]}`, `{"id":"b","question":"q","ans`,
			`i.jsonl:2 (id "b"): invalid JSON: unexpected end of JSON input`},
		{"hotpotqa", HotpotQA, `{"_id":"a","question":"q","answer":"x"}`, `{"_id":"b","question":"q","ans`,
			`i.jsonl:2 (id "hotpotqa:b"): invalid JSON: unexpected end of JSON input`},
		{"evalearn-results", EvaLearnResults, `{"id": 1, "type": "T", "gpt4judge": "x"}`, `{"id": 2, "sequence_id": 4, "position_in_sequence": 3, "type": "T", "gpt4j`,
			`i.jsonl:2 (id "evalearn:4:3"): invalid JSON: unexpected end of JSON input`},
	} {
		_, bads, err := loadString(t, tc.load, "i.jsonl", tc.whole+"\n"+tc.cut, Options{})
		if err != nil || len(bads) != 1 || bads[0] != tc.want+hint {
			t.Errorf("%s, cut: bad items %q, %v; want [%q]", tc.name, bads, err, tc.want+hint)
		}
		_, bads, err = loadString(t, tc.load, "i.jsonl", tc.whole+"\n"+tc.cut+"\n", Options{})
		if err != nil || len(bads) != 1 || bads[0] != tc.want {
			t.Errorf("%s, ended: bad items %q, %v; want [%q]", tc.name, bads, err, tc.want)
		}
		_, bads, err = loadString(t, tc.load, "i.jsonl", tc.cut+"\n"+tc.whole, Options{})
		if err != nil || len(bads) != 1 || strings.HasSuffix(bads[0], hint) {
			t.Errorf("%s, first: bad items %q, %v; want one without the hint", tc.name, bads, err)
		}
	}
}

// TestFieldFaultWording: a field a loader checks itself, past decoding, is worded as the record
// reader words a record's field, what the other stages print: `missing field "id"` when it is
// absent (or null), `field "id" is empty` when it is "", and its path, what it wants and the kind it holds when it is of
// the wrong kind, in every benchmark's layout.
func TestFieldFaultWording(t *testing.T) {
	squad := func(qa string) string {
		return `{"version":"v2.0","data":[{"title":"T","paragraphs":[{"context":"c","qas":[` + qa + `]}]}]}`
	}
	cmrc := func(q string) string { return `[{"context_id":"C","context_text":"c","title":"T","qas":[` + q + `]}]` }
	for _, tc := range []struct {
		name string
		load Loader
		in   string
		want string
	}{
		{"squad id missing", SQuAD, squad(`{"question":"q","answers":[]}`), `i.json:1: data[0].paragraphs[0].qas[0]: missing field "id"`},
		{"squad id null", SQuAD, squad(`{"id":null,"question":"q","answers":[]}`), `i.json:1: data[0].paragraphs[0].qas[0]: missing field "id"`},
		{"squad id empty", SQuAD, squad(`{"id":"","question":"q","answers":[]}`), `i.json:1: data[0].paragraphs[0].qas[0]: field "id" is empty`},
		{"cmrc query_id empty", CMRC2018, cmrc(`{"query_id":"","query_text":"q","answers":["a"]}`), `i.json:1: [0].qas[0]: field "query_id" is empty`},
		{"hotpotqa _id empty", HotpotQA, `{"_id":"","question":"q","answer":"x"}`, `i.json:1: field "_id" is empty`},
		{"hotpotqa _id null", HotpotQA, `{"_id":null,"question":"q","answer":"x"}`, `i.json:1: missing field "_id"`},
		{"longmemeval question_id empty", LongMemEval, `[{"question_id":"","question_type":"t","question":"q","answer":"x"}]`, `i.json:1: [0]: field "question_id" is empty`},
		{"locomo sample_id empty", LoCoMo, `[{"sample_id":"","conversation":{},"qa":[]}]`, `i.json:1: [0]: field "sample_id" is empty`},
		{"squad id a list", SQuAD, squad(`{"id":["q1"],"question":"q","answers":[]}`),
			`i.json:1: data[0].paragraphs[0].qas[0]: id: want a string or a number, got a list`},
		{"squad text missing", SQuAD, squad(`{"id":"q1","question":"q","answers":[{"text":"a","answer_start":0},{"answer_start":0}]}`),
			`i.json:1 (id "squad:q1"): answers[1]: missing field "text"`},
		{"cmrc query_id a list", CMRC2018, cmrc(`{"query_id":[1],"query_text":"q","answers":["a"]}`),
			`i.json:1: [0].qas[0]: query_id: want a string or a number, got a list`},
		{"cmrc query_id missing", CMRC2018, cmrc(`{"query_text":"q","answers":["a"]}`), `i.json:1: [0].qas[0]: missing field "query_id"`},
		{"cmrc answer a list", CMRC2018, cmrc(`{"query_id":"Q","query_text":"q","answers":["a",["b"]]}`),
			`i.json:1 (id "cmrc2018:Q"): [0].qas[0]: answers[1]: want a string or a number, got a list`},
		{"hotpotqa answer a list", HotpotQA, `{"_id":"a","question":"q","answer":["x"]}`,
			`i.json:1 (id "hotpotqa:a"): answer: want a string or a number, got a list`},
		{"longmemeval answer missing", LongMemEval, `[{"question_id":"a","question_type":"t","question":"q"}]`,
			`i.json:1 (id "longmemeval:a"): [0]: missing field "answer"`},
		{"longmemeval question_date missing", LongMemEval, `[{"question_id":"a","question_type":"t","question":"q","answer":"x"}]`,
			`i.json:1 (id "longmemeval:a"): [0]: missing field "question_date"`},
		{"locomo sample_id missing", LoCoMo, `[{"conversation":{},"qa":[]}]`, `i.json:1: [0]: missing field "sample_id"`},
	} {
		_, bads, err := loadString(t, tc.load, "i.json", tc.in, Options{})
		if err != nil || len(bads) != 1 || bads[0] != tc.want {
			t.Errorf("%s: bad items %q, %v; want [%q]", tc.name, bads, err, tc.want)
		}
	}
	for _, tc := range []struct{ name, problems, sequences, want string }{
		{"problem id a list", `[{"id":[1],"prompt":["q"]}]`, `[]`, `p.json:1: [0]: id: want a string or a number, got a list`},
		{"problem id missing", `[{"prompt":["q"]}]`, `[]`, `p.json:1: [0]: missing field "id"`},
		{"problem id empty", `[{"id":"","prompt":["q"]}]`, `[]`, `p.json:1: [0]: field "id" is empty`},
		{"sequence_id empty", `[]`, `[{"sequence_id":"","question_ids":[]}]`, `s.json:1: [0]: field "sequence_id" is empty`},
		{"sequence_id null", `[]`, `[{"sequence_id":null,"question_ids":[]}]`, `s.json:1: [0]: missing field "sequence_id"`},
		{"sequence_id an object", `[]`, `[{"sequence_id":{},"question_ids":[]}]`, `s.json:1: [0]: sequence_id: want a string or a number, got an object`},
	} {
		var bads []string
		err := EvaLearn(Input{Name: "p.json", R: strings.NewReader(tc.problems)}, Input{Name: "s.json", R: strings.NewReader(tc.sequences)}, Options{},
			func(_ *record.Record, _ int, bad error) error {
				if bad != nil {
					bads = append(bads, bad.Error())
				}
				return nil
			})
		if err != nil || len(bads) != 1 || bads[0] != tc.want {
			t.Errorf("evalearn %s: bad items %q, %v; want [%q]", tc.name, bads, err, tc.want)
		}
	}
}

// TestNoAnswerField: an item without its answer that cannot be a test file's item, whose answer is
// withheld, is a bad item, as is one whose answers are null, where the benchmark's script stops
// on it (a KeyError, a TypeError): loaded without answers, qa-score would leave it unscored
// without a word. A HotpotQA item is a test file's only when it has none of the members the test
// files withhold with the answer (supporting_facts, type, level); the Hugging Face export's test
// items, whose script fills those in with None and no facts, are test items only when it has
// filled every one of them so.
func TestNoAnswerField(t *testing.T) {
	cmrc := func(q string) string {
		return `[{"context_id":"C","context_text":"c","title":"T","qas":[{"query_id":"Q0","query_text":"q","answers":["a"]},` + q + `]}]`
	}
	const ctx = `{"title":["T"],"sentences":[["s0."]]}`
	hint := func(key string) string {
		return ` (only a test file's items go without it, and they have no "` + key + `" either)`
	}
	for _, tc := range []struct {
		name string
		load Loader
		in   string
		ids  []string
		bads []string
	}{
		{"hotpotqa misspelt answer", HotpotQA, `{"_id":"a","question":"q","answers":"x","supporting_facts":[["T",0]],"type":"bridge","level":"easy","context":[]}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): missing field "answer"` + hint("supporting_facts")}},
		{"hotpotqa facts alone", HotpotQA, `{"_id":"a","question":"q","supporting_facts":[]}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): missing field "answer"` + hint("supporting_facts")}},
		{"hotpotqa facts null", HotpotQA, `{"_id":"a","question":"q","supporting_facts":null}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): missing field "answer"` + hint("supporting_facts")}},
		{"hotpotqa type alone", HotpotQA, `{"_id":"a","question":"q","type":"comparison"}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): missing field "answer"` + hint("type")}},
		{"hotpotqa level alone", HotpotQA, `{"_id":"a","question":"q","level":"hard"}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): missing field "answer"` + hint("level")}},
		{"hotpotqa array item", HotpotQA, `[{"_id":"a","question":"q","answer":"x","supporting_facts":[]},{"_id":"b","question":"q","supporting_facts":[]}]`,
			[]string{"hotpotqa:a"}, []string{`i.json:1 (id "hotpotqa:b"): [1]: missing field "answer"` + hint("supporting_facts")}},
		{"hotpotqa test item", HotpotQA, `{"_id":"a","question":"q","context":[["T",["s."]]]}`, []string{"hotpotqa:a"}, nil},
		{"hotpotqa hf test item", HotpotQA, `{"id":"a","question":"q","answer":null,"type":null,"level":null,"supporting_facts":{"title":[],"sent_id":[]},"context":` + ctx + `}`,
			[]string{"hotpotqa:a"}, nil},
		{"hotpotqa hf null answer, facts", HotpotQA, `{"id":"a","question":"q","answer":null,"type":"bridge","level":"easy","supporting_facts":{"title":["T"],"sent_id":[0]},"context":` + ctx + `}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): answer: want a string or a number, got null`}},
		{"hotpotqa hf null answer, type", HotpotQA, `{"id":"a","question":"q","answer":null,"type":"bridge","level":null,"supporting_facts":{"title":[],"sent_id":[]},"context":` + ctx + `}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): answer: want a string or a number, got null`}},
		{"hotpotqa hf null answer, level", HotpotQA, `{"id":"a","question":"q","answer":null,"type":null,"level":"easy","supporting_facts":{"title":[],"sent_id":[]},"context":` + ctx + `}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): answer: want a string or a number, got null`}},
		// facts that are not the script's fill, exactly {"title": [], "sent_id": []}
		{"hotpotqa hf null answer, titles alone", HotpotQA, `{"id":"a","question":"q","answer":null,"type":null,"level":null,"supporting_facts":{"title":["T"],"sent_id":[]},"context":` + ctx + `}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): supporting_facts: 1 title and 0 sent_id: the lists pair title with sent_id, one for one`}},
		{"hotpotqa hf null answer, facts of three lists", HotpotQA, `{"id":"a","question":"q","answer":null,"type":null,"level":null,"supporting_facts":{"title":[],"sent_id":[],"x":[]},"context":` + ctx + `}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): answer: want a string or a number, got null`}},
		{"hotpotqa hf null answer, facts alone", HotpotQA, `{"id":"a","question":"q","answer":null,"type":null,"level":null,"supporting_facts":{"title":["T"],"sent_id":[0]},"context":` + ctx + `}`,
			nil, []string{`i.json:1 (id "hotpotqa:a"): answer: want a string or a number, got null`}},
		{"cmrc answers null", CMRC2018, cmrc(`{"query_id":"Q1","query_text":"q","answers":null}`),
			[]string{"cmrc2018:Q0"}, []string{`i.json:1 (id "cmrc2018:Q1"): [0].qas[1]: answers: want a list, got null`}},
		{"cmrc answers missing", CMRC2018, cmrc(`{"query_id":"Q1","query_text":"q","answer":["a"]}`),
			[]string{"cmrc2018:Q0"}, []string{`i.json:1 (id "cmrc2018:Q1"): [0].qas[1]: missing field "answers"`}},
		{"cmrc answers null, own line", CMRC2018, "[{\"context_id\":\"C\",\"context_text\":\"c\",\"title\":\"T\",\"qas\":[\n" +
			`{"query_id":"Q1","query_text":"q","answers":null}]}]`, nil, []string{`i.json:2 (id "cmrc2018:Q1"): answers: want a list, got null`}},
		// [] is a list of no answer, which loads as such (SQuAD's v1.1 questions likewise)
		{"cmrc answers empty", CMRC2018, cmrc(`{"query_id":"Q1","query_text":"q","answers":[]}`), []string{"cmrc2018:Q0", "cmrc2018:Q1"}, nil},
	} {
		ids, bads, err := loadString(t, tc.load, "i.json", tc.in, Options{})
		if err != nil || !slices.Equal(ids, tc.ids) || !slices.Equal(bads, tc.bads) {
			t.Errorf("%s: records %q, bad items %q, %v; want %q, %q", tc.name, ids, bads, err, tc.ids, tc.bads)
		}
	}
}

// TestEmptyQuestion: an item of a benchmark's file whose question is empty or only blanks loads
// with its question as it is, as the benchmark's script scores it (qa-load's warning counts such
// records, blankQuestion); an EvaLearn problem whose prompt ends with one is a bad item, named by
// its line and id, as the generic loaders name one. Blanks are Python's white space, the
// information separators \x1c..\x1f too, which Go's unicode.IsSpace lacks.
func TestEmptyQuestion(t *testing.T) {
	squad := func(q string) string {
		return `{"version":"v2.0","data":[{"title":"T","paragraphs":[{"context":"c","qas":[` +
			`{"id":"e","question":` + q + `,"answers":[]},` + "\n" + `{"id":"k","question":"?","answers":[]}]}]}]}`
	}
	cmrc := func(q string) string {
		return `[{"context_id":"C","context_text":"c","title":"T","qas":[{"query_id":"e","query_text":` + q + `,"answers":["a"]},` +
			"\n" + `{"query_id":"k","query_text":"?","answers":["a"]}]}]`
	}
	hotpot := func(q string) string {
		return `{"_id":"e","question":` + q + `,"answer":"x"}` + "\n" + `{"_id":"k","question":"?","answer":"x"}`
	}
	locomo := func(q string) string {
		return `[{"sample_id":"s","conversation":{},"qa":[{"question":` + q + `,"answer":"x","category":1},` + "\n" +
			`{"question":"?","answer":"x","category":1}]}]`
	}
	longmemeval := func(q string) string {
		return `[{"question_id":"e","question_type":"t","question":` + q + `,"answer":"x","question_date":"d"},` + "\n" +
			`{"question_id":"k","question_type":"t","question":"?","answer":"x","question_date":"d"}]`
	}
	for _, tc := range []struct {
		name string
		load Loader
		in   func(question string) string
		ids  []string
	}{
		{"squad", SQuAD, squad, []string{"squad:e", "squad:k"}},
		{"cmrc", CMRC2018, cmrc, []string{"cmrc2018:e", "cmrc2018:k"}},
		{"hotpotqa", HotpotQA, hotpot, []string{"hotpotqa:e", "hotpotqa:k"}},
		{"locomo", LoCoMo, locomo, []string{"locomo:s:0", "locomo:s:1"}},
		{"longmemeval", LongMemEval, longmemeval, []string{"longmemeval:e", "longmemeval:k"}},
	} {
		for _, q := range []string{`""`, `" \t\n"`, `"\u3000"`, `"\u001c\u001f "`, `"\u001d\u0085\u001e"`} {
			var ids []string
			var blank []bool
			err := tc.load(Input{Name: "i.json", R: strings.NewReader(tc.in(q))}, Options{}, func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					t.Errorf("%s, question %s: bad item %v", tc.name, q, bad)
					return nil
				}
				ids, blank = append(ids, r.ID), append(blank, blankQuestion(r))
				return nil
			})
			if err != nil || !slices.Equal(ids, tc.ids) || !slices.Equal(blank, []bool{true, false}) {
				t.Errorf("%s, question %s: ids %q (blank %v), %v; want %q, the first blank", tc.name, q, ids, blank, err, tc.ids)
			}
		}
	}
	for _, tc := range []struct{ name, prompt, want string }{
		{"empty", `["Solve A.", "A.", ""]`, `p.json:2 (id "evalearn:7:1"): problem 2: field "prompt[2]" is empty`},
		{"blank", `[" "]`, `p.json:2 (id "evalearn:7:1"): problem 2: field "prompt[0]" is empty`},
		{"python blank", `["Solve A.", "\u001c\u001f "]`, `p.json:2 (id "evalearn:7:1"): problem 2: field "prompt[1]" is empty`},
		{"no turns", `[]`, `p.json:2 (id "evalearn:7:1"): problem 2: prompt: want a list that ends with the question, got an empty list`},
		{"null", `null`, `p.json:2 (id "evalearn:7:1"): problem 2: prompt: want a list that ends with the question, got null`},
	} {
		problems := `[{"id":1,"prompt":["Solve B."]},` + "\n" + `{"id":2,"prompt":` + tc.prompt + `}]`
		sequences := `[{"sequence_id":7,"question_ids":[2,1,2]}]`
		var ids, bads []string
		err := EvaLearn(Input{Name: "p.json", R: strings.NewReader(problems)}, Input{Name: "s.json", R: strings.NewReader(sequences)}, Options{},
			func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					bads = append(bads, bad.Error())
				} else {
					ids = append(ids, r.ID)
				}
				return nil
			})
		want := []string{tc.want, strings.Replace(tc.want, "evalearn:7:1", "evalearn:7:3", 1)}
		if err != nil || !slices.Equal(ids, []string{"evalearn:7:2"}) || !slices.Equal(bads, want) {
			t.Errorf("evalearn, prompt %s: ids %q, bad items %q, %v; want [evalearn:7:2], %q", tc.prompt, ids, bads, err, want)
		}
	}
}

// checkSQuADLayouts loads data, a list of SQuAD-layout articles, as SQuAD's and CMRC 2018's
// {"data": ...} files and as CMRC 2018's bare array of them, and checks the records' ids (ids,
// comma-separated, without the dataset's prefix) and the bad items: bads in the object layouts,
// arrayBads in the array, each joined with "|".
func checkSQuADLayouts(t *testing.T, name, data, bads, arrayBads, ids string) {
	t.Helper()
	for _, l := range []struct {
		name   string
		load   Loader
		in     string
		prefix string
		bads   string
	}{
		{"squad", SQuAD, `{"version":"v2.0","data":` + data + `}`, "squad:", bads},
		{"cmrc2018", CMRC2018, `{"version":"v1.0","data":` + data + `}`, "cmrc2018:", bads},
		{"cmrc2018 array", CMRC2018, data, "cmrc2018:", arrayBads},
	} {
		got, gotBads, err := loadString(t, l.load, "s.json", l.in, Options{})
		want := strings.Split(ids, ",")
		for i := range want {
			want[i] = l.prefix + want[i]
		}
		if err != nil || strings.Join(gotBads, "|") != l.bads || !slices.Equal(got, want) {
			t.Errorf("%s, %s: records %q, bad items %q, %v; want %q and [%s]", name, l.name, got, gotBads, err, want, l.bads)
		}
	}
}
