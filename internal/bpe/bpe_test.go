package bpe

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"

	"github.com/qapipe/qapipe/internal/vectors"
)

func TestRanks(t *testing.T) {
	for _, c := range []struct {
		enc  *Encoding
		n    int
		want map[string]int32
	}{
		{O200k, 199998, map[string]int32{"!": 0, "hello": 24912, " world": 2375}},
		{Cl100k, 100256, map[string]int32{"!": 0, "hello": 15339, " world": 1917}},
	} {
		r := c.enc.ranks()
		if len(r) != c.n {
			t.Errorf("%s: %d ranks, want %d", c.enc.Name(), len(r), c.n)
		}
		for piece, want := range c.want {
			if got, ok := r[piece]; !ok || got != want {
				t.Errorf("%s: rank(%q) = %d, %v; want %d", c.enc.Name(), piece, got, ok, want)
			}
		}
	}
}

// pieces returns the texts of tokens ending at ends.
func pieces(s string, ends []int) []string {
	var out []string
	start := 0
	for _, e := range ends {
		out = append(out, s[start:e])
		start = e
	}
	return out
}

// TestEnds holds cases where a pre-tokenizer can go wrong, with the tokens tiktoken gives.
func TestEnds(t *testing.T) {
	for _, c := range []struct {
		enc  *Encoding
		text string
		want []string
	}{
		{O200k, "hello world", []string{"hello", " world"}},
		{O200k, "\n\n  \n", []string{"\n\n  \n"}},                           // \s*[\r\n]+ gives the spaces back to the last newline
		{O200k, "^~  Z\n\n  \n", []string{"^", "~", " ", " Z", "\n\n  \n"}}, // \s+(?!\S) leaves one space for " Z"
		{O200k, "a\x7fb", []string{"a", "\x7f", "b"}},                       // DEL is a symbol: kept, as a prefix of "b"'s piece
		{O200k, "x \x7f!", []string{"x", " ", "\x7f", "!"}},
		{O200k, "", nil},
		{Cl100k, "hello world", []string{"hello", " world"}},
		{Cl100k, "'sHello", []string{"'s", "Hello"}},         // the contraction comes first, alone
		{Cl100k, "I'M", []string{"I", "'M"}},                 // in any case
		{Cl100k, "don't", []string{"don", "'t"}},             // never joined to its word
		{Cl100k, " //\n/", []string{" //\n", "/"}},           // no / after the newlines, unlike o200k_base
		{Cl100k, "\n\n  \n", []string{"\n\n", "  \n"}},       // one \s*[\r\n]+ piece, two tokens
		{Cl100k, "12345", []string{"123", "45"}},             // \p{N}{1,3}
		{Cl100k, "CamelCase", []string{"Cam", "el", "Case"}}, // one \p{L}+ piece, split by the merge
	} {
		got := pieces(c.text, c.enc.Ends(nil, c.text))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s.Ends(%q) = %q, want %q", c.enc.Name(), c.text, got, c.want)
		}
		if n := c.enc.Count(c.text); n != len(c.want) {
			t.Errorf("%s.Count(%q) = %d, want %d", c.enc.Name(), c.text, n, len(c.want))
		}
	}
}

// TestVectors compares Ends with tiktoken's own tokens (scripts/random-tiktoken.cjs; larger files
// through QA_O200K_VECTORS and QA_CL100K_VECTORS).
func TestVectors(t *testing.T) {
	for _, c := range []struct {
		enc       *Encoding
		file, env string
	}{
		{O200k, "testdata/o200k_vectors.jsonl", "QA_O200K_VECTORS"},
		{Cl100k, "testdata/cl100k_vectors.jsonl", "QA_CL100K_VECTORS"},
	} {
		t.Run(c.enc.Name(), func(t *testing.T) {
			vectors.Check(t, c.file, c.env, func(v struct {
				Text string `json:"text"`
				Ends []int  `json:"ends"`
			}) string {
				if got := c.enc.Ends(nil, v.Text); !slices.Equal(got, v.Ends) {
					return fmt.Sprintf("%q: tokens %q, want %q", v.Text, pieces(v.Text, got), pieces(v.Text, v.Ends))
				}
				if n := c.enc.Count(v.Text); n != len(v.Ends) {
					return fmt.Sprintf("%q: Count %d, want %d", v.Text, n, len(v.Ends))
				}
				return ""
			})
		})
	}
}

