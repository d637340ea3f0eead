package metric

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBLEU(t *testing.T) {
	tests := []struct {
		pred string
		refs []string
		want BLEUScores
	}{
		{"Paris", []string{"paris"}, BLEUScores{1, math.Sqrt(0.1), math.Pow(0.1, 0.75)}},
		{"Paris.", []string{"Paris"}, BLEUScores{0, 0, 0}},
		// r = 2 wins the tie with 6, so BP = 1; every n-gram is in the long reference.
		{"a b c d", []string{"a b", "a b c d e f"}, BLEUScores{1, 1, 1}},
		// One reference of length 6: BP exp(1 - 6/4); p = 1, 1, 0.1/2, 0.1/1 after clipping.
		{"a b x y", []string{"a b c d e f"}, BLEUScores{0.5 * math.Exp(1-1.5), math.Exp(1-1.5) * math.Sqrt(0.5*(1.0/3)), math.Exp(1-1.5) * math.Exp(0.25*(math.Log(0.5)+math.Log(1.0/3)+math.Log(0.05)+math.Log(0.1)))}},
		// Clipping: "the" counts at most twice; BP exp(1 - 3/3) = 1.
		{"the the the", []string{"the cat the"}, BLEUScores{2.0 / 3, math.Sqrt(2.0 / 3 * 0.1 / 2), math.Exp(0.25 * (math.Log(2.0/3) + math.Log(0.05) + math.Log(0.1) + math.Log(0.1)))}},
		{"", []string{"a"}, BLEUScores{0, 0, 0}},
		{"a", nil, BLEUScores{0, 0, 0}},
		// A reference that is the prediction's text; repeated references count once, so "a b c
		// d e f" stays the closest length (BP exp(1 - 6/4)) and clipping as above.
		{"The cat sat on a mat", []string{"the cat sat on a mat"}, BLEUScores{1, 1, 1}},
		{"a b x y", []string{"a b c d e f", "a b c d e f", "a b c d e f"}, BLEUScores{0.5 * math.Exp(1-1.5), math.Exp(1-1.5) * math.Sqrt(0.5*(1.0/3)), math.Exp(1-1.5) * math.Exp(0.25*(math.Log(0.5)+math.Log(1.0/3)+math.Log(0.05)+math.Log(0.1)))}},
		{"a b c d", []string{"a b c d e f", "a b", "a b c d e f", "a b c d"}, BLEUScores{1, 1, 1}},
		{"a b x y", []string{"a b x y", "a b c d e f", "a b x y"}, BLEUScores{1, 1, 1}},
	}
	for _, tt := range tests {
		got := BLEU(tt.pred, tt.refs)
		if !approx(got.B1, tt.want.B1) || !approx(got.B2, tt.want.B2) || !approx(got.B4, tt.want.B4) {
			t.Errorf("BLEU(%q, %q) = %+v, want %+v", tt.pred, tt.refs, got, tt.want)
		}
	}
}

func TestFsum(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{0.1, 0.1, 0.1}, 0.30000000000000004},
		{[]float64{1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50}, 1e-100},
		{[]float64{1, 1e-16, 1e-16}, 1.0000000000000002},
		{[]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}, 5.5},
		{[]float64{1, math.Copysign(0, -1)}, 1},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := fsum(tt.xs); got != tt.want {
			t.Errorf("fsum(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

func ExampleBLEU() {
	s := BLEU("Paris", []string{"paris", "the city of Paris"})
	fmt.Printf("%.4f %.4f %.4f\n", s.B1, s.B2, s.B4)
	// Output: 1.0000 0.3162 0.1778
}

// TestClippedPaths checks the packed-key counting, pairwise and sorted (after renumbering large
// ids), against the map fallback on random hypotheses and references.
func TestClippedPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		s := new(scratch)
		size := 12 // short texts take the pairwise path, long ones the sorting path
		if rng.IntN(2) == 0 {
			size = 80
		}
		hyp := rng.IntN(size)
		bounds := randomBounds(rng, hyp, size)
		total := bounds[len(bounds)-1]
		raw := make([]int32, total)
		for i := range raw {
			raw[i] = int32(rng.IntN(4)) * 100003 // ids too large to pack as they are
		}
		for n := 1; n <= 4; n++ {
			s.ids = append(s.ids[:0], raw...)
			wantNum, wantDen := s.clippedMap(n, hyp, bounds)
			if num, den := s.clipped(n, hyp, bounds); num != wantNum || den != wantDen {
				t.Fatalf("clipped(%d) with large ids on %v / %v = %d/%d, want %d/%d", n, raw, bounds, num, den, wantNum, wantDen)
			}
			if !s.denseIDs() {
				t.Fatal("denseIDs() = false for four distinct ids")
			}
			num, den := s.clipped(n, hyp, bounds)
			if num != wantNum || den != wantDen {
				t.Fatalf("clipped(%d) on %v / %v = %d/%d, want %d/%d", n, raw, bounds, num, den, wantNum, wantDen)
			}
		}
	}
}

