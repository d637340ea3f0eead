package judge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/cache/cachetest"
)

// TestDryRunCachedRequests: a dry run with --cache marks "cached" the records the run would judge
// from the cache alone, following the run's own asks over the replies it holds (an unparsable one
// is asked again as the next sample; past the re-asks the cache alone is read), and shows of the
// others the request the run would send first, counting and pricing those alone. A rerun with
// the cache then makes exactly the calls priced, with the seeds and messages shown; the dry run
// leaves the cache's folder as it was.
func TestDryRunCachedRequests(t *testing.T) {
	in := rec("locomo:c:1", "locomo", "multi_hop", "Where?", "Paris", "Paris", `{"category":1}`) +
		rec("locomo:c:2", "locomo", "temporal", "When?", "7 May 2023", "May 2023", `{"category":2}`) +
		rec("locomo:c:3", "locomo", "open_domain", "Why?", "rain", "the rain", `{"category":3}`)
	more := rec("locomo:c:4", "locomo", "single_hop", "Who?", "Ann", "Bo", `{"category":4}`)
	tests := []struct {
		name        string
		bad         int      // the server's first replies that cannot be parsed
		think       bool     // the parsable replies begin with the judge's thinking (--think strip takes it out)
		first, dry  []string // the first run's flags, the dry run's and the rerun's
		retried     bool     // a --retry-errors run over the first run's output judged again before the dry run
		overOutput  bool     // the dry run and the rerun read the first run's output, else its input
		want        []string // the records marked cached
		priced      int      // the requests not answered by the cache
		pricedSeeds []int    // their seeds, as shown and as sent
		code        int      // the dry run's exit code, the rerun's too
	}{
		{"answered", 0, false, nil, nil, false, false, []string{"locomo:c:1", "locomo:c:2", "locomo:c:3"}, 1, []int{7}, 0},
		// The replies parse once the thinking is taken out, as the run reads them.
		{"thinking stripped", 0, true, nil, nil, false, false, []string{"locomo:c:1", "locomo:c:2", "locomo:c:3"}, 1, []int{7}, 0},
		// c:1's three replies were unparsable, and the cache holds no fourth: the run reads them
		// and asks nothing, its judgment unparsable again.
		{"unparsable read to the end", 3, false, nil, nil, false, false, []string{"locomo:c:1", "locomo:c:2", "locomo:c:3"}, 1, []int{7}, 3},
		// --retry-errors asks c:1 on from its 3 attempts: sample 3, seeded 10.
		{"retry-errors asks on", 3, false, nil, []string{"--retry-errors"}, false, true, nil, 2, []int{7, 10}, 0},
		// Past the re-asks the run reads on the sample --retry-errors stored, which parses.
		{"read on past the re-asks", 3, false, nil, nil, true, false, []string{"locomo:c:1", "locomo:c:2", "locomo:c:3"}, 1, []int{7}, 0},
		// One re-ask, unparsable: the run reads it and asks sample 1, seeded 8.
		{"re-asked after the cached sample", 1, false, []string{"--parse-retries", "0"}, nil, false, false, []string{"locomo:c:2", "locomo:c:3"}, 2, []int{7, 8}, 0},
		{"another seed", 0, false, nil, []string{"--seed", "9"}, false, false, nil, 4, []int{9, 9, 9, 9}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			srv := newChatServer(t, func(chatRequest) (string, int) {
				mu.Lock()
				defer mu.Unlock()
				if calls++; calls <= tt.bad {
					return "I think it is fine", 200 // not JSON: MAGMA cannot read it
				}
				if tt.think {
					return `<think>It says Paris.</think>{"score": 1, "reasoning": "right"}`, 200
				}
				return `{"score": 1, "reasoning": "right"}`, 200
			})
			dir := t.TempDir()
			args := []string{"--base-url", srv.URL, "--model", "gpt-4o-mini", "--seed", "7", "--concurrency", "1", "--cache", filepath.Join(dir, "judge.sqlite")}
			out, stderr, _ := runJudge(t, append(slices.Clone(args), tt.first...), in)
			if want := 2 + max(tt.bad, 1); srv.count() != want { // c:1's replies, then c:2's and c:3's
				t.Fatalf("first run: %d calls, want %d (stderr %s)", srv.count(), want, stderr)
			}
			if tt.retried {
				runJudge(t, append(slices.Clone(args), "--retry-errors"), out)
			}
			second := in + more
			if tt.overOutput {
				second = out + more
			}
			before := folder(t, dir)
			stdout, stderr, code := runJudge(t, append(append([]string{"--dry-run"}, args...), tt.dry...), second)
			if code != tt.code {
				t.Fatalf("dry run: exit %d, want %d (stderr %s)", code, tt.code, stderr)
			}
			if after := folder(t, dir); !slices.Equal(after, before) {
				t.Errorf("the dry run changed the cache's folder:\n%v\nwas\n%v", after, before)
			}
			var cached []string
			var seeds []int
			var msgs []string
			requests, tokens := 0, 0
			for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
				var d dryRequest
				if err := json.Unmarshal([]byte(line), &d); err != nil {
					t.Fatalf("dry run line %q: %v", line, err)
				}
				if d.Messages == nil {
					continue
				}
				requests++
				// The record whose cached replies the run reads to the last, unparsable, fails
				// (exit 3): its line carries that error.
				if fails := tt.code == 3 && d.ID == "locomo:c:1"; fails != strings.HasPrefix(d.Error, ErrUnparsable.Error()) {
					t.Errorf("dry run line %s: error %q, want it unparsable: %v", d.ID, d.Error, fails)
				}
				if d.Cached {
					cached = append(cached, d.ID)
					continue
				}
				tokens += d.InputTokens
				seeds = append(seeds, *d.Seed)
				var m []struct{ Role, Content string }
				for _, x := range d.Messages {
					m = append(m, struct{ Role, Content string }{x.Role, x.Content})
				}
				b, _ := json.Marshal(m)
				msgs = append(msgs, string(b))
			}
			if !slices.Equal(cached, tt.want) {
				t.Errorf("the dry run marks %v cached, want %v", cached, tt.want)
			}
			want := fmt.Sprintf("dry run, no calls: %d requests, %d answered by the cache, the other %d: %d input tokens (o200k_base) to gpt-4o-mini, input $",
				requests, len(tt.want), tt.priced, tokens)
			if !strings.Contains(stderr, want) {
				t.Errorf("dry run stderr %q, want it to hold %q", stderr, want)
			}
			n := srv.count()
			_, stderr, code = runJudge(t, append(args, tt.dry...), second)
			if srv.count()-n != tt.priced {
				t.Errorf("the rerun made %d calls, the dry run priced %d (stderr %s)", srv.count()-n, tt.priced, stderr)
			}
			if code != tt.code {
				t.Errorf("the rerun: exit %d, want the dry run's %d (stderr %s)", code, tt.code, stderr)
			}
			var sentSeeds []int
			var sentMsgs []string
			for _, c := range srv.calls[n:] {
				sentSeeds = append(sentSeeds, *c.Seed)
				b, _ := json.Marshal(c.msgs)
				sentMsgs = append(sentMsgs, string(b))
			}
			slices.Sort(seeds)
			slices.Sort(sentSeeds)
			slices.Sort(msgs)
			slices.Sort(sentMsgs)
			if !slices.Equal(seeds, tt.pricedSeeds) || !slices.Equal(sentSeeds, tt.pricedSeeds) {
				t.Errorf("the dry run priced seeds %v, the rerun sent %v; want %v", seeds, sentSeeds, tt.pricedSeeds)
			}
			if !slices.Equal(msgs, sentMsgs) {
				t.Errorf("the dry run priced messages\n%v\nthe rerun sent\n%v", msgs, sentMsgs)
			}
		})
	}
}

