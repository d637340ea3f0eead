package learncurve

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/python"
)

// This file writes JSON the way Python's json.dump(obj, indent=2) does: keys in insertion
// order, floats as repr() prints them, non-ASCII escaped (ensure_ascii), so reports compare byte
// for byte with EvaLearn's.

// pyObject is an ordered JSON object; values are pyObject, []any, string, int, float64 or
// []float64.
type pyObject []pyField

type pyField struct {
	Key string
	Val any
}

// encodePy returns v indented by two spaces per level, with no trailing newline.
func encodePy(v any) []byte {
	var b bytes.Buffer
	writePy(&b, v, 0)
	return b.Bytes()
}

// writeSeq writes n items between open and close as json.dump(indent=2) does: one item a line at
// depth+1, separated by commas, and open+close with nothing between when n is 0.
func writeSeq(b *bytes.Buffer, open, close string, n, depth int, item func(i int)) {
	b.WriteString(open)
	if n > 0 {
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			newline(b, depth+1)
			item(i)
		}
		newline(b, depth)
	}
	b.WriteString(close)
}

func writePy(b *bytes.Buffer, v any, depth int) {
	switch v := v.(type) {
	case pyObject:
		writeSeq(b, "{", "}", len(v), depth, func(i int) {
			b.WriteString(python.JSONString(v[i].Key))
			b.WriteString(": ")
			writePy(b, v[i].Val, depth+1)
		})
	case []float64:
		writeSeq(b, "[", "]", len(v), depth, func(i int) { writePy(b, v[i], depth+1) })
	case []any:
		writeSeq(b, "[", "]", len(v), depth, func(i int) { writePy(b, v[i], depth+1) })
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(python.JSONString(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(python.JSONFloat(v))
	default:
		panic(fmt.Sprintf("learncurve: cannot encode %T", v))
	}
}

func newline(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	b.WriteString(strings.Repeat("  ", depth))
}
