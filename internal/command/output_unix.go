//go:build unix

package command

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// dupDescriptor returns a duplicate of the open descriptor fd, which path names, as a file of
// that name: it shares the descriptor's offset and its append mode. A descriptor open for
// reading only fails here, before the work, and not at the first write.
func dupDescriptor(path string, fd int) (*os.File, error) {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil && flags&unix.O_ACCMODE == unix.O_RDONLY {
		err = unix.EBADF
	}
	var d int
	if err == nil {
		d, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(d), path), nil
}

// nullForBoth reports whether fd is the null device open for reading and writing: what the Go
// runtime puts at descriptors 0-2 found closed when the process starts (a shell's >&-), where a
// shell's > /dev/null opens it for writing only.
func nullForBoth(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_ACCMODE != unix.O_RDWR {
		return false
	}
	var st, null unix.Stat_t
	if unix.Fstat(fd, &st) != nil || unix.Stat(os.DevNull, &null) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == null.Rdev
}

// dupStdout returns a duplicate of descriptor 1, named as os.Stdout is.
func dupStdout() (*os.File, error) { return dupDescriptor(os.Stdout.Name(), 1) }

// linked reports whether the file st describes has other names (hard links), which a file
// renamed over it would part from the one replaced.
func linked(st os.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && s.Nlink > 1
}

// keepOwner gives f, the file that is to replace the one st describes, that file's owner and
// group, and fails when it cannot (another user's file, a group this process is not in): renamed
// over it, f would take the file from its owner, and from its group's members what the mode gave
// them.
func keepOwner(f *os.File, st os.FileInfo) error {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fst, err := f.Stat()
	if err != nil {
		return err
	}
	if n, ok := fst.Sys().(*syscall.Stat_t); ok && n.Uid == s.Uid && n.Gid == s.Gid {
		return nil
	}
	return f.Chown(int(s.Uid), int(s.Gid))
}

// fileID returns the device and inode of the file st describes, which os.SameFile compares.
func fileID(st os.FileInfo) (id [2]uint64, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return id, false
	}
	return [2]uint64{uint64(s.Dev), s.Ino}, true
}
