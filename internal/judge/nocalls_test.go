package judge

import (
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestNoCallsOnFiles: the rules judge, which calls no model, over files alone stops at the first
// signal; over stdin it passes on every record (clitest.NoCallsOnFiles).
func TestNoCallsOnFiles(t *testing.T) {
	clitest.NoCallsOnFiles(t, Run, []string{"qa-judge", "--mode", "rules"},
		`{"schema":1,"id":"a","question":"Who wrote Hamlet?","answers":["Shakespeare"],"context":[{"title":"Hamlet","text":"Hamlet was written by Shakespeare."}],"prediction":{"text":"Shakespeare"}}`+"\n")
}
