package model

import (
	"testing"

	"github.com/qapipe/qapipe/internal/fmatest"
)

// TestNoFusedMultiplyAdd: costs round every product before it is added, so that arm64 prints
// amd64's costs to the last digit.
func TestNoFusedMultiplyAdd(t *testing.T) { fmatest.Check(t) }
