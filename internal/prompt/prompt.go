// Package prompt holds the benchmarks' own prompt templates, embedded byte for byte from the
// upstream code, and the renderers that build real prompts from records: the `{placeholder}`
// substitution rule, Python str()/repr()/json.dumps/strip, and the context layouts of LoCoMo,
// LongMemEval, AFlow HotpotQA and EvaLearn. For LoCoMo it also reads the reply to a batched query
// as LoCoMo's script reads it (LoCoMoBatchAnswers), since that reading is part of its protocol.
//
// The templates are data (templates/, with manifest.json giving each file's source, licence and
// sha256), never string literals in code, so a test can prove that what is sent is what the
// benchmark's authors sent.
//
// Note: substitution is one left-to-right pass over the template; inserted values are never
// rescanned. text/template and strings.Replacer chains were rejected: the first needs escaping of the
// upstream braces, the second would rescan or depend on order when a value holds "{question}".
package prompt

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

//go:embed templates
var files embed.FS

// Template is one embedded protocol file.
type Template struct {
	// Name is the path inside the protocols tree, e.g. "longmemeval/judge_default.txt".
	Name string
	// Text is the exact bytes of the file.
	Text string
	// Placeholders lists the `{name}` tokens the template declares, in manifest order.
	Placeholders []string
	// SHA256 is the lower-case hex sha256 of Text.
	SHA256 string
	// Source names the upstream repository, path, commit and licence.
	Source Source
}

// Source is where a template was taken from.
type Source struct {
	Repo    string `json:"repo"`
	Path    string `json:"path"`
	Commit  string `json:"commit"`
	Licence string `json:"licence"`
}

type manifestFile struct {
	File         string   `json:"file"`
	Kind         string   `json:"kind"`
	Placeholders []string `json:"placeholders"`
	Source       Source   `json:"source"`
	SHA256       string   `json:"sha256"`
	Bytes        int      `json:"bytes"`
}

type manifest struct {
	Files []manifestFile `json:"files"`
}

var (
	loadOnce sync.Once
	loaded   map[string]*Template
	loadErr  error
)

// load reads the manifest and every file it lists; it runs once (the embedded data never changes).
func load() (map[string]*Template, error) {
	loadOnce.Do(func() {
		b, err := files.ReadFile("templates/manifest.json")
		if err != nil {
			loadErr = fmt.Errorf("prompt manifest: %w", err)
			return
		}
		var m manifest
		if err := json.Unmarshal(b, &m); err != nil {
			loadErr = fmt.Errorf("prompt manifest: %w", err)
			return
		}
		loaded = make(map[string]*Template, len(m.Files))
		for _, f := range m.Files {
			text, err := files.ReadFile("templates/" + f.File)
			if err != nil {
				loadErr = fmt.Errorf("prompt %s: %w", f.File, err)
				return
			}
			loaded[f.File] = &Template{Name: f.File, Text: string(text), Placeholders: f.Placeholders,
				SHA256: sha256Hex(string(text)), Source: f.Source}
		}
	})
	return loaded, loadErr
}

// Get returns the embedded template named name (e.g. "mem0/judge_user.txt").
func Get(name string) (*Template, error) {
	m, err := load()
	if err != nil {
		return nil, err
	}
	t, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("prompt %s: no such template", name)
	}
	return t, nil
}

// Must returns the embedded template named name and panics if it does not exist; use it only with
// names that are constants of this package's callers (a missing one is a build defect).
func Must(name string) *Template {
	t, err := Get(name)
	if err != nil {
		panic(err)
	}
	return t
}

// Names lists every embedded file, sorted.
func Names() []string {
	m, _ := load()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ManifestSHA256 returns the sha256 manifest.json records for name, for integrity tests.
func ManifestSHA256(name string) (string, error) {
	b, err := files.ReadFile("templates/manifest.json")
	if err != nil {
		return "", err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return "", err
	}
	for _, f := range m.Files {
		if f.File == name {
			return f.SHA256, nil
		}
	}
	return "", fmt.Errorf("prompt %s: not in manifest", name)
}

// FS exposes the embedded templates directory (read-only), rooted at "templates".
func FS() fs.FS { return files }

// Fill renders t with vars. Every declared placeholder must have a value; vars may not name
// anything else.
func (t *Template) Fill(vars map[string]string) (string, error) {
	for _, p := range t.Placeholders {
		if _, ok := vars[p]; !ok {
			return "", fmt.Errorf("prompt %s: no value for {%s}", t.Name, p)
		}
	}
	if len(vars) != len(t.Placeholders) {
		for k := range vars {
			if !contains(t.Placeholders, k) {
				return "", fmt.Errorf("prompt %s: {%s} is not a placeholder", t.Name, k)
			}
		}
	}
	return Render(t.Text, vars), nil
}

// MustFill is Fill for callers that pass exactly the declared placeholders; it panics otherwise.
func (t *Template) MustFill(vars map[string]string) string {
	s, err := t.Fill(vars)
	if err != nil {
		panic(err)
	}
	return s
}

// Render replaces each `{name}` token of tmpl whose name is a key of vars with its value, in one
// left-to-right pass: inserted values are never rescanned, and every other byte (including braces
// that do not form a known token, such as `{"answer_score": 0}`) is kept as it is.
func Render(tmpl string, vars map[string]string) string {
	var b strings.Builder
	b.Grow(len(tmpl))
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		rest := tmpl[i+1:]
		j := identLen(rest)
		if j > 0 && j < len(rest) && rest[j] == '}' {
			if v, ok := vars[rest[:j]]; ok {
				b.WriteString(v)
				tmpl = rest[j+1:]
				continue
			}
		}
		b.WriteByte('{')
		tmpl = rest
	}
}

// Tokens returns the names of the `{name}` tokens of tmpl, as Render reads them, in order of
// first appearance.
func Tokens(tmpl string) []string {
	var names []string
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return names
		}
		rest := tmpl[i+1:]
		if j := identLen(rest); j > 0 && j < len(rest) && rest[j] == '}' && !contains(names, rest[:j]) {
			names = append(names, rest[:j])
		}
		tmpl = rest
	}
}

// identLen returns the length of the Python-identifier-like ASCII prefix of s.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return i
	}
	return len(s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
