package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// TestMemoryBounded: the rule judge grades records as they come, holding a bounded window.
func TestMemoryBounded(t *testing.T) {
	text := strings.Repeat("Caroline went to the LGBTQ support group on 7 May 2023. ", 50)
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-judge", "--mode", "rules"},
		N:    4000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"r%d","dataset":"locomo","type":"temporal","question":"When %d?",`+
				`"answers":["7 May 2023"],"context":[{"title":"s","text":%q}],"prediction":{"text":"on 7 May %d"}}`,
				i, i, text, 2000+i%30)
		},
		Limit: 4 << 20,
	})
}
