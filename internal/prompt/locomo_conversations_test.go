package prompt_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// conversationRecords are LoCoMo records of several conversations, interleaved as a shuffled
// file gives them: conv-26's first 30 questions, the golden and synthetic records, and copies of
// conv-26's first questions whose conversation differs in one place each (a turn's text, its
// caption or speaker, a session's date, a session left out, the speakers, the turns left out):
// what each must not take from the others.
func conversationRecords(t *testing.T) []*record.Record {
	t.Helper()
	up := upstreamRecords(t)
	recs := slices.Concat(up["conv26"][:30], up["golden"], up["synthetic"])
	base := up["conv26"]
	edit := func(i int, change func(r *record.Record)) *record.Record {
		r := *base[i]
		r.ID += ":edited"
		r.Context = slices.Clone(r.Context)
		for j := range r.Context {
			r.Context[j].Extra = maps.Clone(r.Context[j].Extra)
		}
		r.Meta = maps.Clone(r.Meta)
		change(&r)
		return &r
	}
	setTurns := func(r *record.Record, change func(turns []map[string]any)) {
		var turns []map[string]any
		if err := json.Unmarshal(r.Context[1].Extra["turns"], &turns); err != nil {
			t.Fatal(err)
		}
		change(turns)
		raw, err := json.Marshal(turns)
		if err != nil {
			t.Fatal(err)
		}
		r.Context[1].Extra["turns"] = raw
	}
	recs = append(recs,
		edit(0, func(r *record.Record) {
			setTurns(r, func(ts []map[string]any) { ts[2]["text"] = ts[2]["text"].(string) + "!" })
		}),
		edit(1, func(r *record.Record) {
			setTurns(r, func(ts []map[string]any) { ts[0]["blip_caption"] = "a photo of a cake" })
		}),
		edit(2, func(r *record.Record) { setTurns(r, func(ts []map[string]any) { ts[0]["speaker"] = "Someone" }) }),
		edit(3, func(r *record.Record) { r.Context[0].Date += " " }),
		edit(4, func(r *record.Record) { r.Context = r.Context[:len(r.Context)-1] }),
		edit(5, func(r *record.Record) {
			r.Meta["speaker_a"], r.Meta["speaker_b"] = r.Meta["speaker_b"], r.Meta["speaker_a"]
		}),
		edit(6, func(r *record.Record) { r.Meta["speaker_a"] = json.RawMessage(`"Ann"`) }),
		edit(7, func(r *record.Record) {
			// The turns left out: the conversation is read from the passages' text.
			for j := range r.Context {
				delete(r.Context[j].Extra, "turns")
			}
		}),
		edit(8, func(r *record.Record) {
			for j := range r.Context {
				delete(r.Context[j].Extra, "turns")
			}
			r.Context[0].Text += "\nmore"
		}),
	)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return recs
}

// TestLoCoMoConversationsQA: the queries LoCoMoConversations renders, keeping conversations, are
// LoCoMoQA's, which reads each record anew (and is checked against LoCoMo's own script), for
// records of interleaved and nearly equal conversations, whole and cut to a variant's budget.
func TestLoCoMoConversationsQA(t *testing.T) {
	recs := conversationRecords(t)
	byID := map[string]*record.Record{}
	for _, rec := range recs {
		byID[rec.ID] = rec
	}
	for _, maxLength := range []int{0, 2000} {
		var c prompt.LoCoMoConversations
		for round := range 2 { // the second round finds every conversation kept or evicted
			for i, rec := range recs {
				first := i%2 == 0
				want, wantCut, wantErr := prompt.LoCoMoQA(rec, first, maxLength)
				got, cut, err := c.QA(rec, first, maxLength)
				if got != want || cut != wantCut || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("round %d, max length %d, %s: QA = (%d bytes, %v, %v), LoCoMoQA = (%d bytes, %v, %v)",
						round, maxLength, rec.ID, len(got), cut, err, len(want), wantCut, wantErr)
				}
				// An edited copy's query differs from its original's, as its conversation does.
				if id, ok := strings.CutSuffix(rec.ID, ":edited"); ok && maxLength == 0 {
					if orig, _, _ := prompt.LoCoMoQA(byID[id], first, 0); orig == want {
						t.Errorf("%s renders as %s does: its edit changes nothing", rec.ID, id)
					}
				}
			}
		}
	}
}

