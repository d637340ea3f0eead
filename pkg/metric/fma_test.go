package metric

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: every product is rounded before it is added, so that arm64 gives the official
// scripts' figures to the last bit, as amd64 does; math.FMA in the double-double arithmetic of
// BLEU's exp and log and of METEOR's cube is meant, and exact everywhere.
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
