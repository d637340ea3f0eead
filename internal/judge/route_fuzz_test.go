package judge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzLoadRoutes: a --route file of any bytes is read without a panic; refused, its error begins
// with the file's path; read, every route names a mode --mode accepts but auto, or skip, every
// dataset is lower-cased, and each key as written names the route it became.
func FuzzLoadRoutes(f *testing.F) {
	for _, s := range []string{`{}`, `{"locomo": "mem0", "LongMemEval/temporal-reasoning": "rules"}`,
		`{"*": "skip"}`, `{"LoCoMo": "mem0", "locomo": "rules"}`, `{"x": "auto"}`, `{"x": "rule"}`,
		`{"a/b/c": "evalearn"}`, `{"ΣΑ/Τ": "unanswerable"}`, `{"x": 1}`, `[]`, `null`, ``, "\xef\xbb\xbf{}",
		`{"x": "mem0", "x": "rules"}`} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "r.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, written, err := LoadRoutes(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path) {
				t.Fatalf("LoadRoutes(%q): error %q does not begin with the path", b, err)
			}
			return
		}
		for k, m := range r {
			if m == ModeAuto || (m != ModeSkip && !slices.Contains(Modes, m)) {
				t.Fatalf("LoadRoutes(%q) routes %q to %q, no mode a route may name", b, k, m)
			}
			if ds, _, _ := strings.Cut(k, "/"); ds != strings.ToLower(ds) {
				t.Fatalf("LoadRoutes(%q) has key %q, its dataset not lower-cased", b, k)
			}
		}
		for k, w := range written {
			want := strings.ToLower(w)
			if ds, typ, ok := strings.Cut(w, "/"); ok {
				want = strings.ToLower(ds) + "/" + typ
			}
			if k != want {
				t.Fatalf("LoadRoutes(%q): key %q became %q, want %q", b, w, k, want)
			}
			if _, ok := r[k]; !ok {
				t.Fatalf("LoadRoutes(%q): key %q became %q, which the table lacks", b, w, k)
			}
		}
	})
}
