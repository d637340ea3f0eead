package prompt

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/bpe"
)

// wholeTokens returns the texts of the tokens of history encoded the plain way: all at once, split
// only at "<|endoftext|>", which tiktoken encodes as one token.
func wholeTokens(t testing.TB, history string) []string {
	t.Helper()
	var toks []string
	for i, part := range strings.Split(history, endOfText) {
		if i > 0 {
			toks = append(toks, endOfText)
		}
		start := 0
		for _, end := range bpe.O200k.Ends(nil, part) {
			toks = append(toks, part[start:end])
			start = end
		}
	}
	return toks
}

// checkTruncate compares TruncateHistory(history, limit) with cutting toks, history's tokens.
func checkTruncate(t testing.TB, history string, toks []string, limit int) {
	t.Helper()
	got, cut, err := TruncateHistory(history, limit)
	if err != nil {
		t.Fatalf("TruncateHistory(%.40q…, %d): %v", history, limit, err)
	}
	want, wantCut := history, false
	if len(toks) > limit {
		want, wantCut = strings.ToValidUTF8(strings.Join(toks[:limit], ""), "\uFFFD"), true
	}
	if got != want || cut != wantCut {
		t.Fatalf("TruncateHistory(%.40q…, %d) = %.60q… (cut %v, %d bytes), want %.60q… (cut %v, %d bytes)",
			history, limit, got, cut, len(got), want, wantCut, len(want))
	}
}

func TestTruncateHistory(t *testing.T) {
	tests := []struct {
		history string
		limit   int
		want    string
		cut     bool
	}{
		{"hello world", 2, "hello world", false}, // o200k_base: [24912 2375]
		{"hello world", 1, "hello", true},
		{"hello world", 0, "", true},
		{"hi", 1, "hi", false}, // no longer than the limit in bytes: not counted
		{"a<|endoftext|>b", 3, "a<|endoftext|>b", false},
		{"a<|endoftext|>b", 2, "a<|endoftext|>", true},
		{"a<|endoftext|>b", 1, "a", true},
		{"<|endoftext|><|endoftext|>", 1, "<|endoftext|>", true},
		{"\n### Session 1:\nhello world\n\n### Session 2:\nhello world\n", 100, "\n### Session 1:\nhello world\n\n### Session 2:\nhello world\n", false},
		{"a\x7fb c", 2, "a\x7f", true},         // DEL is a token of its own
		{"x\n\n  \ny z", 2, "x\n\n  \n", true}, // one token: blank lines with spaces
	}
	for _, tt := range tests {
		got, cut, err := TruncateHistory(tt.history, tt.limit)
		if err != nil || got != tt.want || cut != tt.cut {
			t.Errorf("TruncateHistory(%q, %d) = %q, %v, %v; want %q, %v", tt.history, tt.limit, got, cut, err, tt.want, tt.cut)
		}
	}
	if _, _, err := TruncateHistory("x <|endofprompt|> y", 1); err == nil || !strings.Contains(err.Error(), "<|endofprompt|>") {
		t.Errorf("TruncateHistory with <|endofprompt|>: err = %v, want a refusal naming it", err)
	}
}

// TestTruncateHistoryReplacesCutCharacter cuts inside characters that o200k_base spells in byte
// tokens: the part kept ends in one U+FFFD, as tiktoken's decode(errors="replace") gives.
func TestTruncateHistoryReplacesCutCharacter(t *testing.T) {
	history := strings.Repeat("\U00013000\U0001D11E\U0001F9A9", 20)
	toks := wholeTokens(t, history)
	seen := 0
	for limit := 1; limit < 40; limit++ {
		got, cut, err := TruncateHistory(history, limit)
		if err != nil || !cut {
			t.Fatalf("TruncateHistory(…, %d) = %v, %v; want a cut", limit, cut, err)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("TruncateHistory(…, %d) is not valid UTF-8", limit)
		}
		if kept, ok := strings.CutSuffix(got, "\uFFFD"); ok {
			seen++
			if !strings.HasPrefix(history, kept) || strings.HasSuffix(kept, "\uFFFD") {
				t.Errorf("TruncateHistory(…, %d) = %q: want a prefix of the history and one U+FFFD", limit, got)
			}
		} else if !strings.HasPrefix(history, got) {
			t.Errorf("TruncateHistory(…, %d) = %q, not a prefix of the history", limit, got)
		}
		checkTruncate(t, history, toks, limit)
	}
	if seen == 0 {
		t.Error("no limit cut inside a character; the test text no longer exercises U+FFFD")
	}
}

