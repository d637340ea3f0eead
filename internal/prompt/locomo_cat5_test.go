package prompt

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestLoCoMoCat5(t *testing.T) {
	opts := []string{"Not mentioned in the conversation", "a red car"}
	tests := []struct{ reply, want string }{
		{"a", opts[0]},
		{" A \n", opts[0]},
		{"b", opts[1]},
		{"x", opts[1]},
		{"(a)", opts[0]},
		{"(b)", opts[1]},
		{"(A)", opts[0]},
		{"abc", opts[1]},
		{"A red car.", "a red car."},
		{"", ""},
		{"İ", "i\u0307"},       // Python's lower() makes two characters: not an option
		{"\x1cb\x1c", opts[1]}, // Python's strip() removes U+001C
	}
	for _, tt := range tests {
		if got := LoCoMoCat5Answer(tt.reply, opts); got != tt.want {
			t.Errorf("LoCoMoCat5Answer(%q) = %q, want %q", tt.reply, got, tt.want)
		}
	}
}

func FuzzLoCoMoCat5(f *testing.F) {
	for _, s := range []string{"a", "(b)", "Not mentioned", " A ", "ä"} {
		f.Add(s)
	}
	opts := []string{"Not mentioned in the conversation", "blue"}
	f.Fuzz(func(t *testing.T, reply string) {
		got := LoCoMoCat5Answer(reply, opts)
		if got != opts[0] && got != opts[1] && got != textnorm.Lower(textnorm.Strip(reply)) {
			t.Errorf("LoCoMoCat5Answer(%q) = %q: neither an option nor the lower-cased reply", reply, got)
		}
	})
}

// TestLoCoMoQuestionBraces checks a category-5 question against what LoCoMo's get_gpt_answers
// makes of it: (question + " Select the correct answer: (a) {} (b) {}. ").format(a, b), run in
// Python 3.11 for the wants; an error where Python raises (IndexError, ValueError, KeyError).
// The options and the other categories' questions are values, never read for braces.
func TestLoCoMoQuestionBraces(t *testing.T) {
	const opts = " Select the correct answer: (a) Not mentioned in the conversation (b) {0} }. "
	tests := []struct {
		question string
		category int
		want     string // "" for an error
	}{
		{"Did she go?", 5, "Did she go?" + opts},
		{"a {{b}} c", 5, "a {b} c" + opts},
		{"x }} y", 5, "x } y" + opts},
		{"{{{{", 5, "{{" + opts},
		{"x {} y", 5, ""}, // IndexError: the options' second {} finds no argument
		{"x {0}", 5, ""},  // ValueError: manual numbering, then the options' automatic
		{"x {n}", 5, ""},  // KeyError
		{"x { y", 5, ""},  // ValueError: unmatched '{'
		{"x } y", 5, ""},  // ValueError: single '}'
		{"{{}", 5, ""},    // ValueError: single '}'
		{"x {} y", 2, "x {} y Use DATE of CONVERSATION to answer with an approximate date."},
		{"x } y", 1, "x } y"},
	}
	for _, tt := range tests {
		got, err := LoCoMoQuestion(tt.question, tt.category, "{0} }", true)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("LoCoMoQuestion(%q, %d) = %q, want an error (Python's format raises)", tt.question, tt.category, got)
		case tt.want != "" && err != nil:
			t.Errorf("LoCoMoQuestion(%q, %d): %v, want %q", tt.question, tt.category, err, tt.want)
		case got != tt.want:
			t.Errorf("LoCoMoQuestion(%q, %d) = %q, want %q", tt.question, tt.category, got, tt.want)
		}
	}
}

// TestLoCoMoAskOfOptions: the options a category-5 ask gives for reading the reply are in the
// order its question offers them, so that "a" is the option written (a).
func TestLoCoMoAskOfOptions(t *testing.T) {
	rec := &record.Record{ID: "locomo:c:0", Question: "What did Caro paint?", Answers: []string{"a lake"},
		Meta: map[string]json.RawMessage{"category": json.RawMessage(`5`), "adversarial_answer": json.RawMessage(`"a lake"`)}}
	for _, tt := range []struct {
		abstainFirst bool
		text         string
		options      []string
	}{
		{true, "What did Caro paint? Select the correct answer: (a) Not mentioned in the conversation (b) a lake. ",
			[]string{LoCoMoAbstainOption, "a lake"}},
		{false, "What did Caro paint? Select the correct answer: (a) a lake (b) Not mentioned in the conversation. ",
			[]string{"a lake", LoCoMoAbstainOption}},
	} {
		ask, err := LoCoMoAskOf(rec, tt.abstainFirst)
		if err != nil || ask.Category != 5 || ask.Text != tt.text || !slices.Equal(ask.Options, tt.options) {
			t.Errorf("abstainFirst %v: %+v, %v\nwant text %q, options %q", tt.abstainFirst, ask, err, tt.text, tt.options)
		}
		if got := LoCoMoCat5Answer("(a)", ask.Options); got != tt.options[0] {
			t.Errorf("abstainFirst %v: reply (a) reads %q, want %q", tt.abstainFirst, got, tt.options[0])
		}
	}
}
