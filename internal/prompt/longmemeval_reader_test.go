package prompt

import (
	"encoding/json"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// The wants of this file are the prompts LongMemEval's own prepare_prompt
// (src/generation/run_generation.py @ 9e0b455, MIT) builds from the same entries (lmeRecord,
// flatRecord), run offline with its openai, backoff, transformers, tiktoken, numpy and tqdm
// imports replaced by fakes (a tokenizer that never cuts, a client that replies with the notes
// below), as scripts/random-longmemeval-requests.py runs it. They pin the settings the random
// cases of internal/predict happen to miss or reach only from that package.

func TestLongMemEvalReaderUpstream(t *testing.T) {
	flat, lme := keyExpansionRecord(), lmeRecord(t)
	for _, tt := range []struct {
		name string
		rec  *record.Record
		opt  HistoryOptions
		con  bool
		want string
	}{
		{"oracle-session: the first TopK sessions, not the last", lme, HistoryOptions{Retriever: RetrieverOracleSession, TopK: 1}, false,
			`I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.


History Chats:


### Session 1:
Session Date: 2023/05/02 (Tue) 09:00
Session Content:

[{"role": "user", "content": " I bought a green bike\n"}, {"role": "assistant", "content": "Nice!"}]


Current Date: 2023/06/01 (Thu) 10:00
Question: Which bike?
Answer:`},
		{"orig-session: the last TopK sessions", lme, HistoryOptions{Retriever: RetrieverSession, TopK: 1}, false,
			`I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.


History Chats:


### Session 1:
Session Date: 2023/05/01 (Mon) 09:00
Session Content:

[{"role": "user", "content": "Hi \u00fc"}]


Current Date: 2023/06/01 (Thu) 10:00
Question: Which bike?
Answer:`},
		{"oracle-turn: the first TopK turns, a lone turn keeps has_answer", lme, HistoryOptions{Retriever: RetrieverOracleTurn, TopK: 2}, false,
			`I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.


History Chats:


### Session 1:
Session Date: 2023/05/02 (Tue) 09:00
Session Content:

{"role": "user", "content": " I bought a green bike\n", "has_answer": true}

### Session 2:
Session Date: 2023/05/02 (Tue) 09:00
Session Content:

{"role": "assistant", "content": "Nice!"}


Current Date: 2023/06/01 (Thu) 10:00
Question: Which bike?
Answer:`},
		{"oracle-turn, nl, user only", lme, HistoryOptions{Retriever: RetrieverOracleTurn, TopK: 2, Format: "nl", UserOnly: true}, false,
			`I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.


History Chats:


### Session 1:
Session Date: 2023/05/01 (Mon) 09:00
Session Content:
user: Hi ü

### Session 2:
Session Date: 2023/05/02 (Tue) 09:00
Session Content:
user: I bought a green bike


Current Date: 2023/06/01 (Thu) 10:00
Question: Which bike?
Answer:`},
		{"merge, step by step", flat, HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "merge", TopK: 2}, true,
			`I will give you several history chats between you and a user, as well as the relevant user facts extracted from the chat history. Please answer the question based on the relevant chat history and the user facts. Answer the question step by step: first extract all the relevant information, and then reason over the information to get the answer.


History Chats:


### Session 1:
Session Date: d1
Session Content:

{"session_summary_facts": "fact: \u00fc", "original_session": [{"role": "user", "content": "v1"}]}

### Session 2:
Session Date: d2
Session Content:

{"session_summary_facts": [{"f": 1, "has_answer": true}, "x"], "original_session": [{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}]}


Current Date: d3
Question: ?
Answer (step by step):`},
		{"replace, step by step", flat, HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "replace", TopK: 2}, true,
			`I will give you several facts extracted from history chats between you and a user. Please answer the question based on the relevant facts. Answer the question step by step: first extract all the relevant information, and then reason over the information to get the answer.


History Chats:


### Session 1:
Session Date: d1
Session Content:

"fact: \u00fc"

### Session 2:
Session Date: d2
Session Content:

[{"f": 1}, "x"]


Current Date: d3
Question: ?
Answer (step by step):`},
		{"replace, direct", flat, HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "replace", TopK: 2}, false,
			`I will give you several facts extracted from history chats between you and a user. Please answer the question based on the relevant facts.


History Chats:


### Session 1:
Session Date: d1
Session Content:

"fact: \u00fc"

### Session 2:
Session Date: d2
Session Content:

[{"f": 1}, "x"]


Current Date: d3
Question: ?
Answer:`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, cut, err := LongMemEvalPrompt(tt.rec, tt.opt, tt.con)
			if got != tt.want || cut || err != nil {
				t.Errorf("LongMemEvalPrompt = %q, %v, %v\nwant %q", got, cut, err, tt.want)
			}
		})
	}
}

