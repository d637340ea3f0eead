package record_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// A Reader reports a bad line with its file, line and id, and goes on with the next.
func ExampleReader() {
	in := `{"schema":1,"id":"q1","question":"Who?","answers":["Ann"]}` + "\n" +
		`{"schema":1,"id":"q2","question":"Where?","answers":"Rome"}` + "\n" +
		"{\"schema\":1,\"id\":\"q3\",\"question\":\"Ren\xe9e?\",\"answers\":[]}\n"
	r := record.NewReader(strings.NewReader(in), "run.jsonl")
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println("bad:", err)
			continue
		}
		fmt.Println(rec.ID, rec.Answers)
	}
	// Output:
	// q1 [Ann]
	// bad: run.jsonl:2 (id "q2"): invalid record: answers: want a list of strings, got a string
	// bad: run.jsonl:3 (id "q3"): not UTF-8 text: byte 0xE9 at column 38 (convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8)
}

func ExampleRecord_LoCoMoCategory() {
	for _, category := range []string{"", `"2"`, "7"} {
		rec := &record.Record{ID: "locomo:conv-26:0", Type: "single_hop"}
		if category != "" {
			rec.Meta = map[string]json.RawMessage{"category": json.RawMessage(category)}
		}
		n, ok, err := rec.LoCoMoCategory()
		fmt.Println(n, ok, err)
	}
	// Output:
	// 4 true <nil>
	// 2 true <nil>
	// 0 false meta.category: want a LoCoMo category, 1 to 5, got 7
}

func ExampleRecord_Abstention() {
	for _, id := range []string{"longmemeval:gpt4_2655b836", "longmemeval:gpt4_2655b836_abs"} {
		abs, _ := (&record.Record{ID: id}).Abstention()
		fmt.Println(id, abs)
	}
	// Output:
	// longmemeval:gpt4_2655b836 false
	// longmemeval:gpt4_2655b836_abs true
}

// A prediction of HotpotQA's supporting facts alone, as its official prediction file gives an
// id's "sp" without its "answer", has no text: no answer, not the empty answer "".
func ExamplePrediction_HasText() {
	for _, line := range []string{
		`{"schema":1,"id":"h1","prediction":{"text":"","supporting_facts":[["Paris",0]]}}`,
		`{"schema":1,"id":"h2","prediction":{"supporting_facts":[["Paris",0]]}}`,
	} {
		var rec record.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(rec.ID, rec.Prediction.HasText())
	}
	p := &record.Prediction{SupportingFacts: []record.Fact{{Title: "Paris", Sentence: 0}}}
	p.ClearText()
	b, _ := json.Marshal(p)
	fmt.Println(string(b))
	// Output:
	// h1 true
	// h2 false
	// {"supporting_facts":[["Paris",0]]}
}

// A bad line's error is a *record.Error, which says where it is; errors.Is finds what is wrong
// with it, here a line over the maximum SetMaxLine set, which the Reader skips.
func ExampleError() {
	in := `{"schema":1,"id":"q1","question":"Who?","answers":["Ann"],"meta":{"note":"a long note"}}` + "\n" +
		`{"schema":1,"id":"q2","question":"Where?","answers":["Rome"]}` + "\n"
	r := record.NewReader(strings.NewReader(in), "run.jsonl")
	r.SetMaxLine(64)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var bad *record.Error
		if errors.As(err, &bad) {
			fmt.Println(err)
			fmt.Println(bad.File, bad.Line, bad.ID, errors.Is(err, record.ErrLineTooLong))
			continue
		}
		if err != nil {
			fmt.Println("fatal:", err)
			return
		}
		fmt.Println(rec.ID)
	}
	// Output:
	// run.jsonl:1 (id "q1"): line too long (more than 64 bytes)
	// run.jsonl 1 q1 true
	// q2
}
