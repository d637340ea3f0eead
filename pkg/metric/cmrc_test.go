package metric

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/vectors"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestCMRCGolden(t *testing.T) {
	pairs := loadPairs(t)
	em := checkGolden(t, pairs, "cmrc_em", func(p goldenPair) float64 { return CMRCEM(p.Prediction, p.References) })
	f1 := checkGolden(t, pairs, "cmrc_f1", func(p goldenPair) float64 { return CMRCF1(p.Prediction, p.References) })
	if em != 440 || f1 != 440 {
		t.Errorf("compared %d cmrc_em and %d cmrc_f1 golden pairs, want 440 each", em, f1)
	}
}

// TestCMRCRandom checks pairs scored by the official script on NLTK 3.8 (testdata/README.md).
func TestCMRCRandom(t *testing.T) {
	pairs := readPairs(t, "testdata/cmrc_nltk38.jsonl")
	em := checkGolden(t, pairs, "cmrc_em", func(p goldenPair) float64 { return CMRCEM(p.Prediction, p.References) })
	f1 := checkGolden(t, pairs, "cmrc_f1", func(p goldenPair) float64 { return CMRCF1(p.Prediction, p.References) })
	if em != 1200 || f1 != 1200 {
		t.Errorf("compared %d cmrc_em and %d cmrc_f1 pairs, want 1200 each", em, f1)
	}
}

func TestCMRC(t *testing.T) {
	tests := []struct {
		name   string
		pred   string
		refs   []string
		em, f1 float64
	}{
		// The examples of the golden corpus README.
		{"ascii period kept (m03139)", "战史演武.", []string{"战史演武"}, 0, 8.0 / 9},
		{"inner space kept (m03159)", "1998 年", []string{"1998年"}, 0, 1},
		{"substring not subsequence (m03144)", "北大", []string{"北京大学"}, 0, 1.0 / 3},
		{"punkt splits the final period (m03148)", "Dr. Smith went home.", []string{"Dr. Smith went home. He left"}, 0, 2 * (5.0 / 5) * (5.0 / 7) / (5.0/5 + 5.0/7)},
		{"abbreviation kept (m03147)", "U.S. Army的士兵", []string{"u.s. army的士兵"}, 1, 1},
		{"punctuation removed", "《北京》，", []string{"北京"}, 1, 1},
		{"ellipsis char kept", "北京…", []string{"北京"}, 0, 2 * (2.0 / 3) / (2.0/3 + 1)},
		{"two-char ellipsis never removed", "北京……", []string{"北京"}, 0, 2 * (2.0 / 3) / (2.0/3 + 1)},
		{"left single quote kept", "‘北京’", []string{"北京"}, 0, 2 * (2.0 / 3) / (2.0/3 + 1)},
		{"max over references", "北京", []string{"上海", "北京"}, 1, 1},
		{"empty prediction", "", []string{""}, 1, 0},
		{"no references", "北京", nil, 0, 0},
		{"uppercase and whitespace", "  ABC ", []string{"abc"}, 1, 1},
		// Both ends of A-Z are lowercased (calc_f1_score: 1.0, calc_em_score: 1).
		{"uppercase A to Z", "Zebra 在ZOO", []string{"zebra 在zoo"}, 1, 1},
		{"lowercase against uppercase", "z公司", []string{"Z公司"}, 1, 1},
		// U+10FC is not lowercase for CPython 3.11, so Punkt ends the sentence at "x." and
		// word_tokenize splits off the period: [x . ჼ] against [x] (calc_f1_score: 0.5).
		{"Unicode 15 lowercase after a period", "x. \u10fc", []string{"x"}, 0, 0.5},
		{"contraction", "don't know不知道", []string{"do not know不知道"}, 0, 2 * (4.0 / 6) * (4.0 / 6) / (4.0/6 + 4.0/6)},
		// str.strip() takes Python whitespace of any width at either end: the two- and
		// three-byte ones too, after a last character that is not whitespace.
		{"trailing NBSP stripped", "Paris\u00a0", []string{"paris"}, 1, 1},
		{"trailing ideographic space stripped", "北京\u3000", []string{"北京"}, 1, 1},
		{"trailing line separator stripped", "北京", []string{"北京\u2028"}, 1, 1},
		{"leading ideographic space stripped", "\u3000北京", []string{"北京"}, 1, 1},
		// [\u4e00-\u9fa5] stops short of the block's end: U+9FA6 is not split off.
		{"ideograph past U+9FA5 not split", "\u9fa6\u9fa6", []string{"\u9fa6"}, 0, 0},
		{"backtick removed", "`北京`", []string{"北京"}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CMRCEM(tt.pred, tt.refs); got != tt.em {
				t.Errorf("CMRCEM(%q, %q) = %v, want %v", tt.pred, tt.refs, got, tt.em)
			}
			if got := CMRCF1(tt.pred, tt.refs); !(math.Abs(got-tt.f1) <= 1e-12) {
				t.Errorf("CMRCF1(%q, %q) = %v, want %v", tt.pred, tt.refs, got, tt.f1)
			}
		})
	}
}

