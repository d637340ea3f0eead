package prompt

import (
	"encoding/json"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestLoCoMoEmptyCaption: get_input_context tests `"blip_caption" in dialog`, so a turn whose
// caption is "" is still written with its " and shared ." line, and one without the key is not.
func TestLoCoMoEmptyCaption(t *testing.T) {
	rec := &record.Record{Context: []record.Passage{{Date: "d", Extra: map[string]json.RawMessage{
		"turns": json.RawMessage(`[{"speaker": "Ann", "text": "hi", "blip_caption": ""}, {"speaker": "Bob", "text": "yo"}]`)}}}}
	sessions, err := LoCoMoSessions(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := "DATE: d\nCONVERSATION:\nAnn said, \"hi\"\n and shared .\nBob said, \"yo\"\n\n" + "\n\n"
	if got := LoCoMoContext(sessions); got != want {
		t.Errorf("context = %q, want %q", got, want)
	}
}

// TestLoCoMoSpeakersFallback: without both meta speakers, the speakers are the first two
// distinct ones of the first session, a speaker's later turns not counted again.
func TestLoCoMoSpeakersFallback(t *testing.T) {
	rec := &record.Record{Meta: map[string]json.RawMessage{"speaker_a": json.RawMessage(`"Meta"`)}}
	sessions := []LoCoMoSession{
		{Turns: []LoCoMoTurnData{{Speaker: "Ann"}, {Speaker: "Ann"}, {Speaker: "Bob"}}},
		{Turns: []LoCoMoTurnData{{Speaker: "Cid"}}},
	}
	if a, b := LoCoMoSpeakers(rec, sessions); a != "Ann" || b != "Bob" {
		t.Errorf("speakers = %q, %q; want Ann, Bob", a, b)
	}
	rec.Meta["speaker_b"] = json.RawMessage(`"Other"`)
	if a, b := LoCoMoSpeakers(rec, sessions); a != "Meta" || b != "Other" {
		t.Errorf("speakers with both in meta = %q, %q; want Meta, Other", a, b)
	}
}
