package predict

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestBatchesSourceFailure: an input that fails part-way ends the batch still open, which is
// yielded as it stands before the source's error is returned, as every record read before the
// failure is; a yield that fails (the run cancelled) gets nothing more.
func TestBatchesSourceFailure(t *testing.T) {
	seq := func(id string, pos int) *record.Record {
		return &record.Record{ID: fmt.Sprintf("%s:%d", id, pos), Sequence: &record.Sequence{ID: id, Position: pos}}
	}
	block := func(id, b string) *record.Record { return &record.Record{ID: id, Type: b} }
	tests := []struct {
		name string
		recs []*record.Record
		want string // the batches yielded, by their records' ids
	}{
		{"sequence open", []*record.Record{seq("g", 1), seq("g", 2), seq("w", 1), seq("w", 2)}, "[g:1 g:2] [w:1 w:2]"},
		{"block open", []*record.Record{block("a", "0"), block("b", "0"), block("c", "1")}, "[a b] [c]"},
		{"plain last", []*record.Record{seq("g", 1), {ID: "p"}}, "[g:1] [p]"},
		{"nothing read", nil, ""},
	}
	bad := errors.New("read preds.zip: a zip archive")
	blockOf := func(r *record.Record) string { return r.Type }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := func(yield func(*record.Record) error) error {
				for _, r := range tt.recs {
					if err := yield(r); err != nil {
						return err
					}
				}
				return bad
			}
			var got []string
			err := batches(src, blockOf, maxClosed)(func(b *batch) error {
				got = append(got, fmt.Sprint(ids(b.recs)))
				return nil
			})
			if !errors.Is(err, bad) {
				t.Errorf("batches = %v, want %v", err, bad)
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("batches yielded %s, want %s", s, tt.want)
			}
		})
	}
	t.Run("yield fails", func(t *testing.T) {
		stop := errors.New("cancelled")
		src := func(yield func(*record.Record) error) error {
			for _, r := range []*record.Record{seq("g", 1), seq("w", 1), seq("w", 2)} {
				if err := yield(r); err != nil {
					return err
				}
			}
			return nil
		}
		calls := 0
		err := batches(src, blockOf, maxClosed)(func(*batch) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("batches = %v after %d yields, want %v after 1", err, calls, stop)
		}
	})
}

func ids(recs []*record.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// zipStart is the start of a zip archive, which qa-predict refuses to read as records.
const zipStart = "PK\x03\x04\x14\x00\x00\x00\x08\x00preds.jsonl"

// TestSequenceOpenAtReadFailure replays evaluate.py's transcript over sequence 4 whole and the
// first three positions of sequence 36, after which the input fails: a zip archive given as the
// next file, or a bad line under --strict. The run stops with exit 1, but sequence 36's three
// positions read are solved in order, each with the history of those before it (every request
// one evaluate.py sent, each once), and all ten records read are written, the summary line
// before the error.
func TestSequenceOpenAtReadFailure(t *testing.T) {
	calls := loadTranscript(t)
	results := loadResults(t)
	scores := []float64{0, 1, 1, 0, 1, 0, 0}
	read := strings.Join(strings.SplitAfter(seqInput(t), "\n")[:10], "")
	tests := []struct {
		name    string
		input   func(dir string) []string // writes the input; its args after the flags
		wantErr string
	}{
		{"zip", func(dir string) []string {
			in, zip := filepath.Join(dir, "seq.jsonl"), filepath.Join(dir, "preds.zip")
			writeFile(t, in, read)
			writeFile(t, zip, zipStart)
			return []string{in, zip}
		}, "preds.zip: a zip archive"},
		{"strict bad line", func(dir string) []string {
			in := filepath.Join(dir, "seq.jsonl")
			writeFile(t, in, read+"{not json\n")
			return []string{"--strict", in}
		}, "seq.jsonl:11: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newReplayServer(t, calls)
			recs, stderr, err := seqRun(t, "", append(seqArgs(t, srv.URL), tt.input(t.TempDir())...)...)
			if command.ExitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), tt.wantErr) {
				t.Fatalf("run = %v (exit %d), want exit 1 with %q\n%s", err, command.ExitCode(err), tt.wantErr, stderr)
			}
			srv.check(t)
			for i := range calls {
				want := 0
				if i < 20 { // the student and judge calls of the ten positions read
					want = 1
				}
				if n := srv.asked(i); n != want {
					t.Errorf("call %d (seq %d pos %d %s) asked %d times, want %d", i, calls[i].Sequence, calls[i].Position, calls[i].Role, n, want)
				}
			}
			if len(recs) != 10 {
				t.Fatalf("got %d records, want the 10 read\n%s", len(recs), stderr)
			}
			for i, rec := range recs {
				checkTranscriptRecord(t, rec, calls[2*i], calls[2*i+1], results[i], scores[i%7], false)
			}
			summary := strings.Index(stderr, "qa-predict: 10 records: 10 predicted (0 cached), 0 passed through, 0 errors;")
			if summary < 0 || strings.Index(stderr, tt.wantErr) < summary {
				t.Errorf("stderr lacks the summary of 10 records before the error:\n%s", stderr)
			}
		})
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
