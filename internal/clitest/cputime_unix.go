//go:build unix

package clitest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system, all threads) the process has used so far, so
// that a benchmark can report CPU per record, which a loaded machine distorts less than wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
