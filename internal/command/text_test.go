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
	"testing/iotest"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"{", "{"},
		{"ab", "ab"},
		{"abc", "abc"},
		{"\ufeff", ""},
		{"\ufeff{\"id\":1}\n", "{\"id\":1}\n"},
		{"\ufeff\ufeffx", "\ufeffx"}, // one mark only
		{"x\ufeff", "x\ufeff"},       // not at the start: data
		{"\xef\xbb", "\xef\xbb"},     // a cut mark is data
		{"\xef\xbbx", "\xef\xbbx"},
	} {
		for name, r := range map[string]io.Reader{
			"whole":   strings.NewReader(tc.in),
			"onebyte": iotest.OneByteReader(strings.NewReader(tc.in)),
		} {
			got, err := io.ReadAll(Text(r))
			if err != nil || string(got) != tc.want {
				t.Errorf("Text(%q) %s = %q, %v; want %q", tc.in, name, got, err, tc.want)
			}
		}
	}
}

func TestTextError(t *testing.T) {
	boom := errors.New("boom")
	if _, err := io.ReadAll(Text(iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("Text(failing reader) error = %v, want %v", err, boom)
	}
}

func gz(t *testing.T, parts ...string) string {
	t.Helper()
	var out strings.Builder
	for _, p := range parts { // several members, as `cat a.gz b.gz` makes
		var b strings.Builder
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		out.WriteString(b.String())
	}
	return out.String()
}

// TestTextGzip: gzip data is known by its magic bytes and decompressed, members one after
// another, and the decompressed text loses its byte order mark; a damaged stream is an error.
func TestTextGzip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{gz(t, "{\"id\":1}\n"), "{\"id\":1}\n"},
		{gz(t, "\ufeffa\n"), "a\n"},
		{gz(t, "a\n", "b\n"), "a\nb\n"},
		{gz(t, ""), ""},
	} {
		for name, r := range map[string]io.Reader{
			"whole":   strings.NewReader(tc.in),
			"onebyte": iotest.OneByteReader(strings.NewReader(tc.in)),
		} {
			got, err := io.ReadAll(Text(r))
			if err != nil || string(got) != tc.want {
				t.Errorf("Text(gzip of %q) %s = %q, %v", tc.want, name, got, err)
			}
		}
	}
	whole := gz(t, strings.Repeat("line\n", 1000))
	for _, bad := range []string{"\x1f\x8b", "\x1f\x8bxxxxxxxxxxxxxxxx", whole[:len(whole)/2]} {
		if got, err := io.ReadAll(Text(strings.NewReader(bad))); err == nil {
			t.Errorf("Text(damaged gzip %q…) = %q, nil; want an error", bad[:2], got)
		}
	}
}

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
