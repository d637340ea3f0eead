package vectors

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// fatalTB is a testing.TB whose Fatal stops only the goroutine that calls it and keeps what it
// said, so that a test can see how Read stops a test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatal(args ...any) { f.msg = fmt.Sprint(args...); runtime.Goexit() }

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// readFails runs Read[vec] on def and env with a fatalTB and returns what its Fatal said, or ""
// when it returned.
func readFails(t *testing.T, def, env string) string {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Read[vec](tb, def, env)
	}()
	<-done
	return tb.msg
}

type vec struct {
	In  string `json:"in"`
	Out int    `json:"out"`
}

// writeFile writes text to name in a temporary directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRead: Read decodes every line of the committed file, or of the file the variable names
// when it is set and not empty; a line that does not decode, a file without vectors and a file
// that is not there stop the test, naming the file (and the line).
func TestRead(t *testing.T) {
	def := writeFile(t, "def.jsonl", `{"in":"a","out":1}`+"\n"+`{"in":"b","out":2}`)
	other := writeFile(t, "other.jsonl", `{"in":"c","out":3}`+"\n")
	for _, tc := range []struct {
		env      string
		set      bool
		wantPath string
		want     []vec
	}{
		{"", false, def, []vec{{"a", 1}, {"b", 2}}},
		{other, false, def, []vec{{"a", 1}, {"b", 2}}}, // no variable named: the committed file alone
		{other, true, other, []vec{{"c", 3}}},
		{"", true, def, []vec{{"a", 1}, {"b", 2}}}, // a variable set empty names nothing
	} {
		env := ""
		if tc.set {
			env = "QA_VECTORS_TEST"
			t.Setenv(env, tc.env)
		}
		got, path := Read[vec](t, def, env)
		if path != tc.wantPath || !slices.Equal(got, tc.want) {
			t.Errorf("Read(env %q=%q) = %v, %s; want %v, %s", env, tc.env, got, path, tc.want, tc.wantPath)
		}
	}
	// A line longer than bufio's 64 KiB default is read whole.
	long := writeFile(t, "long.jsonl", `{"in":"`+strings.Repeat("x", 1<<20)+`","out":7}`+"\n")
	if got, _ := Read[vec](t, long, ""); len(got) != 1 || len(got[0].In) != 1<<20 || got[0].Out != 7 {
		t.Errorf("Read of a line of 1 MiB = %d vectors, want its one", len(got))
	}
	bad := writeFile(t, "bad.jsonl", `{"in":"a","out":1}`+"\n"+`{"in":"b","out":"x"}`+"\n")
	empty := writeFile(t, "empty.jsonl", "")
	for path, want := range map[string]string{
		bad:   bad + `:2: json: cannot unmarshal string into Go struct field vec.out of type int`,
		empty: empty + ": no vectors",
	} {
		if got := readFails(t, path, ""); got != want {
			t.Errorf("Read(%s) stopped the test with %q, want %q", path, got, want)
		}
	}
	if got := readFails(t, filepath.Join(t.TempDir(), "none.jsonl"), ""); !strings.Contains(got, "none.jsonl: no such file") {
		t.Errorf("Read of a file that is not there stopped the test with %q, want its error", got)
	}
	// A file that opens but cannot be read stops the test with the read's error.
	if dir := t.TempDir(); !strings.HasSuffix(readFails(t, dir, ""), "is a directory") {
		t.Errorf("Read of a directory stopped the test with %q, want the read's error", readFails(t, dir, ""))
	}
}

// TestReadClassCases: the cases read carry the source they were read as.
func TestReadClassCases(t *testing.T) {
	path := writeFile(t, "auc.jsonl", `{"id":"a1","kind":"auc","input":{"x":[1]},"params":{},"expected":{"auc":0.5}}`+"\n"+`{"id":"a2","kind":"auc"}`+"\n")
	cases := ReadClassCases(t, path, "random/auc.jsonl", 2)
	if len(cases) != 2 || cases[0].ID != "a1" || cases[1].ID != "a2" || string(cases[0].Expected["auc"]) != "0.5" ||
		cases[0].Source != "random/auc.jsonl" || cases[1].Source != "random/auc.jsonl" {
		t.Errorf("ReadClassCases = %+v, want a1 and a2 from random/auc.jsonl", cases)
	}
	if cases := ReadClassCases(t, path, "auc.jsonl", -1); len(cases) != 2 {
		t.Errorf("ReadClassCases(any count) = %d cases, want 2", len(cases))
	}
}

// TestSpread: at most n vectors, evenly spaced, the first included.
func TestSpread(t *testing.T) {
	vs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for n, want := range map[int][]int{
		1: {0}, 3: {0, 3, 6}, 4: {0, 2, 5, 7}, 5: {0, 2, 4, 6, 8}, 9: {0, 1, 2, 3, 4, 5, 6, 7, 8}, 10: vs, 11: vs,
	} {
		if got := Spread(vs, n); !slices.Equal(got, want) {
			t.Errorf("Spread(0..9, %d) = %v, want %v", n, got, want)
		}
	}
}

// TestAppendEscaped: a backslash, tab, carriage return or line feed is escaped as the facts
// scripts write it; everything else, other bytes of UTF-8 included, is kept.
func TestAppendEscaped(t *testing.T) {
	got := string(AppendEscaped([]byte("U+0009\t"), "a\\b\tc\rd\ne\u00e9\"'\x00"))
	if want := "U+0009\ta\\\\b\\tc\\rd\\ne\u00e9\"'\x00"; got != want {
		t.Errorf("AppendEscaped = %q, want %q", got, want)
	}
}