// TestLoCoMoConversationsBatchQA: batches of a conversation's questions render as LoCoMoBatchQA
// renders them, and a batch of records whose conversations differ is refused as it refuses it,
// the copy of a conversation kept or not.
func TestLoCoMoConversationsBatchQA(t *testing.T) {
	up := upstreamRecords(t)
	conv26 := up["conv26"]
	var c prompt.LoCoMoConversations
	for _, maxLength := range []int{0, 4096} {
		for _, n := range []int{1, 4} {
			for start := 0; start < 12; start += n {
				batch := conv26[start:min(start+n, len(conv26))]
				firsts := make([]bool, len(batch))
				for i := range firsts {
					firsts[i] = (start+i)%3 == 0
				}
				want, wantAsks, wantCut, wantErr := prompt.LoCoMoBatchQA(batch, firsts, maxLength, n)
				got, asks, cut, err := c.BatchQA(batch, firsts, maxLength, n)
				if got != want || cut != wantCut || err != nil || wantErr != nil || fmt.Sprint(asks) != fmt.Sprint(wantAsks) {
					t.Fatalf("batch of %d from %d, max length %d: BatchQA = (%d bytes, %v, %v), LoCoMoBatchQA = (%d bytes, %v, %v)",
						n, start, maxLength, len(got), cut, err, len(want), wantCut, wantErr)
				}
			}
		}
	}
	edited := *conv26[1]
	edited.Context = slices.Clone(edited.Context)
	edited.Context[0].Date = "another day"
	for _, batch := range [][]*record.Record{{conv26[0], &edited}, {&edited, conv26[0]}, {up["synthetic"][0], up["synthetic"][1]}} {
		_, _, _, wantErr := prompt.LoCoMoBatchQA(batch, []bool{true, true}, 0, 2)
		_, _, _, err := c.BatchQA(batch, []bool{true, true}, 0, 2)
		if err == nil || !strings.Contains(err.Error(), "conversation differs") || err.Error() != fmt.Sprint(wantErr) {
			t.Errorf("BatchQA(%s, %s) error = %v, want %v", batch[0].ID, batch[1].ID, err, wantErr)
		}
	}
	// An unreadable conversation is an error each time, never kept.
	bad := *conv26[0]
	bad.Context = slices.Clone(bad.Context)
	bad.Context[0].Extra = map[string]json.RawMessage{"turns": json.RawMessage(`{"speaker": "A"}`)}
	for range 2 {
		if _, _, err := c.QA(&bad, true, 0); err == nil || !strings.Contains(err.Error(), "locomo session 1 turns") {
			t.Errorf("QA(unreadable turns) error = %v", err)
		}
	}
}

