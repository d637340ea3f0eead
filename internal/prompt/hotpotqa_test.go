package prompt

import (
	"encoding/json"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestHotpotQAEmptyParagraph: a context entry with no sentences ([title, []]) is a list to AFlow,
// so it joins to an empty paragraph: "\n".join(" ".join(s) for s in ...) gives "a  b\n\nc". A
// record keeps no empty sentences list (omitempty), so the passage comes back with none, and
// its text, "".join of no sentences, stands in.
func TestHotpotQAEmptyParagraph(t *testing.T) {
	rec := &record.Record{Schema: 1, ID: "hotpotqa:x", Dataset: "hotpotqa", Question: "Q?", Context: []record.Passage{
		{Title: "A", Text: "a b", Sentences: []string{"a", " b"}},
		{Title: "E", Text: "", Sentences: []string{}},
		{Title: "C", Text: "c", Sentences: []string{"c"}},
	}}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var back record.Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Context[1].Sentences != nil {
		t.Fatalf("an empty sentences list came back as %q", back.Context[1].Sentences)
	}
	for _, r := range []*record.Record{rec, &back} {
		if got, want := HotpotQA(r), "Context: a  b\n\nc\n\nQuestion: Q?\n\nAnswer:"; got != want {
			t.Errorf("HotpotQA = %q, want %q", got, want)
		}
	}
}
