package score

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoGeminiClient: qa-score's embedding metrics share package model's transport, but
// not its Gemini client, whose Google libraries (gRPC, protobuf, the generated API clients)
// doubled qa-score's size and start-up time (package gemini, model.Config.Gemini). langchaingo's
// other provider packages, which package model imports, are small and stay linked.
func TestLinksNoGeminiClient(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to list qa-score's packages: %v", err)
	}
	out, err := exec.Command(gotool, "list", "-deps", "github.com/qapipe/qapipe/cmd/qa-score").Output()
	if err != nil {
		t.Fatalf("go list -deps qa-score: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps qa-score listed %d packages: %q", len(deps), deps)
	}
	for _, p := range deps {
		for _, banned := range []string{"github.com/qapipe/qapipe/internal/gemini", "github.com/tmc/langchaingo/llms/googleai", "google.golang.org/grpc", "cloud.google.com/"} {
			if strings.HasPrefix(p, banned) {
				t.Errorf("qa-score links %s", p)
			}
		}
	}
}
