//go:build linux

package clitest

import (
	"syscall"
	"testing"
)

// FileSizeLimited runs f with the process's file size limit (RLIMIT_FSIZE) at limit bytes, so
// that a write past it fails as on a full disk ("file too large"), and puts the limit back after.
// It skips t where the limit cannot be read or set.
func FileSizeLimited(t testing.TB, limit uint64, f func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip("getrlimit:", err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: old.Max}); err != nil {
		t.Skip("setrlimit:", err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
	}()
	f()
}
