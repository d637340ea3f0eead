package load

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestCSVRowLimit: --max-line bounds a CSV row, all its lines and its line end counted: a row of
// that many bytes loads, a longer one stops the load with an error naming where it begins, the
// rows before it loaded; a last row without a line end is held to the bound as well.
func TestCSVRowLimit(t *testing.T) {
	const head = "id,question,answers\n" // 20 bytes: the rows at the bound are 21
	for _, tt := range []struct {
		name, in string
		max      int
		ids      []string
		err      string // the loader's error, "" for none
	}{
		// The cases named "at the bound" load with max, and stop with max-1 (checked below).
		{"rows at the bound", head + "q1,What is it now?,a\n" + "q2,What is that???,b\n", 21, []string{"q1", "q2"}, ""},
		{"CRLF row at the bound", head + "q1,What is it?!!,ab\r\n", 21, []string{"q1"}, ""},
		{"last row, no line end, at the bound", head + "q1,What is that?!!,bb", 21, []string{"q1"}, ""},
		{"a row a byte over", head + "q1,a,b\n" + "q2,What is that?!!,b\n" + "q3,c,d\n", 20, []string{"q1"},
			`d.csv:3: the row is longer than --max-line's 20 bytes (is a quoted cell's closing " missing? it takes in every line after it): stopped`},
		{"a row far over", head + "q1,a,b\n" + "q2," + strings.Repeat("w", 100) + ",b\n" + "q3,c,d\n", 20, []string{"q1"},
			`d.csv: the row after line 2 is longer than --max-line's 20 bytes`},
		{"last row over, no line end", head + "q1,a,b\n" + "q2,What is that?,bbbb", 20, []string{"q1"},
			`d.csv: the row after line 2 is longer than --max-line's 20 bytes`},
		{"a quoted cell over lines at the bound", head + "q1,\"What\nis it?!!\",a\n", 21, []string{"q1"}, ""},
		{"a quoted cell over lines over", head + "q1,\"What\nis it\nnow\",a\n", 20, nil,
			`d.csv: the row after line 1 is longer than --max-line's 20 bytes`},
		{"the header over", head + "q1,a,b\n", 19, nil,
			`d.csv:1: the header row is longer than --max-line's 19 bytes`},
		{"the header over, no line end", "id,question,answers", 18, nil,
			`d.csv:1: the header row is longer than --max-line's 18 bytes`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, bads, err := loadString(t, CSV, "d.csv", tt.in, Options{MaxLine: tt.max})
			if len(bads) != 0 || !slices.Equal(ids, tt.ids) {
				t.Errorf("CSV(%q) = ids %q, bad %q; want ids %q", tt.in, ids, bads, tt.ids)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("CSV(%q): %v, want no error", tt.in, err)
			case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
				t.Errorf("CSV(%q): error %v, want %q", tt.in, err, tt.err)
			}
			if strings.HasSuffix(tt.name, "at the bound") {
				if _, _, err := loadString(t, CSV, "d.csv", tt.in, Options{MaxLine: tt.max - 1}); err == nil {
					t.Errorf("CSV(%q) with --max-line %d: no error, want a row too long", tt.in, tt.max-1)
				}
			}
		})
	}
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestCSVUnclosedQuoteBounded: a quoted cell whose closing quote is missing, in a large file,
// stops the load once its row passes --max-line, having read no more of the file than the bound
// and the reader's look-ahead, where it took in (and held) every line after it.
func TestCSVUnclosedQuoteBounded(t *testing.T) {
	const maxLine = 1 << 16
	row := "q,What is it?,a\n"
	in := "id,question,answers\n" + "q0,\"unclosed,a\n" + strings.Repeat(row, 1<<16) // 1 MiB after it
	cr := &countingReader{r: strings.NewReader(in)}
	var ids []string
	err := CSV(Input{Name: "d.csv", R: cr}, Options{MaxLine: maxLine}, func(r *record.Record, _ int, bad error) error {
		if bad == nil {
			ids = append(ids, r.ID)
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "d.csv: the row after line 1 is longer than --max-line's 65536 bytes") {
		t.Errorf("CSV: error %v, want the row after line 1 too long", err)
	}
	if len(ids) != 0 {
		t.Errorf("CSV: records %q, want none", ids)
	}
	if limit := int64(20 + maxLine + 1 + sniffHead); cr.n > limit {
		t.Errorf("CSV read %d bytes of %d, want at most %d", cr.n, len(in), limit)
	}
}

// FuzzCSVRowLimit: a CSV input loaded under a --max-line bound gives what it gives unbounded,
// or stops with a row too long, having given a prefix of it: the bound loses or changes nothing
// else.
func FuzzCSVRowLimit(f *testing.F) {
	f.Add([]byte("id,question,answers\nq1,What?,a\nq2,\"Who\nwrote\",b\n"), uint8(12))
	f.Add([]byte("id,question,answers\r\nq1,What?,a\r\nq2,\"Who,b\n"), uint8(20))
	f.Add([]byte("question;answers\nx;y\n\n\nz;w"), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		run := func(maxLine int) ([]string, error) {
			var got []string
			err := CSV(Input{Name: "d.csv", R: bytes.NewReader(data)}, Options{MaxLine: maxLine}, func(r *record.Record, _ int, bad error) error {
				if bad != nil {
					got = append(got, "bad: "+bad.Error())
					return nil
				}
				b, err := r.MarshalJSON()
				got = append(got, string(b))
				return err
			})
			return got, err
		}
		all, allErr := run(0)
		got, err := run(int(max) + 1)
		if err != nil && strings.Contains(err.Error(), "longer than --max-line") {
			if len(got) > len(all) || !slices.Equal(got, all[:len(got)]) {
				t.Errorf("bounded at %d: %q before %v, not a prefix of %q", int(max)+1, got, err, all)
			}
			return
		}
		if !slices.Equal(got, all) || fmt.Sprint(err) != fmt.Sprint(allErr) {
			t.Errorf("bounded at %d: %q, %v; unbounded %q, %v", int(max)+1, got, err, all, allErr)
		}
	})
}
