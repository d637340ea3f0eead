package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzRoundTrip checks that any line that decodes as a record encodes to a line that decodes to the
// same record (empty known containers may be dropped), and that encoding is then stable byte for byte.
// A line that does not decode must get a message that names no Go type.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"schema":1,"id":"a","question":"q","answers":["x"]}`,
		`{"schema":1,"id":"a","question":"q","answers":[""],"zz":{"k":[1,2.50,null]},"meta":{"n":1e400}}`,
		`{"schema":1,"id":"b","question":"é","answers":[],"prediction":{"text":"t","x":1,"supporting_facts":[["a",1]]},"judgments":{"j":{"score":0.5,"y":"z"}}}`,
		`{"schema":1,"id":"c","question":"","answers":null,"context":[{"text":"p","sentences":["s"],"u":true}],"sequence":{"id":"1","position":2}}`,
		`{"schema":1,"id":"d","answers":"x","prediction":{"text":5,"supporting_facts":[["a","1"]]},"judgments":{"j":{"score":"s"}}}`,
		`{"schema":1,"id":"e","scores":{"f1":null},"scores":{"em":1},"score_errors":{"a":"x"},"Score_errors":{"b":null},"score\u005ferrors":{}}`,
		`{"schema":1,"id":"f","meta":{"m\ud800":1,"m\udc00":2},"x\uD83D\uDE00":1,"judgments":{"j\ud800":{"score":1}}}`,
		`{"schema":1,"id":"g","context":[{"text":null}],"sequence":{"id":"s","id":null,"position":null},"prediction":{"text":null,"error":"e","batch":{"first":null,"index":1,"index":null,"size":null}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var r1 Record
		if err := Unmarshal(line, &r1); err != nil {
			if msg := DescribeDecodeError(err); strings.Contains(msg, "Go ") || strings.Contains(msg, "plain") {
				t.Fatalf("message for %s names Go types: %s", line, msg)
			}
			return
		}
		// Members and the splicing stages walk a line the decoder accepted as valid JSON.
		if !json.Valid(line) {
			t.Fatalf("Unmarshal accepted %q, which is not JSON", line)
		}
		b1, err := r1.MarshalJSON()
		if err != nil {
			return // e.g. a NaN cannot come from JSON, but an invalid raw member can
		}
		var r2 Record
		if err := Unmarshal(b1, &r2); err != nil {
			t.Fatalf("re-decode of %s: %v", b1, err)
		}
		b2, err := r2.MarshalJSON()
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if !bytes.Equal(b1, b2) {
			t.Fatalf("encoding not stable:\n%s\n%s", b1, b2)
		}
		if diff := cmp.Diff(r1, r2, cmpopts.EquateEmpty(), cmp.AllowUnexported(Record{}, Prediction{}, Usage{}, Passage{}, Judgment{}, Sequence{}, Batch{}, emptyMember{})); diff != "" {
			t.Fatalf("round trip changed the record (-first +second):\n%s", diff)
		}
	})
}
