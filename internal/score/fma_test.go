package score

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: summary means, AUC's trapezoids and the metrics inlined from
// pkg/metric round every product before it is added, so that arm64 gives amd64's figures.
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
