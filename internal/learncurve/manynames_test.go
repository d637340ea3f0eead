package learncurve

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestManyJudgmentNamesSteady: a record with more judgment names than the error lists (maxNames)
// gives the same list on every run, the first names in order, not those a Go map gave first.
func TestManyJudgmentNamesSteady(t *testing.T) {
	var js []string
	for i := range maxNames + 5 {
		js = append(js, fmt.Sprintf(`"j%02d":{"score":1}`, i))
	}
	in := `{"schema":1,"id":"evalearn:1:1","dataset":"evalearn","question":"q","sequence":{"id":"1","position":1},"judgments":{` + strings.Join(js, ",") + `}}` + "\n"
	var first string
	for i := range 30 {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-learncurve", "--judge", "nobody"}, strings.NewReader(in), &stdout, &stderr)
		if err == nil {
			t.Fatal("no verdict under --judge nobody: no error")
		}
		if i == 0 {
			first = err.Error()
			if !strings.Contains(first, `"j19"`) || strings.Contains(first, `"j20"`) {
				t.Fatalf("error %q: want j00 to j19 listed, the first %d names in order", first, maxNames)
			}
		} else if err.Error() != first {
			t.Fatalf("run %d: error %q, the first run's %q", i+1, err, first)
		}
	}
}
