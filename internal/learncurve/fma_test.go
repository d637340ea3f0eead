package learncurve

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: the fitted line and the legend's widths round every product before
// it is added, so that arm64 draws what amd64 draws.
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
