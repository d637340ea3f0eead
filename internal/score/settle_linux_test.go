package score

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestFailedOutputLeavesTheOther: when one of --summary and --mismatches cannot be finished (a
// gzip file's last block refused by a full disk, here by a limit on the size of a file), the run
// fails (exit 1) and leaves the other as it was too, or none: one was put in place before the
// other was finished, so a failed run left a new mismatches file (or summary) for make to take
// as up to date.
func TestFailedOutputLeavesTheOther(t *testing.T) {
	// records whose ids and wrong answers compress badly, so that a gzip file of them outgrows
	// the limit: the first wrong of them answered wrong
	records := func(wrong int, failed bool) string {
		var in strings.Builder
		for i := range 60 {
			id := fmt.Sprintf("%x", sha256.Sum256([]byte{byte(i)}))[:24]
			pred := "x"
			if i < wrong {
				pred = fmt.Sprintf("%x", sha256.Sum256([]byte{byte(i), 1}))
			}
			fmt.Fprintf(&in, `{"schema":1,"id":%q,"question":"q","answers":["x"],"prediction":{"text":%q}}`+"\n", id, pred)
		}
		if failed { // a record the run counts at its end (exit 3), had the files been put in place
			in.WriteString(`{"schema":1,"id":"failed","question":"q","answers":["x"],"prediction":{"error":"call failed"}}` + "\n")
		}
		return in.String()
	}
	const limit = 1024 // the most bytes a file may hold, as if the disk had no more
	tests := []struct {
		name   string
		wrong  int      // records answered wrong
		failed bool     // a record with a prediction error too
		args   []string // $DIR: the test's folder
		want   string   // the error's start
	}{
		{"summary", 1, false, []string{"--by", "id", "--summary", "$DIR/s.json.gz", "--mismatches", "$DIR/m.jsonl", "--below", "0.5", "--mismatch-metric", "em"}, "--summary: "},
		{"mismatches", 60, false, []string{"--summary", "$DIR/s.json", "--mismatches", "$DIR/m.jsonl.gz", "--below", "1", "--mismatch-metric", "em"}, "--mismatches: "},
		// A run that got to its end with a failed record (exit 3) says that the file was not
		// written, not only that the record failed.
		{"summary after a failed record", 1, true, []string{"--by", "id", "--summary", "$DIR/s.json.gz", "--mismatches", "$DIR/m.jsonl", "--below", "0.5", "--mismatch-metric", "em"}, "--summary: "},
		{"mismatches after a failed record", 60, true, []string{"--summary", "$DIR/s.json", "--mismatches", "$DIR/m.jsonl.gz", "--below", "1", "--mismatch-metric", "em"}, "--mismatches: "},
	}
	for _, tt := range tests {
		for _, before := range []string{"", "old\n"} {
			dir := t.TempDir()
			args := make([]string, len(tt.args))
			var files []string
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "$DIR", dir)
				if args[i] != a {
					files = append(files, args[i])
				}
			}
			if before != "" {
				for _, f := range files {
					if err := os.WriteFile(f, []byte(before), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			var stdout, stderr strings.Builder
			var err error
			clitest.FileSizeLimited(t, limit, func() {
				err = Run(context.Background(), append([]string{"qa-score", "--metrics", "em", "--bootstrap", "0"}, args...),
					strings.NewReader(records(tt.wrong, tt.failed)), &stdout, &stderr)
			})
			if code := command.ExitCode(err); code != command.ExitFailure || !strings.HasPrefix(err.Error(), tt.want) || !strings.Contains(err.Error(), "file too large") {
				t.Errorf("%s: exit %d, %v; want exit 1, an error starting %q that says the file is too large", tt.name, code, err, tt.want)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				switch {
				case before == "" && err == nil:
					t.Errorf("%s: the run failed, but left %s (%d bytes), want none", tt.name, f, len(b))
				case before != "" && string(b) != before:
					t.Errorf("%s: the run failed, but replaced %s (%d bytes), want it as it was", tt.name, f, len(b))
				}
			}
			want := 0 // no file of its own left beside them either
			if before != "" {
				want = len(files)
			}
			if names := dirNames(t, dir); len(names) != want {
				t.Errorf("%s: the folder holds %v, want %d files", tt.name, names, want)
			}
		}
	}
}
