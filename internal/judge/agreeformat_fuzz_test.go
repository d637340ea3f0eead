package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/command"
)

// agreeFormatArgRE finds the agree --format values (and QA_AGREE_FORMAT's) the command tests give.
var agreeFormatArgRE = regexp.MustCompile(`(?:--format[ =]|QA_AGREE_FORMAT=)("[^"\n]*"|\S+)`)

// agreeFormatInput is two judges' verdicts on four records, every one compared.
const agreeFormatInput = `{"schema":1,"id":"r1","answers":["x"],"judgments":{"big":{"score":1},"cheap":{"score":1}}}
{"schema":1,"id":"r2","answers":["x"],"judgments":{"big":{"score":1},"cheap":{"score":0}}}
{"schema":1,"id":"r3","answers":["x"],"judgments":{"big":{"score":0},"cheap":{"score":0}}}
{"schema":1,"id":"r4","answers":["x"],"judgments":{"big":{"score":0},"cheap":{"score":1}}}
`

// FuzzAgreeFormat: qa-judge agree --format, given on the command line or (env) in QA_AGREE_FORMAT,
// takes text or json, json writing one JSON document and text a table (QA_AGREE_FORMAT set empty
// is as if unset: text); any other value is a usage error (exit 2) `--format: unknown format
// "VALUE" (want text or json)`, the value Go-quoted, that a value from the variable ends by naming
// it. Every message is valid UTF-8.
func FuzzAgreeFormat(f *testing.F) {
	for _, v := range []string{"text", "json", "csv", "JSON", " json", "json\n", "", "txt", "jsonl", "markdown", "table", "\xff",
		"QA_AGREE_FORMAT", "text\x00"} {
		f.Add(v, false)
		f.Add(v, true)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "cli", "agree*.txtar"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range agreeFormatArgRE.FindAllStringSubmatch(string(data), -1) {
			v, err := strconv.Unquote(m[1])
			if err != nil {
				v = m[1]
			}
			f.Add(v, strings.HasPrefix(m[0], "QA_"))
		}
	}
	f.Fuzz(func(t *testing.T, value string, env bool) {
		args := []string{"qa-judge", "agree", "--bootstrap", "0", "--format", value}
		if env {
			if strings.IndexByte(value, 0) >= 0 {
				return // no variable holds a NUL
			}
			t.Setenv("QA_AGREE_FORMAT", value)
			args = args[:4]
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), args, strings.NewReader(agreeFormatInput), &stdout, &stderr)
		format := value
		if env && value == "" {
			format = agreeText // an exported QA_AGREE_FORMAT= is as if unset: the default
		}
		switch {
		case err == nil && format == agreeJSON:
			if !json.Valid(stdout.Bytes()) {
				t.Errorf("agree --format %q (env %v): stdout %q is not one JSON document", value, env, stdout.String())
			}
		case err == nil && format == agreeText:
			if json.Valid(stdout.Bytes()) || !strings.Contains(stdout.String(), "big") {
				t.Errorf("agree --format %q (env %v): stdout %q, want the text report", value, env, stdout.String())
			}
		case err == nil:
			t.Errorf("agree --format %q (env %v) accepted, want a usage error", value, env)
		default:
			msg := err.Error()
			want := "--format: unknown format " + strconv.Quote(value) + " (want text or json)"
			if command.ExitCode(err) != command.ExitUsage || !strings.HasPrefix(msg, want) || !utf8.ValidString(msg) ||
				env && !strings.HasSuffix(msg, " (from QA_AGREE_FORMAT)") || format == agreeText || format == agreeJSON {
				t.Errorf("agree --format %q (env %v): error %q (exit %d), want a usage error beginning %q%s",
					value, env, msg, command.ExitCode(err), want, map[bool]string{true: ", from QA_AGREE_FORMAT"}[env])
			}
		}
	})
}
