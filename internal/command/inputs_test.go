package command

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpenInputsText: every input, named file or stdin, is read as Text.
func TestOpenInputsText(t *testing.T) {
	dir := t.TempDir()
	plain, zipped := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl.gz")
	if err := os.WriteFile(plain, []byte("\ufeffa\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zipped, []byte(gz(t, "\ufeffb\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := OpenInputs([]string{plain, "-", zipped}, strings.NewReader(gz(t, "c\n")), func(in Input) error {
		b, err := io.ReadAll(in.R)
		got = append(got, in.DisplayName()+": "+string(b))
		return err
	})
	want := []string{plain + ": a\n", "stdin: c\n", zipped + ": b\n"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("OpenInputs read %q, %v; want %q", got, err, want)
	}
}

func TestNotAnInput(t *testing.T) {
	dir := t.TempDir()
	in, other, link := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "other.jsonl"), filepath.Join(dir, "link.jsonl")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(in, link); err != nil {
		t.Skip("no hard links here:", err)
	}
	inputs := []string{"-", in}
	for _, tc := range []struct {
		path string
		bad  bool
	}{
		{"", false}, {"-", false}, {filepath.Join(dir, "new.json"), false}, {other, false},
		{in, true}, {link, true}, {filepath.Join(dir, ".", "in.jsonl"), true},
	} {
		err := NotAnInput("--out", tc.path, inputs)
		var ue *UsageError
		if got := errors.As(err, &ue); got != tc.bad {
			t.Errorf("NotAnInput(%q) = %v, want a usage error: %v", tc.path, err, tc.bad)
		}
	}
}

func gz(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
