package prompt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// lmeRecord is a LongMemEval record of two sessions, the later one first in the file.
func lmeRecord(t *testing.T) *record.Record {
	rec := &record.Record{Schema: 1, ID: "longmemeval:q", Dataset: "longmemeval", Question: "Which bike?",
		Meta: map[string]json.RawMessage{"question_date": json.RawMessage(`"2023/06/01 (Thu) 10:00"`)}}
	for _, s := range []struct{ date, turns string }{
		{"2023/05/02 (Tue) 09:00", `[{"role": "user", "content": " I bought a green bike\n", "has_answer": true}, {"role": "assistant", "content": "Nice!"}]`},
		{"2023/05/01 (Mon) 09:00", `[{"role": "user", "content": "Hi ü"}]`},
	} {
		rec.Context = append(rec.Context, record.Passage{Date: s.date, Extra: map[string]json.RawMessage{"turns": json.RawMessage(s.turns)}})
	}
	return rec
}

func TestLongMemEvalHistorySources(t *testing.T) {
	block := func(i, date, content string) string {
		return "\n### Session " + i + ":\nSession Date: " + date + "\nSession Content:\n" + content + "\n"
	}
	const d1, d2 = "2023/05/01 (Mon) 09:00", "2023/05/02 (Tue) 09:00"
	tests := []struct {
		name string
		opt  HistoryOptions
		want string
	}{
		{"sessions, json: has_answer dropped, sorted by date", HistoryOptions{},
			block("1", d1, `
[{"role": "user", "content": "Hi \u00fc"}]`) + block("2", d2, `
[{"role": "user", "content": " I bought a green bike\n"}, {"role": "assistant", "content": "Nice!"}]`)},
		{"sessions, nl, last one", HistoryOptions{Retriever: RetrieverSession, Format: "nl", TopK: 1},
			block("1", d1, "\n\nuser: Hi ü")},
		{"turns, json: has_answer kept", HistoryOptions{Retriever: RetrieverTurn},
			block("1", d1, `
{"role": "user", "content": "Hi \u00fc"}`) + block("2", d2, `
{"role": "user", "content": " I bought a green bike\n", "has_answer": true}`) + block("3", d2, `
{"role": "assistant", "content": "Nice!"}`)},
		{"turns, nl, user only, last two", HistoryOptions{Retriever: RetrieverTurn, Format: "nl", UserOnly: true, TopK: 2},
			block("1", d1, "user: Hi ü") + block("2", d2, "user: I bought a green bike")},
		{"no retrieval", HistoryOptions{Retriever: RetrieverNone}, ""},
	}
	rec := lmeRecord(t)
	sessions, err := LongMemEvalSessions(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LongMemEvalHistory(sessions, tt.opt)
			if err != nil || got != tt.want {
				t.Errorf("history = %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
	if _, err := LongMemEvalHistory(sessions, HistoryOptions{Retriever: "flat-session"}); err == nil || !strings.Contains(err.Error(), "flat-session") {
		t.Errorf("unknown retriever: %v", err)
	}
}

func TestLongMemEvalPromptWithoutHistory(t *testing.T) {
	rec := lmeRecord(t)
	for con, want := range map[bool]string{false: "Which bike?", true: "Which bike?Answer step by step."} {
		got, cut, err := LongMemEvalPrompt(rec, HistoryOptions{Retriever: RetrieverNone, MaxTokens: 1}, con)
		if got != want || cut || err != nil {
			t.Errorf("no-retrieval, con %v: %q, %v, %v; want %q", con, got, cut, err, want)
		}
	}
	// A history with nothing in it stops the reader, as upstream's assert does.
	rec.Context = rec.Context[1:2]
	rec.Context[0].Extra["turns"] = json.RawMessage(`[{"role": "assistant", "content": "Hello"}]`)
	if _, _, err := LongMemEvalPrompt(rec, HistoryOptions{Retriever: RetrieverTurn, UserOnly: true}, false); err == nil || !strings.Contains(err.Error(), "no history") {
		t.Errorf("empty history: %v, want an error", err)
	}
	if _, _, err := LongMemEvalPrompt(rec, HistoryOptions{UserOnly: true}, false); err != nil {
		t.Errorf("a session block without turns is still history: %v", err)
	}
}

// TestLongMemEvalQuestionDate: the date is str() of meta.question_date, as run_generation.py
// formats entry['question_date'] (null is None, a number as Python writes it), in the reader and
// note prompts; a record without one is an error in every setting, no-retrieval too, as the
// script's KeyError is.
func TestLongMemEvalQuestionDate(t *testing.T) {
	for _, tc := range []struct {
		date string // meta.question_date, "" for none
		want string // the date shown, or the error's text after "error: "
	}{
		{`"2023/06/01 (Thu) 10:00"`, "2023/06/01 (Thu) 10:00"},
		{`""`, ""},
		{`null`, "None"},
		{`20230601`, "20230601"},
		{`2.5e3`, "2500.0"},
		{"", "error: no meta.question_date"},
	} {
		rec := lmeRecord(t)
		delete(rec.Meta, "question_date")
		if tc.date != "" {
			rec.Meta["question_date"] = json.RawMessage(tc.date)
		}
		wantErr, isErr := strings.CutPrefix(tc.want, "error: ")
		// check checks a prompt of setting, which shows the date after label ("" for none).
		check := func(setting, label, got string, err error) {
			t.Helper()
			line := label + " Date: " + tc.want + "\n"
			switch {
			case isErr && (err == nil || !strings.Contains(err.Error(), wantErr)):
				t.Errorf("date %s, %s: %v, want an error holding %q", tc.date, setting, err, wantErr)
			case !isErr && err != nil:
				t.Errorf("date %s, %s: %v", tc.date, setting, err)
			case !isErr && label != "" && !strings.Contains(got, line):
				t.Errorf("date %s, %s:\n%s\nwant it to hold %q", tc.date, setting, got, line)
			}
		}
		got, _, err := LongMemEvalPrompt(rec, HistoryOptions{}, false)
		check("direct", "Current", got, err)
		got, _, err = LongMemEvalPrompt(rec, HistoryOptions{}, true)
		check("con", "Current", got, err)
		got, _, err = LongMemEvalPrompt(rec, HistoryOptions{Retriever: RetrieverNone}, false)
		check("no retrieval", "", got, err)
		notes, err := LongMemEvalNotePrompts(rec, HistoryOptions{})
		if err != nil {
			check("note request", "Question", "", err)
			continue
		}
		check("note request", "Question", notes[0].Prompt, nil)
		got, _, err = LongMemEvalNotesPrompt(rec, notes, []string{"a", "b"}, HistoryOptions{})
		check("reading over notes", "Current", got, err)
	}
}

func TestLongMemEvalNotePrompts(t *testing.T) {
	rec := lmeRecord(t)
	notes, err := LongMemEvalNotePrompts(rec, HistoryOptions{Retriever: RetrieverTurn, Format: "nl", TopK: 3})
	if err != nil || len(notes) != 3 {
		t.Fatalf("notes: %d, %v", len(notes), err)
	}
	want := `I will give you a chat history between you and a user, as well as a question from the user. Write reading notes to extract all the relevant user information relevant to answering the answer. If no relevant information is found, just output "empty". 


Chat History:
Session Date: 2023/05/02 (Tue) 09:00
Session Content:
{"role": "user", "content": " I bought a green bike\n", "has_answer": true}

Question Date: 2023/06/01 (Thu) 10:00
Question: Which bike?
Extracted note (information relevant to answering the question):`
	if notes[0].Prompt != want || notes[0].Date != "2023/05/02 (Tue) 09:00" {
		t.Errorf("first note request (json whatever the format):\n%s\nwant:\n%s", notes[0].Prompt, want)
	}
	got, _, err := LongMemEvalNotesPrompt(rec, notes, []string{"bike: green", `"quoted" ü`, "empty"}, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The notes are shown in date order: the third block's first.
	if wantHist := "History Chats:\n\n\n### Session 1:\nSession Date: 2023/05/01 (Mon) 09:00\nSession Content:\n\n{\"session_summary\": \"empty\"}\n" +
		"\n### Session 2:\nSession Date: 2023/05/02 (Tue) 09:00\nSession Content:\n\n{\"session_summary\": \"bike: green\"}\n" +
		"\n### Session 3:\nSession Date: 2023/05/02 (Tue) 09:00\nSession Content:\n\n{\"session_summary\": \"\\\"quoted\\\" \\u00fc\"}\n\n\nCurrent Date:"; !strings.Contains(got, wantHist) {
		t.Errorf("reading prompt over notes:\n%s\nwant the history:\n%s", got, wantHist)
	}
	if _, _, err := LongMemEvalNotesPrompt(rec, notes, []string{"one"}, HistoryOptions{}); err == nil {
		t.Error("fewer notes than requests: no error")
	}
}

// flatRecord is a LongMemEval record of two sessions with ids, ranked by a retrieval log.
func flatRecord(ranked ...string) *record.Record {
	rec := &record.Record{Schema: 1, ID: "longmemeval:f", Dataset: "longmemeval", Question: "?",
		Meta: map[string]json.RawMessage{"question_date": json.RawMessage(`"d3"`)}}
	for _, s := range []struct{ id, date, turns string }{
		{"answer_a_1", "d2", `[{"role": "user", "content": "u1", "has_answer": true}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}]`},
		{"sharegpt_b", "d1", `[{"role": "user", "content": "v1"}]`},
	} {
		rec.Context = append(rec.Context, record.Passage{Title: s.id, Date: s.date, Extra: map[string]json.RawMessage{"turns": json.RawMessage(s.turns)}})
	}
	if ranked != nil {
		rec.SetMeta(LongMemEvalRetrievalMeta, ranked)
	}
	return rec
}

func TestLongMemEvalRetrievedHistory(t *testing.T) {
	block := func(i, date, content string) string {
		return "\n### Session " + i + ":\nSession Date: " + date + "\nSession Content:\n\n" + content + "\n"
	}
	const (
		a  = `[{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}]`
		b  = `[{"role": "user", "content": "v1"}]`
		u1 = `{"role": "user", "content": "u1", "has_answer": true}`
	)
	tests := []struct {
		name   string
		ranked []string
		opt    HistoryOptions
		want   string // history, or the error's text after "error: "
	}{
		{"sessions, noans_ read as answer_, sorted by date", []string{"noans_a_1", "sharegpt_b"}, HistoryOptions{Retriever: RetrieverFlatSession},
			block("1", "d1", b) + block("2", "d2", a)},
		{"first TopK", []string{"answer_a_1", "sharegpt_b"}, HistoryOptions{Retriever: RetrieverFlatSession, TopK: 1}, block("1", "d2", a)},
		{"a turn id: a lone turn, has_answer kept", []string{"answer_a_1_1"}, HistoryOptions{Retriever: RetrieverFlatSession}, block("1", "d2", u1)},
		{"a lone turn whose session is kept too loses has_answer", []string{"answer_a_1_1", "answer_a_1"}, HistoryOptions{Retriever: RetrieverFlatSession},
			block("1", "d2", `{"role": "user", "content": "u1"}`) + block("2", "d2", a)},
		{"unknown session", []string{"sharegpt_c"}, HistoryOptions{Retriever: RetrieverFlatSession}, `error: "sharegpt_c" names no session`},
		{"turn id, user only", []string{"answer_a_1_2"}, HistoryOptions{Retriever: RetrieverFlatSession, UserOnly: true}, "error: is a turn"},
		{"rounds: a turn and the next, the last alone", []string{"answer_a_1_1", "noans_a_1_3"}, HistoryOptions{Retriever: RetrieverFlatTurn},
			block("1", "d2", `[{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}]`) + block("2", "d2", `[{"role": "user", "content": "u2"}]`)},
		{"Python's int() and negative indexing", []string{"answer_a_1_ \u0662 ", "answer_a_1_0", "answer_a_1_-1"}, HistoryOptions{Retriever: RetrieverFlatTurn, Format: "nl"},
			block("1", "d2", "\nassistant: a1\n\nuser: u2") + block("2", "d2", "\nuser: u2\n\nuser: u1") + block("3", "d2", "\nassistant: a1\n\nuser: u2")},
		{"ids naming nothing are skipped", []string{"answer_a_1_9", "nosuch_1", "sharegpt_b_1", "answer_a_1_1_1", "answer_a_1"}, HistoryOptions{Retriever: RetrieverFlatTurn},
			block("1", "d1", b)},
		{"no turn number", []string{"sharegpt_b_x"}, HistoryOptions{Retriever: RetrieverFlatTurn}, "error: no turn number"},
		{"user only", []string{"sharegpt_b_1"}, HistoryOptions{Retriever: RetrieverFlatTurn, UserOnly: true}, "error: no user-only"},
		{"no ranking", nil, HistoryOptions{Retriever: RetrieverFlatTurn}, "error: no retrieval results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkHistory(t, flatRecord(tt.ranked...), tt.opt, tt.want) })
	}
}

// checkHistory checks the {history} opt renders of rec against want, or, when want starts with
// "error: ", that the error holds the rest of want.
func checkHistory(t *testing.T, rec *record.Record, opt HistoryOptions, want string) {
	t.Helper()
	chunks, err := recordChunks(rec, opt)
	var got string
	if err == nil {
		got, err = renderChunks(chunks, opt.Format)
	}
	if err != nil {
		got = "error: " + err.Error()
	}
	if part, isErr := strings.CutPrefix(want, "error: "); isErr && !strings.Contains(got, part) || !isErr && got != want {
		t.Errorf("history = %q\nwant %q", got, want)
	}
}

func TestLongMemEvalKeyExpansion(t *testing.T) {
	rec := flatRecord("answer_a_1", "sharegpt_b", "answer_a_1")
	rec.SetMeta(LongMemEvalRetrievalTextsMeta, []json.RawMessage{json.RawMessage(`"old"`), json.RawMessage(`"fact: ü"`),
		json.RawMessage(`[{"f": 1, "has_answer": true}, "x"]`)})
	block := func(i, date, content string) string {
		return "\n### Session " + i + ":\nSession Date: " + date + "\nSession Content:\n" + content + "\n"
	}
	a := `[{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}]`
	tests := []struct {
		name string
		opt  HistoryOptions
		want string // history, or the error's text after "error: "
	}{
		{"merge, json: the last text of an id counts", HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "merge", TopK: 2},
			block("1", "d1", `
{"session_summary_facts": "fact: \u00fc", "original_session": [{"role": "user", "content": "v1"}]}`) +
				block("2", "d2", `
{"session_summary_facts": [{"f": 1, "has_answer": true}, "x"], "original_session": `+a+`}`)},
		{"replace, json: a list's dicts lose has_answer", HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "replace", TopK: 2},
			block("1", "d1", "\n\"fact: \\u00fc\"") + block("2", "d2", `
[{"f": 1}, "x"]`)},
		{"merge, nl: a text that is no string", HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "merge", Format: "nl"}, "error: no string"},
		{"replace, nl", HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "replace", Format: "nl"}, "error: a replaced block"},
		{"merge over full histories", HistoryOptions{KeyExpansion: "merge"}, "error: needs a retrieval log"},
		{"unknown expansion", HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "both"}, "error: want none, merge or replace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkHistory(t, rec, tt.opt, tt.want) })
	}
	// merge, nl, a string text: "Session summary and facts:" then the session's turns.
	nl := flatRecord("sharegpt_b")
	nl.SetMeta(LongMemEvalRetrievalTextsMeta, []string{" likes tea"})
	got, _, err := LongMemEvalPrompt(nl, HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "merge", Format: "nl"}, false)
	if err != nil || !strings.Contains(got, "the user facts\n\n\nHistory Chats:\n\n"+block("1", "d1", "\n\nSession summary and facts: likes tea\n\nuser: v1")) {
		t.Errorf("merge nl prompt: %v\n%s", err, got)
	}
	// A retrieval text that is a number stops upstream's clean-up.
	rec.SetMeta(LongMemEvalRetrievalTextsMeta, []int{1, 2, 3})
	if _, _, err := LongMemEvalPrompt(rec, HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "replace"}, false); err == nil {
		t.Error("a number as a replaced block: no error")
	}
	rec.Meta = map[string]json.RawMessage{LongMemEvalRetrievalMeta: json.RawMessage(`["sharegpt_b"]`)}
	if _, _, err := LongMemEvalPrompt(rec, HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "merge"}, false); err == nil || !strings.Contains(err.Error(), "--context full") {
		t.Errorf("no texts: %v", err)
	}
}

