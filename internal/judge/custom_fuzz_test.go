package judge

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// FuzzLoadCustom writes arbitrary bytes as a custom judge prompt and loads it with a format:
// no panic; a format that is none of CustomFormats is an error that quotes it, a prompt that
// does not load one that names the file; a prompt that loads is UTF-8 text with a {prediction},
// hashed as it reads, lists exactly its tokens that are no placeholder, and its plan sends the
// prediction, with the parse of its format.
func FuzzLoadCustom(f *testing.F) {
	for _, s := range []string{
		"Question: {question}\nGold: {answer}\nAnswer: {prediction}\nReply yes or no.",
		"{prediction} {gold} {Prediction} {prediction} {x_1} {1x} {}", "{{prediction}}", "{prediction} {meta.x} {answers[0]} {gold!r}", "no placeholder",
		"\xef\xbb\xbf{prediction}", "\xff\xfe{\x00p\x00}\x00", "{predic\xfftion}", "{prediction", "\x1f\x8b\x08",
		"Rubric: {rubric}\nAll: {answers}\nId {id}, type {type}\n{prediction}",
	} {
		for _, format := range append(slices.Clone(CustomFormats), "json", "") {
			f.Add([]byte(s), format)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		path := filepath.Join(t.TempDir(), "judge.txt")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadCustom(path, format)
		if err != nil {
			if !strings.Contains(err.Error(), path) && !strings.Contains(err.Error(), "prompt format "+strconv.Quote(format)) {
				t.Fatalf("LoadCustom(%q, %q): error %q names neither the file nor the format", data, format, err)
			}
			return
		}
		if !slices.Contains(CustomFormats, format) {
			t.Fatalf("LoadCustom(%q, %q) loads a format that is none of %q", data, format, CustomFormats)
		}
		if !utf8.ValidString(c.Text) || !strings.Contains(c.Text, "{prediction}") {
			t.Fatalf("LoadCustom(%q) = text %q, want UTF-8 with {prediction}", data, c.Text)
		}
		if c.Path != path || c.Format != format || c.SHA256 != shaHex(c.Text) {
			t.Fatalf("LoadCustom(%q, %q) = %+v", data, format, c)
		}
		var unknown []string
		for _, name := range prompt.Tokens(c.Text) {
			if !slices.Contains(customPlaceholders, name) {
				unknown = append(unknown, "{"+name+"}")
			}
		}
		for _, ref := range fieldRefs(c.Text) {
			if !strings.Contains(c.Text, ref) || len(prompt.Tokens(ref)) != 0 {
				t.Fatalf("fieldRefs(%q) holds %q, no field of the text or a plain token", c.Text, ref)
			}
			if !slices.Contains(unknown, ref) {
				unknown = append(unknown, ref)
			}
		}
		if !slices.Equal(c.Unknown, unknown) {
			t.Fatalf("LoadCustom(%q).Unknown = %q, want %q", c.Text, c.Unknown, unknown)
		}
		const pred = "\x00the prediction\x00"
		p, err := c.Plan(&record.Record{ID: "q1", Question: "q?", Answers: []string{"a"}, Rubric: "r"}, pred)
		if err != nil || len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content, pred) || p.PromptSHA256 != c.SHA256 || p.Parse == nil {
			t.Fatalf("LoadCustom(%q).Plan = %+v, %v, want one message with the prediction", c.Text, p, err)
		}
	})
}