// folder is each file of dir: its name, mode, time and bytes.
func folder(t *testing.T, dir string) []string {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		st, _ := f.Info()
		b, _ := os.ReadFile(filepath.Join(dir, f.Name()))
		out = append(out, fmt.Sprintf("%s %v %v %x", f.Name(), st.Mode(), st.ModTime(), b))
	}
	return out
}

// TestDryRunDamagedCache: a --cache whose entries cannot be read (a page of the file overwritten
// after a run made it, which opening it does not see) answers no record, as the run asks each
// again: the dry run prices them all, and warns how many entries of which file could not be read.
func TestDryRunDamagedCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "judge.sqlite")
	damageEntries(t, path)
	in := rec("locomo:c:1", "locomo", "multi_hop", "Where?", "Paris", "Paris", `{"category":1}`) +
		rec("locomo:c:2", "locomo", "temporal", "When?", "7 May 2023", "May 2023", `{"category":2}`)
	stdout, stderr, code := runJudge(t, []string{"--dry-run", "--model", "gpt-4o-mini", "--cache", path}, in)
	if code != 0 || strings.Contains(stdout, `"cached"`) {
		t.Fatalf("dry run: exit %d, stdout %s, want exit 0 and no record cached; stderr %s", code, stdout, stderr)
	}
	for _, want := range []string{
		"qa-judge: warning: 2 entries of the cache " + path + " could not be read (",
		"): counted as not answered by it\n",
		"2 requests, 0 answered by the cache, the other 2: ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("dry run stderr %q, want it to hold %q", stderr, want)
		}
	}
}

// damageEntries makes a cache at path, with no entry, and overwrites the root page of its
// entries table, so that each lookup fails as SQLite finds the file malformed, and opening and
// checking it do not.
func damageEntries(t *testing.T, path string) {
	t.Helper()
	c, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	cachetest.DamageTable(t, path, "entries")
}
