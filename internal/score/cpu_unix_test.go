//go:build unix

package score

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system, all threads) the process has used so far, so
// benchmarks can report CPU per record, which a loaded machine distorts less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
