package judge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/model"
)

// TestDryRunShowsWhatIsSent runs the mixed records through --dry-run and then through a loopback
// server: every request the dry run shows must be one the server receives, messages byte for
// byte with the same model and parameters (the seed and response format too), and the rules and
// skips must match the real run's.
func TestDryRunShowsWhatIsSent(t *testing.T) {
	stdout, stderr, code := runJudge(t, []string{"--dry-run", "--model", "judge-1", "--seed", "7"}, mixedInput)
	if code != 0 {
		t.Fatalf("dry run: exit %d, stderr %s", code, stderr)
	}
	var dry []dryRequest
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var d dryRequest
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("dry-run line %q: %v", line, err)
		}
		dry = append(dry, d)
	}
	if len(dry) != 7 {
		t.Fatalf("dry run wrote %d lines, want one per record (7)", len(dry))
	}
	wantSummary := "qa-judge: auto/judge-1: dry run, no calls: 5 requests, "
	if !strings.HasPrefix(stderr, wantSummary) || !strings.Contains(stderr, "; 2 by rule, 0 skipped, 0 already judged, 0 errors\n") {
		t.Errorf("dry-run summary %q, want it to start %q and count 2 rules", stderr, wantSummary)
	}

	srv := newChatServer(t, protocolReply)
	if _, stderr, code := runJudge(t, []string{"--provider", "openai", "--base-url", srv.URL, "--model", "judge-1", "--seed", "7"}, mixedInput); code != 0 {
		t.Fatalf("real run: exit %d, stderr %s", code, stderr)
	}
	type sent struct {
		model     string
		temp      float64
		maxTokens int
		seed      int // 0: none
		format    string
		msgs      string
	}
	var got, want []sent
	formats := 0
	for _, c := range srv.calls {
		msgs, _ := json.Marshal(c.msgs)
		s := sent{model: c.Model, temp: *c.Temperature, maxTokens: c.MaxTokens + c.MaxCompl, msgs: string(msgs)}
		if c.Seed != nil {
			s.seed = *c.Seed
		}
		if c.Format != nil {
			s.format = c.Format.Type
			formats++
		}
		got = append(got, s)
	}
	if len(got) == 0 || got[0].seed != 7 || formats == 0 {
		t.Errorf("the server received %v, want requests with seed 7 and some with a response format", got)
	}
	for _, d := range dry {
		switch {
		case d.Rule != nil:
			if d.Mode != ModeAdversarial || d.Messages != nil {
				t.Errorf("%s: rule %+v in mode %s with messages %v, want the category-5 rule alone", d.ID, d.Rule, d.Mode, d.Messages)
			}
			continue
		case d.Messages == nil:
			t.Errorf("%s: dry run %+v has neither messages nor a rule", d.ID, d)
			continue
		}
		var msgs []struct{ Role, Content string }
		for _, m := range d.Messages {
			msgs = append(msgs, struct{ Role, Content string }{m.Role, m.Content})
		}
		b, _ := json.Marshal(msgs)
		s := sent{model: d.Model, temp: *d.Temperature, maxTokens: d.MaxTokens, format: d.ResponseFormat, msgs: string(b)}
		if d.Seed != nil {
			s.seed = *d.Seed
		}
		want = append(want, s)
		if d.InputTokens <= 0 || d.PromptSHA256 == "" {
			t.Errorf("%s: input_tokens %d, prompt_sha256 %q; want both", d.ID, d.InputTokens, d.PromptSHA256)
		}
	}
	key := func(s sent) string { return s.msgs }
	slices.SortFunc(got, func(a, b sent) int { return strings.Compare(key(a), key(b)) })
	slices.SortFunc(want, func(a, b sent) int { return strings.Compare(key(a), key(b)) })
	if !slices.Equal(got, want) {
		t.Errorf("the server received\n%v\nthe dry run showed\n%v", got, want)
	}
}

// TestDryRunFinishing: a dry run makes no call, so a run asked to finish (a first signal) stops
// at once, writes nothing more and says interrupted, and says it makes no call.
func TestDryRunFinishing(t *testing.T) {
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Q", "A", "A", "")
	clitest.DryRunFinishing(t, Run, []string{"qa-judge", "--dry-run", "--mode", "longmemeval", "--model", "gpt-4o"}, in)
}

// TestDryRunFinishingAtEOF: a first signal that comes while the dry run waits for more input,
// and none comes, still stops it as interrupted (exit 130), the request of the record read
// before written; it ended as a finished run, with its summary and exit 0.
func TestDryRunFinishingAtEOF(t *testing.T) {
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Q", "A", "A", "")
	clitest.DryRunFinishingAtEOF(t, Run, []string{"qa-judge", "--dry-run", "--mode", "longmemeval", "--model", "gpt-4o"}, in, 1)
}

