//go:build !unix

package clitest

import "time"

// CPUTime is not measured on this system: 0.
func CPUTime() time.Duration { return 0 }
