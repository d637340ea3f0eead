package judge

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// judgeChaosKinds are the replies a judge chaos plan draws from: a MAGMA verdict, replies MAGMA
// cannot read (prose, a fenced object, no text), which are asked again, a 400, which ends the
// judgment's calls, and transient failures, which are retried.
var judgeChaosKinds = []string{"score", "prose", "prose", "fenced", "empty", "400", "500", "close"}

var chaosFaultsRe = regexp.MustCompile(`ID(\d+) FAULTS=([\w,]*)`)

// judgeChaosServer answers each question "ID<i> FAULTS=a,b,…" with its faults in turn, one per
// request, and a verdict once they are used up.
func judgeChaosServer(t *testing.T) *chatServer {
	var mu sync.Mutex
	served := map[string]int{}
	return newChatWriter(t, func(w http.ResponseWriter, req chatRequest) {
		m := chaosFaultsRe.FindStringSubmatch(req.last())
		if m == nil {
			http.Error(w, `{"error":{"message":"no plan"}}`, 400)
			return
		}
		mu.Lock()
		n := served[m[1]]
		served[m[1]]++
		mu.Unlock()
		fault := "score"
		if faults := strings.Split(m[2], ","); n < len(faults) && faults[n] != "" {
			fault = faults[n]
		}
		text := map[string]string{
			"score":  `{"score": 0.5, "reasoning": "half right"}`,
			"prose":  "I think it is mostly right",
			"fenced": "```json\n{\"score\": 1}\n```",
		}[fault]
		switch fault {
		case "400", "500":
			status := map[string]int{"400": 400, "500": 500}[fault]
			http.Error(w, `{"error":{"message":"chaos","type":"invalid_request_error"}}`, status)
		case "close":
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		default:
			writeCompletion(w, req.Model, map[string]any{"role": "assistant", "content": text}, "stop", 5)
		}
	})
}

// judgeChaosOutcome is what a judgment whose replies follow plan, the server having served its
// first pos, comes to with maxRetries and parseRetries: the judge's attempts (the replies asked
// for; each may be several HTTP requests), the start of its error ("" for a verdict) and the
// server's position after them.
func judgeChaosOutcome(plan string, pos, maxRetries, parseRetries int) (attempts int, err string, next int) {
	faults := strings.Split(plan, ",")
	defer func() { next = pos }()
	take := func() string {
		pos++
		if pos-1 < len(faults) && faults[pos-1] != "" {
			return faults[pos-1]
		}
		return "score"
	}
	for range parseRetries + 1 {
		attempts++
		f := take()
		for try := 0; (f == "500" || f == "close") && try < maxRetries; try++ {
			f = take()
		}
		switch f {
		case "score":
			return attempts, "", 0
		case "400", "500", "close":
			return attempts, "judge call: ", 0
		}
	}
	return attempts, "unparsable judge reply: ", 0
}

