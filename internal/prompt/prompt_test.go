package prompt

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestManifest checks every embedded file against the sha256 and size in manifest.json, and that
// no template holds a {identifier} token it does not declare.
func TestManifest(t *testing.T) {
	names := Names()
	if len(names) != 45 {
		t.Errorf("len(Names()) = %d, want 45", len(names))
	}
	token := regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			tm := Must(n)
			want, err := ManifestSHA256(n)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.Sum256([]byte(tm.Text))
			if got := hex.EncodeToString(h[:]); got != want || tm.SHA256 != want {
				t.Errorf("sha256(%s) = %s, want %s", n, got, want)
			}
			if !strings.HasSuffix(n, ".txt") {
				return
			}
			for _, m := range token.FindAllStringSubmatch(tm.Text, -1) {
				if !contains(tm.Placeholders, m[1]) {
					t.Errorf("%s: undeclared token {%s}", n, m[1])
				}
			}
			if tm.Source.Repo == "" || tm.Source.Licence == "" {
				t.Errorf("%s: source = %+v, want repo and licence", n, tm.Source)
			}
		})
	}
	// The embedded tree has nothing the manifest does not list (besides README and manifest).
	fs.WalkDir(FS(), "templates", func(p string, d fs.DirEntry, err error) error {
		if d.IsDir() || p == "templates/manifest.json" || p == "templates/README.md" {
			return nil
		}
		if _, err := Get(strings.TrimPrefix(p, "templates/")); err != nil {
			t.Errorf("embedded %s not in manifest", p)
		}
		return nil
	})
}

func TestRender(t *testing.T) {
	vars := map[string]string{"question": "Q {answer} {question}", "answer": "A"}
	tests := []struct{ tmpl, want string }{
		{"{question}|{answer}", "Q {answer} {question}|A"},
		{`{"answer_score": 0} {answer}`, `{"answer_score": 0} A`},
		{"{unknown} {answer", "{unknown} {answer"},
		{"{{answer}}", "{A}"},
		{"{ans wer}{}{", "{ans wer}{}{"},
		{"{answer x} {answer)", "{answer x} {answer)"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Render(tt.tmpl, vars); got != tt.want {
			t.Errorf("Render(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	for _, tt := range []struct {
		tmpl string
		want []string
	}{
		{"{question}|{answer} {question}", []string{"question", "answer"}},
		{`{"answer_score": 0} {answer}`, []string{"answer"}},
		{"{unknown} {answer", []string{"unknown"}},
		{"{{answer}}", []string{"answer"}},
		{"{ans wer}{}{1x}{x1}{_}{", []string{"x1", "_"}},
		{"", nil},
	} {
		if got := Tokens(tt.tmpl); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}

func TestFillErrors(t *testing.T) {
	tm := Must(Mem0User)
	if _, err := tm.Fill(map[string]string{"question": "q"}); err == nil {
		t.Error("Fill with missing placeholders: no error")
	}
	// The error names the undeclared name, not one of the declared ones beside it.
	_, err := tm.Fill(map[string]string{"question": "q", "gold_answer": "", "generated_answer": "", "x": ""})
	if want := "prompt mem0/judge_user.txt: {x} is not a placeholder"; err == nil || err.Error() != want {
		t.Errorf("Fill with an undeclared name: %v, want %s", err, want)
	}
}

// renderToken is a {identifier} token, as Render and Tokens read them.
var renderToken = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func FuzzRender(f *testing.F) {
	f.Add("{question} {answer}", "{answer}")
	f.Add(`{"answer_score": 0}{`, "}")
	f.Add("{{question}} {{x}{answer}} {1a}{_}{a_1}", "{")
	f.Fuzz(func(t *testing.T, tmpl, v string) {
		// Against a reference: every leftmost {identifier} token whose name is a key is replaced, in
		// one pass, and every other byte kept; Tokens lists the tokens' names once each, in order.
		vars := map[string]string{"question": v, "answer": "<" + v + ">", "_": "", "a_1": "{question}"}
		want := renderToken.ReplaceAllStringFunc(tmpl, func(tok string) string {
			if r, ok := vars[tok[1:len(tok)-1]]; ok {
				return r
			}
			return tok
		})
		if got := Render(tmpl, vars); got != want {
			t.Fatalf("Render(%q, %q) = %q, want %q", tmpl, vars, got, want)
		}
		var names []string
		for _, m := range renderToken.FindAllStringSubmatch(tmpl, -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
		if got := Tokens(tmpl); !slices.Equal(got, names) {
			t.Fatalf("Tokens(%q) = %q, want %q", tmpl, got, names)
		}
		got := Render(tmpl, map[string]string{"question": v})
		if !strings.Contains(tmpl, "{question}") && got != tmpl {
			t.Fatalf("Render(%q) = %q, want it unchanged", tmpl, got)
		}
		if strings.Count(got, v) < strings.Count(tmpl, "{question}") {
			t.Fatalf("Render(%q) = %q lost a value", tmpl, got)
		}
		for _, name := range Tokens(tmpl) { // Tokens lists what Render replaces
			if Render(tmpl, map[string]string{name: "\x00"}) == tmpl {
				t.Fatalf("Tokens(%q) lists %q, which Render does not replace", tmpl, name)
			}
		}
	})
}
