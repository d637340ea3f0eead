package cache

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestClientBilledRetries: a call whose failed generations (finish_reason "error") were retried
// and billed is stored, once it is answered, with the usage of every reply and each one's apart,
// so that a rerun from the cache writes the same usage and cost; one that failed throughout,
// billed all the same, is never stored, and is asked again.
func TestClientBilledRetries(t *testing.T) {
	failed := `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Par"},` +
		`"finish_reason":"error","error":{"code":502,"message":"Upstream error"}}],"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8}}`
	tc := model.TransportConfig{MaxRetries: 1, Backoff: -1}
	ctx := context.Background()

	srv := newChatServer(t, func(n int64, q string) (int, string) {
		if n%2 == 1 {
			return 200, failed
		}
		return 200, echo(q)
	})
	cl := tempCache(t).Wrap(srv.client(t, tc))
	billed := []record.Usage{{InputTokens: 7, OutputTokens: 1}, {InputTokens: 3, OutputTokens: 1}}
	want := record.Usage{InputTokens: 10, OutputTokens: 2}
	for i, cached := range []bool{false, true} {
		resp, err := cl.Generate(ctx, srv.request("q"))
		if err != nil || resp.Text != "a:q" || resp.Cached != cached || !reflect.DeepEqual(resp.Usage, want) || !reflect.DeepEqual(resp.Billed(), billed) {
			t.Errorf("call %d: Generate = %+v, %v; want a:q, cached %v, usage %+v, billed %+v", i+1, resp, err, cached, want, billed)
		}
	}
	if n := srv.calls.Load(); n != 2 {
		t.Errorf("%d requests reached the server, want 2", n)
	}

	srv = newChatServer(t, func(int64, string) (int, string) { return 200, failed })
	cl = tempCache(t).Wrap(srv.client(t, tc))
	for i := range 2 {
		resp, err := cl.Generate(ctx, srv.request("q"))
		if ge := (*model.GenerationError)(nil); !errors.As(err, &ge) || resp.Cached || !reflect.DeepEqual(resp.Usage, record.Usage{InputTokens: 14, OutputTokens: 2}) {
			t.Errorf("call %d: Generate = %+v, %v; want the failed generation, not cached, with both replies' usage", i+1, resp, err)
		}
	}
	if n := srv.calls.Load(); n != 4 {
		t.Errorf("%d requests reached the server, want 4: the failed call is asked again", n)
	}
}
