package prompt

import (
	"encoding/json"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestLoaderLayouts checks the fallbacks for records whose passages hold only "role: content" or
// "speaker: text" lines (qa-load's layout), multi-line turns included.
func TestLoaderLayouts(t *testing.T) {
	lme := &record.Record{ID: "longmemeval:q", Question: "Q?", Meta: map[string]json.RawMessage{"question_date": json.RawMessage(`"2023/05/30 (Tue) 10:00"`)},
		Context: []record.Passage{
			{Date: "2023/05/02 (Tue) 09:00", Text: "user: second\nassistant: line one\nline two: with colon"},
			{Date: "2023/05/01 (Mon) 09:00", Text: "user: first é"},
		}}
	got, _, err := LongMemEvalPrompt(lme, HistoryOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.\n\n\nHistory Chats:\n\n" +
		"\n### Session 1:\nSession Date: 2023/05/01 (Mon) 09:00\nSession Content:\n\n[{\"role\": \"user\", \"content\": \"first \\u00e9\"}]\n" +
		"\n### Session 2:\nSession Date: 2023/05/02 (Tue) 09:00\nSession Content:\n\n[{\"role\": \"user\", \"content\": \"second\"}, {\"role\": \"assistant\", \"content\": \"line one\\nline two: with colon\"}]\n" +
		"\n\nCurrent Date: 2023/05/30 (Tue) 10:00\nQuestion: Q?\nAnswer:"
	if got != want {
		t.Errorf("LongMemEvalPrompt(text layout) =\n%q\nwant\n%q", got, want)
	}

	loc := &record.Record{ID: "locomo:c:1", Dataset: "locomo", Question: "When?", Meta: map[string]json.RawMessage{"category": json.RawMessage("2")},
		Context: []record.Passage{
			{Date: "1 May", Text: "Ann: hi\nBob: hello\nAnn: a\nmulti: line\nBob: b"},
			{Date: "2 May", Text: "Bob: again\nAnn: yes"},
		}}
	sessions, err := LoCoMoSessions(loc)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sessions[0].Turns); n != 4 || sessions[0].Turns[2].Text != "a\nmulti: line" {
		t.Errorf("LoCoMoSessions(text layout) turns = %+v, want 4 with a two-line third turn", sessions[0].Turns)
	}
	q, _, _ := LoCoMoQA(loc, true, 0)
	wantQ := "Below is a conversation between two people: Ann and Bob. The conversation takes place over multiple days and the date of each conversation is wriiten at the beginning of the conversation.\n\n" +
		"DATE: 2 May\nCONVERSATION:\nBob said, \"again\"\n\nAnn said, \"yes\"\n\n" +
		"DATE: 1 May\nCONVERSATION:\nAnn said, \"hi\"\n\nBob said, \"hello\"\n\nAnn said, \"a\nmulti: line\"\n\nBob said, \"b\"\n\n\n\n\n\n" +
		"\n\n\nBased on the above context, write an answer in the form of a short phrase for the following question. Answer with exact words from the context whenever possible.\n\nQuestion: When? Use DATE of CONVERSATION to answer with an approximate date. Short answer:\n"
	if q != wantQ {
		t.Errorf("LoCoMoQA(text layout) =\n%q\nwant\n%q", q, wantQ)
	}
}
