package judge

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCachedPartOfCost: a judgment that reads some of its replies back from the cache and asks
// for others (an unparsable reply stored by a run with fewer --parse-retries, then the reply that
// parses) counts the ones the cache served in the part of the cost the summary says the cache
// served, as a judgment served whole from the cache counts all of its own: the second run below
// paid for one reply of $0.0105, not for two.
func TestCachedPartOfCost(t *testing.T) {
	var calls atomic.Int64
	srv := newChatServer(t, func(r chatRequest) (string, int) {
		if calls.Add(1) == 1 {
			return "not json", 200
		}
		return protocolReply(r)
	})
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"j1": {"input": 100, "output": 100}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := rec("locomo:c:1", "locomo", "multi_hop", "Where?", "Paris", "Paris", `{"category":1}`)
	args := []string{"--mode", ModeLoCoMo, "--base-url", srv.URL, "--model", "j1", "--name", "j", "--prices", prices,
		"--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	for i, run := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--parse-retries", "0"}, 3, "cost $0.010500\n"},
		{[]string{"--parse-retries", "1"}, 0, "cost $0.021000 ($0.010500 of it from the cache)\n"},
	} {
		_, stderr, code := runJudge(t, append(args, run.args...), in)
		if code != run.code || !strings.Contains(stderr, run.want) {
			t.Errorf("run %d: exit %d, stderr\n%s\nwant exit %d and %q", i+1, code, stderr, run.code, run.want)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the server saw %d calls, want 2", n)
	}
}