// TestJudgeChaos runs a seeded plan of replies (see judgeChaosKinds) over 80 LoCoMo records at
// --concurrency 1, 4 and 16: every run writes every record in input order, each with a score or
// the error its plan leads to after exactly the attempts it allows, never both; the summary
// counts the unparsable and failed judgments; the exit code is 3; and the runs agree.
func TestJudgeChaos(t *testing.T) {
	const n, maxRetries, parseRetries = 80, 1, 2
	rng := rand.New(rand.NewPCG(30, 2))
	var in strings.Builder
	plans := make([]string, n)
	unparsable, failed := 0, 0
	for i := range n {
		var f []string
		for range rng.IntN(6) {
			f = append(f, judgeChaosKinds[rng.IntN(len(judgeChaosKinds))])
		}
		plans[i] = strings.Join(f, ",")
		in.WriteString(rec(fmt.Sprintf("locomo:conv-26:%d", i), "locomo", "temporal",
			fmt.Sprintf("ID%d FAULTS=%s When?", i, plans[i]), "7 May 2023", "May", `{"category":2}`))
		switch _, e, _ := judgeChaosOutcome(plans[i], 0, maxRetries, parseRetries); e {
		case "unparsable judge reply: ":
			unparsable++
		case "judge call: ":
			failed++
		}
	}
	t.Logf("plan: %d unparsable and %d failed judgments of %d", unparsable, failed, n)
	if unparsable == 0 || failed == 0 || unparsable+failed == n {
		t.Fatalf("the plan has %d unparsable and %d failed judgments of %d: it tests too little", unparsable, failed, n)
	}
	var first string
	for _, par := range []string{"1", "4", "16"} {
		srv := judgeChaosServer(t)
		stdout, stderr, code := runJudge(t, []string{"--mode", "locomo-continuous", "--provider", "openai", "--base-url", srv.URL,
			"--model", "judge-1", "--max-retries", fmt.Sprint(maxRetries), "--parse-retries", fmt.Sprint(parseRetries),
			"--timeout", "0", "--backoff", "1ms", "--concurrency", par}, in.String())
		recs := decodeAll(t, stdout)
		if code != command.ExitBadRecords || len(recs) != n {
			t.Fatalf("--concurrency %s: exit %d with %d records, want 3 with %d; stderr:\n%s", par, code, len(recs), n, stderr)
		}
		for i, r := range recs {
			if want := fmt.Sprintf("locomo:conv-26:%d", i); r.ID != want {
				t.Fatalf("--concurrency %s: record %d is %s, want %s: order lost", par, i, r.ID, want)
			}
			j := r.Judgments["locomo-continuous/judge-1"]
			if j == nil || (j.Score == nil) == (j.Error == "") {
				t.Fatalf("--concurrency %s: record %s has judgment %+v, want a score or an error", par, r.ID, j)
			}
			attempts, e, _ := judgeChaosOutcome(plans[i], 0, maxRetries, parseRetries)
			ok := j.Attempts == attempts && strings.HasPrefix(j.Error, e) && (e != "" || *j.Score == 0.5)
			if !ok {
				t.Errorf("--concurrency %s: record %s (replies %q): attempts %d, score %v, error %q; want %d attempts and error %q",
					par, r.ID, plans[i], j.Attempts, j.Score, j.Error, attempts, e)
			}
		}
		if want := fmt.Sprintf("%d unparsable, %d failed", unparsable, failed); !strings.Contains(stderr, want) {
			t.Errorf("--concurrency %s: stderr does not say %q:\n%s", par, want, stderr)
		}
		if out := latencyRe.ReplaceAllString(stdout, ""); first == "" {
			first = out
		} else if out != first {
			t.Errorf("--concurrency %s wrote other records than --concurrency 1", par)
		}
		if par == "16" {
			judgeChaosRetry(t, srv, stdout, plans, maxRetries, parseRetries)
		}
	}
}

// judgeChaosRetry runs --retry-errors over out, TestJudgeChaos's output, against srv, which goes
// on through each record's plan: the records judged pass through byte for byte, and the others
// come to what their plans lead to from where the first run left them, an unparsable one's
// attempts counting on from its earlier ones.
func judgeChaosRetry(t *testing.T, srv *chatServer, out string, plans []string, maxRetries, parseRetries int) {
	t.Helper()
	const name = "locomo-continuous/judge-1"
	stdout, stderr, code := runJudge(t, []string{"--mode", "locomo-continuous", "--provider", "openai", "--base-url", srv.URL,
		"--model", "judge-1", "--max-retries", fmt.Sprint(maxRetries), "--parse-retries", fmt.Sprint(parseRetries),
		"--timeout", "0", "--backoff", "1ms", "--concurrency", "16", "--retry-errors"}, out)
	before, after := decodeAll(t, out), decodeAll(t, stdout)
	if len(after) != len(before) {
		t.Fatalf("--retry-errors: %d records, want %d; stderr:\n%s", len(after), len(before), stderr)
	}
	lines, lines2 := strings.SplitAfter(out, "\n"), strings.SplitAfter(stdout, "\n")
	failed := 0
	for i, r := range after {
		prior, j := before[i].Judgments[name], r.Judgments[name]
		if r.ID != before[i].ID || j == nil || (j.Score == nil) == (j.Error == "") {
			t.Fatalf("--retry-errors: record %d is %s with judgment %+v, want %s with a score or an error", i, r.ID, j, before[i].ID)
		}
		if prior.Error == "" {
			if lines2[i] != lines[i] {
				t.Errorf("--retry-errors changed %s, judged before:\n%s\nwant\n%s", r.ID, lines2[i], lines[i])
			}
			continue
		}
		_, _, pos := judgeChaosOutcome(plans[i], 0, maxRetries, parseRetries)
		attempts, e, _ := judgeChaosOutcome(plans[i], pos, maxRetries, parseRetries)
		if strings.HasPrefix(prior.Error, "unparsable judge reply: ") {
			attempts += prior.Attempts
		}
		if e != "" {
			failed++
		}
		if j.Attempts != attempts || !strings.HasPrefix(j.Error, e) || e == "" && *j.Score != 0.5 {
			t.Errorf("--retry-errors: record %s (replies %q): attempts %d, score %v, error %q; want %d attempts and error %q",
				r.ID, plans[i], j.Attempts, j.Score, j.Error, attempts, e)
		}
	}
	t.Logf("--retry-errors: %d judgments fail again", failed)
	if want := 3 * min(failed, 1); code != want {
		t.Errorf("--retry-errors: exit %d with %d judgments failed, want %d; stderr:\n%s", code, failed, want, stderr)
	}
}

var latencyRe = regexp.MustCompile(`,"latency_ms":\d+`)
