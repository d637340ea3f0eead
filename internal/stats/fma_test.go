package stats

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestNoFusedMultiplyAdd: Go may fuse x*y + z into one instruction that rounds once where the CPU
// has one (arm64, ppc64le, s390x, riscv64; not amd64), and did in Quantile's index and the
// resample sums of BootstrapMeans, so that one --seed gave other intervals on arm64 than on amd64
// and than numpy (at 1000 resamples the 97.5th percentile's fraction 0.024999999999977818 for
// 0.024999999999977263). Every product here is rounded by a conversion; the test compiles the
// package for arm64 and looks for a fused instruction.
func TestNoFusedMultiplyAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the package for arm64")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to compile the package for arm64: %v", err)
	}
	cmd := exec.Command(gotool, "build", "-gcflags=-S", ".")
	cmd.Env = append(cmd.Environ(), "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-S for arm64: %v\n%s", err, out)
	}
	fused := regexp.MustCompile(`\tFN?M(ADD|SUB)[DS]\t`)
	fn, listed := "", 0
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == "STEXT" {
			fn, listed = f[0], listed+1
			continue
		}
		if fused.MatchString(line) {
			t.Errorf("%s: fused multiply-add: %s", fn, strings.TrimSpace(line))
		}
	}
	if listed < 10 {
		t.Fatalf("go build -gcflags=-S listed %d functions: the test sees no assembly", listed)
	}
}
