package textnorm_test

import (
	"fmt"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

func ExampleSentTokenize() {
	for _, s := range textnorm.SentTokenize("Mr. Smith met Johann S. Bach at 5 p.m. Then he left!  (Really.)") {
		fmt.Printf("%q\n", s)
	}
	// Output:
	// "Mr. Smith met Johann S. Bach at 5 p.m. Then he left!"
	// "(Really.)"
}
