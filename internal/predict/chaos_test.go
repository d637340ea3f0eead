package predict

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// chaosKinds are the faults a chaos plan draws from, with what a record whose last attempt met
// one says in its error. Transient ones are retried; the others end the record's calls at once.
// hang is left out: a short --timeout could be reached by a slow answer on a loaded machine,
// and the plan counts attempts (TestFaultsEndToEnd gives it its own case).
var chaosKinds = []struct {
	fault, err string
	transient  bool
}{
	{"429", "429", true},
	{"429ra", "429", true},
	{"500", "500", true},
	{"502", "502", true},
	{"503", "503", true},
	{"trunc", "body broke off", true},
	{"close", "EOF", true},
	{"bad", "malformed JSON in response body", true},
	{"400", "400", false},
	{"empty", "empty reply", false},
	{"nochoices", "empty reply (no choices)", false},
	{"null", "empty reply", false},
}

// chaosPlan draws, from a fixed seed, up to five faults for each of n records; a record answers
// once its faults are used up.
func chaosPlan(n int) (faults map[int]string, kinds map[string]int) {
	rng := rand.New(rand.NewPCG(30, 1))
	faults = make(map[int]string)
	kinds = make(map[string]int)
	for j, k := range chaosKinds {
		kinds[k.fault] = j
	}
	for i := range n {
		var f []string
		for range rng.IntN(6) {
			f = append(f, chaosKinds[rng.IntN(len(chaosKinds))].fault)
		}
		faults[i] = strings.Join(f, ",")
	}
	return faults, kinds
}

// chaosOutcome is what a record whose faults are plan, the server having served its first pos,
// comes to with maxRetries: the attempts made, the error its prediction must mention ("" for
// the answer) and the server's position after them.
func chaosOutcome(plan string, pos, maxRetries int, kinds map[string]int) (attempts int, err string, next int) {
	var faults []string
	if plan != "" {
		faults = strings.Split(plan, ",")
	}
	for attempts = 1; ; attempts++ {
		if pos >= len(faults) {
			return attempts, "", pos + 1
		}
		k := chaosKinds[kinds[faults[pos]]]
		pos++
		if !k.transient || attempts == maxRetries+1 {
			return attempts, k.err, pos
		}
	}
}

