package stats

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: arm64 fused Quantile's index and the resample sums of BootstrapMeans, so
// that one --seed gave other intervals there than on amd64 and numpy (at 1000 resamples the 97.5th
// percentile's fraction 0.024999999999977818 for 0.024999999999977263).
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
