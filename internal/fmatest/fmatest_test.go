package fmatest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listed is an arm64 -gcflags=-S listing cut down to what fusions reads: two functions, one with
// a fused multiply-add from an inlined function of another package.
const listed = `github.com/qapipe/qapipe/internal/model.Prices.Cost STEXT size=288 args=0x48 locals=0x48 funcid=0x0 align=0x0
	0x00e8 00232 (/src/internal/model/price.go:223)	FMOVD	github.com/qapipe/qapipe/internal/model.out-72(SP), F2
	0x00ec 00236 (/src/internal/model/price.go:223)	FMADDD	F1, F0, F2, F0
	0x00f0 00240 (/src/internal/model/price.go:223)	FMOVD	$f64.412e848000000000(SB), F1
github.com/qapipe/qapipe/internal/embedding.cosine[go.shape.float32] STEXT size=96 args=0x30 locals=0x0 funcid=0x0 align=0x0
	0x004c 00076 (/src/pkg/metric/embed.go:32)	FMADDD	F4, F2, F3, F2
	0x0050 00080 (/src/pkg/metric/embed.go:32)	FNMSUBS	F3, F1, F3, F1
	0x0054 00084 (/src/pkg/metric/embed.go:33)	FMULD	F4, F0, F4
`

func TestFusions(t *testing.T) {
	found, funcs := fusions([]byte(listed))
	want := map[string][]string{
		"/src/internal/model/price.go:223": {"model.Prices.Cost"},
		"/src/pkg/metric/embed.go:32":      {"embedding.cosine[go.shape.float32]"},
	}
	if diff := cmp.Diff(want, found); diff != "" || funcs != 2 {
		t.Errorf("fusions(listed) = %v, %d functions, want %v, 2 (-want +got):\n%s", found, funcs, want, diff)
	}
}

func TestCallsFMA(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"\te := math.FMA(a.hi, b.hi, -p)", true},
		{"\treturn math.FMA(hi, x, float64(lo*x))", true},
		{"\ts += float64(a[i]) * float64(b[i])", false},
		{"\ts := a + b // not math.FMA(a, b, c)", false},
	} {
		if got := callsFMA(c.line); got != c.want {
			t.Errorf("callsFMA(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}
