package metric

import (
	"fmt"
	"math"
	"testing"
)

func TestHotpotF1PR(t *testing.T) {
	tests := []struct {
		pred, gold string
		f1, p, r   float64
	}{
		{"Yes", "yes, definitely", 0, 0, 0}, // yes against a longer answer: forced to 0
		{"no answer", "no", 0, 0, 0},        // gold "no" is special and differs
		{"No.", "no", 1, 1, 1},              // equal normal forms are scored normally
		{"the big red dog", "red dog", 0.8, 2.0 / 3, 1},
		{"Paris", "London", 0, 0, 0},
		// "noanswer" is special too: hotpot_evaluate_v1.py gives (0, 0, 0), not the 2/3 of one
		// shared token.
		{"noanswer", "noanswer foo", 0, 0, 0},
	}
	for _, tt := range tests {
		f1, p, r := HotpotF1PR(tt.pred, tt.gold)
		if !approx(f1, tt.f1) || !approx(p, tt.p) || !approx(r, tt.r) {
			t.Errorf("HotpotF1PR(%q, %q) = %v, %v, %v, want %v, %v, %v", tt.pred, tt.gold, f1, p, r, tt.f1, tt.p, tt.r)
		}
	}
}

// TestHotpotPR: the precision and recall of the reference with the best F1, the first of equals;
// 0, 0 when none shares a token or there is none.
func TestHotpotPR(t *testing.T) {
	tests := []struct {
		name string
		pred string
		refs []string
		p, r float64
	}{
		{"one reference", "the big red dog", []string{"red dog"}, 2.0 / 3, 1}, // 2 of 3 tokens, 2 of 2
		// F1 0.8 (2/3, 1) against F1 0.5 (1/3, 1): the better one's, though the other is listed first
		{"best F1", "big red dog", []string{"dog", "red dog"}, 2.0 / 3, 1},
		// equal F1 2/3 both ways: (1, 1/2) of "red dog cat fox" comes first, not (1/2, 1) of "red"
		{"first of equals", "red dog", []string{"red dog cat fox", "red"}, 1, 0.5},
		{"first of equals, swapped", "red dog", []string{"red", "red dog cat fox"}, 0.5, 1},
		{"yes against more", "yes", []string{"yes, definitely"}, 0, 0}, // HotpotQA's rule: all 0
		{"no match", "Paris", []string{"London", "Rome"}, 0, 0},
		{"no reference", "Paris", nil, 0, 0},
	}
	for _, tt := range tests {
		if p, r := HotpotPR(tt.pred, tt.refs); !approx(p, tt.p) || !approx(r, tt.r) {
			t.Errorf("%s: HotpotPR(%q, %q) = %v, %v, want %v, %v", tt.name, tt.pred, tt.refs, p, r, tt.p, tt.r)
		}
	}
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func TestSupportingFacts(t *testing.T) {
	a0, a1, b0, b2 := Fact{"A", 0}, Fact{"A", 1}, Fact{"B", 0}, Fact{"B", 2}
	tests := []struct {
		name         string
		pred, gold   []Fact
		em, f1, p, r float64
	}{
		{"exact", []Fact{a0, b0}, []Fact{b0, a0}, 1, 1, 1, 1},
		{"duplicates collapse", []Fact{a0, a0, b0}, []Fact{a0, b0}, 1, 1, 1, 1},
		// tp 1, fp 1, fn 2: P 1/2, R 1/3, F1 0.4.
		{"partial", []Fact{a0, b2}, []Fact{a0, a1, b0}, 0, 0.4, 0.5, 1.0 / 3},
		// tp 1, fp 1, fn 0: every gold fact found, one too many, so no exact match.
		{"superset", []Fact{a0, b0}, []Fact{a0}, 0, 2.0 / 3, 0.5, 1},
		{"title case matters", []Fact{{"a", 0}}, []Fact{a0}, 0, 0, 0, 0},
		{"none predicted", nil, []Fact{a0}, 0, 0, 0, 0},
		{"both empty", nil, nil, 1, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em, f1, p, r := SupportingFacts(tt.pred, tt.gold)
			if em != tt.em || !approx(f1, tt.f1) || !approx(p, tt.p) || !approx(r, tt.r) {
				t.Errorf("SupportingFacts(%v, %v) = %v, %v, %v, %v, want %v, %v, %v, %v",
					tt.pred, tt.gold, em, f1, p, r, tt.em, tt.f1, tt.p, tt.r)
			}
		})
	}
}

func TestJointEMF1(t *testing.T) {
	tests := []struct {
		ansEM, ansP, ansR, spEM, spP, spR float64
		em, f1                            float64
	}{
		{1, 1, 1, 1, 1, 1, 1, 1},
		// joint P = 0.5·1 = 0.5, joint R = 1·0.5 = 0.5, F1 0.5; EM 1·0.
		{1, 0.5, 1, 0, 1, 0.5, 0, 0.5},
		// joint P = 2/3·1/2 = 1/3, joint R = 1·1/3 = 1/3.
		{0, 2.0 / 3, 1, 0, 0.5, 1.0 / 3, 0, 1.0 / 3},
		{1, 0, 0, 1, 1, 1, 1, 0},
	}
	for _, tt := range tests {
		em, f1 := JointEMF1(tt.ansEM, tt.ansP, tt.ansR, tt.spEM, tt.spP, tt.spR)
		if em != tt.em || !approx(f1, tt.f1) {
			t.Errorf("JointEMF1(%v, %v, %v, %v, %v, %v) = %v, %v, want %v, %v",
				tt.ansEM, tt.ansP, tt.ansR, tt.spEM, tt.spP, tt.spR, em, f1, tt.em, tt.f1)
		}
	}
}

func ExampleSupportingFacts() {
	pred := []Fact{{"Paris", 0}, {"France", 3}}
	gold := []Fact{{"Paris", 0}, {"Paris", 1}, {"France", 2}}
	em, f1, p, r := SupportingFacts(pred, gold)
	fmt.Printf("em %.0f f1 %.2f p %.2f r %.2f\n", em, f1, p, r)
	// Output: em 0 f1 0.40 p 0.50 r 0.33
}

func ExampleJointEMF1() {
	ansEM, ansP, ansR := 1.0, 1.0, 1.0 // a perfect answer
	spEM, _, spP, spR := SupportingFacts([]Fact{{"Paris", 0}}, []Fact{{"Paris", 0}, {"France", 1}})
	em, f1 := JointEMF1(ansEM, ansP, ansR, spEM, spP, spR)
	fmt.Printf("joint em %.0f f1 %.3f\n", em, f1)
	// Output: joint em 0 f1 0.667
}
