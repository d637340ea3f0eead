//go:build unix

package command

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReplaceOutputOwner: the new file takes the owner and group of the file it replaces, so
// that a shared project's summary stays its owner's and readable by its group (mode 0640); where
// this process cannot give them (not root, another user's file), the file is written in place.
func TestReplaceOutputOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a file of another owner")
	}
	dir := t.TempDir()
	path := write(t, filepath.Join(dir, "s.json"), "old", 0o640)
	const uid, gid = 4321, 4322
	if err := os.Chown(path, uid, gid); err != nil {
		t.Skip(err)
	}
	r, err := ReplaceOutput(path, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]byte("new"))
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Sys().(*syscall.Stat_t)
	if s.Uid != uid || s.Gid != gid || st.Mode().Perm() != 0o640 {
		t.Errorf("%s: owner %d, group %d, mode %v; want %d, %d, %v", path, s.Uid, s.Gid, st.Mode().Perm(), uid, gid, os.FileMode(0o640))
	}
	if got := content(t, path); got != "new" {
		t.Errorf("%s = %q, want %q", path, got, "new")
	}
}
