package prompt

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/bpe"
)

// TestLoCoMoContextWithinBoundaries cuts two tiny sessions at each budget where a turn just fits
// or just does not. The cl100k_base tokens, as tiktoken gives them:
//
//	"DATE: 1 May\nCONVERSATION:\nB said, \"yo\"\n\n"  16: DATE|:| |1| May|\n|CON|VERS|ATION|:\n|B| said|,| "|yo|"\n\n
//	(the same with A and "hi", or 2 May, C and "ok": 16 too)
//	"\n\n"                                           1
//	"B said, \"yo\"\n\n\n\n"                         6: B| said|,| "|yo|"\n\n\n\n
//	"DATE: 1 May\n…A said, \"hi\"\n\nB said, \"yo\"\n\n\n\n\n\n"  23: …|yo|"|\n\n\n\n\n\n
//
// Session 1's turns go newest first: B needs 16 + 1 ("\n\n") < budget, so 18; then A needs
// 16 + 6 < budget, so 23. Session 2 begins with another "\n\n" after what is kept: C needs
// 16 + 23 < budget, so 40.
func TestLoCoMoContextWithinBoundaries(t *testing.T) {
	s1 := LoCoMoSession{DateTime: "1 May", Turns: []LoCoMoTurnData{{Speaker: "A", Text: "hi"}, {Speaker: "B", Text: "yo"}}}
	s2 := LoCoMoSession{DateTime: "2 May", Turns: []LoCoMoTurnData{{Speaker: "C", Text: "ok"}}}
	const (
		h1 = "DATE: 1 May\nCONVERSATION:\n"
		h2 = "DATE: 2 May\nCONVERSATION:\n"
		a  = "A said, \"hi\"\n\n"
		b  = "B said, \"yo\"\n\n"
		c  = "C said, \"ok\"\n\n"
	)
	for _, tt := range []struct {
		sessions []LoCoMoSession
		budget   int
		want     string
		cut      bool
	}{
		{[]LoCoMoSession{s1}, 17, h1 + "\n\n", true},
		{[]LoCoMoSession{s1}, 18, h1 + b + "\n\n", true},
		{[]LoCoMoSession{s1}, 22, h1 + b + "\n\n", true},
		{[]LoCoMoSession{s1}, 23, h1 + a + b + "\n\n", false},
		{[]LoCoMoSession{s1, s2}, 22, h1 + b + "\n\n", true},
		{[]LoCoMoSession{s1, s2}, 39, h2 + h1 + a + b + "\n\n\n\n", true},
		{[]LoCoMoSession{s1, s2}, 40, h2 + c + h1 + a + b + "\n\n\n\n", false},
		{[]LoCoMoSession{s1, {DateTime: "x"}}, 23, "DATE: x\nCONVERSATION:\n" + h1 + a + b + "\n\n\n\n", false}, // an empty session keeps its header
	} {
		got, cut, err := LoCoMoContextWithin(tt.sessions, tt.budget)
		if err != nil || got != tt.want || cut != tt.cut {
			t.Errorf("LoCoMoContextWithin(%d sessions, %d) = %q, %v, %v; want %q, %v", len(tt.sessions), tt.budget, got, cut, err, tt.want, tt.cut)
		}
		if !tt.cut && got != LoCoMoContext(tt.sessions) {
			t.Errorf("LoCoMoContextWithin(%d sessions, %d) = %q, not LoCoMoContext's %q", len(tt.sessions), tt.budget, got, LoCoMoContext(tt.sessions))
		}
	}
}

func TestLoCoMoContextWithinSpecial(t *testing.T) {
	for _, tt := range []struct {
		sessions []LoCoMoSession
		budget   int
		want     string // in the error, "" for none
	}{
		{[]LoCoMoSession{{DateTime: "d", Turns: []LoCoMoTurnData{{Speaker: "A", Text: "a <|endoftext|> b"}}}}, 1000, "<|endoftext|>"},
		{[]LoCoMoSession{{DateTime: "<|fim_prefix|>", Turns: []LoCoMoTurnData{{Speaker: "A", Text: "a"}}}}, 1000, "<|fim_prefix|>"},
		// An empty session's header is counted only with the conversation at the next turn.
		{[]LoCoMoSession{{DateTime: "<|endofprompt|>"}, {DateTime: "d", Turns: []LoCoMoTurnData{{Speaker: "A", Text: "a"}}}}, 1000, "<|endofprompt|>"},
		{[]LoCoMoSession{{DateTime: "d", Turns: []LoCoMoTurnData{{Speaker: "A", Text: "a"}}}, {DateTime: "<|endofprompt|>"}}, 1000, ""},
		// A turn cut before it is counted is never refused.
		{[]LoCoMoSession{{DateTime: "d", Turns: []LoCoMoTurnData{{Speaker: "A", Text: "<|endoftext|>"}, {Speaker: "B", Text: "b"}}}}, 5, ""},
	} {
		_, _, err := LoCoMoContextWithin(tt.sessions, tt.budget)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("LoCoMoContextWithin(%+v, %d) error = %v, want one naming %q", tt.sessions, tt.budget, err, tt.want)
		}
	}
}