// TestTruncateHistoryPieces checks the piece-by-piece count against encoding the whole text, on
// rendered LongMemEval histories (json and nl, whose turns may hold "\n#" of their own) and at
// every limit around each session boundary.
func TestTruncateHistoryPieces(t *testing.T) {
	for _, format := range []string{"json", "nl"} {
		h := sampleHistory(t, format)
		toks := wholeTokens(t, h)
		if len(toks) < 3000 {
			t.Fatalf("%s history has %d tokens; want a longer sample", format, len(toks))
		}
		limits := []int{0, 1, len(toks) - 1, len(toks), len(toks) + 1}
		for limit := 0; limit < len(toks); limit += len(toks)/20 + 1 {
			limits = append(limits, limit)
		}
		// Each "\n#" ends a piece: cut just before, at and after it.
		n, end := 0, 0 // tokens in h[:end]
		for i := strings.Index(h, "\n#"); i >= 0 && len(limits) < 200; {
			for ; end <= i; n++ {
				end += len(toks[n])
			}
			if end != i+1 {
				t.Fatalf("%s history: a token spans the piece boundary at byte %d: %q", format, i+1, toks[n-1])
			}
			limits = append(limits, n-1, n, n+1)
			j := strings.Index(h[i+2:], "\n#")
			if j < 0 {
				break
			}
			i += 2 + j
		}
		for _, limit := range limits {
			checkTruncate(t, h, toks, limit)
		}
	}
}

