package python_test

import (
	"fmt"

	"github.com/qapipe/qapipe/internal/python"
)

func ExampleStrList() {
	fmt.Println(python.StrList([]string{"it's", "a\tb", "x"}))
	// Output: ["it's", 'a\tb', 'x']
}

func ExampleLoads() {
	v, _ := python.Loads(`{"a": 1, "b": [2.50, -0, 1e400, "\ud800"], "a": true}`)
	fmt.Println(v.Dumps())
	fmt.Println(v.Str())
	// Output:
	// {"a": true, "b": [2.5, 0, Infinity, "\ud800"]}
	// {'a': True, 'b': [2.5, 0, inf, '\ud800']}
}
