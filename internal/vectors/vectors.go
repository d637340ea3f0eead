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

// Read decodes each line of the JSON-lines file that the environment variable env names, or of
// def when env is unset (or ""), into a T, and returns them with the file's path: vector k is
// line k+1. A line that does not decode, or a file with none, stops the test. A fuzz target
// reads its seeds with it, env "", so that they come from the committed file alone.
func Read[T any](t testing.TB, def, env string) ([]T, string) {
	t.Helper()
	path := def
	if p := os.Getenv(env); env != "" && p != "" {
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var cs []T
	for sc.Scan() {
		var c T
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", path, len(cs)+1, err)
		}
		cs = append(cs, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatalf("%s: no vectors", path)
	}
	return cs, path
}

// Check passes each vector Read(t, def, env) gives to check, which returns "" when it agrees and
// else what differs.
func Check[T any](t *testing.T, def, env string, check func(c T) string) {
	t.Helper()
	cs, path := Read[T](t, def, env)
	bad := 0
	for i, c := range cs {
		if msg := check(c); msg != "" {
			if bad++; bad <= 20 {
				t.Errorf("%s:%d: %s", path, i+1, msg)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d vectors differ", path, bad, len(cs))
	}
}

// Spread returns at most n of vs, evenly spaced over them, first included: golden files hold
// their cases in runs (of a source, a language, a shape), and a fuzz target's seed corpus, which
// every go test runs, wants a few of each run rather than the first n.
func Spread[T any](vs []T, n int) []T {
	if len(vs) <= n {
		return vs
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, vs[i*len(vs)/n])
	}
	return out
}