func TestLoCoMoVariantNamed(t *testing.T) {
	for _, tt := range []struct {
		name string
		want LoCoMoVariant
		ok   bool
	}{
		{"gpt-3.5-turbo-16k", LoCoMoVariant{"gpt-3.5-turbo-16k", 16000, "system", "gpt-3.5-turbo"}, true},
		{"gpt-3.5-turbo-4k", LoCoMoVariant{"gpt-3.5-turbo-4k", 4000, "system", "gpt-3.5-turbo"}, true},
		{"gpt-3.5-turbo", LoCoMoVariant{"gpt-3.5-turbo", 4096, "system", "gpt-3.5-turbo"}, true},
		{"gpt-4-turbo", LoCoMoVariant{"gpt-4-turbo", 128000, "user", "gpt-4-turbo"}, true},
		{"gpt-4-32k", LoCoMoVariant{"gpt-4-32k", 320000, "user", "gpt-4-32k"}, true},
		{"gpt-4o", LoCoMoVariant{}, false},
		{"gpt-3.5-turbo-0125", LoCoMoVariant{}, false},
	} {
		if got, ok := LoCoMoVariantNamed(tt.name); got != tt.want || ok != tt.ok {
			t.Errorf("LoCoMoVariantNamed(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	want := []string{"gpt-3.5-turbo", "gpt-3.5-turbo-12k", "gpt-3.5-turbo-16k", "gpt-3.5-turbo-4k", "gpt-3.5-turbo-8k", "gpt-4", "gpt-4-32k", "gpt-4-turbo"}
	if got := LoCoMoVariantNames(); !slices.Equal(got, want) {
		t.Errorf("LoCoMoVariantNames() = %q, want %q", got, want)
	}
}

// naiveContext is get_input_context as upstream writes it: the conversation kept so far counted
// whole at every turn.
func naiveContext(sessions []LoCoMoSession, budget int) (string, bool) {
	conv := ""
	for _, s := range sessions {
		conv += "\n\n"
		h := locomoHeader(s)
		for i := len(s.Turns) - 1; i >= 0; i-- {
			turn := locomoTurn(s.Turns[i])
			if bpe.Cl100k.Count(h+turn)+bpe.Cl100k.Count(conv) >= budget {
				return h + conv, true
			}
			conv = turn + conv
		}
		conv = h + conv
	}
	return conv, false
}

// fuzzSessions builds sessions from text: turns split at "|", sessions at "#", speakers taken in
// turn, a caption on every third turn.
func fuzzSessions(text, speaker1, speaker2 string) []LoCoMoSession {
	var out []LoCoMoSession
	k := 0
	for i, s := range strings.Split(text, "#") {
		sess := LoCoMoSession{DateTime: fmt.Sprintf("%d May, 2023", i+1)}
		for _, tx := range strings.Split(s, "|") {
			t := LoCoMoTurnData{Speaker: speaker1, Text: tx}
			if k%2 == 1 {
				t.Speaker = speaker2
			}
			if k%3 == 2 {
				t.HasCaption, t.BlipCaption = true, "a photo of "+tx
			}
			sess.Turns = append(sess.Turns, t)
			k++
		}
		out = append(out, sess)
	}
	return out
}

// FuzzLoCoMoContextWithin: the kept count that LoCoMoContextWithin keeps as the conversation
// grows gives what counting the whole conversation at every turn gives, for any speakers
// (those that start with whitespace included) and texts.
func FuzzLoCoMoContextWithin(f *testing.F) {
	for _, s := range []struct {
		text, s1, s2 string
		budget       uint16
	}{
		{"hi|yo#ok|fine", "A", "B", 40},
		{"hi|yo#|#ok", " Cy", "Bo", 60},
		{"\n|  \n|x\n#\t", "\nA", "B ", 90},
		{"Hey Mel! Good to see you!|I'm swamped with the kids & work.#Wow, that's cool!|🎉 Congrats!!!", "Caroline", "Melanie", 120},
	} {
		f.Add(s.text, s.s1, s.s2, s.budget)
	}
	f.Fuzz(func(t *testing.T, text, s1, s2 string, budget uint16) {
		if !utf8.ValidString(text+s1+s2) || strings.Contains(text+s1+s2, "<|") {
			return // tiktoken takes valid text; special tokens are refused (TestLoCoMoContextWithinSpecial)
		}
		sessions := fuzzSessions(text, s1, s2)
		b := int(budget % 512)
		got, cut, err := LoCoMoContextWithin(sessions, b)
		want, wantCut := naiveContext(sessions, b)
		if err != nil || got != want || cut != wantCut {
			t.Fatalf("LoCoMoContextWithin(%q, %d) = %q, %v, %v; want %q, %v", text, b, got, cut, err, want, wantCut)
		}
	})
}
