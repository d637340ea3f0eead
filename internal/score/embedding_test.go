package score

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

const sbertInput = `{"schema":1,"id":"a","question":"q","answers":["Paris"],"prediction":{"text":"the capital is Paris"}}
{"schema":1,"id":"b","question":"q","answers":["London","Paris"],"prediction":{"text":"Berlin"}}
`

// TestEmbedCacheAndKey checks that the API key comes from QA_EMBED_API_KEY as a bearer token, and
// that a rerun with the same --cache makes no request and writes the same records.
func TestEmbedCacheAndKey(t *testing.T) {
	t.Setenv("QA_EMBED_API_KEY", "sk-test")
	var mu sync.Mutex
	var auth []string
	srv := newOpenAIServer(t, func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
	})
	db := filepath.Join(t.TempDir(), "cache.db")
	run := func() (string, string) {
		var stdout, stderr bytes.Buffer
		args := []string{"qa-score", "--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
			"--embed-base-url", srv.URL + "/v1", "--cache", db}
		err := Run(context.Background(), args, strings.NewReader(sbertInput), &stdout, &stderr)
		if code := command.ExitCode(err); code != 0 {
			t.Fatalf("qa-score: exit %d: %s", code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	first, _ := run()
	mu.Lock()
	calls := len(auth)
	if calls == 0 || auth[0] != "Bearer sk-test" {
		t.Errorf("Authorization headers = %q, want Bearer sk-test", auth)
	}
	mu.Unlock()
	second, stderr := run()
	mu.Lock()
	defer mu.Unlock()
	if len(auth) != calls {
		t.Errorf("rerun with --cache made %d requests, want 0", len(auth)-calls)
	}
	if second != first {
		t.Errorf("rerun output = %s, want %s", second, first)
	}
	if want := "0 batches for 0 texts, 4 texts from the cache"; !strings.Contains(stderr, want) {
		t.Errorf("rerun stderr = %q, want it to contain %q", stderr, want)
	}
	if !strings.Contains(first, `"sbert":0.6`) {
		t.Errorf("first run = %s, want sbert 0.6 for a", first)
	}
}