// TestClippedOrders checks clippedOrders, which skips the orders above one that found nothing,
// against the map fallback order by order, on long texts (the hash-table path) over alphabets
// small enough for matches at every order and large enough for few.
func TestClippedOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		s := new(scratch)
		alphabet := 2 + rng.IntN(40)
		hyp := 30 + rng.IntN(120)
		bounds := randomBounds(rng, hyp, 150)
		total := bounds[len(bounds)-1]
		raw := make([]int32, total)
		for i := range raw {
			raw[i] = int32(rng.IntN(alphabet))
		}
		var want, got [4][2]int
		for n := 1; n <= 4; n++ {
			s.ids = append(s.ids[:0], raw...)
			want[n-1][0], want[n-1][1] = s.clippedMap(n, hyp, bounds)
		}
		s.ids = append(s.ids[:0], raw...)
		var num, den [4]int
		s.clippedOrders(&num, &den, hyp, bounds)
		for n := range got {
			got[n] = [2]int{num[n], den[n]}
		}
		if got != want {
			t.Fatalf("clippedOrders on %v / %v = %v, want %v", raw, bounds, got, want)
		}
	}
}

// randomBounds returns the ends of one to three references of up to most-1 tokens each, after a
// hypothesis of hyp tokens, as BLEU's counting takes them.
func randomBounds(rng *rand.Rand, hyp, most int) []int {
	total := hyp
	var bounds []int
	for range 1 + rng.IntN(3) {
		total += rng.IntN(most)
		bounds = append(bounds, total)
	}
	return bounds
}

