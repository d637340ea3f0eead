package metric

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/qapipe/qapipe/pkg/pysum"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

func TestLocomoF1(t *testing.T) {
	tests := []struct {
		name, pred, gold string
		category         int
		want             float64
	}{
		// Categories 2 and 4: stemmed token F1; commas and "and" vanish like articles.
		// she wa run marathon vs ran marathon: one shared stem, P 1/4, R 1/2.
		{"stems match", "She was running marathons", "ran a marathon", LocomoTemporal, 1.0 / 3},
		{"stem conflates", "She likes it", "likely", LocomoTemporal, 0.5},
		{"and removed", "Tom and Jerry", "Tom, Jerry", LocomoSingleHop, 1},
		{"plural stem", "dogs", "the dog", LocomoSingleHop, 1},
		{"no overlap", "Paris", "London", LocomoTemporal, 0},
		{"both empty", "", "the", LocomoTemporal, 0},
		{"7 May 2023", "On 7 May, 2023", "7 May 2023", LocomoTemporal, 2 * (3.0 / 4) * 1 / (3.0/4 + 1)},
		// The regex module's \w takes the marks Unicode 15.0 added (its tables are 15.0, CPython
		// 3.11's 14.0): "a" + U+0CF3 is one word, no article, and shares nothing with U+0CF3 alone.
		{"15.0 mark joins the word", "a\u0cf3", "\u0cf3", LocomoSingleHop, 0},
		{"15.0 letter joins the word", "the\U00011f00 x", "\U00011f00 x", LocomoSingleHop, 0.5},
		// Category 3: only the gold text before the first ';' counts.
		{"open domain cut", "likely yes", "likely yes; because she likes it", LocomoOpenDomain, 1},
		{"open domain rest ignored", "because she enjoys it", "likely yes; because she likes it", LocomoOpenDomain, 0},
		// Category 1: mean over gold parts of the best prediction part.
		// gold parts: "hiking" (best 1), "painting" (0) → 0.5.
		{"multi hop half", "hiking, swimming", "hiking, painting", LocomoMultiHop, 0.5},
		// gold "pottery" matches part 2 (1); "camping trips" vs "camping" F1 2/3 → mean 5/6.
		{"multi hop mean", "camping, pottery", "pottery, camping trips", LocomoMultiHop, (1 + 2.0/3) / 2},
		// "and" is not a separator for the split, but it is removed by the normaliser.
		{"multi hop and", "hiking and painting", "hiking, painting", LocomoMultiHop, 2.0 / 3},
		// Category 5: phrase test, case-insensitive; the gold is ignored.
		{"adversarial yes", "There is No Information Available about it.", "x", LocomoAdversarial, 1},
		{"adversarial not mentioned", "It is NOT MENTIONED.", "x", LocomoAdversarial, 1},
		{"adversarial answer", "He went to Paris.", "Not mentioned in the conversation", LocomoAdversarial, 0},
		// Only the whole phrases count: "no information" without "available" is an answer.
		{"adversarial phrase cut short", "There is no information about it.", "x", LocomoAdversarial, 0},
		{"adversarial phrase split", "No information is available.", "x", LocomoAdversarial, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LocomoF1(tt.pred, tt.gold, tt.category)
			if !(math.Abs(got-tt.want) <= 1e-12) {
				t.Errorf("LocomoF1(%q, %q, %d) = %v, want %v", tt.pred, tt.gold, tt.category, got, tt.want)
			}
		})
	}
}

// TestLocomoF1Official checks LocomoF1 against scores from the official script's logic (see
// testdata/locomo/README.md), exactly.
func TestLocomoF1Official(t *testing.T) {
	f, err := os.Open("testdata/locomo/locomo_f1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for sc.Scan() {
		var c struct {
			Prediction, Gold string
			Category         int
			LocomoF1         float64 `json:"locomo_f1"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		if got := LocomoF1(c.Prediction, c.Gold, c.Category); got != c.LocomoF1 {
			bad++
			if bad <= 5 {
				t.Errorf("LocomoF1(%q, %q, %d) = %v, want %v", c.Prediction, c.Gold, c.Category, got, c.LocomoF1)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1000 || bad > 0 {
		t.Errorf("%d of %d LoCoMo vectors differ", bad, n)
	}
}

func ExampleLocomoF1() {
	fmt.Printf("%.3f\n", LocomoF1("She was running marathons", "ran a marathon", LocomoTemporal))
	fmt.Printf("%.3f\n", LocomoF1("hiking, swimming", "hiking, painting", LocomoMultiHop))
	fmt.Println(LocomoF1("That is not mentioned in the conversation.", "", LocomoAdversarial))
	// Output:
	// 0.333
	// 0.500
	// 1
}

// TestLocomoMultiHopParts: normalising each part once and scoring a repeated part once gives
// exactly what scoring every pairing anew gives, the official script's way, on parts drawn from
// a few words so that they repeat.
func TestLocomoMultiHopParts(t *testing.T) {
	every := func(pred, gold string) float64 {
		preds, golds := strings.Split(pred, ","), strings.Split(gold, ",")
		best := make([]float64, len(golds))
		for i, g := range golds {
			for j, p := range preds {
				if f := locomoF1(textnorm.Strip(p), textnorm.Strip(g)); j == 0 || f > best[i] {
					best[i] = f
				}
			}
		}
		return pysum.Numpy(best) / float64(len(best))
	}
	words := []string{"Alice", "and", "bob", "the", "running", "runs", "Paris", "", " ", "a", "2023"}
	rng := rand.New(rand.NewPCG(7, 9))
	text := func(parts int) string {
		var b strings.Builder
		for k := range parts {
			if k > 0 {
				b.WriteByte(',')
			}
			for range rng.IntN(3) {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
		}
		return b.String()
	}
	for range 3000 {
		pred, gold := text(1+rng.IntN(20)), text(1+rng.IntN(20))
		if got, want := locomoMultiHop(pred, gold), every(pred, gold); got != want {
			t.Fatalf("locomoMultiHop(%q, %q) = %v, want %v", pred, gold, got, want)
		}
	}
	// Sixteen thousand repeated parts a side took 18 s when every pairing was scored.
	pred := strings.Repeat("Alice and bob,", 16000)
	gold := strings.Repeat("alice,", 16000)
	best := make([]float64, 16001) // the last gold part, "", scores 0
	for i := range 16000 {
		best[i] = 2 * 0.5 * 1 / (0.5 + 1) // "alic" against "alic bob"
	}
	if got, want := LocomoF1(pred, gold, LocomoMultiHop), pysum.Numpy(best)/16001; got != want {
		t.Errorf("16,000 repeated parts: LocomoF1 = %v, want %v", got, want)
	}
}
