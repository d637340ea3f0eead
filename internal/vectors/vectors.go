// Package vectors runs tests over JSON-lines files of reference vectors: one committed file, or a
// larger one named by an environment variable, each line decoded and checked, and every failing
// line counted, the first twenty shown with their file:line. It is imported by tests only.
package vectors

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// Check decodes each line of the JSON-lines file that the environment variable env names, or of
// def when env is unset, into a fresh T and passes it to check, which returns "" when the line
// agrees and else what differs. A line that does not decode stops the test.
func Check[T any](t *testing.T, def, env string, check func(c T) string) {
	t.Helper()
	path := def
	if p := os.Getenv(env); p != "" {
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	n, bad := 0, 0
	for sc.Scan() {
		n++
		var c T
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if msg := check(c); msg != "" {
			if bad++; bad <= 20 {
				t.Errorf("%s:%d: %s", path, n, msg)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("%s: no vectors", path)
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d vectors differ", path, bad, n)
	}
}
