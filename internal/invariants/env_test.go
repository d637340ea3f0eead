package invariants

import (
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/predict"
	"github.com/qapipe/qapipe/internal/score"
)

// TestMain runs the tests without the QA_* settings and API keys of the shell that runs them.
func TestMain(m *testing.M) {
	clitest.Main(m, map[string]command.RunFunc{
		"qa-load": load.Run, "qa-predict": predict.Run, "qa-judge": judge.Run, "qa-score": score.Run, "qa-learncurve": learncurve.Run,
	})
}
