//go:build unix

package command

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckInputsUnreadable: a file that exists but may not be read stops the run before the
// first file is read, as a missing one does, rather than after the first file's records (and,
// in qa-predict, its calls) are done. Root may read any file, so as root the check runs in a
// copy of the test process run as the user nobody.
func TestCheckInputsUnreadable(t *testing.T) {
	if dir := os.Getenv("QA_TEST_UNREADABLE_DIR"); dir != "" {
		checkUnreadable(t, dir)
		return
	}
	dir, err := os.MkdirTemp("", "unreadable") // not t.TempDir, whose parent only root may enter
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // nobody may look into it
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"a.jsonl": 0o644, "locked.jsonl": 0o000} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() != 0 {
		checkUnreadable(t, dir)
		return
	}
	// The test binary's own folder is root's alone: nobody runs a copy.
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(dir, "command.test")
	if err := os.WriteFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestCheckInputsUnreadable$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "QA_TEST_UNREADABLE_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "--- FAIL: TestCheckInputsUnreadable"):
		t.Fatalf("as nobody:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: TestCheckInputsUnreadable"):
		// Not run: no setuid here (a container without CAP_SETUID), or a temporary folder the
		// user nobody may not execute from (noexec, a folder only root may enter).
		t.Skipf("could not run the check as the user nobody: %v\n%s", err, out)
	}
}

// checkUnreadable runs CheckInputs over the files TestCheckInputsUnreadable made in dir.
func checkUnreadable(t *testing.T, dir string) {
	a, locked := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "locked.jsonl")
	if err := CheckInputs([]string{a}); err != nil {
		t.Errorf("CheckInputs(readable) = %v, want nil", err)
	}
	err := CheckInputs([]string{a, locked})
	if want := "open " + locked + ": permission denied"; err == nil || err.Error() != want || ExitCode(err) != ExitFailure {
		t.Errorf("CheckInputs(readable, unreadable) = %v (exit %d), want %q (exit %d)", err, ExitCode(err), want, ExitFailure)
	}
}
