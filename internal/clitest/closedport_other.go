//go:build !unix

package clitest

import "testing"

// boundPort is not available here: ClosedURL falls back on the port of a closed server.
func boundPort(*testing.T) (int, bool) { return 0, false }
