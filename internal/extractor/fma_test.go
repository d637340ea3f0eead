package extractor

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: BM25's scores round every product before it is added, so that
// arm64 ranks sentences as amd64 does, ties included.
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
