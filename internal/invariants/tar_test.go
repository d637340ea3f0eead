package invariants

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/predict"
	"github.com/qapipe/qapipe/internal/score"
)

// TestTarInputEveryStage: every command reads its input files through the one reader, which
// tells a tar archive (a .tar, a .tar.gz or .tgz, whatever it is called) by its header: each
// stops with the one error that says so, naming the file, where its header was read as a line
// that is no JSON and the records after it as more, and qa-load found no format; nothing comes
// before it (qa-predict wrote its summary, "0 records: ...", first).
func TestTarInputEveryStage(t *testing.T) {
	const recs = `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"x"}}` + "\n"
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	if err := tw.WriteHeader(&tar.Header{Name: "run/recs.jsonl", Mode: 0o644, Size: int64(len(recs))}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(recs))
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(tb.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{ // file → what the error says it is and how to extract it
		write(t, dir, "recs.tar", tb.Bytes()):      "a tar archive, not text: extract it first (tar -xf FILE)",
		write(t, dir, "recs.tar.gz", zb.Bytes()):   "a gzip-compressed tar archive, not text: extract it first (tar -xzf FILE)",
		write(t, dir, "recs.tgz", zb.Bytes()):      "a gzip-compressed tar archive, not text: extract it first (tar -xzf FILE)",
		write(t, dir, "recs.jsonl.gz", zb.Bytes()): "a gzip-compressed tar archive, not text: extract it first (tar -xzf FILE)",
		write(t, dir, "recs.jsonl", tb.Bytes()):    "a tar archive, not text: extract it first (tar -xf FILE)",
	}
	type run func(context.Context, []string, io.Reader, io.Writer, io.Writer) error
	for _, st := range []struct {
		prog string
		run  run
		args []string
	}{
		{"qa-load", load.Run, nil},
		{"qa-predict", predict.Run, []string{"--provider", "extractive"}},
		{"qa-judge", judge.Run, []string{"--mode", "rules"}},
		{"qa-judge agree", judge.Run, nil},
		{"qa-score", score.Run, []string{"--summary", "-"}},
		{"qa-learncurve", learncurve.Run, nil},
	} {
		for file, what := range files {
			var out, errb bytes.Buffer
			args := append(append(strings.Fields(st.prog), st.args...), file)
			err := st.run(context.Background(), args, strings.NewReader(""), &out, &errb)
			want := "read " + file + ": " + what + " and give the files in it"
			if code := command.ExitCode(err); code != command.ExitFailure || err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s %s: exit %d, %v; want exit 1, %q", st.prog, file, code, err, want)
			}
			if out.Len() > 0 || errb.Len() > 0 {
				t.Errorf("%s %s: stdout %q, stderr %q; want no output, no line of the file reported and no summary of a run that read nothing (the error alone)", st.prog, file, out.String(), errb.String())
			}
		}
	}
}
