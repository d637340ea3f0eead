package predict

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestSystemWhiteSpace: a --system of white space alone is a usage error, whether typed or from
// QA_SYSTEM: it was sent as a system message that says nothing, which a provider may refuse on
// every call. "" still means none.
func TestSystemWhiteSpace(t *testing.T) {
	in := `{"schema":1,"id":"a","question":"Capital of France?","answers":["Paris"]}` + "\n"
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string // in the usage error; "" for a run that goes on
	}{
		{"blanks", []string{"--system", "  "}, "", "--system: white space alone"},
		{"a line break", []string{"--system", "\n"}, "", "--system: white space alone"},
		{"from QA_SYSTEM", nil, " \t", "--system from QA_SYSTEM: white space alone"},
		{"empty: none", []string{"--system", ""}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("QA_SYSTEM", tc.env)
			}
			args := append([]string{"qa-predict", "--provider", "openai", "--model", "gpt-4o", "--api-key-file", keyFile(t), "--dry-run"}, tc.args...)
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), args, strings.NewReader(in), &stdout, &stderr)
			code := command.ExitCode(err)
			switch {
			case tc.want == "" && code != 0:
				t.Errorf("exit %d (%v), want 0", code, err)
			case tc.want != "" && (code != command.ExitUsage || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("exit %d (%v), want a usage error holding %q", code, err, tc.want)
			}
		})
	}
}
