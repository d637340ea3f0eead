package score

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/metric"
)

// parseBaseline reads the value of --baseline: one number used for P, R and F1 ("0.83"), three
// numbers "P,R,F", or the name of a file holding either, or a bert_score baseline file
// (rescale_baseline/<lang>/<model>.tsv: a "LAYER,P,R,F" header and one row per layer). From such a
// file the row of the highest layer is used: TEI's /embed_all returns the model's last layer, while
// bert_score's default for many models is an inner layer — pick the file row that matches the
// layer your server returns and pass its three numbers instead when they differ. Every baseline
// must be finite and below 1, and the numbers given in arg hold no empty one ("0.1,,0.2,0.3").
func parseBaseline(arg string) (metric.Baseline, error) {
	b, err := parseNumbers(arg)
	if err == nil {
		// "0.1,,0.2,0.3" reads as three numbers: a slip, refused as a list flag's empty item is
		if err := command.EmptyItem("baseline", arg, strings.Split(arg, ","), "number"); err != nil {
			return metric.Baseline{}, err
		}
		return b, nil
	}
	data, ferr := textfile.ReadFile(arg)
	if ferr != nil {
		if errors.Is(ferr, os.ErrNotExist) {
			return metric.Baseline{}, fmt.Errorf("--baseline: %w, and no file %q", err, arg)
		}
		return metric.Baseline{}, fmt.Errorf("--baseline: %w", ferr)
	}
	b, err = parseBaselineFile(arg, string(data))
	if err != nil {
		return metric.Baseline{}, fmt.Errorf("--baseline: %w", err)
	}
	return b, nil
}

// baselineRow is a line of a baseline file that is neither blank nor a comment, with its number
// in the file.
type baselineRow struct {
	line int
	text string
}

// parseBaselineFile reads s, the text of the baseline file name. Its errors begin with name and,
// when a line is at fault, its number in the file: blank lines, comments and the header count,
// as in every other input error.
func parseBaselineFile(name, s string) (metric.Baseline, error) {
	var rows []baselineRow
	for i, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			rows = append(rows, baselineRow{i + 1, line})
		}
	}
	if len(rows) == 0 {
		return metric.Baseline{}, fmt.Errorf("%s: empty file", name)
	}
	at := func(r baselineRow, err error) error { return fmt.Errorf("%s:%d: %w", name, r.line, err) }
	head := rows[0]
	if len(rows) == 1 && !strings.HasPrefix(strings.ToUpper(head.text), "LAYER") {
		b, err := parseNumbers(head.text)
		if err != nil {
			return metric.Baseline{}, at(head, err)
		}
		return b, nil
	}
	if h := strings.ToUpper(strings.Join(strings.Fields(strings.ReplaceAll(head.text, ",", " ")), ",")); h != "LAYER,P,R,F" {
		return metric.Baseline{}, at(head, fmt.Errorf("header %q: want LAYER,P,R,F", head.text))
	}
	best, layer := metric.Baseline{}, -1
	lines := map[int]int{} // layer → its line
	for _, row := range rows[1:] {
		f := splitNumbers(row.text)
		if len(f) != 4 {
			return metric.Baseline{}, at(row, fmt.Errorf("row %q: want LAYER,P,R,F", row.text))
		}
		l, err := strconv.Atoi(f[0])
		if err != nil || l < 0 {
			return metric.Baseline{}, at(row, fmt.Errorf("layer %q: want a whole number from 0", f[0]))
		}
		if before, ok := lines[l]; ok {
			// two rows of one layer: which the run used would be a guess
			return metric.Baseline{}, at(row, fmt.Errorf("layer %d given twice (line %d too)", l, before))
		}
		lines[l] = row.line
		b, err := parseNumbers(strings.Join(f[1:], ","))
		if err != nil {
			return metric.Baseline{}, at(row, err)
		}
		if l > layer {
			best, layer = b, l
		}
	}
	if layer < 0 {
		return metric.Baseline{}, at(head, errors.New("no rows after the header"))
	}
	return best, nil
}

// splitNumbers splits on commas, tabs and spaces.
func splitNumbers(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\t' || r == ' ' })
}

// parseNumbers parses "b" or "p,r,f".
func parseNumbers(s string) (metric.Baseline, error) {
	f := splitNumbers(s)
	if len(f) != 1 && len(f) != 3 {
		return metric.Baseline{}, fmt.Errorf("baseline %q: want one number or three (P,R,F)", s)
	}
	v := make([]float64, len(f))
	for i, x := range f {
		n, err := command.ParseDecimal(x) // as number flags read theirs: no 0x1p-1, 1_0 or NaN
		if err != nil {
			return metric.Baseline{}, fmt.Errorf("baseline %q: %v", s, err)
		}
		if n >= 1 {
			return metric.Baseline{}, fmt.Errorf("baseline %q: %q is not a number below 1", s, x)
		}
		v[i] = n
	}
	if len(v) == 1 {
		return metric.Baseline{Precision: v[0], Recall: v[0], F1: v[0]}, nil
	}
	return metric.Baseline{Precision: v[0], Recall: v[1], F1: v[2]}, nil
}