// FuzzRetrievedHistory: no ranking of corpus ids makes the retrieval readings panic, and every
// block they keep is one the record has (a session, a turn, or a turn and the next).
func FuzzRetrievedHistory(f *testing.F) {
	f.Add("answer_a_1_1\nnoans_a_1\nsharegpt_b_-1", true, uint8(2))
	f.Add("_\n__1\nanswer_a_1_\u0661\nsharegpt_b_99999999999999999999999", false, uint8(0))
	f.Add("answer_a_1_+0\nanswer_a_1_- 1\n", false, uint8(1))
	f.Fuzz(func(t *testing.T, ids string, turns bool, topK uint8) {
		opt := HistoryOptions{Retriever: RetrieverFlatSession, TopK: int(topK % 4)}
		if turns {
			opt.Retriever = RetrieverFlatTurn
		}
		chunks, err := recordChunks(flatRecord(strings.Split(ids, "\n")...), opt)
		if err != nil {
			return
		}
		if opt.TopK > 0 && len(chunks) > opt.TopK {
			t.Errorf("%d blocks kept, want at most %d", len(chunks), opt.TopK)
		}
		for _, c := range chunks {
			if n := len(c.turns); n == 0 && !turns || n > 3 || turns && n > 2 {
				t.Errorf("a block of %d turns", n)
			}
		}
	})
}

func TestPyInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"3", 3, true}, {" 12\n", 12, true}, {"+1", 1, true}, {"-0", 0, true}, {"-7", -7, true},
		{"\u0661\u0662", 12, true}, {"\u00a03", 3, true}, {"", 0, false}, {"-", 0, false}, {"1 2", 0, false},
		{"0x1", 0, false}, {"1.0", 0, false}, {"--1", 0, false}, {"²", 0, false},
	}
	for _, tt := range tests {
		if got, ok := pyInt(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("pyInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if n, ok := pyInt("99999999999999999999999"); !ok || n < 1<<61 {
		t.Errorf("a huge number: %d, %v; want one beyond any list", n, ok)
	}
}

// TestLongMemEvalRetrievedTurnWithoutUnderscore: a turn result with no "_" names the session ""
// upstream ("_".join of nothing), which no record has, so it is skipped even when a session's id
// is the result's first character.
func TestLongMemEvalRetrievedTurnWithoutUnderscore(t *testing.T) {
	rec := flatRecord("1", "answer_a_1_3")
	rec.Context[1].Title = "1" // sharegpt_b's one turn, v1, now in session "1"
	want := "\n### Session 1:\nSession Date: d2\nSession Content:\n\n" + `[{"role": "user", "content": "u2"}]` + "\n"
	checkHistory(t, rec, HistoryOptions{Retriever: RetrieverFlatTurn}, want)
}

// TestLongMemEvalExpansionNoansID: a key expansion takes a block's retrieval text by the corpus
// id as the log ranks it, "noans_" and all, though the block is found as "answer_".
func TestLongMemEvalExpansionNoansID(t *testing.T) {
	rec := flatRecord("noans_a_1")
	rec.SetMeta(LongMemEvalRetrievalTextsMeta, []string{"fact"})
	a := `[{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}]`
	checkHistory(t, rec, HistoryOptions{Retriever: RetrieverFlatSession, KeyExpansion: "merge"},
		"\n### Session 1:\nSession Date: d2\nSession Content:\n\n{\"session_summary_facts\": \"fact\", \"original_session\": "+a+"}\n")
}

// TestLongMemEvalReplaceUserOnlyTurns: flat-turn has no user-only reading, but under replace
// its blocks are the retrieval texts alone, which user-only leaves as they are.
func TestLongMemEvalReplaceUserOnlyTurns(t *testing.T) {
	rec := flatRecord("answer_a_1_1", "sharegpt_b_1")
	rec.SetMeta(LongMemEvalRetrievalTextsMeta, []string{"t1", "t2"})
	want := "\n### Session 1:\nSession Date: d1\nSession Content:\n\n\"t2\"\n" + "\n### Session 2:\nSession Date: d2\nSession Content:\n\n\"t1\"\n"
	for _, userOnly := range []bool{false, true} {
		checkHistory(t, rec, HistoryOptions{Retriever: RetrieverFlatTurn, KeyExpansion: "replace", UserOnly: userOnly}, want)
	}
}

// TestLongMemEvalMetaHaystack: meta haystack_dates must be as many as meta haystack_sessions,
// neither fewer nor more; and a record whose sessions are in meta is not read back from its
// passages' text, whatever its passages are.
func TestLongMemEvalMetaHaystack(t *testing.T) {
	for _, dates := range []string{`[]`, `["d1", "d2"]`} {
		rec := &record.Record{Meta: map[string]json.RawMessage{
			"haystack_sessions": json.RawMessage(`[[{"role": "user", "content": "hi"}]]`),
			"haystack_dates":    json.RawMessage(dates)}}
		if s, err := LongMemEvalSessions(rec); err == nil || !strings.Contains(err.Error(), "haystack_dates does not match") {
			t.Errorf("dates %s for one session: %+v, %v; want an error", dates, s, err)
		}
	}
	rec := &record.Record{Context: []record.Passage{{Text: "user: hi"}}}
	if !RebuiltFromText(rec) {
		t.Error("text passages alone: not rebuilt from text")
	}
	rec.Meta = map[string]json.RawMessage{"haystack_sessions": json.RawMessage(`[[{"role": "user", "content": "hi"}]]`),
		"haystack_dates": json.RawMessage(`["d1"]`)}
	if RebuiltFromText(rec) {
		t.Error("meta haystack_sessions beside text passages: rebuilt from text")
	}
	if s, err := LongMemEvalSessions(rec); err != nil || len(s) != 1 || s[0].Date != "d1" || string(s[0].Turns[0]) != `{"role": "user", "content": "hi"}` {
		t.Errorf("meta haystack beside text passages: %+v, %v; want the meta session", s, err)
	}
}
