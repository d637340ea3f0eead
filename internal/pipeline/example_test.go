package pipeline_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/qapipe/qapipe/internal/pipeline"
)

func ExampleMap() {
	words := func(yield func(string) error) error {
		for _, w := range strings.Fields("the quick brown fox") {
			if err := yield(w); err != nil {
				return err
			}
		}
		return nil
	}
	upper := func(_ context.Context, w string) (string, error) { return strings.ToUpper(w), nil }
	err := pipeline.Map(context.Background(), pipeline.Options{Concurrency: 3}, words, upper, func(w string) error {
		fmt.Println(w)
		return nil
	})
	fmt.Println(err)
	// Output:
	// THE
	// QUICK
	// BROWN
	// FOX
	// <nil>
}