// TestDryRunMakesNoCache: a dry run checks --cache but writes no file: a cache that does not exist
// is not made (nor its -wal or -shm), and the folder holds what it held.
func TestDryRunMakesNoCache(t *testing.T) {
	dir := t.TempDir()
	in := rec("longmemeval:q1", "longmemeval", "single-session-user", "Q", "A", "A", "")
	_, stderr, code := runJudge(t, []string{"--dry-run", "--mode", "longmemeval", "--model", "gpt-4o", "--cache", filepath.Join(dir, "judge.sqlite")}, in)
	if code != 0 {
		t.Fatalf("dry run: exit %d; stderr %s", code, stderr)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("the dry run made %v, want no file", files)
	}
}

// TestDryRunWarnsOfModelUnused: a dry run with --mode auto and a --model warns that the model
// judges no record exactly when the run over the same records does, with the same words: when
// every record is routed to a rule, and not when one is routed to the model, asked or refused
// (self-judging), nor when one cannot be planned on a route whose protocol calls the model
// whatever the fact at fault says (LongMemEval's, its judgment naming the model). A record routed
// to a rule that cannot be planned, or a LoCoMo record whose category (rule or model) cannot be
// read, is no record routed to the model: the warning stands.
func TestDryRunWarnsOfModelUnused(t *testing.T) {
	const warning = "qa-judge: warning: --model j1 judges no record: --mode auto routes every one to a rule (see MODES in --help); --mode or --prompt judges them with the model\n"
	hotpot := rec("hotpotqa:1", "hotpotqa", "bridge", "q", "Paris", "Paris", "") +
		`{"schema":1,"id":"hotpotqa:2","dataset":"hotpotqa","type":"bridge","question":"q","answers":["Paris"],"prediction":{"text":"","error":"model call: 500"}}` + "\n"
	for _, tc := range []struct {
		name string
		in   string
		warn bool
	}{
		{"every record to a rule", hotpot, true},
		{"one to the model", hotpot + rec("longmemeval:q1", "longmemeval", "single-session-user", "Q", "A", "A", ""), false},
		{"one refused for the model", hotpot + `{"schema":1,"id":"longmemeval:q1","dataset":"longmemeval","type":"single-session-user","question":"Q","answers":["A"],"prediction":{"text":"A","provider":"openai","model":"j1"}}` + "\n", false},
		{"one not planned on the rules' route", hotpot + rec("hotpotqa:3", "hotpotqa", "bridge", "q", "Paris", "Paris", `{"abstention":"yes"}`), true},
		{"one not planned on LongMemEval's route", hotpot + rec("longmemeval:q1", "longmemeval", "single-session-user", "Q", "A", "A", `{"abstention":"yes"}`), false},
		{"one not planned on LoCoMo's route", hotpot + rec("locomo:q1", "locomo", "multi_hop", "Q", "A", "A", `{"category":"five"}`), true},
		// A failed prediction counts by its route, as its judgment is named: LongMemEval's calls
		// the model, so --model is not idle on such data.
		{"a failed prediction on LongMemEval's route", hotpot + `{"schema":1,"id":"longmemeval:q1","dataset":"longmemeval","type":"single-session-user","question":"Q","answers":["A"],"prediction":{"text":"","error":"model call: 500"}}` + "\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, protocolReply)
			_, runErr, _ := runJudge(t, []string{"--base-url", srv.URL, "--model", "j1"}, tc.in)
			_, dryErr, _ := runJudge(t, []string{"--dry-run", "--model", "j1"}, tc.in)
			for _, r := range []struct{ what, stderr string }{{"run", runErr}, {"dry run", dryErr}} {
				if got := strings.Contains(r.stderr, warning); got != tc.warn {
					t.Errorf("%s warns %v, want %v; stderr:\n%s", r.what, got, tc.warn, r.stderr)
				}
			}
		})
	}
}

// TestDryRunWarningSumsExactly: the warning that the input alone is over --max-cost compares the
// models' input prices as the exact sum of the decimals each prints as, as the run counts its
// spend: $0.00001033 and $0.00006289 come to $0.00007322, which is not more than a --max-cost of
// $0.00007322, where their float sum, 7.322000000000001e-05, is.
func TestDryRunWarningSumsExactly(t *testing.T) {
	prices := model.Prices{"a": {Input: 0.01}, "b": {Input: 0.19}}
	tl := dryTally{requests: map[string]int{"a": 1, "b": 1}, tokens: map[string]int{"a": 1033, "b": 331}, input: map[string]model.InputTally{}}
	for m, n := range tl.tokens {
		in := tl.input[m]
		in.Add(prices, m, n)
		tl.input[m] = in
	}
	var b strings.Builder
	tl.summarize(&b, "j", prices, 0.00007322)
	if strings.Contains(b.String(), "warning") {
		t.Errorf("summarize wrote %q, want no warning: the input costs exactly --max-cost", b.String())
	}
	b.Reset()
	tl.summarize(&b, "j", prices, 0.00007321)
	if !strings.Contains(b.String(), "warning: the requests' input alone costs $0.000073") {
		t.Errorf("summarize wrote %q, want the warning: the input costs more than --max-cost", b.String())
	}
}
