package load

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// writeTar writes a tar archive of the file src to dir/name, gzip-compressed with zip.
func writeTar(t *testing.T, src, dir, name string, zip bool) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(&tar.Header{Name: "data/" + filepath.Base(src), Mode: 0o644, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	tw.Write(data)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	out := b.Bytes()
	if zip {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(out)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		out = z.Bytes()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTarInputs: a tar archive, gzip-compressed or not, whatever its name, is one error that says
// so and to extract it, naming the file, with every --format and without, and as either file
// of EvaLearn's pair; its header was read as a line of text, or its format not detected.
func TestTarInputs(t *testing.T) {
	dir := t.TempDir()
	const (
		tarMsg = ": a tar archive, not text: extract it first (tar -xf FILE) and give the files in it"
		tgzMsg = ": a gzip-compressed tar archive, not text: extract it first (tar -xzf FILE) and give the files in it"
	)
	check := func(want string, args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append([]string{"qa-load"}, args...), nil, &stdout, &stderr)
		if code := command.ExitCode(err); code != command.ExitFailure || err.Error() != want || stdout.Len() > 0 || stderr.Len() > 0 {
			t.Errorf("Run(%q) = %v (exit %d), stdout %q, stderr %q; want exit 1, %q alone", args, err, code, stdout.String(), stderr.String(), want)
		}
	}
	for _, tc := range []struct {
		name string
		zip  bool
		msg  string
	}{
		{"dev.tar.gz", true, tgzMsg},
		{"dev.tgz", true, tgzMsg},
		{"dev.json.gz", true, tgzMsg}, // a .gz whose text is a tar archive
		{"dev.tar", false, tarMsg},
		{"dev.json", false, tarMsg}, // named as the file it holds
		{"dev", false, tarMsg},
	} {
		path := writeTar(t, "testdata/squad_v11_synthetic.json", dir, tc.name, tc.zip)
		check("read "+path+tc.msg, path)
		for _, f := range Formats() {
			if f != "evalearn" {
				check("read "+path+tc.msg, "--format", f, path)
			}
		}
	}
	p := writeTar(t, "testdata/EvaLearn_Problem.json", dir, "EvaLearn_Problem.json", true)
	s := writeTar(t, "testdata/EvaLearn_Sequence.json", dir, "EvaLearn_Sequence.json", false)
	check("read "+p+tgzMsg, "--format", "evalearn", p, "testdata/EvaLearn_Sequence.json")
	check("read "+s+tarMsg, "--format", "evalearn", "testdata/EvaLearn_Problem.json", s)
	check("read "+p+tgzMsg, "--format", "evalearn", p, s)
	check("read "+p+tgzMsg, p, s)
	check("read "+s+tarMsg, "testdata/EvaLearn_Problem.json", s)
}