// patterns are the encodings' pre-tokenizer patterns as tiktoken writes them.
var patterns = map[*Encoding]string{
	O200k:  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	Cl100k: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// oracles are the patterns run by regexp2's interpreting engine, which backtracks as tiktoken's
// engine does (the options keep it off the generated matcher that tiktoken-go registers).
var oracles = map[*Encoding]*regexp2.Regexp{
	O200k:  regexp2.MustCompile(patterns[O200k], regexp2.Unicode),
	Cl100k: regexp2.MustCompile(patterns[Cl100k], regexp2.Unicode),
}

func oraclePieces(e *Encoding, s string) []string {
	var out []string
	m, err := oracles[e].FindStringMatch(s)
	for ; m != nil && err == nil; m, err = oracles[e].FindNextMatch(m) {
		out = append(out, m.String())
	}
	return out
}

func ourPieces(e *Encoding, s string) []string {
	var out []string
	for start := 0; start < len(s); {
		end := e.nextPiece(s, start)
		out = append(out, s[start:end])
		start = end
	}
	return out
}

// FuzzPieces: each pre-tokenizer cuts any valid text where its pattern does, and the tokens of
// the byte-pair merge tile it, each one in the vocabulary; Count, with its memo or without,
// counts them.
func FuzzPieces(f *testing.F) {
	for _, s := range []string{"hello world", "\n\n  \n", "^~  Z\n\n  \n", "a\x7fb", "I'M ſ'ſ", "\u0301a", "ǅǈ'LL",
		" //\n/", "12345", "٣٣٣٣", "  \t", "\u3000x", "A\u0301b'Re", "'sHello", " 's", "x'\u017f", "\t'LL'",
		"x\nabc", "A\u0301Bc", "a\u02b0b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // tiktoken takes str: valid text only
		}
		for _, e := range []*Encoding{O200k, Cl100k} {
			if got, want := ourPieces(e, s), oraclePieces(e, s); !slices.Equal(got, want) {
				t.Fatalf("%s: pieces of %q = %q, want %q", e.Name(), s, got, want)
			}
			// The tokens tile the text, and each is in the vocabulary.
			ends := e.Ends(nil, s)
			if len(ends) != e.Count(s) || len(s) > 0 && (len(ends) == 0 || ends[len(ends)-1] != len(s)) {
				t.Fatalf("%s: Ends(%q) = %v, Count %d: not a tiling", e.Name(), s, ends, e.Count(s))
			}
			for i, tok := range pieces(s, ends) {
				if _, ok := e.ranks()[tok]; !ok || tok == "" {
					t.Fatalf("%s: token %d of %q, %q, is not in the vocabulary", e.Name(), i, s, tok)
				}
			}
			// A text long enough to be counted with a memo: the text again and again, its pieces
			// met anew, so that the memo answers for them.
			if s != "" {
				long := strings.Repeat(s+"\n", memoFrom/(len(s)+1)+1)
				if got, want := e.Count(long), len(e.Ends(nil, long)); got != want {
					t.Fatalf("%s: Count of %q repeated to %d bytes = %d, want %d as Ends gives", e.Name(), s, len(long), got, want)
				}
			}
		}
	})
}

// TestCountMemo: Count keeps the counts of short pieces it met (memo), and gives what Ends, which
// keeps none, gives: over prose twice, over pieces of every length about the longest kept, and
// over twice as many distinct pieces of one length as a memo has slots, in texts of a thousand
// counted twice, so that slots are taken over again and again, by four goroutines at once.
func TestCountMemo(t *testing.T) {
	prose := proseSample(t)
	prose = prose[:strings.IndexByte(prose[20000:], '\n')+20001] // a third, for -race's sake
	texts := []string{prose, prose}
	var odd []string
	for n := memoMax - 3; n <= memoMax+3; n++ {
		odd = append(odd, strings.Repeat("ab", n)[:n], " "+strings.Repeat("x", n-1), strings.Repeat("7", n), strings.Repeat("\u00e9", n/2))
	}
	texts = append(texts, strings.Repeat(strings.Join(odd, "\n"), 4))
	rng := rand.New(rand.NewPCG(1, 2))
	var words []string
	for range 2 * memoSlots {
		b := make([]byte, 6)
		for i := range b {
			b[i] = "qxzjkvwaeiou"[rng.IntN(12)] // mostly no word, so that each is several tokens
		}
		words = append(words, " "+string(b))
	}
	wordTexts := len(texts)
	for i := 0; i < len(words); i += memoSlots / 4 {
		texts = append(texts, strings.Join(words[i:i+memoSlots/4], ""))
	}
	texts = append(texts, texts[wordTexts:]...) // each counted twice
	for _, e := range []*Encoding{O200k, Cl100k} {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := g; i < len(texts); i += 4 {
					s := texts[i]
					if got, want := e.Count(s), len(e.Ends(nil, s)); got != want {
						t.Errorf("%s.Count(%.40q…, %d bytes) = %d, want %d as Ends gives", e.Name(), s, len(s), got, want)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	for _, s := range odd { // and those short enough to be counted without a memo
		for _, e := range []*Encoding{O200k, Cl100k} {
			if got, want := e.Count(s), len(e.Ends(nil, s)); got != want {
				t.Errorf("%s.Count(%q) = %d, want %d as Ends gives", e.Name(), s, got, want)
			}
		}
	}
}

// BenchmarkCount counts the tokens of the HotpotQA sample file (JSON lines of English paragraphs
// with some other scripts) in each encoding and reports bytes/s.
func BenchmarkCount(b *testing.B) {
	text, err := os.ReadFile("../../testdata/hotpotqa/hotpotqa_sample50.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	s := string(text)
	for _, e := range []*Encoding{O200k, Cl100k} {
		b.Run(e.Name(), func(b *testing.B) {
			e.Count("warm up") // the vocabulary is read at first use
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				e.Count(s)
			}
		})
	}
}

// BenchmarkCountProse counts the tokens of a LoCoMo conversation's turns, one per line, as a
// LoCoMo or LongMemEval prompt holds them: English chat prose, where most words come up again.
func BenchmarkCountProse(b *testing.B) {
	s := proseSample(b)
	for _, e := range []*Encoding{O200k, Cl100k} {
		b.Run(e.Name(), func(b *testing.B) {
			e.Count("warm up")
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				e.Count(s)
			}
		})
	}
}

// proseSample returns the text of every turn of the shipped LoCoMo conversation, a line each.
func proseSample(tb testing.TB) string {
	tb.Helper()
	data, err := os.ReadFile("../../testdata/locomo/locomo_conv26.json")
	if err != nil {
		tb.Fatal(err)
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		tb.Fatal(err)
	}
	var sb strings.Builder
	for _, smp := range samples {
		for _, k := range slices.Sorted(maps.Keys(smp.Conversation)) {
			if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "date_time") {
				continue
			}
			raw := smp.Conversation[k]
			var turns []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
			}
			if json.Unmarshal(raw, &turns) != nil {
				continue
			}
			for _, t := range turns {
				sb.WriteString(t.Speaker + ": " + t.Text + "\n")
			}
		}
	}
	if sb.Len() < 10000 {
		tb.Fatalf("prose sample of %d bytes, want the conversation's turns", sb.Len())
	}
	return sb.String()
}

