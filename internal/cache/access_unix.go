//go:build unix

package cache

import "golang.org/x/sys/unix"

// canWrite asks the system whether this process may write the file or folder at path, without
// writing it.
func canWrite(path string) error { return unix.Access(path, unix.W_OK) }
