package predict

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestTextTurnsWarn: a LoCoMo or LongMemEval record whose passages carry no raw turns (qa-load
// --context text) gets a prompt rebuilt from the text, without LoCoMo's image captions or
// LongMemEval's has_answer marks; qa-predict says so, once, and says nothing when the turns are
// there.
func TestTextTurnsWarn(t *testing.T) {
	const warning = "carries no raw turns (qa-load --context text)"
	locomo := func(id string, turns bool) *record.Record {
		p := record.Passage{Title: "session_1", Date: "1:56 pm on 8 May, 2023", Text: "Mel: I painted a lake sunrise."}
		if turns {
			p.Extra = map[string]json.RawMessage{"turns": json.RawMessage(`[{"speaker":"Mel","text":"I painted a lake sunrise.","blip_caption":"a photo of a lake"}]`)}
		}
		return &record.Record{Schema: 1, ID: id, Dataset: "locomo", Question: "What did Mel paint?", Answers: []string{"a lake"},
			Context: []record.Passage{p}, Meta: map[string]json.RawMessage{"category": json.RawMessage("1")}}
	}
	lmeText := longMemEvalRecord("longmemeval:q1", "")
	lme := *lmeText
	lme.Context = []record.Passage{{Title: "s1", Date: "2023/05/20 (Sat) 02:21", Text: "user: I bought a green bike.\nassistant: Nice!",
		Extra: map[string]json.RawMessage{"turns": json.RawMessage(`[{"role":"user","content":"I bought a green bike.","has_answer":true},{"role":"assistant","content":"Nice!"}]`)}}}
	for _, c := range []struct {
		name string
		recs []*record.Record
		args []string
		warn bool
	}{
		{"locomo turns", []*record.Record{locomo("locomo:c:0", true)}, nil, false},
		{"locomo text", []*record.Record{locomo("locomo:c:0", false), locomo("locomo:c:1", false)}, nil, true},
		{"locomo text batch", []*record.Record{locomo("locomo:c:0", false), locomo("locomo:c:1", false)}, []string{"--batch-size", "2"}, true},
		{"longmemeval turns", []*record.Record{&lme}, nil, false},
		{"longmemeval text", []*record.Record{lmeText}, nil, true},
		{"longmemeval text notes", []*record.Record{lmeText}, []string{"--reading", "con-separate"}, true},
	} {
		args := append([]string{"--provider", "openai", "--model", "gpt-4o"}, c.args...)
		_, stderr, code := dryRunLines(t, jsonl(t, c.recs...), args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		if n := strings.Count(stderr, warning); n != map[bool]int{true: 1}[c.warn] {
			t.Errorf("%s: the warning %d times, want it %v:\n%s", c.name, n, c.warn, stderr)
		}
	}
}
