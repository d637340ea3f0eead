package load

import (
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// loadString runs load over in (named name) with the mapping m and returns the ids of the records,
// the bad items' messages and the loader's error.
func loadString(t *testing.T, load Loader, name, in string, opt Options) (ids, bads []string, err error) {
	t.Helper()
	err = load(Input{Name: name, R: strings.NewReader(in)}, opt, func(r *record.Record, bad error) error {
		if bad != nil {
			bads = append(bads, bad.Error())
			return nil
		}
		ids = append(ids, r.ID)
		return nil
	})
	return ids, bads, err
}

func TestCSVHeader(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     string // the loader's error, "" for none
	}{
		{"ok", "id,question,answers\n1,q,a\n", ""},
		{"repeated answers", "id,question,answers,answers\n1,q,a,b\n",
			`d.csv:1: column "answers" is named twice in the header (fields 3 and 4)`},
		{"repeated meta", "id,question,note,x,note\n1,q,a,b,c\n",
			`d.csv:1: column "note" is named twice in the header (fields 3 and 5)`},
		{"repeated empty", "id,question,,\n1,q,a,b\n",
			"d.csv:1: fields 3 and 4 of the header have no name"},
		{"not text", "id,question,\xff\n1,q,a\n", "d.csv:1: header field 3: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, CSV, "d.csv", tt.in, Options{})
			if tt.want == "" {
				if err != nil || len(ids) != 1 || len(bads) != 0 {
					t.Errorf("CSV(%q) = ids %q, bad %q, %v; want one record", tt.in, ids, bads, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || len(ids) != 0 {
				t.Errorf("CSV(%q) = ids %q, %v; want no record and error %q", tt.in, ids, err, tt.want)
			}
		})
	}
}
