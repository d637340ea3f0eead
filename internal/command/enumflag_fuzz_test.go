package command

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// tokenFields is model.MaxTokensFields, auto first (model is not imported here).
var tokenFields = []string{"auto", "max_tokens", "max_completion_tokens"}

// enumProviders are the providers MaxTokensField is called with ("" checks the value alone).
var enumProviders = []string{"", "openai", "extractive", "anthropic", "ollama", "gemini"}

// enumArgRE finds the --think and --max-tokens-field values (and their variables') that the
// command tests give.
var enumArgRE = regexp.MustCompile(`(?:--(?:think|max-tokens-field)[ =]|QA_[A-Z_]*(?:THINK|MAX_TOKENS_FIELD)=)("[^"\n]*"|[^\s,:;)]+)`)

// runEnum runs an app of the --think and --max-tokens-field flags (their variables QA_THINK and
// QA_MAX_TOKENS_FIELD) with args, and returns what Think and MaxTokensField (for provider) make
// of them.
func runEnum(t *testing.T, args []string, provider string) (strip bool, thinkErr error, field string, fieldErr error) {
	t.Helper()
	app := &cli.App{
		Name: "qa-x",
		Flags: []cli.Flag{ThinkFlag("QA_THINK", "mode"),
			&cli.StringFlag{Name: "max-tokens-field", Value: tokenFields[0], EnvVars: []string{"QA_MAX_TOKENS_FIELD"}}},
		Action: func(c *cli.Context) error {
			strip, thinkErr = Think(c)
			field, fieldErr = MaxTokensField(c, "max-tokens-field", provider, tokenFields)
			return nil
		},
	}
	if err := app.Run(append([]string{"qa-x"}, args...)); err != nil {
		t.Fatalf("qa-x %q: %v", args, err)
	}
	return strip, thinkErr, field, fieldErr
}

// FuzzEnumFlags: --think and --max-tokens-field, given value on the command line or (env) in
// their variables, take exactly their values: --think strip or keep (strip says which), anything
// else a usage error "--think: want strip or keep, not VALUE" (Go-quoted), naming the variable
// the value came from; --max-tokens-field one of its fields ("" is auto), and a field but auto
// only for openai (or no provider, or the extractive baseline), else a usage error naming the
// value and the variable, and for a field the provider. Every message is valid UTF-8, and an
// accepted value read again gives the same.
func FuzzEnumFlags(f *testing.F) {
	for _, v := range []string{"strip", "keep", "Strip", " keep", "", "kep", "strp", "off", "auto", "max_tokens",
		"max_completion_tokens", "MAX_TOKENS", "max-tokens", "max_completion_token", "max_output_tokens", "\xff", "keep\n"} {
		f.Add(v, false, uint8(0))
	}
	files, _ := filepath.Glob(filepath.Join("..", "*", "testdata", "cli", "*.txtar"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for i, m := range enumArgRE.FindAllStringSubmatch(string(data), -1) {
			v, err := strconv.Unquote(m[1])
			if err != nil {
				v = m[1]
			}
			f.Add(v, strings.HasPrefix(m[0], "QA_"), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, value string, env bool, p uint8) {
		provider := enumProviders[int(p)%len(enumProviders)]
		args, from := []string{"--think=" + value, "--max-tokens-field=" + value}, ""
		if env {
			if strings.IndexByte(value, 0) >= 0 {
				return // no variable holds a NUL
			}
			t.Setenv("QA_THINK", value)
			t.Setenv("QA_MAX_TOKENS_FIELD", value)
			args, from = nil, " from "
		}
		strip, thinkErr, field, fieldErr := runEnum(t, args, provider)

		switch {
		case thinkErr == nil && (value == "strip" || value == "keep"):
			if strip != (value == "strip") {
				t.Errorf("--think %q: strip %v, want %v", value, strip, value == "strip")
			}
			if again, err, _, _ := runEnum(t, []string{"--think", value}, provider); err != nil || again != strip {
				t.Errorf("--think %q read again: strip %v, %v; want %v", value, again, err, strip)
			}
		case thinkErr == nil:
			t.Errorf("--think %q (env %v) accepted (strip %v), want a usage error", value, env, strip)
		default:
			msg := thinkErr.Error()
			if ExitCode(thinkErr) != ExitUsage || !utf8.ValidString(msg) ||
				!strings.HasPrefix(msg, "--think: want strip or keep, not "+strconv.Quote(value)) ||
				env != strings.Contains(msg, " from QA_THINK") || value == "strip" || value == "keep" {
				t.Errorf("--think %q (env %v): error %q (exit %d), want a usage error naming the value%s", value, env, msg, ExitCode(thinkErr), from)
			}
		}

		named := value
		if named == "" {
			named = tokenFields[0]
		}
		valid := slices.Contains(tokenFields, named)
		allowed := named == tokenFields[0] || provider == "" || provider == "openai" || provider == "extractive"
		switch {
		case fieldErr == nil && valid && allowed:
			if field != named {
				t.Errorf("--max-tokens-field %q for %q = %q, want %q", value, provider, field, named)
			}
			if again, err := runEnumField(t, field, provider); err != nil || again != field {
				t.Errorf("--max-tokens-field %q for %q read again = %q, %v; want %q", field, provider, again, err, field)
			}
		case fieldErr == nil:
			t.Errorf("--max-tokens-field %q (env %v) for %q = %q, want a usage error", value, env, provider, field)
		default:
			msg := fieldErr.Error()
			want := "--max-tokens-field: want one of auto, max_tokens, max_completion_tokens, not " + strconv.Quote(named)
			if valid {
				want = "--max-tokens-field " + named
			}
			if ExitCode(fieldErr) != ExitUsage || !utf8.ValidString(msg) || !strings.HasPrefix(msg, want) ||
				env != strings.Contains(msg, " from QA_MAX_TOKENS_FIELD") || valid && (allowed || !strings.Contains(msg, "a call to "+provider+" ")) {
				t.Errorf("--max-tokens-field %q (env %v) for %q: error %q (exit %d), want a usage error beginning %q%s",
					value, env, provider, msg, ExitCode(fieldErr), want, from)
			}
		}
	})
}

// runEnumField is runEnum's --max-tokens-field, given on the command line.
func runEnumField(t *testing.T, value, provider string) (string, error) {
	t.Helper()
	_, _, field, err := runEnum(t, []string{"--max-tokens-field", value}, provider)
	return field, err
}
