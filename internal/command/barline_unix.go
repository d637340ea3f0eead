//go:build unix

package command

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// openLock opens the terminal f for its bar lock, by the device's own name, so that the lock
// is this process's alone (a flock belongs to an open file, which the stages of a pipeline share
// for their stderr), or returns nil when it cannot.
func openLock(f *os.File) *os.File {
	path, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil || !strings.HasPrefix(path, "/dev/") {
		path = f.Name()
		if !strings.HasPrefix(path, "/dev/") || strings.HasPrefix(path, "/dev/std") || strings.HasPrefix(path, "/dev/fd/") {
			path = "/dev/tty" // the controlling terminal, where /proc does not name it
		}
	}
	lock, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	return lock
}

// tryLock takes the lock on lock if no other process holds it.
func tryLock(lock *os.File) bool {
	return syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// waitLock takes the lock on the open file fd, waiting for it.
func waitLock(fd int) {
	for syscall.Flock(fd, syscall.LOCK_EX) == syscall.EINTR {
	}
}

// unlock gives the lock on lock up.
func unlock(lock *os.File) { syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) } //nolint:errcheck // released at exit anyway