func TestCMRCSegment(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"(北京)", []string{"(", "北", "京", ")"}}, // m03174
		{"don't know不知道", []string{"do", "n't", "know", "不", "知", "道"}},
		{"Dr. Smith went home. He left", []string{"dr.", "smith", "went", "home", ".", "he", "left"}},
		{"U.S. Army的士兵", []string{"u.s.", "army", "的", "士", "兵"}},
		{"第1-2届", []string{"第", "12", "届"}},
		{"〇一二", []string{"〇", "一", "二"}},
		{"   ", nil},
	}
	for _, tt := range tests {
		if got := CMRCSegment(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("CMRCSegment(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCaselessRune checks that Python's lower() (textnorm.Lower) leaves every character that
// caselessRune accepts unchanged, so skipping Lower for them is exact.
func TestCaselessRune(t *testing.T) {
	for r := rune(0x80); r <= 0xffff; r++ {
		if !caselessRune(r) || unicode.Is(unicode.Cs, r) {
			continue
		}
		if s := string(r); textnorm.Lower(s) != s {
			t.Errorf("caselessRune(%U) = true, but Lower(%q) = %q", r, s, textnorm.Lower(s))
		}
	}
	for _, s := range []string{"北京", "abc 123", "《》，。", "…“”"} {
		if !caseless(s) {
			t.Errorf("caseless(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"A", "北京Σ", "Ａ", "İ", "ǅ"} {
		if caseless(s) {
			t.Errorf("caseless(%q) = true, want false", s)
		}
	}
}

func TestLongestCommonRun(t *testing.T) {
	tests := []struct {
		a, b []int32
		want int
	}{
		{[]int32{1, 2, 3, 4}, []int32{1, 3}, 1},
		{[]int32{1, 2, 3, 4}, []int32{0, 2, 3, 4, 5}, 3},
		{[]int32{7, 7, 7}, []int32{7, 7}, 2},
		{[]int32{1, 2, 1, 2, 3}, []int32{1, 2, 3}, 3},
		{nil, []int32{1}, 0},
	}
	for _, tt := range tests {
		if got := longestCommonRun(tt.a, tt.b); got != tt.want {
			t.Errorf("longestCommonRun(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	long := make([]int32, 600)
	for i := range long {
		long[i] = int32(i % 7)
	}
	for _, end := range []int{350, 600} { // b within and beyond what the hash chains take
		if got := longestCommonRun(long[:200], long[100:end]); got != 200 {
			t.Errorf("longestCommonRun(long[:200], long[100:%d]) = %d, want 200", end, got)
		}
	}
}

func FuzzCMRC(f *testing.F) {
	for _, s := range []string{"战史演武.", "1998 年", "北大", "Dr. Smith went home.", "U.S. Army的士兵", "‘北京’……", "", "ΣΑΣ İ"} {
		f.Add(s, "北京大学")
	}
	var zh []goldenPair
	for _, p := range loadPairs(f) {
		if p.Lang == "zh" {
			zh = append(zh, p)
		}
	}
	for _, p := range append(vectors.Spread(zh, 100), seedPairs(f, "testdata/cmrc_nltk38.jsonl", 100)...) {
		f.Add(p.Prediction, p.References[0])
	}
	f.Fuzz(func(t *testing.T, pred, ref string) {
		refs := []string{ref}
		em, f1 := CMRCEM(pred, refs), CMRCF1(pred, refs)
		if em != 0 && em != 1 {
			t.Fatalf("CMRCEM(%q, %q) = %v, want 0 or 1", pred, ref, em)
		}
		if math.IsNaN(f1) || f1 < 0 || f1 > 1 {
			t.Fatalf("CMRCF1(%q, %q) = %v, want a number in [0, 1]", pred, ref, f1)
		}
		if self := CMRCF1(pred, []string{pred}); len(CMRCSegment(pred)) > 0 && self != 1 {
			t.Fatalf("CMRCF1(%q, itself) = %v, want 1", pred, self)
		}
		if CMRCEM(pred, []string{pred}) != 1 {
			t.Fatalf("CMRCEM(%q, itself) = 0, want 1", pred)
		}
	})
}

func BenchmarkCMRC(b *testing.B) {
	var zh []goldenPair
	for _, p := range loadPairs(b) {
		if p.Lang == "zh" {
			zh = append(zh, p)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range zh {
			CMRCEM(p.Prediction, p.References)
			CMRCF1(p.Prediction, p.References)
		}
	}
	b.ReportMetric(float64(b.N*len(zh))/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkCMRCF1Large scores 64 kB predictions of one unit repeated, shapes whose word
// tokenization once cost 200 to 600 ns a byte: runs of sentence ends, brackets, quotes and clitics.
func BenchmarkCMRCF1Large(b *testing.B) {
	refs := []string{"the answer is 42!", "x"}
	for _, unit := range []string{"!", "! ", ".)", "x.) ", `." `, "A. B. C. ", "x' ", "don't ", "«"} {
		pred := strings.Repeat(unit, (64<<10)/len(unit))
		b.Run(unit, func(b *testing.B) {
			b.SetBytes(int64(len(pred)))
			b.ReportAllocs()
			for b.Loop() {
				CMRCF1(pred, refs)
			}
		})
	}
}

// TestCMRCManyWords checks a text of many distinct words: each one used to be looked up by
// comparing it with every earlier distinct word, so these 3 MB took minutes.
func TestCMRCManyWords(t *testing.T) {
	const n = 400000
	words := make([]string, n)
	for i := range words {
		words[i] = "w" + strconv.Itoa(i)
	}
	pred := strings.Join(words, " ") + " " + strings.Join(words[:100], " ")
	if got, want := CMRCSegment(pred), strings.Fields(pred); !slices.Equal(got, want) {
		t.Errorf("CMRCSegment(%d words) differs from its fields", len(want))
	}
	ref := strings.Join(words[20:60], " ") // ids assigned both before and after the switch to a map
	p, r := 40.0/(n+100), 40.0/40
	if got, want := CMRCF1(pred, []string{"x", ref}), 2*p*r/(p+r); !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("CMRCF1(%d words, %q) = %v, want %v", n+100, ref, got, want)
	}
}
