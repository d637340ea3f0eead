package load

import (
	"os"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
)

// TestMain runs the tests without the QA_* settings and API keys of the shell that runs them.
func TestMain(m *testing.M) {
	clitest.ClearEnv(map[string]command.RunFunc{"qa-load": Run})
	os.Exit(m.Run())
}
