package metric

import (
	"fmt"
	"math"
	"testing"
)

// The README's worked examples for the SQuAD and HotpotQA families.
func TestSquadFamily(t *testing.T) {
	tests := []struct {
		pred string
		refs []string
		// squad EM, F1; squad2 EM, F1; hotpot EM, F1
		want [6]float64
	}{
		{"Devner Broncos", []string{"Denver Broncos", "Denver", "Denver Broncos."}, [6]float64{0, 0.5, 0, 0.5, 0, 0.5}},
		{"DENVER BRONCOS", []string{"Denver Broncos"}, [6]float64{1, 1, 1, 1, 1, 1}},
		// Both sides normalise to "": v1.1 EM 1 but F1 0; v2.0 treats it as unanswerable.
		{"the", []string{"a"}, [6]float64{1, 0, 1, 1, 1, 0}},
		{"", []string{""}, [6]float64{1, 0, 1, 1, 1, 0}},
		{"Paris", []string{"the"}, [6]float64{0, 0, 0, 0, 0, 0}},
		// v2.0 drops references that normalise to "" when others remain.
		{"", []string{"!!", "Paris"}, [6]float64{1, 0, 0, 0, 1, 0}},
		// Unicode \b: the "a" in "éa" is inside a word and stays.
		{"éa", []string{"é"}, [6]float64{0, 0, 0, 0, 0, 0}},
		{"é a", []string{"é"}, [6]float64{1, 1, 1, 1, 1, 1}},
		{"日本a", []string{"日本"}, [6]float64{0, 0, 0, 0, 0, 0}},
		// Python whitespace includes U+001C; NBSP and U+3000 split too, ZWSP does not.
		{"x\u001cy", []string{"x y"}, [6]float64{1, 1, 1, 1, 1, 1}},
		{"x\u00a0y\u3000z", []string{"x y z"}, [6]float64{1, 1, 1, 1, 1, 1}},
		{"x\u200by", []string{"x y"}, [6]float64{0, 0, 0, 0, 0, 0}},
		// Python lower: İ becomes i + U+0307, final sigma becomes ς.
		{"ΟΔΟΣ", []string{"οδος"}, [6]float64{1, 1, 1, 1, 1, 1}},
		{"ΟΔΟΣ", []string{"οδοσ"}, [6]float64{0, 0, 0, 0, 0, 0}},
		{"İ", []string{"i\u0307"}, [6]float64{1, 1, 1, 1, 1, 1}},
		// HotpotQA's yes/no/noanswer rule.
		{"Yes", []string{"yes, definitely"}, [6]float64{0, 2.0 / 3, 0, 2.0 / 3, 0, 0}},
		{"no answer", []string{"no"}, [6]float64{0, 2.0 / 3, 0, 2.0 / 3, 0, 0}},
		{"The Eiffel Tower!", []string{"Eiffel Tower in Paris"}, [6]float64{0, 2 * 1 * 0.5 / 1.5, 0, 2 * 1 * 0.5 / 1.5, 0, 2 * 1 * 0.5 / 1.5}},
		{"an apple and the an", []string{"apple and"}, [6]float64{1, 1, 1, 1, 1, 1}},
		{"Paris", nil, [6]float64{0, 0, 0, 0, 0, 0}},
		// A reference that is the prediction's own text, and repeated references.
		{"the", []string{"the"}, [6]float64{1, 0, 1, 1, 1, 0}},
		{"Denver Broncos", []string{"Denver Broncos", "Denver Broncos"}, [6]float64{1, 1, 1, 1, 1, 1}},
		{"Devner Broncos", []string{"Denver", "Denver", "Denver Broncos"}, [6]float64{0, 0.5, 0, 0.5, 0, 0.5}},
		{"!!", []string{"!!", "Paris", "!!"}, [6]float64{1, 0, 0, 0, 1, 0}},
		// The same tokens in another order score F1 1 but EM 0, so a later exact reference still
		// counts for EM.
		{"Broncos Denver", []string{"Denver Broncos", "broncos denver"}, [6]float64{1, 1, 1, 1, 1, 1}},
	}
	fns := [6]func(string, []string) float64{SquadEM, SquadF1, Squad2EM, Squad2F1, HotpotEM, HotpotF1}
	names := [6]string{"SquadEM", "SquadF1", "Squad2EM", "Squad2F1", "HotpotEM", "HotpotF1"}
	for _, tt := range tests {
		t.Run(tt.pred, func(t *testing.T) {
			for i, f := range fns {
				if got := f(tt.pred, tt.refs); !(math.Abs(got-tt.want[i]) <= 1e-12) {
					t.Errorf("%s(%q, %q) = %v, want %v", names[i], tt.pred, tt.refs, got, tt.want[i])
				}
			}
			for i, f := range [3]func(string, []string) (float64, float64){SquadScores, Squad2Scores, HotpotScores} {
				em, f1 := f(tt.pred, tt.refs)
				if !(math.Abs(em-tt.want[2*i]) <= 1e-12) || !(math.Abs(f1-tt.want[2*i+1]) <= 1e-12) {
					t.Errorf("%s/%s scores of (%q, %q) = %v, %v, want %v, %v", names[2*i], names[2*i+1], tt.pred, tt.refs, em, f1, tt.want[2*i], tt.want[2*i+1])
				}
			}
		})
	}
}

