package score

import (
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestNoCallsOnFiles: qa-score without embedding metrics, which calls no model, over files alone stops at the first
// signal; over stdin it passes on every record (clitest.NoCallsOnFiles).
func TestNoCallsOnFiles(t *testing.T) {
	clitest.NoCallsOnFiles(t, Run, []string{"qa-score", "--metrics", "em,f1"},
		`{"schema":1,"id":"a","question":"Who wrote Hamlet?","answers":["Shakespeare"],"context":[{"title":"Hamlet","text":"Hamlet was written by Shakespeare."}],"prediction":{"text":"Shakespeare"}}`+"\n")
}