// TestRoundedExpLog checks the correctly rounded exp and log against values computed with
// Python's decimal module at 80 digits and rounded once to float64.
func TestRoundedExpLog(t *testing.T) {
	exps := [][2]float64{
		{-0.026092876585285096, 0.9742446008949095}, // glibc gives ...094 here (0.5001 ulp)
		{-1.151292546497023, 0.3162277660168379},
		{-20.5, 1.2501528663867426e-09},
		{-0.3, 0.7408182206817179},
		{0.4, 1.4918246976412703},
		{-7.000001, 0.0009118810536730065},
		{1e-10, 1.0000000001},
		{-699.999999999, 9.859676553619342e-305},
		{-3.4538776394910684, 0.0316227766016838},
		{-10.69004745841924, 2.277043763152342e-05},
		{-7.004603332917387, 0.0009076939161741232},
		{-5.348999467463404, 0.004752904056372616},
		{-0.784041202911439, 0.4565572377483316},
		{-7.06314418306215, 0.0008560821788833596},
		{-1.4079251033720723, 0.24465038113439902},
		{-29.100837923207944, 2.2996760972022756e-13},
		{-15.565697714278734, 1.737414236028821e-07},
		{-0.7559417730522746, 0.46956817976866494},
		{-9.88178885275535, 5.109679142949983e-05},
		{-2.072084755730696, 0.12592298919776876},
		{-26.490615095752524, 3.128038153990668e-12},
		{0, 1},
	}
	for _, c := range exps {
		if got := roundedExp(c[0]); got != c[1] {
			t.Errorf("roundedExp(%v) = %v, want %v", c[0], got, c[1])
		}
	}
	logs := [][2]float64{
		{0.1, -2.3025850929940455},
		{0.05, -2.995732273553991},
		{0.9491525423728814, -0.05218575317057019},
		{0.3333333333333333, -1.0986122886681098},
		{0.6666666666666666, -0.40546510810816444},
		{0.00013054830287206266, -8.943767262734637},
		{0.999999, -1.000000500029089e-06},
		{1e-05, -11.512925464970229},
		{0.4691221408773855, -0.756892116131433},
		{0.24664817533656833, -1.3997923491137862},
		{0.5438064831500068, -0.6091618249166074},
		{0.573983793809308, -0.5551541168428448},
		{0.013212878169943312, -4.3265633060615505},
		{0.21680812748380177, -1.5287425217253987},
		{0.2795544177745092, -1.274558308470305},
		{0.916353737271371, -0.08735281279434139},
		{0.7657488790839788, -0.26690099708491233},
		{0.15968825193680242, -1.834531789793306},
		{0.7971672767320613, -0.22669073923803496},
		{0.13885354165706326, -1.9743355584817925},
		{1, 0},
	}
	for _, c := range logs {
		if got := roundedLog(c[0]); got != c[1] {
			t.Errorf("roundedLog(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}

// TestBLEUScoresMemo checks that the scores bleuScores memoises are those bleuCompute computes,
// bit for bit, on the golden pairs' counts read twice over one scratch, so that the second round
// is served from the cache; and that counts too large to key are computed.
func TestBLEUScoresMemo(t *testing.T) {
	s := new(scratch)
	pairs := loadPairs(t)
	for round := range 2 {
		for _, p := range pairs {
			if len(p.References) == 0 {
				continue
			}
			s.reset()
			hyp, closest, _ := s.bleuRead(p.Prediction, p.References, false)
			num := s.bleuClipped(hyp)
			if num[0] == 0 {
				continue
			}
			got, want := s.bleuScores(num, hyp, closest), s.bleuCompute(num, hyp, closest)
			if got != want {
				t.Fatalf("round %d, pair %s: bleuScores(%v, %d, %d) = %v, want %v", round, p.ID, num, hyp, closest, got, want)
			}
		}
	}
	if _, ok := bleuResultKey([4]int{1, 0, 0, 0}, 1<<10, 3); ok {
		t.Errorf("bleuResultKey keyed a hypothesis of %d tokens", 1<<10)
	}
	num := [4]int{1000, 900, 800, 700}
	if got, want := s.bleuScores(num, 1500, 1400), s.bleuCompute(num, 1500, 1400); got != want {
		t.Errorf("bleuScores(%v, 1500, 1400) = %v, want %v", num, got, want)
	}
}

// FuzzBLEUCounts checks the clipped counts BLEU takes, by whichever way suits the texts' lengths
// (pairwise runs, position masks, the references' n-grams or hash tables), against counting with
// maps, and the scores against computing them without the cache.
func FuzzBLEUCounts(f *testing.F) {
	long := strings.Repeat("a b a c ", 40)
	for _, s := range [][3]string{
		{"Denver Broncos", "Denver Broncos.", "Broncos"}, {"the the the", "the cat the", ""},
		{"a b c d e f g", "a b c d e f g h", "b c d"}, {"a a a a a a a a a", "a a a a", "a a"},
		{"x y a b a c", long, "a b"}, {long, "a b a", long[:100]}, {"ΟΔΟΣ ΑΣ x", "οδος ας", "x"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, pred, r1, r2 string) {
		s := getScratch()
		defer putScratch(s)
		refs := []string{r1, r2}
		hyp, closest, _ := s.bleuRead(pred, refs, false)
		got := s.bleuClipped(hyp)
		s.wordIDs()
		for n := 1; n <= 4; n++ {
			if want, _ := s.clippedMap(n, hyp, s.bounds); got[n-1] != want {
				t.Fatalf("bleuClipped(%q, %q) order %d = %d, want %d", pred, refs, n, got[n-1], want)
			}
		}
		if got[0] > 0 {
			if b, want := s.bleuScores(got, hyp, closest), s.bleuCompute(got, hyp, closest); b != want {
				t.Fatalf("bleuScores(%q, %q) = %v, want %v", pred, refs, b, want)
			}
		}
	})
}