// sampleHistory renders a LongMemEval history from the repository's samples: the synthetic
// LongMemEval sessions and turns cut from the HotpotQA sample's paragraphs, with markdown
// headers, lists and mixed whitespace of the kind assistants write.
func sampleHistory(t testing.TB, format string) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/hotpotqa/hotpotqa_sample50.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var paras []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Context [][2]json.RawMessage `json:"context"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Context {
			var sents []string
			if err := json.Unmarshal(c[1], &sents); err != nil {
				t.Fatal(err)
			}
			paras = append(paras, strings.Join(sents, ""))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := []string{"%s", "# Answer\n%s", "%s\n\n## Notes\n- one\n- two", "  %s  \n", "%s\r\n#tag", "### %s ###"}
	var sessions []LongMemEvalSession
	for s := range 12 {
		var turns []json.RawMessage
		for k := range 4 {
			role := []string{"user", "assistant"}[k%2]
			text := fmt.Sprintf(shapes[rng.IntN(len(shapes))], paras[rng.IntN(len(paras))])
			turn, _ := json.Marshal(map[string]any{"role": role, "content": text, "has_answer": k == 1})
			turns = append(turns, turn)
		}
		sessions = append(sessions, LongMemEvalSession{Date: fmt.Sprintf("2023/05/%02d (Mon) 10:00", 1+s), Turns: turns})
	}
	h, err := LongMemEvalHistory(sessions, HistoryOptions{Format: format})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestLongMemEvalHistoryLimit(t *testing.T) {
	for _, tt := range []struct {
		model        string
		gen          int
		want         int
		o200k, known bool
	}{
		{"gpt-4o", 500, 126500, true, true},
		{"gpt-4o-2024-08-06", 800, 126200, true, true},
		{"gpt-4o-mini-2024-07-18", 500, 126500, true, true},
		// run_generation.sh's names stand for the models they call.
		{"gpt-4o-mini", 500, 126500, true, true},
		{"llama-3.1-70b-instruct", 800, 126200, false, true},
		{"llama-3-8b-instruct", 800, 0, false, false}, // its model is not in the table
		{"gpt-4o-mini-2024-07-19", 500, 0, false, false},
		{"meta-llama/Meta-Llama-3.1-70B-Instruct", 500, 126500, false, true},
		{"mistral-7b-instruct-v0.2", 500, 30500, false, true},
	} {
		got, o200k, known := LongMemEvalHistoryLimit(tt.model, tt.gen)
		if got != tt.want || o200k != tt.o200k || known != tt.known {
			t.Errorf("LongMemEvalHistoryLimit(%q, %d) = %d, %v, %v; want %d, %v, %v", tt.model, tt.gen, got, o200k, known, tt.want, tt.o200k, tt.known)
		}
	}
}

// TestLongMemEvalHistoryLimitTable: every name of run_generation.py's model2maxlength and of
// run_generation.sh's model_zoo (@ 9e0b455) gets the budget and tokenizer upstream gives it with
// the default generation length, model2maxlength[name] - 800 - 1000 and o200k_base when 'gpt-4'
// or 'gpt-3.5' is in the lowered name; a zoo name whose model is not in the table is unknown
// (upstream's KeyError). A mistral zoo name is also a table key, which qapipe reads first: the
// model run_generation.py is given directly.
func TestLongMemEvalHistoryLimitTable(t *testing.T) {
	for _, tt := range []struct {
		model        string
		want         int
		o200k, known bool
	}{
		{"gpt-4o", 126200, true, true},
		{"gpt-4o-2024-08-06", 126200, true, true},
		{"gpt-4o-mini-2024-07-18", 126200, true, true},
		{"meta-llama/Meta-Llama-3.1-8B-Instruct", 126200, false, true},
		{"meta-llama/Meta-Llama-3.1-70B-Instruct", 126200, false, true},
		{"microsoft/Phi-3-medium-128k-instruct", 118200, false, true},
		{"microsoft/Phi-3.5-mini-instruct", 118200, false, true},
		{"microsoft/phi-4", 14200, false, true},
		{"mistral-7b-instruct-v0.2", 30200, false, true},
		{"mistral-7b-instruct-v0.3", 30200, false, true},
		{"In2Training/FILM-7B", 30200, false, true},
		// model_zoo's names
		{"gpt-4o-mini", 126200, true, true},
		{"llama-3-8b-instruct", 0, false, false},
		{"llama-3-70b-instruct", 0, false, false},
		{"llama-3.1-8b-instruct", 126200, false, true},
		{"llama-3.1-70b-instruct", 126200, false, true},
		{"film-7b", 30200, false, true},
		{"phi-3-medium-128k-instruct", 118200, false, true},
		{"phi-3.5-mini-instruct", 118200, false, true},
		{"phi-4", 14200, false, true},
		// not upstream's: the names it refuses, a gpt-3.5 one among them
		{"gpt-3.5-turbo", 0, false, false},
		{"GPT-4O", 0, false, false},
	} {
		got, o200k, known := LongMemEvalHistoryLimit(tt.model, LongMemEvalGenLength)
		if got != tt.want || o200k != tt.o200k || known != tt.known {
			t.Errorf("LongMemEvalHistoryLimit(%q, %d) = %d, %v, %v; want %d, %v, %v", tt.model, LongMemEvalGenLength, got, o200k, known, tt.want, tt.o200k, tt.known)
		}
	}
	// Upstream's own test of the name, 'gpt-3.5' included, over every name the table knows.
	names := slices.Collect(maps.Keys(longMemEvalMaxLength))
	for alias, model := range longMemEvalReaderAliases {
		if _, ok := longMemEvalMaxLength[model]; ok {
			names = append(names, alias)
		}
	}
	for _, name := range names {
		model := name
		if _, ok := longMemEvalMaxLength[name]; !ok {
			model = longMemEvalReaderAliases[name]
		}
		lower := strings.ToLower(model)
		want := strings.Contains(lower, "gpt-4") || strings.Contains(lower, "gpt-3.5")
		if _, o200k, _ := LongMemEvalHistoryLimit(name, 0); o200k != want {
			t.Errorf("LongMemEvalHistoryLimit(%q): o200k %v, upstream %v", name, o200k, want)
		}
	}
}

func FuzzTruncateHistory(f *testing.F) {
	f.Add("\n### Session 1:\nhi there\n\n### Session 2:\n  \n#x", 5)
	f.Add("a\r\n#b <|endoftext|>\n#c!!\n#d", 4)
	f.Add("x\n#\n#\n##", 2)
	f.Add("\U00013000\n#\U0001F9A9", 3)
	f.Fuzz(func(t *testing.T, history string, limit int) {
		if !utf8.ValidString(history) || strings.Contains(history, endOfPrompt) || strings.ContainsRune(history, 0x7f) || limit < 0 || limit > 1<<16 {
			return
		}
		checkTruncate(t, history, wholeTokens(t, history), limit)
	})
}

// BenchmarkTruncateHistory counts a history of about 200 kB, cut at half its tokens (the count
// stops there), and reports the bytes read per second.
func BenchmarkTruncateHistory(b *testing.B) {
	h := strings.Repeat(sampleHistory(b, "json"), 8)
	n := len(wholeTokens(b, h))
	b.SetBytes(int64(len(h) / 2))
	for b.Loop() {
		if _, cut, err := TruncateHistory(h, n/2); err != nil || !cut {
			b.Fatal(cut, err)
		}
	}
}
