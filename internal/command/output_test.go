package command

import "testing"

// TestStdout: "-" and the names of descriptor 1 are stdout; other descriptors, files named like
// them and "" are not.
func TestStdout(t *testing.T) {
	for path, want := range map[string]bool{
		"-": true, "/dev/stdout": true, "/dev/fd/1": true, "/proc/self/fd/1": true,
		"": false, "/dev/stderr": false, "/dev/fd/2": false, "/dev/fd/10": false, "stdout": false, "./-": false, "/dev/fd/": false,
	} {
		if got := Stdout(path); got != want {
			t.Errorf("Stdout(%q) = %v, want %v", path, got, want)
		}
	}
}
