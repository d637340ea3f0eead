package predict

import (
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestNoCallsOnFiles: the extractive baseline, which calls no model, over files alone stops at the first
// signal; over stdin it passes on every record (clitest.NoCallsOnFiles).
func TestNoCallsOnFiles(t *testing.T) {
	clitest.NoCallsOnFiles(t, Run, []string{"qa-predict", "--provider", "extractive", "--force"},
		`{"schema":1,"id":"a","question":"Who wrote Hamlet?","answers":["Shakespeare"],"context":[{"title":"Hamlet","text":"Hamlet was written by Shakespeare."}],"prediction":{"text":"Shakespeare"}}`+"\n")
}
