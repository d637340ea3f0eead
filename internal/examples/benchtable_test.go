package examples

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchTable runs scripts/bench-table.awk, the table scripts/bench.sh prints, over `go test
// -bench` output: a benchmark's own rate where it reports one, else op/s, and s/op for one of
// under 10 operations a second, which op/s rounded to a whole number showed as 0.
func TestBenchTable(t *testing.T) {
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("no awk on PATH")
	}
	in := `goos: linux
pkg: github.com/qapipe/qapipe/pkg/metric
BenchmarkSquadF1-2          	     907	   1286754 ns/op	   1809254 pairs/s	       0 B/op	       0 allocs/op
BenchmarkLoadWordNet-2      	      15	  78123456 ns/op	18900000 B/op	   12 allocs/op
pkg: github.com/qapipe/qapipe/internal/score
BenchmarkBLEUBootstrap/1000000-2         	       1	2043211987 ns/op	    1024 B/op	       3 allocs/op
BenchmarkBLEUBootstrap/é-2         	       3	 123456789 ns/op	    1024 B/op	       3 allocs/op
BenchmarkCommand-2   	       3	 812345678 ns/op	    123100 records/s	  10400 cpu-ns/record
`
	cmd := exec.Command("awk", "-f", filepath.Join(root, "scripts", "bench-table.awk"))
	cmd.Env = append(cmd.Environ(), "LC_ALL=C")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("awk -f bench-table.awk: %v", err)
	}
	want := []string{
		"  pkg/metric     BenchmarkSquadF1                    1809254 pairs/s   ",
		"  pkg/metric     BenchmarkLoadWordNet                     13 op/s      ",
		"  internal/score BenchmarkBLEUBootstrap/1000000         2.04 s/op      ",
		"  internal/score BenchmarkBLEUBootstrap/é               0.12 s/op      ",
		"  internal/score BenchmarkCommand                     123100 records/s   (10.4 µs CPU/record)",
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("bench-table.awk printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
