package command

import (
	"os"
	"strings"
	"testing"
)

// TestMain runs the tests without the QA_* settings and API keys of the shell that runs them:
// the test commands' flags read QA_COUNT, QA_SEED, QA_LEVEL and the like, which a test that
// needs one sets with t.Setenv. QA_TEST_* tell a child process which helper to be, and a child
// keeps what its test set for it (clitest.ClearEnv, which this package cannot import, does the
// same for the commands).
func TestMain(m *testing.M) {
	const cleared = "QAPIPE_TEST_ENV_CLEARED"
	if os.Getenv(cleared) == "" {
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(k, "QA_") && !strings.HasPrefix(k, "QA_TEST_") || strings.HasSuffix(k, "_API_KEY") {
				os.Unsetenv(k)
			}
		}
		os.Setenv(cleared, "1")
	}
	os.Exit(m.Run())
}
