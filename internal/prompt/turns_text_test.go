package prompt

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestTurnsFromLines: LoCoMo turns read back from "speaker: text" lines (qa-load --context
// text): a line of an unknown speaker continues the turn before, but the first line always
// opens one, keeping its prefix as the speaker when it has one and the whole line as the text
// when it has none.
func TestTurnsFromLines(t *testing.T) {
	speakers := map[string]bool{"A": true, "B": true}
	for _, tt := range []struct {
		text string
		want []LoCoMoTurnData
	}{
		{"A: hi\nmore\nC: x\nB: yo", []LoCoMoTurnData{{Speaker: "A", Text: "hi\nmore\nC: x"}, {Speaker: "B", Text: "yo"}}},
		{"no speaker\nA: hi", []LoCoMoTurnData{{Speaker: "", Text: "no speaker"}, {Speaker: "A", Text: "hi"}}},
		{"C: x\nmore", []LoCoMoTurnData{{Speaker: "C", Text: "x\nmore"}}},
		{"", []LoCoMoTurnData{{Speaker: "", Text: ""}}},
	} {
		if got := turnsFromLines(tt.text, speakers); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("turnsFromLines(%q) = %+v, want %+v", tt.text, got, tt.want)
		}
	}
}

// TestLineSpeakers: without speaker_a and speaker_b in meta, the speakers are the prefixes that
// open three lines or more; one that opens fewer is a turn's own text ("Note: …").
func TestLineSpeakers(t *testing.T) {
	rec := &record.Record{Context: []record.Passage{
		{Text: "Ann: hi\nBob: yo\nAnn: so\nNote: one"},
		{Text: "Bob: ok\nAnn: bye\nBob: see you\nNote: two"},
	}}
	if got, want := lineSpeakers(rec), map[string]bool{"Ann": true, "Bob": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("lineSpeakers = %v, want %v", got, want)
	}
	rec.Meta = map[string]json.RawMessage{"speaker_a": json.RawMessage(`"Ann"`)} // one alone: counted still
	if got, want := lineSpeakers(rec), map[string]bool{"Ann": true, "Bob": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("lineSpeakers with speaker_a alone = %v, want %v", got, want)
	}
	rec.Meta["speaker_b"] = json.RawMessage(`"Note"`)
	if got, want := lineSpeakers(rec), map[string]bool{"Ann": true, "Note": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("lineSpeakers with meta speakers = %v, want %v", got, want)
	}
}

// TestLoCoMoAdversarialAnswer: a category-5 question's wrong option is str() of its
// adversarial_answer, else its first gold answer.
func TestLoCoMoAdversarialAnswer(t *testing.T) {
	for _, tc := range []struct {
		rec  *record.Record
		want string
	}{
		{&record.Record{Answers: []string{"gold", "other"}, Meta: map[string]json.RawMessage{"adversarial_answer": json.RawMessage(`2022`)}}, "2022"},
		{&record.Record{Answers: []string{"gold", "other"}}, "gold"},
		{&record.Record{}, ""},
	} {
		if got := LoCoMoAdversarialAnswer(tc.rec); got != tc.want {
			t.Errorf("LoCoMoAdversarialAnswer(%+v) = %q, want %q", tc.rec, got, tc.want)
		}
	}
}

// TestTurnsFromText: LongMemEval turns read back from "role: content" lines, likewise.
func TestTurnsFromText(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"user: hi\nmore\nsystem: x\nassistant: ok", []string{`{"role":"user","content":"hi\nmore\nsystem: x"}`, `{"role":"assistant","content":"ok"}`}},
		{"no role\nuser: hi", []string{`{"role":"","content":"no role"}`, `{"role":"user","content":"hi"}`}},
		{"", []string{`{"role":"","content":""}`}},
	} {
		var got []string
		for _, raw := range turnsFromText(tt.text) {
			got = append(got, string(raw))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("turnsFromText(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestLongMemEvalMetaSessions: a record whose haystack is in meta (haystack_sessions,
// haystack_dates, haystack_session_ids, as in LongMemEval's own file) instead of in passages
// gives the retrieval readers the same session ids, so the same history.
func TestLongMemEvalMetaSessions(t *testing.T) {
	for _, tt := range []struct {
		ranked []string
		opt    HistoryOptions
	}{
		{[]string{"sharegpt_b", "answer_a_1_2"}, HistoryOptions{Retriever: RetrieverFlatSession}},
		{[]string{"answer_a_1_2", "sharegpt_b_1"}, HistoryOptions{Retriever: RetrieverFlatTurn}},
		{nil, HistoryOptions{}},
	} {
		want, rec := flatRecord(tt.ranked...), flatRecord(tt.ranked...)
		var sessions []json.RawMessage
		var dates, ids []string
		for _, p := range rec.Context {
			sessions, dates, ids = append(sessions, p.Extra["turns"]), append(dates, p.Date), append(ids, p.Title)
		}
		rec.Context = nil
		rec.SetMeta("haystack_sessions", sessions)
		rec.SetMeta("haystack_dates", dates)
		rec.SetMeta("haystack_session_ids", ids)
		w, _, werr := LongMemEvalPrompt(want, tt.opt, false)
		got, _, err := LongMemEvalPrompt(rec, tt.opt, false)
		if got != w || err != nil || werr != nil {
			t.Errorf("%s: meta haystack gives %q, %v; passages %q, %v", tt.opt.Retriever, got, err, w, werr)
		}
	}
}
