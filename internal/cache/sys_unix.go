//go:build unix

package cache

import (
	"errors"

	"golang.org/x/sys/unix"
)

// canWrite asks the system whether this process may write the file or folder at path, without
// writing it.
func canWrite(path string) error { return unix.Access(path, unix.W_OK) }

// canRead asks the system whether this process may read the file at path, without opening it.
func canRead(path string) error { return unix.Access(path, unix.R_OK) }

// processAlive reports whether a process with the id pid runs on this machine (one this
// process may not signal runs too).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || !errors.Is(err, unix.ESRCH)
}