// FuzzLexical checks that no metric in this family panics or leaves [0, 1].
func FuzzLexical(f *testing.F) {
	for _, s := range [][2]string{
		{"Denver Broncos", "Denver Broncos."}, {"the", "a"}, {"ΟΔΟΣ", "οδος"}, {"İ", "i\u0307"},
		{"x\u001cy", "x y"}, {"a*ded b", "ad b"}, {"", ""}, {"\xff\xfe", "yes"}, {"no, and", "no"},
	} {
		f.Add(s[0], s[1], s[1])
	}
	for _, p := range seedPairs(f, "testdata/pairs.jsonl", 200) {
		f.Add(p.Prediction, p.References[0], p.References[len(p.References)-1])
	}
	f.Fuzz(func(t *testing.T, pred, ref1, ref2 string) {
		refs := []string{ref1, ref2}
		check := func(name string, v float64) {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Errorf("%s(%q, %q) = %v, outside [0, 1]", name, pred, refs, v)
			}
		}
		check("SquadEM", SquadEM(pred, refs))
		check("SquadF1", SquadF1(pred, refs))
		check("Squad2EM", Squad2EM(pred, refs))
		check("Squad2F1", Squad2F1(pred, refs))
		check("HotpotEM", HotpotEM(pred, refs))
		check("HotpotF1", HotpotF1(pred, refs))
		for _, stem := range []bool{true, false} {
			r := Rouge(pred, refs, stem)
			check("Rouge.R1", r.R1)
			check("Rouge.R2", r.R2)
			check("Rouge.RL", r.RL)
		}
		b := BLEU(pred, refs)
		check("BLEU.B1", b.B1)
		check("BLEU.B2", b.B2)
		check("BLEU.B4", b.B4)
		for c := 1; c <= 5; c++ {
			check(fmt.Sprintf("LocomoF1[%d]", c), LocomoF1(pred, ref1, c))
		}
	})
}

func ExampleSquadF1() {
	fmt.Println(SquadF1("the Denver Broncos", []string{"Broncos", "Denver Broncos!"}))
	fmt.Println(SquadEM("the Denver Broncos", []string{"Broncos", "Denver Broncos!"}))
	// Output:
	// 1
	// 1
}

func ExampleHotpotF1() {
	fmt.Printf("%.3f %.3f\n", SquadF1("Yes", []string{"yes, definitely"}), HotpotF1("Yes", []string{"yes, definitely"}))
	// Output: 0.667 0.000
}