func TestSpecial(t *testing.T) {
	for _, tt := range []struct {
		enc  *Encoding
		text string
		want string
	}{
		{Cl100k, "plain <|text|>", ""},
		{Cl100k, "a <|fim_suffix|> b <|endoftext|>", "<|fim_suffix|>"},
		{Cl100k, "<|endofprompt|><|fim_prefix|>", "<|endofprompt|>"},
		{O200k, "a <|fim_suffix|> b", ""}, // not one of o200k_base's
		{O200k, "x<|endoftext|>", "<|endoftext|>"},
	} {
		if got := tt.enc.Special(tt.text); got != tt.want {
			t.Errorf("%s.Special(%q) = %q, want %q", tt.enc.Name(), tt.text, got, tt.want)
		}
	}
}

// TestForModel: the encoding of each model name as tiktoken gives it. The names npm tiktoken
// 1.0.22's encoding_for_model knows were checked with it; the dated, Azure and fine-tuned names
// follow Python tiktoken's MODEL_PREFIX_TO_ENCODING ("gpt-4-" does not take gpt-4o or gpt-4.1).
func TestForModel(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  *Encoding
	}{
		{"gpt-4", Cl100k}, {"gpt-4-turbo", Cl100k}, {"gpt-4-0613", Cl100k}, {"gpt-4-32k", Cl100k},
		{"gpt-3.5-turbo", Cl100k}, {"gpt-3.5-turbo-16k", Cl100k}, {"gpt-3.5-turbo-0125", Cl100k},
		{"gpt-3.5-turbo-4k", Cl100k}, {"gpt-35-turbo", Cl100k}, {"gpt-35-turbo-16k", Cl100k},
		{"text-embedding-ada-002", Cl100k}, {"davinci-002", Cl100k},
		{"ft:gpt-4-0613:org", Cl100k}, {"ft:gpt-3.5-turbo:org", Cl100k},
		{"gpt-4o", O200k}, {"gpt-4o-mini", O200k}, {"gpt-4o-2024-08-06", O200k}, {"chatgpt-4o-latest", O200k},
		{"gpt-4.1", O200k}, {"gpt-4.1-mini", O200k}, {"gpt-4.5-preview", O200k}, {"gpt-5", O200k},
		{"o1", O200k}, {"o1-mini", O200k}, {"o3-mini", O200k}, {"ft:gpt-4o-mini:org", O200k},
		{"ft:gpt-4o:org", O200k}, {"ft:gpt-4o", O200k}, {"ft:gpt-4:org", Cl100k},
		{"claude-3-5-haiku-20241022", O200k}, {"", O200k},
	} {
		if got := ForModel(tt.model); got != tt.want {
			t.Errorf("ForModel(%q) = %s, want %s", tt.model, got.Name(), tt.want.Name())
		}
	}
}
