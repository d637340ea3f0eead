package textnorm_test

import (
	"fmt"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

// rouge-score keeps runs of ASCII letters and digits of the lowercased text: "ü" and "σ" separate
// tokens as punctuation does, and the stemmer leaves tokens of three characters or fewer alone.
func ExampleRougeTokens() {
	fmt.Printf("%q\n", textnorm.RougeTokens("The U.S. über-fast runners' 2nd ΣOS run", false))
	fmt.Printf("%q\n", textnorm.RougeTokens("The U.S. über-fast runners' 2nd ΣOS run", true))
	// Output:
	// ["the" "u" "s" "ber" "fast" "runners" "2nd" "os" "run"]
	// ["the" "u" "s" "ber" "fast" "runner" "2nd" "os" "run"]
}

// LoCoMo's normaliser deletes commas and drops "and" with the articles; SQuAD's keeps "and".
func ExampleLocomoNormalize() {
	fmt.Printf("%q\n", textnorm.LocomoNormalize("Tea, coffee and the biscuits!"))
	fmt.Printf("%q\n", textnorm.SquadNormalize("Tea, coffee and the biscuits!"))
	// Output:
	// "tea coffee biscuits"
	// "tea coffee and biscuits"
}

// SQuAD's normal form of the answers "The" and "A" is empty; SquadWords tells them apart.
func ExampleSquadWords() {
	fmt.Printf("%q %q\n", textnorm.SquadNormalize("The"), textnorm.SquadNormalize("A"))
	fmt.Printf("%q %q\n", textnorm.SquadWords("The"), textnorm.SquadWords("A"))
	// Output:
	// "" ""
	// "the" "a"
}

// Python's whitespace includes the separators U+001C–U+001F and U+3000 but not the zero-width
// space U+200B.
func ExampleStrip() {
	fmt.Printf("%q %q\n", textnorm.Strip("\x1f Paris\u3000\n"), textnorm.Split("a\x1cb\u200bc"))
	// Output: "Paris" ["a" "b\u200bc"]
}
