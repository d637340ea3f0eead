package format

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/record"
)

func TestDetectByName(t *testing.T) {
	tests := []struct{ name, head, want string }{
		{"hotpot_test_fullwiki_v1.json", `[{"_id": "x", "question": "q", "context": []}]`, "hotpotqa"},
		// The test file by its content, saved under another name: no supporting facts, but
		// HotpotQA's context of [title, sentences] pairs.
		{"test.json", `[{"_id": "5a8b57f2", "question": "Who?", "context": [["T", ["s"]]]}]`, "hotpotqa"},
		{"test.json", `[{"_id": "5a8b57f2", "question": "Who?", "context": "a passage"}]`, ""},
		// ... and as JSON Lines, whatever the name, its members in any order, its context cut by
		// the end of the head or not.
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": [["T", ["s"]]]}`, "hotpotqa"},
		{"test.jsonl", `{"_id":"5a8b57f2","question":"Who?","context":[["T",["s0."," s1."]],["U",[]]]}` + "\n" + `{"_id":"5a8b57f3"`, "hotpotqa"},
		{"data.json", `{"context": [["T", ["s"]]], "question": "Who?", "_id": "5a8b57f2"}`, "hotpotqa"},
		{"test.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": [["T", ["s` + strings.Repeat("x", HeadSize), "hotpotqa"},
		{"test.json", "[\n  {\n    \"_id\": \"5a8b57f2\",\n    \"question\": \"Who?\",\n    \"context\": [\n      [\n        \"T\",\n        [\n          \"s\"\n", "hotpotqa"},
		// An item with its answer but no facts is HotpotQA's too.
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "answer": "yes", "context": [["T", ["s"]]]}`, "hotpotqa"},
		// A context of another shape, an _id that is no string, no question, or those members
		// nested in another's, is no HotpotQA item.
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": ["a passage", "another"]}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": [["T", "a passage"]]}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": [["T", ["s"], "x"]]}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": [["T", [1]]]}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": [[["T"], ["s"]]]}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": [{"title": "T", "text": "s"}]}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": []}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": "[[\"T\", [\"s\"]]]"}`, "jsonl"},
		{"rows.jsonl", `{"_id": {"$oid": "5a8b57f2"}, "question": "Who?", "context": [["T", ["s"]]]}`, "jsonl"}, // a MongoDB export
		{"rows.jsonl", `{"id": "5a8b57f2", "question": "Who?", "context": [["T", ["s"]]]}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "query": "Who?", "context": [["T", ["s"]]]}`, "jsonl"},
		{"rows.jsonl", `{"doc": {"_id": "5a8b57f2", "question": "Who?", "context": [["T", ["s"]]]}, "resps": []}`, "jsonl"},
		{"rows.json", `[{"doc": {"_id": "5a8b57f2", "question": "Who?", "context": [["T", ["s"]]]}, "resps": []}]`, ""},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "meta": {"context": [["T", ["s"]]]}}`, "jsonl"},
		{"rows.jsonl", `{"_id": "5a8b57f2", "question": "Who?", "context": "c` + strings.Repeat("x", HeadSize), "jsonl"}, // cut, a string
		// A record qapipe wrote of a test item is records.
		{"test.jsonl", `{"schema":1,"id":"hotpotqa:5a8b57f2","question":"Who?","context":[{"title":"T","text":"s","sentences":["s"]}],"meta":{"_id":"x","context":[["T",["s"]]]}}`, "records"},
		// Answered HotpotQA items by their first object's own members: a string _id with
		// supporting_facts (the official files', their keys in any order, as JSON Lines, an array
		// or indented), or the Hugging Face export's id with facts as {"title": [...], "sent_id": [...]}.
		{"rows.jsonl", `{"_id":"5a8b","answer":"yes","question":"q","supporting_facts":[["T",0]],"context":[["T",["s"]]],"type":"comparison","level":"easy"}`, "hotpotqa"},
		{"data.json", `[{"supporting_facts": [["A", 0]], "level": "medium", "question": "Which?", "context": [["A", ["s"]]], "answer": "A", "_id": "5a7a", "type": "comparison"}]`, "hotpotqa"},
		{"data.json", "[\n  {\n    \"_id\": \"x\",\n    \"answer\": \"a\",\n    \"question\": \"q\",\n    \"supporting_facts\": [\n      [\n        \"T\",\n        0\n      ]\n    ],\n    \"context\": [\n      [\n        \"T\",\n        [\n          \"s", "hotpotqa"},
		{"rows.jsonl", `{"_id":"5a8b","supporting_facts":[["T",0]],"context":[["T",["` + strings.Repeat("x", HeadSize), "hotpotqa"}, // cut after both
		{"train.jsonl", `{"id":"5a7a","question":"q","answer":"a","type":"comparison","level":"medium","supporting_facts":{"title":["A"],"sent_id":[0]},"context":{"title":["A"],"sentences":[["s"]]}}`, "hotpotqa"},
		{"test.jsonl", `{"id":"5a7a","question":"q","answer":null,"type":null,"level":null,"supporting_facts":{"title":[],"sent_id":[]},"context":{"title":["A"],"sentences":[["s"]]}}`, "hotpotqa"},
		{"rows.jsonl", `{"answer":"a","context":{"sentences":[["s"]],"title":["A"]},"id":"5a7a","level":"medium","question":"q","supporting_facts":{"sent_id":[0],"title":["A"]},"type":"comparison"}`, "hotpotqa"}, // jq -S
		{"train.json", `[{"id":"5a7a","question":"q","answer":"a","supporting_facts":{"title":["A"],"sent_id":[0]},"context":{"title":["A"],"sentences":[["` + strings.Repeat("x", HeadSize), "hotpotqa"},
		// A generic row with a supporting_facts column is no HotpotQA item for an "_id" or a
		// "sent_id" elsewhere in it: a value, a nested key, a MongoDB _id, a later line's.
		{"g.jsonl", `{"id":"g1","question":"q","answers":["a"],"supporting_facts":[["T",0]],"note":{"_id":"x"}}`, "jsonl"},
		{"g.jsonl", `{"id":"g1","question":"q","answers":["_id"],"supporting_facts":[["T",0]]}`, "jsonl"},
		{"g.jsonl", `{"_id":{"$oid":"5a8b"},"question":"q","answers":["a"],"supporting_facts":[["T",0]]}`, "jsonl"},
		{"g.jsonl", `{"id":"g1","question":"q","answers":["a"],"supporting_facts":[["T",0]],"meta":{"sent_id":[0]}}`, "jsonl"},
		{"g.jsonl", `{"id":"g1","question":"q","answers":["a"],"supporting_facts":[["T",0]],"sent_id":0}`, "jsonl"},
		// Facts laid out as the Hugging Face export lays them out, but no string id beside them.
		{"g.jsonl", `{"id":7,"question":"q","supporting_facts":{"title":["A"],"sent_id":[0]}}`, "jsonl"},
		{"g.jsonl", `{"question":"q","supporting_facts":{"title":["A"],"sent_id":[0]}}`, "jsonl"},
		{"g.jsonl", `{"id":"g1","question":"q","answers":["a"],"supporting_facts":[["T",0]]}` + "\n" + `{"_id":"g2","question":"q","answers":["a"],"supporting_facts":[["T",0]]}`, "jsonl"},
		{"g.jsonl", `{"_id":"g1","question":"q","answers":["a"],"meta":{"supporting_facts":[["T",0]]}}`, "jsonl"},
		{"g.json", `[{"doc":{"_id":"x","supporting_facts":[["T",0]]},"resps":[]}]`, ""},
		// Every other benchmark's file is told by its first object's own members too: a key of
		// EvaLearn's, LongMemEval's, LoCoMo's or the SQuAD and CMRC layouts nested in another
		// field, a value, or a question_type LongMemEval has not, leaves a generic file generic.
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"meta":{"gpt4res":"x"}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"meta":{"gpt4judge":"x","position_in_sequence":1}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["gpt4res","position_in_sequence"]}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"meta":{"question_ids":[1,2]}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","prompt":"p","answers":["a"],"meta":{"rubric":"r","canonical_answer":"a"}}`, "jsonl"},
		{"g.jsonl", `{"question_id":"q1","question_type":"factoid","question":"Who?","answers":["a"]}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"meta":{"haystack_sessions":[],"haystack_session_ids":[]}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"meta":{"question_id":"x","question_type":"multi-session"}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"evidence":["D1:3"],"category":2,"source":"qa"}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"meta":{"sample_id":"s","conversation":{"session_1":[]}}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"qa":[{"question":"q"}],"meta":{"evidence":[],"category":1}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"context_text":"c","meta":{"query_id":"x"}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"tags":["paragraphs","qas"]}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"],"source":{"paragraphs":[{"qas":[]}]}}`, "jsonl"},
		{"g.jsonl", `{"id":"q1","question":"Who?","answers":["a"]}` + "\n" + `{"id":614,"rubric":"r","gpt4res":"x"}`, "jsonl"}, // a later line's
		{"g.json", `[{"doc":{"id":614,"prompt":["p"],"rubric":"r","canonical_answer":"","gpt4res":"x"},"resps":[]}]`, ""},
		{"g.json", "[\n  {\n    \"id\": \"q1\",\n    \"meta\": {\n      \"haystack_sessions\": []\n    }\n  }\n]\n", ""},
		// ... and a benchmark's own members tell it whatever the file's name, whole or cut.
		{"rows.jsonl", `{"id":614,"type":"Extraction","prompt":["p"],"rubric":"r","canonical_answer":"","gpt4res":"a","gpt4judge":"j"}`, "evalearn-results"},
		{"rows.json", "[\n  {\n    \"sequence_id\": 1,\n    \"position_in_sequence\": 1,\n    \"id\": 614\n  }\n]\n", "evalearn-results"},
		{"rows.json", "[\n  {\n    \"sequence_id\": 1,\n    \"type\": \"Extraction\",\n    \"question_ids\": [\n      252\n    ]\n  }\n]\n", "evalearn"},
		{"rows.json", `[{"id":1,"type":"T","level":1,"prompt":["p"],"rubric":"r","canonical_answer":"a"}]`, "evalearn"},
		{"rows.jsonl", `{"question_id":"q","question_type":"temporal-reasoning","question":"When?","answer":"May"}`, "longmemeval"},
		{"rows.jsonl", `{"question_id":"q","question_type":"mine","question":"When?","answer":"May","question_date":"2023/05/30 (Tue) 10:00"}`, "longmemeval"},
		{"rows.json", `[{"question_id":"q","question":"When?","answer":"May","haystack_session_ids":[],"haystack_sessions":[]}]`, "longmemeval"},
		{"rows.json", `[{"sample_id":"conv-26","qa":[{"question":"When?","answer":"May","evidence":["D1:3"],"category":2,"gpt-4_prediction":"May"}]}]`, "locomo"}, // evaluate_qa.py's output
		{"rows.json", `[{"qa":[],"conversation":{"speaker_a":"A","speaker_b":"B","session_1":[]},"sample_id":"conv-1"}]`, "locomo"},
		{"rows.json", `[{"qa":[{"question":"q"}],"conversation":{"session_1":[]}}]`, "locomo"},
		{"rows.json", `[{"context_id":"TRIAL_0","context_text":"c","qas":[{"query_id":"TRIAL_0_QUERY_0","query_text":"q","answers":["a"]}]}]`, "cmrc2018"},
		{"rows.json", `{"version":"1.1","data":[{"title":"T","paragraphs":[{"context":"c","qas":[{"id":"1","question":"q","answers":[]}]}]}]}`, "squad"},
		{"rows.json", `[{"title":"T","paragraphs":[{"qas":[],"context":"c"}]}]`, "squad"}, // the data list alone: qa-load says to wrap it
		{"rows.json", `[{"sample_id":"conv-x","conversation":[],"qa":[]}]`, "locomo"},     // a bad sample, reported as LoCoMo's
		{"rows.json", `{"data":[{"title":"T","paragraph":[]},{"title":"U","paragraphs":[{"context":"c","qas":null}]}]}`, "squad"},
		{"rows.json", `{"data":[{"title":"T","paragraphs":[{"context":"c","questions":[]}]}]}`, ""},
		{"longmemeval_oracle.json", `[]`, "longmemeval"},
		{"train-v2.0.json", `{"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"qas": []}]}]}`, "squad"},
		{"cmrc2018_trial.json", `{"version": "v1.0", "data": [{"paragraphs": [{"qas": []}]}]}`, "cmrc2018"},
		{"data.json", `{"version": "v1.0", "data": [{"paragraphs": [{"context": "长江", "qas": []}]}]}`, "cmrc2018"},
		{"data.json", `{"data": [{"paragraphs": [{"context": "长江（Yangtze）是中国最长的河流。", "qas": [{"id": "TRAIN_1_QUERY_0", "question": "长江是什么？"`, "cmrc2018"},
		// English text naming a Chinese person is SQuAD; keys are not text.
		{"dev.json", `{"data": [{"title": "Genghis_Khan", "paragraphs": [{"context": "Genghis Khan (成吉思汗) founded the Mongol Empire.", "qas": []}]}]}`, "squad"},
		{"dev.json", `{"data": [{"paragraphs": [{"context": "成吉思汗", "qas": [{"question": "Who founded it?"}]}]}]}`, "squad"},
		{"dev.json", `{"data": [{"paragraphs": [{"context": "成吉思汗", "qas": [{"question": "谁", "id": "q"}]}]}]}`, "cmrc2018"},
		{"mine.ndjson", `{"q": 1}`, "jsonl"},
		// EvaLearn's sequences and problems, and CMRC 2018's trial layout, by their keys alone.
		{"seqs.jsonl", `{"sequence_id": 1, "type": "Logical Reasoning", "question_ids": [614, 615]}`, "evalearn"},
		{"problems.jsonl", `{"id": 614, "type": "Extraction", "prompt": ["p"], "rubric": "r", "canonical_answer": "a"}`, "evalearn"},
		{"evalearn_problems.jsonl", `{"id": 614}`, "evalearn"},
		{"trial.json", `[{"context_id": "TRIAL_0", "context_text": "长江", "qas": [{"query_id": "TRIAL_0_QUERY_0", "query_text": "q", "answers": ["a"]}]}]`, "cmrc2018"},
		// A first line qapipe wrote is records, whatever the name or the other keys say.
		{"hotpotqa_run.jsonl", "\n" + `{"schema":1,"id":"hotpotqa:1","meta":{"supporting_facts":[],"_id":"x"}}` + "\n{", "records"},
		{"evalearn_run.jsonl", `{"schema":1,"id":"e:1:1","rubric":"r","meta":{"prompt":"p","canonical_answer":"a"}}`, "records"},
		{"out", `{"id":"x","schema":1.0}`, "records"},
		{"run.jsonl", `{"schema":"1","id":"x"}`, "jsonl"},    // no number
		{"run.jsonl", `{"schema":1,"id":7}`, "records"},      // a bad record, as the other stages read it
		{"run.jsonl", `{"schema":1,"id":-7.5e1}`, "records"}, // another
		{"run.jsonl", `{"schema":1,"id":null}`, "jsonl"},     // no id
		{"run.jsonl", `{"schema":1,"id":["x"]}`, "jsonl"},    // a list
		{"run.jsonl", `{"schema":1,"id":7,"x":"` + strings.Repeat("x", HeadSize), "records"},
		{"run.jsonl", `{"schema":1}`, "jsonl"},                   // no id
		{"run.jsonl", `{"schema":1,"id":"x"`, "jsonl"},           // not a whole object
		{"run.json", `[{"schema":1,"id":"x"}]`, "records"},       // an array of records, as json.dump saves a list
		{"run.json", `[{"id":"x","schema":1}]`, ""},              // not as a record line opens
		{"run.jsonl", `{"meta":{"schema":1,"id":"x"}}`, "jsonl"}, // not at the top level
		// Two records on one line (cat joined a file whose last line has no line end to the next):
		// the record it opens with tells it, though the line is no JSON, with no second line.
		{"out", `{"schema":1,"id":"a"}{"schema":1,"id":"b"}` + "\n", "records"},
		{"out", ` {"schema":1,"id":"a"} x`, "records"},
		{"out", `{"schema":1,"id":[]}{"schema":1,"id":"b"}`, ""},                         // the first is no record
		{"out", `{"title":"T"}],"meta":{}}` + "\n", ""},                                  // no record before the rest
		{"out", `{"title":"T"}],"meta":{}}` + "\n" + `{"schema":1,"id":"b"}`, "records"}, // cut: the next line
		// A file of rows that nest a record, cut at its start just before one: the line opens with a
		// whole record and holds more, and the next line, JSON and no record, tells it.
		{"rows.jsonl", `{"schema":1,"id":"a"}},"n":1}` + "\n" + `{"run":{"schema":1,"id":"b"},"n":2}` + "\n", "jsonl"},
		{"rows.jsonl", `{"schema":1,"id":"a"},{"schema":1,"id":"b"}]}` + "\n" + `{"runs":[{"schema":1,"id":"c"}]}` + "\n", "jsonl"},
		{"out", `{"schema":1,"id":"a"},` + "\n" + `{"schema":1,"id":"b"},` + "\n", "records"}, // lines that end in commas
		{"out", `{"schema":1,"id":"a"}{"schema":1,"id":"b"}` + "\n" + `{"schema":1,"id":"c"}` + "\n", "records"},
		// A record line longer than the head, whose meta would say longmemeval: its opening decides.
		{"run.jsonl", `{"schema":1,"id":"longmemeval:q","meta":{"haystack_session_ids":["s"]},"context":"` + strings.Repeat("x", HeadSize), "records"},
		{"run.jsonl", `{ "schema": 1, "id": "q", "x": "` + strings.Repeat("x", HeadSize), "records"},
		{"longmemeval_s.json", `[{"question_id":"q","haystack_sessions":[["` + strings.Repeat("x", HeadSize), "longmemeval"},
		{"run.jsonl", `{"id":"q","schema":1,"x":"` + strings.Repeat("x", HeadSize), "jsonl"}, // not as qapipe writes it
		// A file of records cut at its start (tail -c, split -b): the cut line is no JSON, the next decides.
		{"run.jsonl", `wers":["x"],"prediction":{"text":"y"}}` + "\n" + `{"schema":1,"id":"b","question":"q"}` + "\n", "records"},
		{"part-ab", `"}}` + "\r\n\n" + `{"schema":1,"id":"b","question":"q"}`, "records"},
		{"part-ab", `{"schema":1,"id":"a","qu` + "\n" + `{"schema":1,"id":"b","x":"` + strings.Repeat("x", HeadSize), "records"},
		{"run.jsonl", "x}\n" + `{"q":"generic"}` + "\n", "jsonl"},           // the next line is no record
		{"run.jsonl", "x}\n" + `["schema",1,"id","b"]` + "\n", "jsonl"},     // nor is it
		{"run.jsonl", "x}\ny}\n" + `{"schema":1,"id":"b"}` + "\n", "jsonl"}, // one line only is looked past
		// The line looked past holds two records joined: they tell it, not the line after them.
		{"run.jsonl", "x}\n" + `{"schema":1,"id":"a"}{"schema":1,"id":"b"}` + "\n" + `{"q":"generic"}` + "\n", "records"},
		{"run.jsonl", `{"q":"generic"}` + "\n" + `{"schema":1,"id":"b"}` + "\n", "jsonl"}, // a first line that is JSON decides
		{"run.json", "[\n" + `{"schema":1,"id":"a"},` + "\n" + `{"schema":1,"id":"b"}` + "\n]", "records"},
		{"run.json", "[\n  {\n    \"schema\": 1,\n    \"id\": \"a\",\n", "records"}, // indented
		{"hotpot.json", `[{"_id": "x", "schema": 1, "id": "y", "supporting_facts": []}]`, "hotpotqa"},
		{"run.jsonl", "x" + strings.Repeat("x", HeadSize) + "\n" + `{"schema":1,"id":"b"}`, "jsonl"}, // the cut line fills the head
		{"notes.txt", "hello", ""},
		// A Hugging Face export of SQuAD by its first object's own members, whatever its name; a
		// generic file of other answers, or an lm-evaluation-harness log holding such an object
		// under "doc", is none.
		{"validation.jsonl", `{"id":"1","title":"T","context":"c","question":"q?","answers":{"text":["a"],"answer_start":[0]}}` + "\n", "squad"},
		{"validation.json", `[{"id":"1","title":"T","context":"c","question":"q?","answers":{"text":[],"answer_start":[]}}]`, "squad"},
		{"validation.json", "[\n  {\n    \"id\": \"1\",\n    \"context\": \"c\",\n    \"question\": \"q?\",\n    \"answers\": {\n      \"text\": [\"a\"],\n      \"answer_start\": [0]\n    }\n  }\n]\n", "squad"},
		{"cmrc2018_dev.jsonl", `{"id":"DEV_0","context":"c","question":"q?","answers":{"text":["a"],"answer_start":[0]}}`, "cmrc2018"},
		{"dev.jsonl", `{"id":"DEV_0","context":"长江是中国最长的河流。","question":"长江是什么？","answers":{"text":["河流"],"answer_start":[7]}}`, "cmrc2018"},
		{"rows.jsonl", `{"id":"1","context":"c","question":"q?","answers":["a"]}`, "jsonl"},
		{"rows.jsonl", `{"id":"1","question":"q?","answers":{"text":["a"],"answer_start":[0]}}`, "jsonl"}, // no context
		{"rows.jsonl", `{"id":"1","context":"c","question":"q?","answers":{"text":["a"]}}`, "jsonl"},      // no starts
		{"rows.jsonl", `{"id":"1","context":"c","question":"q?","answers":{"text":["a"],"answer_start":0}}`, "jsonl"},
		{"samples_task.jsonl", `{"doc_id":0,"doc":{"id":"1","title":"T","context":"c","question":"q?","answers":{"text":["a"],"answer_start":[0]}},"resps":[["a"]]}`, "jsonl"},
		{"rows.jsonl", `{"id":"1","title":"T","context":"` + strings.Repeat("c", HeadSize), "jsonl"}, // cut before its answers
		// LoCoMo's file as released, laid out over lines, its first sample's questions first.
		{"data.json", "[\n  {\n    \"qa\": [\n      {\n        \"question\": \"When?\",\n        \"answer\": \"7 May 2023\",\n        \"evidence\": [\n          \"D1:3\"\n        ],\n        \"category\": 2\n", "locomo"},
		{"data.json", `[{"qa": [{"question": "When?", "answer": "May", "category": 2}]`, ""}, // no evidence: not enough to tell
		// A spreadsheet export is generic whatever benchmark its name or its JSON cells mention.
		{"squad_subset.csv", "id,question,answers\n1,q?,a\n", "csv"},
		{"hotpotqa_hard.csv", `id,question,meta` + "\n" + `1,q?,"{""supporting_facts"": [], ""_id"": ""x""}"`, "csv"},
		{"locomo_qa.tsv", "id\tquestion\tanswers\n", "csv"},
		{"export.TSV", "id\tquestion\n", "csv"},
		{"export.tab", "id\tquestion\n", "csv"},
		// A ".gz" ending in any case is no part of the name the format is told from.
		{"export.tsv.gz", "id\tquestion\n", "csv"},
		{"EXPORT.TSV.GZ", "id\tquestion\n", "csv"},
		{"mine.ndjson.Gz", `{"q": 1}`, "jsonl"},
		{"LONGMEMEVAL_ORACLE.JSON.GZ", `[]`, "longmemeval"},
	}
	for _, tt := range tests {
		head := []byte(tt.head)[:min(len(tt.head), HeadSize)]
		if got := Detect(tt.name, head); got != tt.want {
			t.Errorf("Detect(%q, %.80q) = %q, want %q", tt.name, tt.head, got, tt.want)
		}
	}
}

// TestDetectByKeys checks that each key Detect looks for tells its format alone, in files whose
// name says nothing: a head cut inside a long value, or a file whose keys come in another order
// than the release's (sorted by jq -S, or re-exported), holds some of them only.
func TestDetectByKeys(t *testing.T) {
	tests := []struct{ why, head, want string }{
		{"EvaLearn results cut inside a long gpt4res",
			`[{"id": 252, "type": "Extraction", "level": 1, "prompt": ["p"], "rubric": "r", "canonical_answer": "", "gpt4res": "The answer is`,
			"evalearn-results"},
		{"EvaLearn results re-exported with the sequence position first",
			`{"sequence_id": 1, "position_in_sequence": 1, "id": 614, "prompt": ["p"], "rubric": "r", "canonical_answer": "", "response": "`,
			"evalearn-results"},
		{"LongMemEval without its session ids",
			`[{"question": "What colour is my bike?", "answer": "Green", "haystack_sessions": [[{"role": "user", "content": "`,
			"longmemeval"},
		{"LongMemEval with sorted keys, cut inside its session ids",
			`[{"answer": "Green", "answer_session_ids": ["s_a"], "haystack_dates": ["2023/05/20 (Sat) 02:21"], "haystack_session_ids": ["s_a", "s_b", "`,
			"longmemeval"},
		{"LongMemEval's questions without their haystacks",
			`{"question_id": "syn_ssu_1", "question_type": "single-session-user", "question": "What colour is my bike?", "answer": "Green"}`,
			"longmemeval"},
		{"LoCoMo re-exported with sample_id first, cut inside its conversation",
			`[{"sample_id": "conv-26", "conversation": {"speaker_a": "Caroline", "speaker_b": "Melanie", "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "`,
			"locomo"},
		{"generic rows with a context_text column", `{"question": "q?", "context_text": "c", "answer": "a"}`, ""},
		{"generic rows with a prompt and a rubric", `{"prompt": "p", "rubric": "r", "answer": "a"}`, ""},
		// The title is text: English, it outweighs a short Chinese name in the context.
		{"SQuAD article on a Chinese name",
			`{"data": [{"title": "Sino-Tibetan_languages", "paragraphs": [{"context": "漢藏語系", "qas": [{"question": "漢藏?"`,
			"squad"},
	}
	for _, tt := range tests {
		if got := Detect("data.json", []byte(tt.head)); got != tt.want {
			t.Errorf("%s: Detect(%q, %.80q) = %q, want %q", tt.why, "data.json", tt.head, got, tt.want)
		}
	}
}

// FuzzDetectRecords: a line any stage writes is detected as records whatever the file's name
// and whatever its text holds (benchmark keys included), whole or cut at the detection head.
func FuzzDetectRecords(f *testing.F) {
	f.Add("hotpotqa:1", "Who?", `"supporting_facts" "_id"`, "hotpotqa_run.jsonl", 0)
	f.Add("evalearn:1:1", "Q", `"question_ids" "gpt4judge"`, "evalearn_x.json", HeadSize)
	f.Add("x", "", `"haystack_sessions"`, "longmemeval_s.json", 3*HeadSize)
	f.Fuzz(func(t *testing.T, id, question, meta, name string, pad int) {
		if id == "" || !utf8.ValidString(id+question+meta) {
			t.Skip() // an id is required, and the writer's strings are UTF-8
		}
		rec := &record.Record{Schema: record.SchemaVersion, ID: id, Question: question,
			Context: []record.Passage{{Text: meta + strings.Repeat("x", min(max(pad, 0), 4*HeadSize))}}}
		line, err := rec.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		head := append(line, '\n')
		head = head[:min(len(head), HeadSize)]
		if got := Detect(name, head); got != "records" {
			t.Errorf("Detect(%q, a %d-byte record line) = %q, want records", name, len(line), got)
		}
	})
}

// FuzzMostlyHan: the text of any SQuAD-layout head, cut anywhere, is Chinese exactly when the
// strings under its text keys hold at least as many Han characters as ASCII letters, and the
// keys, other members and the cut never change that.
func FuzzMostlyHan(f *testing.F) {
	f.Add("长江是中国最长的河流", "Which river?", "TRAIN_1_QUERY_0", 40)
	f.Add("Genghis Khan (成吉思汗) founded it.", "Who?", "q1", 1000)
	f.Fuzz(func(t *testing.T, context, question, id string, cut int) {
		if !utf8.ValidString(context) || !utf8.ValidString(question) || !utf8.ValidString(id) {
			t.Skip()
		}
		doc, _ := json.Marshal(map[string]any{"data": []any{map[string]any{"title": "", "paragraphs": []any{
			map[string]any{"context": context, "qas": []any{map[string]any{"id": id, "question": question}}}}}}})
		han, latin := 0, 0
		for _, r := range context + question {
			switch {
			case r < utf8.RuneSelf && ('a' <= r|0x20 && r|0x20 <= 'z'):
				latin++
			case r >= 0x2E80 && unicode.Is(unicode.Han, r):
				han++
			}
		}
		if got, want := mostlyHan(doc), han > 0 && han >= latin; got != want {
			t.Errorf("mostlyHan(%s) = %v, want %v (%d Han, %d letters)", doc, got, want, han, latin)
		}
		mostlyHan(doc[:min(max(cut, 0), len(doc))]) // a cut head: no panic
	})
}

// TestDetectLongRecordLine: a first line longer than HeadSize that head holds whole (as Head
// gives it, up to the end of its object, or with its newline) is a record line or not by its
// JSON, as a shorter one is: a record written by another program, its id first, is records,
// and one whose schema is null is none, though it opens as qapipe writes a record. A line that
// is no JSON and fills HeadSize bytes or more is taken as one that head cut: its opening tells.
func TestDetectLongRecordLine(t *testing.T) {
	long := strings.Repeat("x", HeadSize+100)
	for _, tt := range []struct{ head, want string }{
		{`{"id":"q","schema":1,"context":"` + long + `"}`, "records"},
		{`{"id":"q","schema":1,"context":"` + long + `"}` + "\n" + `{"id":"r","schema":1}`, "records"},
		{` {"id":"q","schema":1,"context":"` + long + `"}` + "\r\n", "records"},
		{`{"schema":1,"id":"q","context":"` + long + `","schema":null}`, "jsonl"},
		{`{"schema":1,"id":"q","context":"` + long + `"}`, "records"},
		{`{"schema":1,"id":"q","context":"` + long, "records"},         // cut
		{`{"schema":1,"id":"q","context":"` + long + `"}}`, "records"}, // no JSON: taken as cut
		{`{"id":"q","schema":1,"context":"` + long, "jsonl"},           // cut, not as qapipe writes it
	} {
		if got := Detect("run.jsonl", []byte(tt.head)); got != tt.want {
			t.Errorf("Detect(%q, %.60q… %d bytes) = %q, want %q", "run.jsonl", tt.head, len(tt.head), got, tt.want)
		}
	}
}