// TestLoCoMoConversationsConcurrent: one LoCoMoConversations used from many goroutines (run with
// -race) renders every query as LoCoMoQA does.
func TestLoCoMoConversationsConcurrent(t *testing.T) {
	recs := conversationRecords(t)
	want := make([]string, len(recs))
	for i, rec := range recs {
		want[i], _, _ = prompt.LoCoMoQA(rec, true, 0)
	}
	var c prompt.LoCoMoConversations
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(recs); i += 2 {
				if got, _, _ := c.QA(recs[i], true, 0); got != want[i] {
					t.Errorf("%s: QA differs from LoCoMoQA", recs[i].ID)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkLoCoMoConversations renders the queries of conv-26's questions, keeping the
// conversation and reading it for each.
func BenchmarkLoCoMoConversations(b *testing.B) {
	recs := upstreamRecords(b)["conv26"]
	for _, tc := range []struct {
		name string
		qa   func(c *prompt.LoCoMoConversations, r *record.Record)
	}{
		{"kept", func(c *prompt.LoCoMoConversations, r *record.Record) { c.QA(r, true, 0) }},
		{"read", func(_ *prompt.LoCoMoConversations, r *record.Record) { prompt.LoCoMoQA(r, true, 0) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				var c prompt.LoCoMoConversations
				for _, r := range recs {
					tc.qa(&c, r)
				}
				n += len(recs)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// fuzzConversation is a LoCoMo record over text (turns split at "|", sessions at "#", speakers
// s1 and s2 in turn, a caption on every third turn) asking question, with the passages' text and
// raw turns as qa-load --context full writes them.
func fuzzConversation(t *testing.T, id, text, s1, s2, question string) *record.Record {
	rec := &record.Record{ID: id, Dataset: "locomo", Question: question, Answers: []string{"x"},
		Meta: map[string]json.RawMessage{"category": json.RawMessage("4")}}
	k := 0
	for i, s := range strings.Split(text, "#") {
		var turns []map[string]string
		var lines []string
		for _, tx := range strings.Split(s, "|") {
			turn := map[string]string{"speaker": s1, "text": tx}
			if k%2 == 1 {
				turn["speaker"] = s2
			}
			if k%3 == 2 {
				turn["blip_caption"] = "a photo of " + tx
			}
			turns = append(turns, turn)
			lines = append(lines, turn["speaker"]+": "+tx)
			k++
		}
		raw, err := json.Marshal(turns)
		if err != nil {
			t.Fatal(err)
		}
		rec.Context = append(rec.Context, record.Passage{Date: fmt.Sprintf("%d May, 2023", i+1),
			Text: strings.Join(lines, "\n"), Extra: map[string]json.RawMessage{"turns": raw}})
	}
	for key, s := range map[string]string{"speaker_a": s1, "speaker_b": s2} {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		rec.Meta[key] = raw
	}
	return rec
}

// FuzzLoCoMoConversations: for any two conversations, asked in turn with one
// LoCoMoConversations, every query is the one LoCoMoQA renders reading each record anew, whole
// and cut to a budget: a conversation kept is never taken for another.
func FuzzLoCoMoConversations(f *testing.F) {
	f.Add("hi|yo#ok|fine", "hi|yo#ok|fine!", "A", "B", uint16(0))
	f.Add("hi|yo#ok", "hi|yo|#ok", "Ann", "Bo", uint16(60))
	f.Add("a|b", "a|b", "A", "B", uint16(0))
	f.Add("Hey Mel!|I'm swamped.#Wow|🎉", "Hey Mel!|I'm swamped.#Wow", " Cy", "Bo\n", uint16(90))
	f.Fuzz(func(t *testing.T, a, b, s1, s2 string, budget uint16) {
		if !utf8.ValidString(a+b+s1+s2) || len(a)+len(b) > 2000 {
			return
		}
		maxLength := 0
		if budget > 0 {
			maxLength = 200 + int(budget%800)
		}
		recs := []*record.Record{
			fuzzConversation(t, "locomo:a:0", a, s1, s2, "What?"),
			fuzzConversation(t, "locomo:b:0", b, s1, s2, "What?"),
			fuzzConversation(t, "locomo:a:1", a, s1, s2, "When?"),
			fuzzConversation(t, "locomo:b:1", b, s2, s1, "Who?"),
		}
		var c prompt.LoCoMoConversations
		for _, i := range []int{0, 1, 2, 3, 0, 2, 1} {
			want, wantCut, wantErr := prompt.LoCoMoQA(recs[i], i%2 == 0, maxLength)
			got, cut, err := c.QA(recs[i], i%2 == 0, maxLength)
			if got != want || cut != wantCut || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%s: QA = (%q, %v, %v), LoCoMoQA = (%q, %v, %v)", recs[i].ID, got, cut, err, want, wantCut, wantErr)
			}
		}
	})
}
