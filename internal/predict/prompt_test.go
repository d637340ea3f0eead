package predict

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

func locomoRecord(cat string) *record.Record {
	r := &record.Record{ID: "locomo:conv-1:" + cat, Dataset: "locomo", Question: "What car did Ann buy?", Answers: []string{"a red car"},
		Context: []record.Passage{{Title: "session_1", Date: "1:00 pm on 8 May, 2023", Text: "Ann: I bought a red car!\nBob: Nice."}},
		Meta:    map[string]json.RawMessage{}}
	r.Meta["category"] = []byte(cat)
	if cat == "5" {
		r.Meta["adversarial_answer"] = []byte(`"a red car"`)
	}
	return r
}

func TestDatasetPrompts(t *testing.T) {
	p, err := newPrompter("", 1)
	if err != nil {
		t.Fatal(err)
	}
	hot := &record.Record{ID: "h", Dataset: "hotpotqa", Question: "Q?", Context: []record.Passage{{Title: "T", Sentences: []string{"A.", " B."}}}}
	got, _, err := p.render(hot)
	if err != nil || got != prompt.HotpotQA(hot) {
		t.Errorf("render(hotpotqa) = %q, %v, want prompt.HotpotQA's %q", got, err, prompt.HotpotQA(hot))
	}
	for _, cat := range []string{"1", "2", "5"} {
		rec := locomoRecord(cat)
		got, opts, err := p.render(rec)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := prompt.LoCoMoQA(rec, p.abstainFirst(rec.ID), 0)
		if got != want {
			t.Errorf("render(locomo cat %s) = %q, want %q", cat, got, want)
		}
		if (cat == "5") != (opts != nil) {
			t.Errorf("render(locomo cat %s) options = %q", cat, opts)
		}
		if cat == "5" && !strings.Contains(got, opts[0]) {
			t.Errorf("cat 5 prompt %q lacks option %q", got, opts[0])
		}
		if cat == "2" && !strings.Contains(got, "approximate date") {
			t.Errorf("cat 2 prompt %q lacks the date suffix", got)
		}
	}
	// A dataset name in another case is the same dataset.
	rec := locomoRecord("2")
	lower, _, _ := p.render(rec)
	if rec.Dataset = "LoCoMo"; !strings.Contains(lower, "approximate date") {
		t.Fatalf("render(locomo cat 2) = %q, want LoCoMo's prompt", lower)
	}
	if got, _, err := p.render(rec); got != lower || err != nil {
		t.Errorf("render(dataset LoCoMo) = %q, %v; want LoCoMo's prompt %q", got, err, lower)
	}
	// meta.category as a string holding the number is the same category; one that holds no
	// category is an error on the record, not a prompt for some other category.
	if got, opts, err := p.render(locomoRecord(`"5"`)); err != nil || len(opts) != 2 || !strings.Contains(got, opts[0]) {
		t.Errorf("render(locomo category \"5\") = %q, %q, %v; want the category-5 prompt", got, opts, err)
	}
	if _, _, err := p.render(locomoRecord("9")); err == nil || err.Error() != "meta.category: want a LoCoMo category, 1 to 5, got 9" {
		t.Errorf("render(locomo category 9): error %v", err)
	}
	lme := &record.Record{ID: "lme", Dataset: "longmemeval", Question: "Where do I work?",
		Context: []record.Passage{{Date: "2023/05/20 (Sat) 02:21", Text: "user: I started at Acme today.\nassistant: Congratulations!"}},
		Meta:    map[string]json.RawMessage{"question_date": json.RawMessage(`"2023/05/30 (Tue) 10:00"`)}}
	got, _, err = p.render(lme)
	wantLME, _, werr := prompt.LongMemEvalPrompt(lme, prompt.HistoryOptions{Format: "json"}, false)
	if err != nil || werr != nil || got != wantLME || !strings.Contains(got, "Acme") || !strings.Contains(got, "2023/05/30") {
		t.Errorf("render(longmemeval) = %q, %v, want %q, %v", got, err, wantLME, werr)
	}
	gen := &record.Record{ID: "g", Question: "Who?", Context: []record.Passage{{Title: "T", Date: "2020", Text: "Body."}}}
	got, _, _ = p.render(gen)
	want := "Answer the question using the context. Reply with the answer only, as short as possible.\n\nContext:\nT (2020):\nBody.\n\nQuestion: Who?\nAnswer:"
	if got != want {
		t.Errorf("render(generic) = %q, want %q", got, want)
	}
}

// TestPassages: the generic prompt's passages, each headed by its title and date (a date alone
// without a space before it), its text or else its sentences as they are (HotpotQA's carry their
// own spaces), a blank line between them.
func TestPassages(t *testing.T) {
	for _, tc := range []struct {
		ps   []record.Passage
		want string
	}{
		{[]record.Passage{{Title: "T", Date: "2020", Text: "Body."}}, "T (2020):\nBody."},
		{[]record.Passage{{Date: "2020", Text: "Body."}}, "(2020):\nBody."},
		{[]record.Passage{{Title: "T", Sentences: []string{"A.", " B."}}}, "T:\nA. B."},
		{[]record.Passage{{Title: "T", Text: "Text.", Sentences: []string{"A.", " B."}}}, "T:\nText."},
		{[]record.Passage{{Text: "one"}, {Title: "U", Text: "two"}}, "one\n\nU:\ntwo"},
	} {
		if got := passages(tc.ps); got != tc.want {
			t.Errorf("passages(%+v) = %q, want %q", tc.ps, got, tc.want)
		}
	}
}

func TestAbstainFirstIsSeededAndBalanced(t *testing.T) {
	a, b := &prompter{seed: 1}, &prompter{seed: 2}
	first, differ := 0, 0
	for i := range 400 {
		id := "locomo:x:" + string(rune('a'+i%26)) + strings.Repeat("z", i/26)
		got := a.abstainFirst(id)
		if got {
			first++
		}
		if got != b.abstainFirst(id) {
			differ++
		}
		if a.abstainFirst(id) != got {
			t.Fatal("abstainFirst is not deterministic")
		}
	}
	if first < 150 || first > 250 || differ < 150 {
		t.Errorf("abstainFirst: %d of 400 first, %d differ between seeds; want about half each", first, differ)
	}
}

func TestPromptSHA256(t *testing.T) {
	msgs := []model.Message{{Role: "user", Content: "hi"}}
	// printf '%s' '[{"role":"user","content":"hi"}]' | sha256sum
	if got, want := promptSHA256(msgs), "b03d228fdf33e7c81a9a7ea3eadadcf2cdcb98823fe93c669b8f0db42e0fa8a0"; got != want {
		t.Errorf("promptSHA256(%v) = %s, want %s", msgs, got, want)
	}
	a := promptSHA256(msgs)
	b := promptSHA256([]model.Message{{Role: "system", Content: "hi"}})
	if a == b || len(a) != 64 {
		t.Errorf("promptSHA256 ignores the role or is malformed: %s %s", a, b)
	}
}

func TestPromptSHA256NoHTMLEscape(t *testing.T) {
	// printf '%s' '[{"role":"user","content":"a<b & c>d"}]' | sha256sum
	msgs := []model.Message{{Role: "user", Content: "a<b & c>d"}}
	if got, want := promptSHA256(msgs), "0bcd9261efac2558a20172b91f1b2d4d63162e9ec5414dfc7a04897ba3c10372"; got != want {
		t.Errorf("promptSHA256(%v) = %s, want %s", msgs, got, want)
	}
}
