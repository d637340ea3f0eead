//go:build unix

package command

import "golang.org/x/sys/unix"

// canRead asks the system whether this process may read the file at path, without opening it
// (a named pipe is left for its one reading).
func canRead(path string) error { return unix.Access(path, unix.R_OK) }
