package record

import (
	"bytes"
	"encoding/json"
	"reflect"
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

// FuzzLastValues checks what decodeKnown's second decoding of a refused object rests on: an object
// that decodes, as a record or as a prediction, decodes to the same without the members that
// LastValues takes out (and with the objects it merges), encoded again byte for byte.
func FuzzLastValues(f *testing.F) {
	for _, s := range []string{
		`{"schema":1,"id":"a","id":"b","id":null,"question":"q","answers":["x"],"answers":null,"answers":["y"]}`,
		`{"schema":1,"id":"a","meta":{"k":1},"meta":{"j":2,"k":3},"meta":null,"meta":{"m":4,"m":5}}`,
		`{"schema":1,"id":"a","judgments":{"j":{"score":1},"k":{"score":0}},"judgments":{"j":{"label":"x"}},"scores":{"em":1,"em":0}}`,
		`{"schema":1,"id":"a","prediction":{"text":"x","usage":{"input_tokens":3},"usage":{"output_tokens":2}},"prediction":{"text":"y","cost_usd":1,"cost_usd":null}}`,
		`{"schema":1,"id":"a","prediction":{"text":"x"},"prediction":null,"sequence":{"id":"s","position":1},"sequence":{"id":"t"}}`,
		`{"schema":1,"id":"a","type":"x","type":"","type":null,"context":[{"text":"t","text":null,"sentences":["a"],"sentences":null}],"context":[]}`,
		`{"text":"x","text":null,"score":0.5,"score":null,"supporting_facts":[["a",1]],"supporting_facts":[],"batch":{"index":1},"batch":{"size":2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lastValuesAgree[Record](t, b)
		lastValuesAgree[Prediction](t, b)
	})
}

// lastValuesAgree fails t when b decodes as a T and LastValues(b) decodes otherwise.
func lastValuesAgree[T json.Marshaler](t *testing.T, b []byte) {
	t.Helper()
	var v1 T
	if Unmarshal(b, &v1) != nil {
		return
	}
	last := LastValues(b, reflect.TypeFor[T]())
	if last == nil {
		return
	}
	var v2 T
	if err := Unmarshal(last, &v2); err != nil {
		t.Fatalf("%s decodes, %s does not: %v", b, last, err)
	}
	e1, err1 := v1.MarshalJSON()
	e2, err2 := v2.MarshalJSON()
	if !bytes.Equal(e1, e2) || (err1 == nil) != (err2 == nil) {
		t.Fatalf("%s decodes to %s (%v), %s to %s (%v)", b, e1, err1, last, e2, err2)
	}
}
