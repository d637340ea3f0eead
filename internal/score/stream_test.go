package score

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestOrderAcrossJobs scores the same input with one worker and with several: the output (records
// in input order, summary) must be byte-identical.
func TestOrderAcrossJobs(t *testing.T) {
	var in strings.Builder
	for i := range 600 {
		fmt.Fprintf(&in, `{"schema":1,"id":"r%d","type":"t%d","question":"q","answers":["w%d x y"],"prediction":{"text":"w%d x z"}}`+"\n", i, i%3, i%17, i%5)
		if i%97 == 0 {
			in.WriteString("not json\n")
		}
	}
	run := func(jobs string, summary bool) []byte {
		args := []string{"qa-score", "--jobs", jobs, "--metrics", "em,f1,rouge1,bleu1", "--bootstrap", "50"}
		if summary {
			args = append(args, "--summary", "-")
		}
		var out, errs bytes.Buffer
		err := Run(context.Background(), args, strings.NewReader(in.String()), &out, &errs)
		var want = "7 bad input lines skipped"
		if err == nil || err.Error() != want {
			t.Fatalf("Run(--jobs %s) = %v, want %q", jobs, err, want)
		}
		return out.Bytes()
	}
	for _, summary := range []bool{false, true} {
		one, many := run("1", summary), run("7", summary)
		if !bytes.Equal(one, many) {
			t.Errorf("--jobs 1 and --jobs 7 differ (summary %v):\n%s\n---\n%s", summary, head(one), head(many))
		}
		if !summary {
			if n := bytes.Count(one, []byte("\n")); n != 600 {
				t.Errorf("--jobs 1 wrote %d records, want 600", n)
			}
			if !bytes.HasPrefix(one, []byte(`{"schema":1,"id":"r0",`)) {
				t.Errorf("first record = %s, want r0", head(one))
			}
		}
	}
}

func head(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// TestInterrupted: a cancelled run reports context.Canceled (exit 130).
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := strings.Repeat(`{"schema":1,"id":"a","question":"q","answers":["a"],"prediction":{"text":"a"}}`+"\n", 1000)
	var out, errs bytes.Buffer
	err := Run(ctx, []string{"qa-score", "--metrics", "em"}, strings.NewReader(in), &out, &errs)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled) = %v, want context.Canceled", err)
	}
	if got := errs.String(); got != "" {
		t.Errorf("Run(cancelled) stderr = %q, want nothing (main reports the error)", got)
	}
	command.Report(&errs, "qa-score", err)
	if got := errs.String(); got != "qa-score: interrupted\n" {
		t.Errorf("reported stderr = %q, want %q", got, "qa-score: interrupted\n")
	}
}
