package judge

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: costs and agreement figures stay the same on arm64 as on amd64.
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
