package command

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSkipBOM(t *testing.T) {
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
			got, err := io.ReadAll(SkipBOM(r))
			if err != nil || string(got) != tc.want {
				t.Errorf("SkipBOM(%q) %s = %q, %v; want %q", tc.in, name, got, err, tc.want)
			}
		}
	}
}

func TestSkipBOMError(t *testing.T) {
	boom := errors.New("boom")
	if _, err := io.ReadAll(SkipBOM(iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("SkipBOM(failing reader) error = %v, want %v", err, boom)
	}
}
