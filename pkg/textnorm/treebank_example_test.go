package textnorm_test

import (
	"fmt"

	"github.com/qapipe/qapipe/pkg/textnorm"
)

func ExampleWordTokenize() {
	fmt.Printf("%q\n", textnorm.WordTokenize(`"Dr. Smith can't come," she said. He left.`))
	// Output:
	// ["``" "Dr." "Smith" "ca" "n't" "come" "," "''" "she" "said" "." "He" "left" "."]
}
