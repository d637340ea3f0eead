package predict

import (
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/load"
)

// TestMain runs the tests without the QA_* settings and API keys of the shell that runs them.
func TestMain(m *testing.M) {
	clitest.Main(m, map[string]command.RunFunc{"qa-predict": Run, "qa-load": load.Run, "qa-learncurve": learncurve.Run})
}
