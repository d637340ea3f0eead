//go:build unix

// Package nobody lets a test that needs an ordinary user's limits (files it may not read or
// write) run when the tests run as root, who may read and write anything: Rerun runs the test
// again in a copy of the test binary as the user nobody.
package nobody

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// ID is the user and group id of the user nobody.
const ID = 65534

// Rerun runs the top-level test t again as the user nobody, in a copy of the test binary made in
// dir (the binary's own folder is root's alone), with env added to the environment, by which the
// copy knows it is the rerun. It fails t when the rerun fails and skips t when the rerun could
// not run: no setuid here (a container without CAP_SETUID), or a dir the user nobody may not
// enter or execute from. dir must be one nobody may enter: not t.TempDir, whose parent only root
// may.
func Rerun(t *testing.T, dir string, env ...string) {
	t.Helper()
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := os.WriteFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: ID, Gid: ID}}
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "--- FAIL: "+t.Name()):
		t.Fatalf("as the user nobody:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Skipf("could not run the test as the user nobody: %v\n%s", err, out)
	}
}

// TempDir returns a new folder that the user nobody may enter and read, removed when t ends.
func TempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
