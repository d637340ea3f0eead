package prompt

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestLoCoMoConversationsKept: the records of one conversation share its reading, found by equal
// keys in other strings, and a record of another conversation gets its own; a nil
// LoCoMoConversations reads each anew.
func TestLoCoMoConversationsKept(t *testing.T) {
	syn := readRecords(t, "testdata/golden/locomo_cut_records.jsonl", 3)
	if len(syn) != 3 {
		t.Fatalf("%d synthetic records, want 3", len(syn))
	}
	// syn[0] and syn[2] hold one conversation; a copy of syn[2] holds it in new strings and bytes.
	again := *syn[2]
	again.Context = slices.Clone(again.Context)
	for i, p := range again.Context {
		again.Context[i].Text = string([]byte(p.Text))
		again.Context[i].Extra = map[string]json.RawMessage{"turns": slices.Clone(p.Extra["turns"])}
	}
	var c LoCoMoConversations
	read := func(r *record.Record) *locomoConversation {
		conv, err := c.read(r)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		return conv
	}
	first := read(syn[0])
	if read(syn[2]) != first || read(&again) != first {
		t.Error("a record of a conversation kept read it again")
	}
	if other := read(syn[1]); other == first || other.same(first) {
		t.Error("a record of another conversation took the first one's")
	}
	if got := len(c.cache.Sizes()); got != 2 {
		t.Errorf("%d conversations kept, want 2", got)
	}
	k0, k2 := locomoKeyOf(syn[0]), locomoKeyOf(&again)
	if size := k0.size(); size <= len(syn[0].Context[0].Text) {
		t.Errorf("a conversation's key counts %d bytes", size)
	}
	if !k0.Equal(k2) || k0.Equal(locomoKeyOf(syn[1])) {
		t.Error("locomoKey.Equal does not tell the conversations apart")
	}
	var nilc *LoCoMoConversations
	a, err := nilc.read(syn[0])
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := nilc.read(syn[0]); a == b || !a.same(b) || a.whole != first.whole {
		t.Error("a nil LoCoMoConversations kept a conversation, or read it otherwise")
	}
}
