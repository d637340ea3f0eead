//go:build unix

package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qapipe/qapipe/internal/nobody"
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
	dir := nobody.TempDir(t)
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
	nobody.Rerun(t, dir, "QA_TEST_UNREADABLE_DIR="+dir)
}

// checkUnreadable runs CheckInputs over the files TestCheckInputsUnreadable made in dir.
func checkUnreadable(t *testing.T, dir string) {
	a, locked := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "locked.jsonl")
	if err := CheckInputs([]string{a}, nil, nil); err != nil {
		t.Errorf("CheckInputs(readable) = %v, want nil", err)
	}
	err := CheckInputs([]string{a, locked}, nil, nil)
	if want := "open " + locked + ": permission denied"; err == nil || err.Error() != want || ExitCode(err) != ExitFailure {
		t.Errorf("CheckInputs(readable, unreadable) = %v (exit %d), want %q (exit %d)", err, ExitCode(err), want, ExitFailure)
	}
}