// TestChaos runs a seeded plan of faults (see chaosKinds) over 120 records at --concurrency 1, 4
// and 16, each against a fresh server: every run writes every record, in input order, each with
// the answer or the error its plan leads to after exactly the attempts it allows, the summary
// counts those errors and the exit code is 3; the three runs write the same records. A rerun
// with --retry-errors over the output (its replies cached) answers the failed records and keeps
// the others byte for byte, and a run over the input with that cache asks only for the records
// whose calls failed in both runs.
func TestChaos(t *testing.T) {
	const n, maxRetries = 120, 3
	faults, kinds := chaosPlan(n)
	in := input(n, faults)
	type want struct {
		attempts int
		err      string
		pos      int
	}
	wants := make([]want, n)
	failed := 0
	for i := range n {
		a, e, p := chaosOutcome(faults[i], 0, maxRetries, kinds)
		wants[i] = want{a, e, p}
		if e != "" {
			failed++
		}
	}
	t.Logf("plan: %d of %d records fail", failed, n)
	if failed == 0 || failed == n {
		t.Fatalf("the plan fails %d of %d records: it tests nothing", failed, n)
	}
	args := func(url string, more ...string) []string {
		return append([]string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", url,
			"--api-key-file", keyFile(t), "--max-retries", fmt.Sprint(maxRetries), "--timeout", "0", "--backoff", "1ms"}, more...)
	}
	cache := filepath.Join(t.TempDir(), "cache.sqlite")
	var first string // the records of the first run, as written
	for _, par := range []string{"1", "4", "16"} {
		srv := faultServer(t)
		more := []string{"--concurrency", par}
		if par == "16" {
			more = append(more, "--cache", cache)
		}
		recs, stderr, err := run(t, context.Background(), in, args(srv.URL, more...)...)
		checkChaos(t, "--concurrency "+par, recs, stderr, err, failed, func(i int, p *record.Prediction) {
			if w := wants[i]; p.Attempts != w.attempts || !chaosError(p, w.err, i) {
				t.Errorf("--concurrency %s: record r%d (faults %q): attempts %d, error %q, text %q; want %d attempts and error %q",
					par, i, faults[i], p.Attempts, p.Error, p.Text, w.attempts, w.err)
			}
		})
		out := encodeRecords(t, recs)
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("--concurrency %s wrote other records than --concurrency 1", par)
		}
		if par != "16" {
			continue
		}

		// --retry-errors over the output, against the same server, which goes on through each
		// record's plan: the records that were answered pass through as they were.
		again := 0
		for i := range n {
			if wants[i].err == "" {
				continue
			}
			a, e, p := chaosOutcome(faults[i], wants[i].pos, maxRetries, kinds)
			wants[i] = want{a, e, p}
			if e != "" {
				again++
			}
		}
		t.Logf("--retry-errors: %d fail again", again)
		recs2, stderr, err := run(t, context.Background(), out, args(srv.URL, "--concurrency", par, "--cache", cache, "--retry-errors")...)
		checkChaos(t, "--retry-errors", recs2, stderr, err, again, func(i int, p *record.Prediction) {
			if recs[i].Prediction.Error == "" {
				if got, want := encodeRecords(t, recs2[i:i+1]), encodeRecords(t, recs[i:i+1]); got != want {
					t.Errorf("--retry-errors changed record r%d, answered before:\n%s\nwant\n%s", i, got, want)
				}
			} else if w := wants[i]; !chaosError(p, w.err, i) {
				t.Errorf("--retry-errors: record r%d (faults %q): error %q, text %q; want error %q", i, faults[i], p.Error, p.Text, w.err)
			}
		})

		// The input again with the cache: the answers come from it, and only the records that
		// failed twice are asked.
		calls := srv.calls.Load()
		recs3, stderr, err := run(t, context.Background(), in, args(srv.URL, "--concurrency", "4", "--cache", cache)...)
		cached := 0
		for _, r := range recs3 {
			if r.Prediction != nil && r.Prediction.Cached {
				cached++
			}
		}
		if code := command.ExitCode(err); len(recs3) != n || cached != n-again || (code == 0) != (again == 0) {
			t.Errorf("the input again with the cache: exit %d, %d records, %d from the cache; want %d, %d from the cache; stderr:\n%s",
				code, len(recs3), cached, n, n-again, stderr)
		}
		if got := srv.calls.Load() - calls; again == 0 && got != 0 {
			t.Errorf("the input again with every answer cached made %d calls, want none", got)
		}
	}
}

// checkChaos checks what every chaos run must hold: n records in input order, each with an
// answer or an error (per checks the rest), the errors counted on stderr, and exit 3 iff any.
func checkChaos(t *testing.T, run string, recs []*record.Record, stderr string, err error, failed int, per func(int, *record.Prediction)) {
	t.Helper()
	const n = 120
	if len(recs) != n {
		t.Fatalf("%s: %d records, want %d; stderr:\n%s", run, len(recs), n, stderr)
	}
	errs := 0
	for i, r := range recs {
		if r.ID != fmt.Sprintf("r%d", i) {
			t.Fatalf("%s: record %d has id %s, want r%d: order lost", run, i, r.ID, i)
		}
		p := r.Prediction
		if p == nil || (p.Error == "") == (p.Text == "") {
			t.Fatalf("%s: record r%d has prediction %+v, want an answer or an error", run, i, p)
		}
		if p.Error != "" {
			errs++
		}
		per(i, p)
	}
	wantCode := 0
	if failed > 0 {
		wantCode = command.ExitBadRecords
	}
	if code := command.ExitCode(err); code != wantCode || errs != failed {
		t.Errorf("%s: exit %d with %d errors, want %d with %d", run, code, errs, wantCode, failed)
	}
	if want := fmt.Sprintf(", %d errors;", errs); !strings.Contains(stderr, want) {
		t.Errorf("%s: stderr does not count %d errors (%q):\n%s", run, errs, want, stderr)
	}
}

// chaosError reports whether p is what a record i that must fail with err (or, when err is
// empty, be answered) holds.
func chaosError(p *record.Prediction, err string, i int) bool {
	if err == "" {
		return p.Error == "" && p.Text == fmt.Sprintf("A%d", i)
	}
	return p.Text == "" && strings.Contains(p.Error, err)
}

// encodeRecords is recs as JSON Lines, latency_ms left out.
func encodeRecords(t *testing.T, recs []*record.Record) string {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(latency.ReplaceAll(line, nil))
		b.WriteByte('\n')
	}
	return b.String()
}
