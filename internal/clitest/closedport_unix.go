//go:build unix

package clitest

import (
	"syscall"
	"testing"
)

// boundPort binds a loopback TCP socket to a port of the system's choosing without listening on
// it, until the test ends, and returns the port: a connection there is refused, and as the
// socket does not ask to share its address no other socket, of this process or another, is given
// the port meanwhile. ok is false where no such socket can be made.
func boundPort(t *testing.T) (port int, ok bool) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return 0, false
	}
	syscall.CloseOnExec(fd)
	sa := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return 0, false
	}
	got, err := syscall.Getsockname(fd)
	in4, isIn4 := got.(*syscall.SockaddrInet4)
	if err != nil || !isIn4 {
		syscall.Close(fd)
		return 0, false
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return in4.Port, true
}
