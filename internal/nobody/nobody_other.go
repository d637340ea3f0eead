//go:build !unix

package nobody

import (
	"testing"
)

// Rerun skips t: there is no user nobody to run it as here.
func Rerun(t *testing.T, dir string, env ...string) {
	t.Helper()
	t.Skip("no user nobody to run the test as on this system")
}

// TempDir returns t.TempDir().
func TempDir(t *testing.T) string { return t.TempDir() }
