package embedding

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: the cosines and BERTScore inlined from pkg/metric round every
// product before it is added, so that arm64 gives amd64's figures.
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