// TestLongMemEvalNotesMergeUpstream: con-separate under a merge asks for notes on the original
// sessions, then shows each note as the original session beside the block's retrieval text.
func TestLongMemEvalNotesMergeUpstream(t *testing.T) {
	rec := keyExpansionRecord()
	opt := HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "merge", TopK: 2}
	wantNotes := []string{
		`I will give you a chat history between you and a user, as well as a question from the user. Write reading notes to extract all the relevant user information relevant to answering the answer. If no relevant information is found, just output "empty". 


Chat History:
Session Date: d2
Session Content:
[{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}]

Question Date: d3
Question: ?
Extracted note (information relevant to answering the question):`,
		`I will give you a chat history between you and a user, as well as a question from the user. Write reading notes to extract all the relevant user information relevant to answering the answer. If no relevant information is found, just output "empty". 


Chat History:
Session Date: d1
Session Content:
[{"role": "user", "content": "v1"}]

Question Date: d3
Question: ?
Extracted note (information relevant to answering the question):`,
	}
	wantReading := `I will give you several history chats between you and a user, as well as the relevant user facts extracted from the chat history. Please answer the question based on the relevant chat history and the user facts. Answer the question step by step: first extract all the relevant information, and then reason over the information to get the answer.


History Chats:


### Session 1:
Session Date: d1
Session Content:

{"session_summary_facts": "fact: \u00fc", "original_session": {"session_summary": "note \"two\" \u00fc"}}

### Session 2:
Session Date: d2
Session Content:

{"session_summary_facts": [{"f": 1, "has_answer": true}, "x"], "original_session": {"session_summary": "note one"}}


Current Date: d3
Question: ?
Answer (step by step):`
	notes, err := LongMemEvalNotePrompts(rec, opt)
	if err != nil || len(notes) != len(wantNotes) {
		t.Fatalf("LongMemEvalNotePrompts = %d notes, %v; want %d", len(notes), err, len(wantNotes))
	}
	for i, n := range notes {
		if n.Prompt != wantNotes[i] {
			t.Errorf("note request %d = %q\nwant %q", i+1, n.Prompt, wantNotes[i])
		}
	}
	got, cut, err := LongMemEvalNotesPrompt(rec, notes, []string{"note one", `note "two" ü`}, opt)
	if got != wantReading || cut || err != nil {
		t.Errorf("LongMemEvalNotesPrompt = %q, %v, %v\nwant %q", got, cut, err, wantReading)
	}
}

// keyExpansionRecord is flatRecord ranked with the ids and retrieval texts of
// TestLongMemEvalKeyExpansion: an id twice (its last text counts), a non-ASCII text and a list
// whose dict carries has_answer (which a merge keeps and a replace pops).
func keyExpansionRecord() *record.Record {
	rec := flatRecord("answer_a_1", "sharegpt_b", "answer_a_1")
	rec.SetMeta(LongMemEvalRetrievalTextsMeta, []json.RawMessage{json.RawMessage(`"old"`), json.RawMessage(`"fact: ü"`),
		json.RawMessage(`[{"f": 1, "has_answer": true}, "x"]`)})
	return rec
}
