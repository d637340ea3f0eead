//go:build unix

package cache

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCheckSpecialFile: a --cache that names no regular file (/dev/null, a named pipe) is a
// *FileError from Check and Open alike, found before any read of it: a run failed on /dev/null
// with SQLite's "disk I/O error" (exit 1) after a dry run had passed it, and a dry run given a
// named pipe waited on it for ever.
func TestCheckSpecialFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "cache.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tt := range []struct{ name, path, want string }{
		{"device", "/dev/null", "is a device, not a regular file"},
		{"named pipe", fifo, "is a named pipe, not a regular file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for name, open := range map[string]func(string) error{
				"Check": func(path string) error { return Check(path, nil) },
				"Open": func(path string) error {
					c, err := Open(path)
					if err == nil {
						c.Close()
					}
					return err
				},
			} {
				done := make(chan error, 1)
				go func() { done <- open(tt.path) }()
				select {
				case err := <-done:
					checkFileError(t, name, tt.path, err, tt.want)
				case <-time.After(10 * time.Second):
					t.Fatalf("%s(%s) still waiting after 10s", name, tt.path)
				}
			}
		})
	}
}
