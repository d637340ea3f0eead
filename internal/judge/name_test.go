package judge

import (
	"errors"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestCheckName: a --name that qa-judge agree --names could not pick (white space at either end,
// which --names trims, or a comma, at which it splits) is a usage error, and so is one that is not
// UTF-8, which the records would hold under another name, or that holds a control character or a
// line separator, which would break the summary's line; white space inside a name, a slash
// (MODE/MODEL) and no name at all (the default) are not.
func TestCheckName(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string // part of the error; "" for none
	}{
		{"", ""},
		{"rules-approximate", ""},
		{"locomo/gpt-4o", ""},
		{"my judge", ""},
		{" rules", `" rules" begins or ends with white space`},
		{"rules ", `"rules " begins or ends with white space`},
		{"rules\t", `"rules\t" begins or ends with white space`},
		{"\nrules", `"\nrules" begins or ends with white space`},
		{"  ", `"  " begins or ends with white space`},
		{"a,b", `"a,b" holds a comma`},
		{",", `"," holds a comma`},
		{"a\xffb", `"a\xffb" is not UTF-8 text: the judgment would be written under another name`},
		{"r\xc3", `"r\xc3" is not UTF-8 text`},
		{"juge-équipe", ""},
		{"a\nb", `"a\nb" holds a control character or a line separator`},
		{"a\x1b[31mb", `"a\x1b[31mb" holds a control character`},
		{"a\u0085b", `"a\u0085b" holds a control character`},
		{"a\u007fb", `"a\x7fb" holds a control character`},
		{"a\u2028b", `"a\u2028b" holds a control character or a line separator`},
		{"a\u2029b", `"a\u2029b" holds a control character or a line separator`},
		{"a\u200bb", ""},
	} {
		err := checkName(tt.name, "")
		var usage *command.UsageError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("checkName(%q) = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !errors.As(err, &usage) || !strings.Contains(err.Error(), "--name: "+tt.want)):
			t.Errorf("checkName(%q) = %v, want a usage error holding %q", tt.name, err, "--name: "+tt.want)
		}
	}
}
