package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

var update = flag.Bool("update", false, "rewrite the expected output of the txtar CLI tests")

const testKey = "sk-test-SECRET-key-5f3a9c"

// TestCLI runs every testdata/cli/*.txtar archive through Run in-process (see package clitest for
// the sections). $URL is a fresh fault server per case speaking the OpenAI wire format (see
// faultServer); provider keys are cleared. latency_ms fields are dropped before comparing, and no
// output may contain the test key.
func TestCLI(t *testing.T) {
	setup := func(t *testing.T) map[string]string {
		for _, v := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"} {
			t.Setenv(v, "")
		}
		closed := clitest.ClosedURL(t) // nothing listens at $CLOSED: a wrong port
		// $BATCH_URL answers LoCoMo's batched queries (--batch-size), each question by its first word.
		batch := httptest.NewServer(batchHandler(dictReply, nil))
		t.Cleanup(batch.Close)
		return map[string]string{"$URL": faultServer(t).URL, "$BATCH_URL": batch.URL, "$CLOSED": closed, "$ADDR_CLOSED": strings.TrimPrefix(closed, "http://")}
	}
	filter := func(section string, b []byte) []byte {
		if section == "stdout" {
			return latency.ReplaceAll(b, nil)
		}
		return b
	}
	check := func(t *testing.T, _ string, got map[string][]byte) {
		for name, out := range got {
			if bytes.Contains(out, []byte(testKey)) {
				t.Errorf("%s leaks the API key:\n%s", name, out)
			}
		}
	}
	clitest.Config{Prog: "qa-predict", Run: Run, Update: *update, Setup: setup, Filter: filter, Check: check}.RunDir(t, "testdata/cli")
}

var latency = regexp.MustCompile(`,"latency_ms":\d+`)

var (
	idRe     = regexp.MustCompile(`ID(\d+)`)
	faultsRe = regexp.MustCompile(`FAULTS=([\w,-]+)`)
)

// server is a loopback OpenAI-compatible chat server. A question "ID7 FAULTS=429,500" is answered
// "A7" after failing its first attempts with the listed faults: 429 (no Retry-After), 429ra
// (Retry-After: 0), 500, 502, 503, hang (until the client gives up), trunc (a body cut short),
// close (the connection closed with no reply), bad (malformed JSON), 400, 401 (echoing the key,
// as real APIs do). Replies that are no failure of the call: empty (no text), blank (white space
// alone), emptycut (no text, stopped at max_tokens), nochoices (an empty
// choices list), null (content null), refusal (OpenAI's refusal field, content null), nousage (no usage
// member), length (stopped at max_tokens), filter (stopped by the content filter). A reasoning
// model's replies, without a reasoning parser: think (its thinking between both tags before the
// answer), thinkclose (the closing tag only, as when the chat template put the opening one in the
// prompt), thinkcut (cut at max_tokens in its thinking), thinkonly (nothing after its thinking),
// thinkonlycut (nothing after its thinking, stopped at max_tokens there),
// magistral and magistralcut (think and thinkcut with Magistral's [THINK] and [/THINK]), gptoss
// (gpt-oss's analysis channel before its final one); with one: reasoning (vLLM's reasoning_content beside the answer), reasoningnew (vLLM's
// reasoning, its name since 0.11). It counts calls per ID.
type server struct {
	*httptest.Server
	calls    atomic.Int64
	mu       sync.Mutex
	attempts map[string]int
}

func faultServer(t testing.TB) *server {
	s := &server{attempts: make(map[string]int)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	if r.URL.Path != "/chat/completions" {
		http.Error(w, `{"error":{"message":"no such path"}}`, 404)
		return
	}
	req, ok := clitest.ReadChat(w, r)
	if !ok {
		return
	}
	prompt := req.Prompt
	id := "0"
	if m := idRe.FindStringSubmatch(prompt); m != nil {
		id = m[1]
	}
	var faults []string
	if m := faultsRe.FindStringSubmatch(prompt); m != nil {
		faults = strings.Split(m[1], ",")
	}
	s.mu.Lock()
	n := s.attempts[id]
	s.attempts[id]++
	s.mu.Unlock()
	fault := "ok"
	if n < len(faults) {
		fault = faults[n]
	}
	w.Header().Set("Content-Type", "application/json")
	reply := fmt.Sprintf(`{"id":"c%s","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"A%s"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":2,"total_tokens":%d}}`,
		id, req.Model, id, 100, 102)
	switch fault {
	case "ok":
		io.WriteString(w, reply)
	case "429", "429ra":
		if fault == "429ra" {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"Rate limit reached"}}`)
	case "500", "502", "503":
		code, _ := strconv.Atoi(fault)
		w.WriteHeader(code)
		io.WriteString(w, `{"error":{"message":"upstream trouble"}}`)
	case "hang":
		<-r.Context().Done()
	case "slow":
		time.Sleep(100 * time.Millisecond)
		io.WriteString(w, reply)
	case "trunc":
		w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
		io.WriteString(w, reply[:len(reply)/2])
	case "bad":
		io.WriteString(w, reply[:len(reply)-5]+"}}")
	case "400":
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":"This model's maximum context length is 4096 tokens."}}`)
	case "empty":
		io.WriteString(w, strings.Replace(reply, `"content":"A`+id+`"`, `"content":""`, 1))
	case "blank":
		io.WriteString(w, strings.Replace(reply, `"content":"A`+id+`"`, `"content":" \n "`, 1))
	case "emptycut":
		reply = strings.Replace(reply, `"finish_reason":"stop"`, `"finish_reason":"length"`, 1)
		io.WriteString(w, strings.Replace(reply, `"content":"A`+id+`"`, `"content":""`, 1))
	case "refusal":
		io.WriteString(w, strings.Replace(reply, `"content":"A`+id+`"`, `"content":null,"refusal":"I can't help with that."`, 1))
	case "nousage":
		io.WriteString(w, reply[:strings.Index(reply, `,"usage"`)]+"}")
	case "emptynousage":
		reply = strings.Replace(reply, `"content":"A`+id+`"`, `"content":""`, 1)
		io.WriteString(w, reply[:strings.Index(reply, `,"usage"`)]+"}")
	case "length":
		io.WriteString(w, strings.Replace(reply, `"finish_reason":"stop"`, `"finish_reason":"length"`, 1))
	case "filter":
		io.WriteString(w, strings.Replace(reply, `"finish_reason":"stop"`, `"finish_reason":"content_filter"`, 1))
	case "think", "thinkclose", "thinkcut", "thinkonly", "thinkonlycut", "reasoning", "reasoningnew", "magistral", "magistralcut", "gptoss":
		io.WriteString(w, thinkingReply(reply, fault, id))
	case "close":
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	case "nochoices":
		io.WriteString(w, reply[:strings.Index(reply, `"choices"`)]+`"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":0,"total_tokens":100}}`)
	case "null":
		io.WriteString(w, strings.Replace(reply, `"content":"A`+id+`"`, `"content":null`, 1))
	case "401":
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+r.Header.Get("Authorization")+`"}}`)
	}
}

// thinkingReply is reply, the fault server's answer "A<id>", as a reasoning model gives it
// (fault names the shape; see server).
func thinkingReply(reply, fault, id string) string {
	thinking := "The question asks for " + id + ". Is it A0? No: A" + id + "."
	message := map[string]string{
		"think":        "<think>\\n" + thinking + "\\n</think>\\n\\nA" + id,
		"thinkclose":   thinking + "\\n</think>\\n\\nA" + id,
		"thinkcut":     "<think>\\nThe question asks for",
		"thinkonly":    "<think>\\n" + thinking + "\\n</think>\\n\\n",
		"thinkonlycut": "<think>\\n" + thinking + "\\n</think>\\n\\n",
		// Magistral's thinking tokens, as vLLM without its reasoning parser writes them
		"magistral":    "[THINK]" + thinking + "[/THINK]A" + id,
		"magistralcut": "[THINK]The question asks for",
		// gpt-oss's harmony channels, as llama-server --reasoning-format none writes them
		"gptoss": "<|channel|>analysis<|message|>" + thinking + "<|end|><|start|>assistant<|channel|>final<|message|>A" + id,
	}[fault]
	content := `"content":"` + message + `"`
	switch fault {
	case "reasoning":
		content = `"content":"A` + id + `","reasoning_content":"` + thinking + `"`
	case "reasoningnew":
		content = `"content":"\n\nA` + id + `","reasoning":"` + thinking + `"`
	case "thinkcut", "magistralcut", "thinkonlycut":
		reply = strings.Replace(reply, `"finish_reason":"stop"`, `"finish_reason":"length"`, 1)
	}
	return strings.Replace(reply, `"content":"A`+id+`"`, content, 1)
}

// input returns n generic records; faults[i], when set, is embedded in question i.
func input(n int, faults map[int]string) string {
	var b strings.Builder
	for i := range n {
		q := fmt.Sprintf("ID%d what is %d?", i, i)
		if f := faults[i]; f != "" {
			q += " FAULTS=" + f
		}
		fmt.Fprintf(&b, `{"schema":1,"id":"r%d","question":%q,"answers":["A%d"]}`+"\n", i, q, i)
	}
	return b.String()
}

func keyFile(t testing.TB) string {
	f := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(f, []byte(testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func run(t testing.TB, ctx context.Context, stdin string, args ...string) ([]*record.Record, string, error) {
	var stdout, stderr bytes.Buffer
	err := Run(ctx, append([]string{"qa-predict"}, args...), strings.NewReader(stdin), &stdout, &stderr)
	command.Report(&stderr, "qa-predict", err)
	for _, out := range []string{stdout.String(), stderr.String()} {
		if strings.Contains(out, testKey) {
			t.Errorf("output leaks the API key:\n%s", out)
		}
	}
	rd := record.NewReader(&stdout, "stdout")
	var recs []*record.Record
	for {
		r, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("stdout: %v", err)
		}
		recs = append(recs, r)
	}
	return recs, stderr.String(), err
}

func TestFaultsEndToEnd(t *testing.T) {
	srv := faultServer(t)
	faults := map[int]string{
		1: "429", 2: "429ra,429ra", 3: "500,502,503", 5: "trunc", 6: "bad",
		7: "400", 8: "401", 9: "503,503,503,503", 10: "bad,bad,bad,bad", 11: "500",
	}
	wantAttempts := map[int]int{1: 2, 2: 3, 3: 4, 5: 2, 6: 2, 7: 1, 8: 1, 9: 4, 10: 4, 11: 2}
	wantErr := map[int]string{7: "400", 8: "401", 9: "503", 10: "malformed JSON in response body"}
	const n = 16
	recs, stderr, err := run(t, context.Background(), input(n, faults), "--provider", "openai", "--model", "gpt-4o-mini",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "4", "--max-retries", "3",
		"--timeout", "0", "--backoff", "1ms")
	if code := command.ExitCode(err); code != command.ExitBadRecords {
		t.Errorf("exit code = %d (%v), want 3", code, err)
	}
	if len(recs) != n {
		t.Fatalf("got %d records, want %d; stderr:\n%s", len(recs), n, stderr)
	}
	for i, r := range recs {
		p := r.Prediction
		if r.ID != fmt.Sprintf("r%d", i) {
			t.Fatalf("record %d has id %s: order lost", i, r.ID)
		}
		want := max(wantAttempts[i], 1)
		if p.Attempts != want {
			t.Errorf("record %d: attempts = %d, want %d (error %q)", i, p.Attempts, want, p.Error)
		}
		if e := wantErr[i]; e != "" {
			if !strings.Contains(p.Error, e) || p.Text != "" {
				t.Errorf("record %d: prediction = %+v, want error mentioning %s and no text", i, p, e)
			}
			continue
		}
		if p.Error != "" || p.Text != fmt.Sprintf("A%d", i) || p.Usage == nil || p.Usage.InputTokens != 100 || p.CostUSD == nil {
			t.Errorf("record %d: prediction = %+v, want text A%d with usage and cost", i, p, i)
		}
	}
	if !strings.Contains(stderr, "4 errors") {
		t.Errorf("stderr lacks the error count:\n%s", stderr)
	}
	// the 401 and 400 replies were not retried, the 503s exhausted 1+3 attempts
	if got := srv.attempts["7"] + srv.attempts["8"] + srv.attempts["9"]; got != 1+1+4 {
		t.Errorf("server saw %d attempts for records 7-9, want 6", got)
	}

	// An attempt that hangs is given up at --timeout and made again. The run above has no
	// timeout: on a loaded machine any of its thirty attempts could reach a short one and be
	// retried, where the test counts the attempts.
	recs, stderr, err = run(t, context.Background(), input(1, map[int]string{0: "hang"}), "--provider", "openai", "--model", "gpt-4o-mini",
		"--base-url", faultServer(t).URL, "--api-key-file", keyFile(t), "--max-retries", "3", "--timeout", "1s", "--backoff", "1ms")
	if err != nil || len(recs) != 1 || recs[0].Prediction == nil || recs[0].Prediction.Attempts != 2 || recs[0].Prediction.Text != "A0" {
		t.Fatalf("a hanging first attempt: %v, %d records; want the second attempt's answer A0; stderr:\n%s", err, len(recs), stderr)
	}
}

// noAnswerFaults are the replies of records 0-3 of runNoAnswers' five; record 4 gets an answer.
var noAnswerFaults = map[int]string{0: "empty", 1: "refusal", 2: "nousage", 3: "length"}

// runNoAnswers asks model for five records one at a time, the first four answered by the fault
// server as noAnswerFaults says, and returns the records and stderr of the run, which must end
// with exit 3.
func runNoAnswers(t *testing.T, model string) ([]*record.Record, string) {
	t.Helper()
	srv := faultServer(t)
	recs, stderr, err := run(t, context.Background(), input(5, noAnswerFaults), "--provider", "openai", "--model", model,
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "1", "--backoff", "1ms")
	if code := command.ExitCode(err); code != command.ExitBadRecords || len(recs) != 5 {
		t.Fatalf("exit %d with %d records (%v), want 3 with 5; stderr:\n%s", code, len(recs), err, stderr)
	}
	return recs, stderr
}

// TestRepliesThatAreNoAnswer: an empty reply and an OpenAI refusal are errors on their records
// (exit 3), never empty answers; a reply without usage keeps its text but leaves usage and cost
// empty (unknown, not free) with a warning; a reply cut at max_tokens is kept, and counted in a
// warning.
func TestRepliesThatAreNoAnswer(t *testing.T) {
	recs, stderr := runNoAnswers(t, "gpt-4o-mini")
	faults := noAnswerFaults
	for i := range 2 {
		if p := recs[i].Prediction; !strings.Contains(p.Error, "empty reply") || p.Text != "" || p.Usage == nil || p.Usage.InputTokens != 100 || p.CostUSD == nil {
			t.Errorf("%s: %+v, want the error empty reply, with the usage and cost it was paid", faults[i], p)
		}
	}
	if want := `empty reply (refused: "I can't help with that.")`; !strings.HasSuffix(recs[1].Prediction.Error, want) {
		t.Errorf("refusal: error %q, want it to end %q", recs[1].Prediction.Error, want)
	}
	if p := recs[2].Prediction; p.Error != "" || p.Text != "A2" || p.Usage != nil || p.CostUSD != nil {
		t.Errorf("nousage: %+v, want text A2 with no usage and no cost", p)
	}
	if p := recs[3].Prediction; p.Error != "" || p.Text != "A3" || p.Usage == nil || p.CostUSD == nil {
		t.Errorf("length: %+v, want text A3 with usage and cost", p)
	}
	// The totals count every reply that reported its usage, empty ones included: 4 of 100 + 2;
	// the line says it leaves the other out, as it says of a model without a price.
	for _, want := range []string{"2 errors; tokens 400 in, 8 out", "(not counting 1 reply without token usage)\n", "warning: 1 reply came without token usage from the server: its usage", "the totals leave it out", "warning: 1 reply stopped at max_tokens"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "no price for model") {
		t.Errorf("a reply without usage counted as unpriced:\n%s", stderr)
	}
}

// TestEmptyReplyWithoutUsage: an empty reply from a server that reports no usage is an error
// paid for at a cost unknown: the summary says that its totals leave it out, and warns, as of
// an answer without usage, rather than give the run's cost as if it had been free.
func TestEmptyReplyWithoutUsage(t *testing.T) {
	srv := faultServer(t)
	recs, stderr, err := run(t, context.Background(), input(2, map[int]string{0: "emptynousage"}), "--provider", "openai", "--model", "gpt-4o-mini",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "1")
	if code := command.ExitCode(err); code != command.ExitBadRecords || len(recs) != 2 {
		t.Fatalf("exit %d with %d records, want 3 with 2; stderr:\n%s", code, len(recs), stderr)
	}
	if p := recs[0].Prediction; !strings.Contains(p.Error, "empty reply") || p.Usage != nil || p.CostUSD != nil {
		t.Errorf("empty reply without usage: %+v, want the error empty reply with no usage nor cost", p)
	}
	for _, want := range []string{"1 error; tokens 100 in, 2 out", "(not counting 1 reply without token usage)\n",
		"warning: 1 reply came without token usage from the server"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestFilteredReplies: a reply with text that the content filter stopped is kept as the answer,
// and counted in a warning.
func TestFilteredReplies(t *testing.T) {
	srv := faultServer(t)
	recs, stderr, err := run(t, context.Background(), input(3, map[int]string{0: "filter", 2: "filter"}), "--provider", "openai", "--model", "gpt-4o-mini",
		"--base-url", srv.URL, "--api-key-file", keyFile(t))
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v; stderr:\n%s", len(recs), err, stderr)
	}
	for i, r := range recs {
		if p := r.Prediction; p.Error != "" || p.Text != fmt.Sprintf("A%d", i) {
			t.Errorf("record %d: %+v, want its text kept", i, p)
		}
	}
	if want := "qa-predict: warning: 2 replies were stopped by the provider's content filter or as a refusal (stop reason content_filter or refusal): their text, perhaps partial, is kept as the answer\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestUnpricedFailedReplies: the warning about a model with no price counts every record whose
// reply reported usage, the empty and refused replies (errors, but paid for) included.
func TestUnpricedFailedReplies(t *testing.T) {
	recs, stderr := runNoAnswers(t, "local-model")
	for i, r := range recs {
		if p := r.Prediction; p.CostUSD != nil || (p.Usage == nil) != (i == 2) {
			t.Errorf("record %d: %+v, want no cost, and usage unless the reply had none", i, p)
		}
	}
	if want := `warning: no price for model "local-model": cost_usd left empty on 4 records`; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestMaxCostWithoutUsage: a reply without usage makes --max-cost unkeepable, so no further call
// is made and the records left carry the budget error; an empty reply, paid for, counts against
// the budget.
func TestMaxCostWithoutUsage(t *testing.T) {
	srv := faultServer(t)
	recs, stderr, err := run(t, context.Background(), input(4, map[int]string{1: "nousage"}), "--provider", "openai", "--model", "gpt-4o-mini",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "1", "--max-cost", "10")
	if code := command.ExitCode(err); code != command.ExitBadRecords || len(recs) != 4 {
		t.Fatalf("exit %d with %d records, want 3 with 4; stderr:\n%s", code, len(recs), stderr)
	}
	for i, want := range []string{"", "", "no token usage", "no token usage"} {
		if p := recs[i].Prediction; want == "" && p.Error != "" || want != "" && !strings.Contains(p.Error, want) {
			t.Errorf("record %d: error %q, want %q", i, p.Error, want)
		}
	}
	if got := srv.calls.Load(); got != 2 {
		t.Errorf("%d calls made, want 2 (none after the reply without usage)", got)
	}
	if !strings.Contains(stderr, "cannot be kept") {
		t.Errorf("stderr lacks the budget warning:\n%s", stderr)
	}
	// An empty reply (100 tokens in, 2 out: $0.0000162 at gpt-4o-mini's price) is paid for, so it
	// spends a budget of $0.00001 and the next call is not made.
	srv2 := faultServer(t)
	recs, stderr, _ = run(t, context.Background(), input(2, map[int]string{0: "empty"}), "--provider", "openai", "--model", "gpt-4o-mini",
		"--base-url", srv2.URL, "--api-key-file", keyFile(t), "--concurrency", "1", "--max-cost", "0.00001")
	if len(recs) != 2 || !strings.Contains(recs[0].Prediction.Error, "empty reply") || !strings.Contains(recs[1].Prediction.Error, "budget spent") || srv2.calls.Load() != 1 {
		t.Errorf("empty reply under a budget: %d records, %d calls, stderr:\n%s", len(recs), srv2.calls.Load(), stderr)
	}
}

// TestSampleIndex: repeated samples of one prompt are cached apart, so a second sample calls the
// model again while a rerun of the same sample does not.
func TestSampleIndex(t *testing.T) {
	srv := faultServer(t)
	db := filepath.Join(t.TempDir(), "cache.db")
	args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--cache", db, "--temperature", "0.7"}
	in := input(3, nil)
	for _, tt := range []struct {
		index     string
		wantCalls int64
	}{{"0", 3}, {"1", 3}, {"0", 0}, {"1", 0}, {"2", 3}} {
		before := srv.calls.Load()
		if _, _, err := run(t, context.Background(), in, append(args, "--sample-index", tt.index)...); err != nil {
			t.Fatalf("--sample-index %s: %v", tt.index, err)
		}
		if got := srv.calls.Load() - before; got != tt.wantCalls {
			t.Errorf("--sample-index %s made %d calls, want %d", tt.index, got, tt.wantCalls)
		}
	}
	if _, _, err := run(t, context.Background(), in, append(args, "--sample-index", "-1")...); command.ExitCode(err) != 2 {
		t.Errorf("--sample-index -1: %v, want a usage error", err)
	}
}

func TestCacheSecondRunMakesNoCalls(t *testing.T) {
	srv := faultServer(t)
	db := filepath.Join(t.TempDir(), "cache.db")
	args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--cache", db, "--concurrency", "3", "--backoff", "1ms"}
	in := input(10, map[int]string{4: "400,400"})
	first, _, err := run(t, context.Background(), in, args...)
	if command.ExitCode(err) != 3 {
		t.Fatalf("first run: %v, want exit 3 for the 400", err)
	}
	calls := srv.calls.Load()
	if calls != 10 {
		t.Fatalf("first run made %d calls, want 10", calls)
	}
	second, stderr, err := run(t, context.Background(), in, args...)
	if command.ExitCode(err) != 3 {
		t.Fatalf("second run: %v, want exit 3 (the error is not cached)", err)
	}
	if got := srv.calls.Load() - calls; got != 1 {
		t.Errorf("second run made %d calls, want 1 (only the failed record)", got)
	}
	for i := range second {
		a, b := first[i].Prediction, second[i].Prediction
		if i == 4 {
			continue
		}
		if !b.Cached || b.Text != a.Text || !reflect.DeepEqual(*b.Usage, *a.Usage) || b.Attempts != 0 {
			t.Errorf("record %d: second prediction %+v, want a cached copy of %+v", i, b, a)
		}
	}
	if !strings.Contains(stderr, "9 predicted (9 cached)") {
		t.Errorf("stderr lacks the cache count:\n%s", stderr)
	}
	// All that the second run's replies cost came from the cache: the failed call costs nothing.
	m := regexp.MustCompile(`cost \$([0-9.]+) \(\$([0-9.]+) of it from the cache\)`).FindStringSubmatch(stderr)
	if m == nil || m[1] != m[2] || m[1] == "0.000000" {
		t.Errorf("second run's summary does not give its whole cost as from the cache:\n%s", stderr)
	}
}

func TestInterruptFlushesCompletedPrefix(t *testing.T) {
	srv := faultServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cancelOnceAsked(ctx, cancel, srv, 0, "5") // once record 5 is hanging
	recs, _, err := run(t, ctx, input(50, map[int]string{5: "hang,hang,hang"}), "--provider", "openai", "--model", "m",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "2", "--timeout", "10s")
	if code := command.ExitCode(err); code != command.ExitInterrupted {
		t.Errorf("exit code = %d (%v), want 130", code, err)
	}
	if len(recs) > 5 {
		t.Fatalf("wrote %d records, want at most the 5 before the hanging one", len(recs))
	}
	for i, r := range recs {
		if r.ID != fmt.Sprintf("r%d", i) || r.Prediction == nil || r.Prediction.Error != "" {
			t.Errorf("record %d = %s %+v, want r%d with an answer", i, r.ID, r.Prediction, i)
		}
	}
}

// TestInterruptSaysWhatIsUnwritten: record 6 is answered while records 5 and 7 hang (as every
// later one would, so that no other is finished), so the interruption writes records 0-4 only; the error, and so stderr, says that one finished record was not
// written, where the summary line counts it among the predicted. Nothing outside tells when
// record 6 is finished, after its reply has arrived, so a run cancelled before that (which writes
// the same records, with no such error) is run again with a longer wait, never judged by a time.
func TestInterruptSaysWhatIsUnwritten(t *testing.T) {
	for wait := 50 * time.Millisecond; ; wait *= 2 {
		recs, stderr, err := interruptAfterAnswer(t, wait)
		var ie *command.Interrupted
		if !errors.As(err, &ie) && errors.Is(err, context.Canceled) && len(recs) == 5 && wait < 10*time.Second {
			continue // record 6 was not finished yet
		}
		if !errors.As(err, &ie) || *ie != (command.Interrupted{Written: 5, Unwritten: 1}) {
			t.Fatalf("error = %v, want an *command.Interrupted of 5 written and 1 unwritten", err)
		}
		if code := command.ExitCode(err); code != command.ExitInterrupted {
			t.Errorf("exit code = %d (%v), want 130", code, err)
		}
		if len(recs) != 5 {
			t.Errorf("wrote %d records, want 5", len(recs))
		}
		want := "qa-predict: interrupted: 5 records written; 1 more was finished but not written, as output keeps input order\n"
		if !strings.HasSuffix(stderr, want) || !regexp.MustCompile(`\d+ records read, 6 finished: 6 predicted`).MatchString(stderr) {
			t.Errorf("stderr = %q, want the summary of 6 predicted and to end with %q", stderr, want)
		}
		return
	}
}

// interruptAfterAnswer runs qa-predict over 20 records at --concurrency 2 with record 5 hanging,
// and cancels it wait after record 6 has reached the server.
func interruptAfterAnswer(t *testing.T, wait time.Duration) ([]*record.Record, string, error) {
	srv := faultServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cancelOnceAsked(ctx, cancel, srv, wait, "5", "6") // record 5 hangs, record 6 is answered
	faults := map[int]string{5: "hang,hang,hang"}
	for i := 7; i < 20; i++ {
		faults[i] = "hang,hang,hang" // the calls after record 6 finish nothing
	}
	return run(t, ctx, input(20, faults), "--provider", "openai", "--model", "m",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "2", "--timeout", "10s")
}

// cancelOnceAsked calls cancel wait after the server has been asked for every one of ids, or
// returns when ctx is done first.
func cancelOnceAsked(ctx context.Context, cancel context.CancelFunc, srv *server, wait time.Duration, ids ...string) {
	for {
		srv.mu.Lock()
		asked := !slices.ContainsFunc(ids, func(id string) bool { return srv.attempts[id] == 0 })
		srv.mu.Unlock()
		if asked {
			time.Sleep(wait)
			cancel()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Millisecond):
		}
	}
}

func TestAnthropicEndToEnd(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != testKey {
			http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"bad"}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":" Paris \n"}],"stop_reason":"end_turn","usage":{"input_tokens":1000,"output_tokens":10}}`)
	}))
	defer srv.Close()
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	recs, _, err := run(t, context.Background(), input(1, nil), "--provider", "anthropic", "--model", "claude-3-5-haiku-20241022",
		"--base-url", srv.URL+"/v1", "--system", "Be brief.", "--max-tokens", "64")
	if err != nil {
		t.Fatal(err)
	}
	p := recs[0].Prediction
	// claude-3-5-haiku: $0.80 in, $4.00 out per million
	want := (1000*0.80 + 10*4.00) / 1e6
	if p.Text != "Paris" || p.Usage.InputTokens != 1000 || p.Usage.OutputTokens != 10 || p.CostUSD == nil || *p.CostUSD != want {
		t.Errorf("prediction = %+v, want Paris, usage 1000/10, cost %v", p, want)
	}
	body := got.Load().(string)
	if !strings.Contains(body, `"system":"Be brief."`) || !strings.Contains(body, `"max_tokens":64`) {
		t.Errorf("request body %s lacks the system message or max_tokens", body)
	}
}

// TestRedactedThinkingReplyRead: a reply the client library cannot read (Claude's
// redacted_thinking block, which langchaingo v0.1.14 does not know, beside a thinking block and
// the text) is read from its body: the record has the text, the thinking as its reasoning, the
// usage and cost its server reported, and --cache stores it as any other reply, so a rerun makes
// no call.
func TestRedactedThinkingReplyRead(t *testing.T) {
	url, calls := clitest.CountedReplyServer(t, clitest.Reply{Status: 200, ContentType: "application/json",
		Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-7-sonnet-20250219","content":[` +
			`{"type":"thinking","thinking":"France's capital.","signature":"EuYBCkQYAiJA"},` +
			`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},{"type":"text","text":"Paris"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1000,"output_tokens":500}}`})
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	args := []string{"--provider", "anthropic", "--model", "claude-3-7-sonnet-20250219", "--base-url", url + "/v1",
		"--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	const cost = (1000*3.00 + 500*15.00) / 1e6 // claude-3-7-sonnet: $3 in, $15 out per million
	for i, wantCalls := range []int64{2, 2} {
		recs, stderr, err := run(t, context.Background(), input(2, nil), args...)
		if err != nil || len(recs) != 2 || calls.Load() != wantCalls {
			t.Fatalf("run %d: %v, %d records after %d calls; want 2 records after %d calls; stderr %s", i+1, err, len(recs), calls.Load(), wantCalls, stderr)
		}
		for _, r := range recs {
			p := r.Prediction
			if p.Text != "Paris" || p.Reasoning != "France's capital." || p.Error != "" || p.Usage == nil || p.Usage.InputTokens != 1000 ||
				p.Usage.OutputTokens != 500 || p.CostUSD == nil || *p.CostUSD != cost || p.Cached != (i == 1) {
				t.Errorf("run %d: prediction %+v, usage %v; want Paris, its reasoning, 1000/500 tokens costing %v, cached %v", i+1, p, p.Usage, cost, i == 1)
			}
		}
	}
}

// TestUnreadableReplyPaid: a reply that neither the client library nor qapipe can read (an
// OpenAI-compatible message whose content is an object) fails its record in the client's words,
// with the usage and cost its server reported, as --max-cost counts them: the second call is not
// made under a budget the first spent.
func TestUnreadableReplyPaid(t *testing.T) {
	url, calls := clitest.CountedReplyServer(t, clitest.Reply{Status: 200, ContentType: "application/json",
		Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":{"text":"Paris"}},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":1000,"completion_tokens":500,"total_tokens":1500}}`})
	t.Setenv("OPENAI_API_KEY", testKey)
	recs, stderr, err := run(t, context.Background(), input(2, nil), "--provider", "openai", "--model", "gpt-4o",
		"--base-url", url+"/v1", "--concurrency", "1", "--max-cost", "0.005")
	if command.ExitCode(err) != command.ExitBadRecords || len(recs) != 2 || calls.Load() != 1 {
		t.Fatalf("exit %d (%v), %d records after %d calls; want 3, 2 records after 1 call; stderr %s", command.ExitCode(err), err, len(recs), calls.Load(), stderr)
	}
	p := recs[0].Prediction
	const cost = (1000*2.50 + 500*10.00) / 1e6 // gpt-4o: $2.50 in, $10 out per million
	if !strings.HasPrefix(p.Error, "openai gpt-4o: json: cannot unmarshal object") || p.Usage == nil || p.Usage.InputTokens != 1000 ||
		p.Usage.OutputTokens != 500 || p.CostUSD == nil || *p.CostUSD != cost {
		t.Errorf("prediction %+v, usage %v; want the client's error with 1000/500 tokens costing %v", p, p.Usage, cost)
	}
	if p := recs[1].Prediction; !strings.Contains(p.Error, "budget spent: $0.007500 of --max-cost $0.005000") {
		t.Errorf("second prediction %+v, want it refused by the budget", p)
	}
}

// TestUnreadableReplyWithoutUsage: such a reply from a server that reports no usage (llama.cpp's
// may leave it out) was paid for all the same, its cost unknown: --max-cost can no longer be
// kept, and makes no further call, as after an empty reply without usage, where every record was
// asked as if the reply had cost nothing.
func TestUnreadableReplyWithoutUsage(t *testing.T) {
	url, calls := clitest.CountedReplyServer(t, clitest.Reply{Status: 200, ContentType: "application/json",
		Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":{"text":"Paris"}},"finish_reason":"stop"}]}`})
	t.Setenv("OPENAI_API_KEY", testKey)
	recs, stderr, err := run(t, context.Background(), input(3, nil), "--provider", "openai", "--model", "gpt-4o",
		"--base-url", url+"/v1", "--concurrency", "1", "--max-cost", "1")
	if command.ExitCode(err) != command.ExitBadRecords || len(recs) != 3 || calls.Load() != 1 {
		t.Fatalf("exit %d (%v), %d records after %d calls; want 3, 3 records after 1 call; stderr %s", command.ExitCode(err), err, len(recs), calls.Load(), stderr)
	}
	if p := recs[0].Prediction; !strings.HasPrefix(p.Error, "openai gpt-4o: json: cannot unmarshal object") || p.Usage != nil || p.CostUSD != nil {
		t.Errorf("prediction %+v, want the client's error with no usage nor cost", p)
	}
	if p := recs[1].Prediction; !strings.Contains(p.Error, "the server reported no token usage for a reply") {
		t.Errorf("second prediction %+v, want it refused by the budget", p)
	}
}

// TestFloatTokenCounts: an OpenAI-compatible reply whose token counts are JSON numbers that are
// no ints (10.0, as some servers write them), which the client library refuses whole, is
// answered from its body: 10.0 is 10 tokens, as the OpenAI SDK reads it; a count that is no
// whole number leaves the usage unknown, and the answer stands.
func TestFloatTokenCounts(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		usage  *record.Usage
	}{
		{`10.0`, &record.Usage{InputTokens: 10, OutputTokens: 5}},
		{`1e1`, &record.Usage{InputTokens: 10, OutputTokens: 5}},
		{`10.5`, nil},
	} {
		url, calls := clitest.CountedReplyServer(t, clitest.Reply{Status: 200, ContentType: "application/json",
			Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],` +
				`"usage":{"prompt_tokens":` + tc.prompt + `,"completion_tokens":5.0,"total_tokens":15}}`})
		t.Setenv("OPENAI_API_KEY", testKey)
		recs, stderr, err := run(t, context.Background(), input(1, nil), "--provider", "openai", "--model", "gpt-4o", "--base-url", url+"/v1")
		if err != nil || len(recs) != 1 || calls.Load() != 1 {
			t.Fatalf("prompt_tokens %s: %v, %d records after %d calls; want 1 record after 1 call; stderr %s", tc.prompt, err, len(recs), calls.Load(), stderr)
		}
		if p := recs[0].Prediction; p.Text != "Paris" || p.Error != "" || fmt.Sprint(p.Usage) != fmt.Sprint(tc.usage) {
			t.Errorf("prompt_tokens %s: prediction %q, error %q, usage %+v; want Paris, no error, usage %+v", tc.prompt, p.Text, p.Error, p.Usage, tc.usage)
		}
	}
}

// TestOpenAICachedPrompt: the prompt tokens OpenAI served from its prompt cache
// (prompt_tokens_details.cached_tokens) are kept on the record's usage and priced at the model's
// cached rate, on the reply and on the same reply served again from --cache.
func TestOpenAICachedPrompt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":2000,"completion_tokens":10,"total_tokens":2010,"prompt_tokens_details":{"cached_tokens":1536,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`)
	}))
	defer srv.Close()
	args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	// gpt-4o-mini: $0.15 in, $0.075 cached in, $0.60 out per million
	want := (464*0.15 + 1536*0.075 + 10*0.60) / 1e6
	for _, cached := range []bool{false, true} {
		recs, stderr, err := run(t, context.Background(), input(1, nil), args...)
		if err != nil {
			t.Fatalf("%v; stderr %s", err, stderr)
		}
		p := recs[0].Prediction
		if p.Cached != cached || p.Usage == nil || p.Usage.InputTokens != 2000 || p.Usage.OutputTokens != 10 || p.Usage.CachedInputTokens != 1536 ||
			p.CostUSD == nil || !(math.Abs(*p.CostUSD-want) <= 1e-15) {
			t.Errorf("prediction (cached %v) = %+v, usage %+v, cost %v; want usage 2000/10 with 1536 cached, cost %v", cached, p, p.Usage, p.CostUSD, want)
		}
	}
}

// TestPricesFreeCacheRates: a --prices file's cached or cache_write rate given as 0 prices
// those tokens at 0, as an input or output rate of 0 does; only a rate left out prices them at
// the input rate. A cached rate of 0 read as "none" billed 1,536 cache hits at $2.50 a million.
func TestPricesFreeCacheRates(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/chat/completions":
			io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],`+
				`"usage":{"prompt_tokens":2000,"completion_tokens":10,"total_tokens":2010,"prompt_tokens_details":{"cached_tokens":1536}}}`)
		case "/v1/messages":
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Paris"}],`+
				`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":3000,"cache_read_input_tokens":20000,"output_tokens":30}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	for _, tc := range []struct {
		provider, prices string
		want             float64
	}{
		{"openai", "m: {input: 2.5, output: 10, cached: 0}", 0.00126},                                                            // 464×2.50 + 1536×0 + 10×10
		{"openai", "m: {input: 2.5, output: 10}", 0.0051},                                                                        // left out: 2000×2.50 + 10×10
		{"anthropic", "m: {input: 3, output: 15, cached: 0.3, cache_write: 0}", 0.00648},                                         // 10×3 + 20000×0.30 + 3000×0 + 30×15
		{"anthropic", "m: {input: 3, output: 15, cached: 0, cache_write: 3.75}", 0.01173},                                        // 10×3 + 20000×0 + 3000×3.75 + 30×15
		{"anthropic", "m: {input: 3, output: 15, long: {above: 100, input: 6, output: 30, cached: 0, cache_write: 0}}", 0.00096}, // long: 10×6 + 30×30
	} {
		prices := filepath.Join(t.TempDir(), "prices.yaml")
		if err := os.WriteFile(prices, []byte(tc.prices), 0o644); err != nil {
			t.Fatal(err)
		}
		recs, stderr, err := run(t, context.Background(), input(1, nil), "--provider", tc.provider, "--model", "m", "--base-url", srv.URL+"/v1", "--prices", prices)
		if err != nil {
			t.Fatalf("%s, %s: %v; stderr %s", tc.provider, tc.prices, err, stderr)
		}
		if p := recs[0].Prediction; p.CostUSD == nil || *p.CostUSD != tc.want {
			t.Errorf("%s, %s: usage %+v, cost %s; want cost %v", tc.provider, tc.prices, p.Usage, costString(p.CostUSD), tc.want)
		}
	}
}

// TestAnthropicPromptCache: the prompt tokens Anthropic wrote to and read from its prompt cache,
// which it counts apart from input_tokens (a gateway in front of it may cache a prompt qapipe
// does not mark), are kept on the record's usage and priced at the model's cache-write rate (1.25
// times the input rate) and cache-read rate (a tenth), on the reply and on the same reply served
// again from --cache.
func TestAnthropicPromptCache(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Paris"}],`+
			`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":3000,"cache_read_input_tokens":20000,"output_tokens":30}}`)
	}))
	defer srv.Close()
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	args := []string{"--provider", "anthropic", "--model", "claude-sonnet-4-5-20250929", "--base-url", srv.URL + "/v1",
		"--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
	// claude-sonnet-4-5: $3 in, $3.75 written to the cache, $0.30 read from it, $15 out per million:
	// 10×3 + 3000×3.75 + 20000×0.30 + 30×15 (at the input rate, the cache's tokens cost $0.06903).
	const want = 0.01773
	for _, cached := range []bool{false, true} {
		recs, stderr, err := run(t, context.Background(), input(1, nil), args...)
		if err != nil {
			t.Fatalf("%v; stderr %s", err, stderr)
		}
		p := recs[0].Prediction
		if p.Text != "Paris" || p.Cached != cached || p.Usage == nil || fmt.Sprint(*p.Usage) != fmt.Sprint(record.Usage{InputTokens: 23010, OutputTokens: 30, CachedInputTokens: 20000, CacheWriteInputTokens: 3000}) ||
			p.CostUSD == nil || *p.CostUSD != want {
			t.Errorf("prediction (cached %v) = %+v, usage %+v, cost %v; want Paris, usage 23010/30 with 20000 read from the cache and 3000 written to it, cost %v",
				cached, p, p.Usage, p.CostUSD, want)
		}
	}
}

func TestOllamaEndToEnd(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model   string `json:"model"`
			Stream  bool   `json:"stream"`
			Options struct {
				Temperature float64 `json:"temperature"`
				Seed        int     `json:"seed"`
			} `json:"options"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.URL.Path != "/api/chat" || req.Model != "llama3.2" || req.Stream || req.Options.Seed != 7 {
			http.Error(w, `{"error":"unexpected request"}`, 400)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, `{"model":"llama3.2","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"A0"},"done":true,"prompt_eval_count":31,"eval_count":2}`+"\n")
	}))
	defer srv.Close()
	recs, stderr, err := run(t, context.Background(), input(1, nil), "--provider", "ollama", "--model", "llama3.2",
		"--base-url", srv.URL, "--seed", "7")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	p := recs[0].Prediction
	if p.Text != "A0" || p.Provider != "ollama" || p.Usage.InputTokens != 31 || p.Usage.OutputTokens != 2 || p.CostUSD != nil {
		t.Errorf("prediction = %+v, want A0 with usage 31/2 and no price", p)
	}
	if !strings.Contains(stderr, `no price for model "llama3.2"`) {
		t.Errorf("stderr lacks the unpriced warning:\n%s", stderr)
	}
}

// TestGeminiBlockedEndToEnd: a prompt or reply that Gemini's filters block is a failed
// prediction naming the reason (exit 3), asked once, with the usage and cost it was paid for; the
// other records are answered. genai calls generateContent for a lone user message and
// streamGenerateContent (a JSON array of replies) when --system adds a system message.
func TestGeminiBlockedEndToEnd(t *testing.T) {
	replies := map[string]string{
		"ID0": `{"promptFeedback":{"blockReason":4},"usageMetadata":{"promptTokenCount":40,"totalTokenCount":40}}`,
		"ID1": `{"candidates":[{"finishReason":9,"index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":6,"totalTokenCount":46}}`,
		"ID2": `{"candidates":[{"content":{"parts":[{"text":"A2"}],"role":"model"},"finishReason":1,"index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":2,"totalTokenCount":42}}`,
	}
	t.Setenv("GOOGLE_API_KEY", testKey)
	for _, system := range []bool{false, true} {
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			b, _ := io.ReadAll(r.Body)
			method := map[bool]string{false: ":generateContent", true: ":streamGenerateContent"}[system]
			if r.URL.Path != "/v1beta/models/gemini-2.0-flash"+method || r.Header.Get("X-Goog-Api-Key") != testKey {
				http.Error(w, `{"error":{"code":404,"message":"not found"}}`, http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			for id, reply := range replies {
				if bytes.Contains(b, []byte(id+" ")) {
					if system {
						reply = "[" + reply + "\n]"
					}
					io.WriteString(w, reply)
				}
			}
		}))
		args := []string{"--provider", "googleai", "--model", "gemini-2.0-flash", "--base-url", srv.URL, "--concurrency", "1", "--backoff", "1ms"}
		if system {
			args = append(args, "--system", "Answer briefly.")
		}
		recs, stderr, err := run(t, context.Background(), input(3, nil), args...)
		srv.Close()
		if code := command.ExitCode(err); code != command.ExitBadRecords || len(recs) != 3 {
			t.Fatalf("system %v: exit %d with %d records (%v), want 3 with 3; stderr:\n%s", system, code, len(recs), err, stderr)
		}
		if n := calls.Load(); n != 3 {
			t.Errorf("system %v: %d requests, want 3 (a block is not retried)", system, n)
		}
		for i, want := range []struct {
			err     string
			in, out int
			cost    float64 // in×0.10 + out×0.40 per million
		}{
			{"googleai gemini-2.0-flash: prompt blocked by Gemini: PROHIBITED_CONTENT", 40, 0, 4e-6},
			{"googleai gemini-2.0-flash: reply blocked by Gemini: SPII", 40, 6, 6.4e-6},
			{"", 40, 2, 4.8e-6},
		} {
			p := recs[i].Prediction
			cost := want.cost
			if p.Error != want.err || p.Attempts != 1 || p.Usage == nil || p.Usage.InputTokens != want.in || p.Usage.OutputTokens != want.out || p.CostUSD == nil || *p.CostUSD != cost {
				t.Errorf("system %v, record %d: %+v, want error %q after 1 attempt, usage %d/%d, cost %v", system, i, p, want.err, want.in, want.out, cost)
			}
		}
		if p := recs[2].Prediction; p.Text != "A2" {
			t.Errorf("system %v, record 2: text %q, want A2", system, p.Text)
		}
		if !strings.Contains(stderr, "2 errors; tokens 120 in, 8 out") {
			t.Errorf("system %v: stderr lacks the counts:\n%s", system, stderr)
		}
	}
}

// TestExtractiveNotCached: the offline extractive baseline's answers are not stored in --cache. It
// calls nothing, so a cache saves nothing, and its answers change with qapipe's versions (its
// ranking and span rules), which no key names: a stored answer would be served after an upgrade
// in place of the one the baseline now gives. With no EvaLearn judge (--judge-model), whose
// replies the cache would serve, nothing is cached, and no file is made (an empty cache was
// left); an existing cache is left as it was. --cache is still checked: a missing folder is
// refused as it is in any run.
func TestExtractiveNotCached(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "cache.db")
	in := `{"schema":1,"id":"r1","question":"Where was Ada born?","answers":["London"],"context":[{"title":"Ada","text":"Ada was born in London. She wrote notes."}]}` + "\n"
	for i := range 2 {
		recs, stderr, err := run(t, context.Background(), in, "--provider", "extractive", "--cache", db)
		if err != nil || len(recs) != 1 {
			t.Fatalf("run %d: %v\n%s", i, err, stderr)
		}
		if p := recs[0].Prediction; p.Error != "" || p.Text == "" || p.Cached {
			t.Errorf("run %d: %+v, want the baseline's answer, not cached", i, p)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("the extractive runs made %v, want no file", files)
	}
	c, err := cache.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if recs, stderr, err := run(t, context.Background(), in, "--provider", "extractive", "--cache", db); err != nil || len(recs) != 1 {
		t.Fatalf("run over an existing cache: %v\n%s", err, stderr)
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the extractive run changed the existing cache (%d bytes, then %d; %v)", len(before), len(after), err)
	}
	missing := filepath.Join(dir, "no-such-folder", "cache.db")
	_, stderr, err := run(t, context.Background(), in, "--provider", "extractive", "--cache", missing)
	if code := command.ExitCode(err); code != 2 || !strings.Contains(stderr+fmt.Sprint(err), "--cache: cannot write "+missing) {
		t.Errorf("--cache in a missing folder: exit %d, %v, stderr %q; want exit 2 naming --cache and the file", code, err, stderr)
	}
}

// TestRecordsAsTheyCome: a predicted record is written out before the next input line comes, not
// held in the output buffer until it fills or the input ends (a reader of the output as it grows
// would see nothing for a long run's first hundreds of records).
func TestRecordsAsTheyCome(t *testing.T) {
	var lines []string
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"schema":1,"id":"r%d","question":"Who wrote it?","answers":["Ann"],"context":[{"text":"Ann wrote it."}]}`, i))
	}
	out := clitest.RecordsAsTheyCome(t, Run, []string{"qa-predict", "--provider", "extractive", "--concurrency", "4"}, lines)
	for i := range 3 {
		if !strings.Contains(out, fmt.Sprintf(`"id":"r%d"`, i)) {
			t.Errorf("record r%d missing from the output:\n%s", i, out)
		}
	}
}

// TestSampleSeed: sample k of --seed s sends s + k, skipping 0 (which langchaingo leaves out),
// so that no two samples of a seed send the same one; a seed of 0 sends none. A sum past the
// largest int is refused, not wrapped round to another sample's seed.
func TestSampleSeed(t *testing.T) {
	for _, tc := range []struct{ seed, k, want int }{
		{7, 0, 7}, {7, 3, 10}, {-3, 0, -3}, {-3, 2, -1}, {-3, 3, 1}, {-3, 4, 2}, {-1, 1, 1}, {0, 5, 0},
		{math.MaxInt - 2, 2, math.MaxInt}, {math.MaxInt, 0, math.MaxInt}, {math.MinInt, 3, math.MinInt + 3},
	} {
		if got, err := sampleSeed(tc.seed, tc.k); got != tc.want || err != nil {
			t.Errorf("sampleSeed(%d, %d) = %d, %v; want %d", tc.seed, tc.k, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ seed, k int }{{math.MaxInt - 2, 3}, {math.MaxInt, 1}, {1, math.MaxInt}} {
		if got, err := sampleSeed(tc.seed, tc.k); err == nil || !strings.Contains(err.Error(), "past the largest seed") {
			t.Errorf("sampleSeed(%d, %d) = %d, %v; want an error, the sum being past the largest int", tc.seed, tc.k, got, err)
		}
	}
}

// TestSameQuestionAskedOnce: records that ask the same prompt (one question in two input files)
// are asked once with a cache, whatever --concurrency: the others wait for that reply and are
// answered from the cache, as in a run one call at a time, where several calls at once had each
// paid for the same reply. Which record makes the call depends on which gets to it first, so
// with --concurrency above 1 it need not be the first in the input; the answers, their usage and
// cost, and the run's spend are the same.
func TestSameQuestionAskedOnce(t *testing.T) {
	var in strings.Builder
	for i := range 6 {
		fmt.Fprintf(&in, `{"schema":1,"id":"d%d","question":"ID7 what is 7? FAULTS=slow","answers":["A7"]}`+"\n", i)
	}
	for _, concurrency := range []string{"4", "1"} {
		srv := faultServer(t)
		recs, stderr, err := run(t, context.Background(), in.String(), "--provider", "openai", "--model", "gpt-4o", "--base-url", srv.URL,
			"--api-key-file", keyFile(t), "--concurrency", concurrency, "--cache", filepath.Join(t.TempDir(), "cache.sqlite"))
		if err != nil || len(recs) != 6 {
			t.Fatalf("--concurrency %s: %v (%d records)\n%s", concurrency, err, len(recs), stderr)
		}
		if n := srv.calls.Load(); n != 1 || !strings.Contains(stderr, "6 predicted (5 cached)") || !strings.Contains(stderr, "cost $0.001620 ($0.001350 of it from the cache)") {
			t.Errorf("--concurrency %s: %d calls, want 1, 5 answers from the cache and their cost counted as such:\n%s", concurrency, n, stderr)
		}
		asked := 0
		for _, r := range recs {
			p := r.Prediction
			if p.Text != "A7" || p.Usage == nil || p.Usage.InputTokens != 100 || p.CostUSD == nil || *p.CostUSD != 0.00027 {
				t.Errorf("--concurrency %s: %s: %+v, want the one reply, its usage and cost", concurrency, r.ID, p)
			}
			if !p.Cached {
				asked++
				if p.Attempts != 1 {
					t.Errorf("--concurrency %s: %s: made the call in %d attempts, want 1", concurrency, r.ID, p.Attempts)
				}
			}
		}
		if asked != 1 || concurrency == "1" && recs[0].Prediction.Cached {
			t.Errorf("--concurrency %s: %d records made the call, want 1 (the first, at --concurrency 1)", concurrency, asked)
		}
	}
}

// TestGeminiSafetyEndToEnd: every Gemini call carries the safety threshold --gemini-safety (or
// QA_GEMINI_SAFETY) names for langchaingo's four harm categories, BLOCK_ONLY_HIGH (3) without
// it; the server speaks the Gemini API as genai calls it (enums as numbers).
func TestGeminiSafetyEndToEnd(t *testing.T) {
	t.Setenv("GOOGLE_API_KEY", testKey)
	for _, tc := range []struct {
		args []string
		env  string
		want int
	}{
		{nil, "", 3},
		{[]string{"--gemini-safety", "block_none"}, "", 4},
		{nil, "BLOCK_LOW_AND_ABOVE", 1},
	} {
		t.Setenv("QA_GEMINI_SAFETY", tc.env)
		srv := clitest.NewGeminiServer(t, "Paris")
		args := append([]string{"--provider", "googleai", "--model", "gemini-2.0-flash", "--base-url", srv.URL, "--concurrency", "1"}, tc.args...)
		recs, stderr, err := run(t, context.Background(), input(2, nil), args...)
		if err != nil || len(recs) != 2 || recs[0].Prediction.Text != "Paris" {
			t.Fatalf("%v %q: %d records, %v; stderr:\n%s", tc.args, tc.env, len(recs), err, stderr)
		}
		if got := srv.Thresholds(); !reflect.DeepEqual(got, []int{tc.want, tc.want}) {
			t.Errorf("%v %q: calls carried thresholds %v, want %d in each of 2", tc.args, tc.env, got, tc.want)
		}
	}
}

// TestGeminiSafetyKeysCache: the safety threshold is part of a Gemini call, so --cache serves a
// reply only to a run with the threshold it was asked with: a run at a stricter one asks again
// (its filter may block what a looser one let through), and the default, unwritten or written
// out, keys as replies stored without it did.
func TestGeminiSafetyKeysCache(t *testing.T) {
	t.Setenv("GOOGLE_API_KEY", testKey)
	srv := clitest.NewGeminiServer(t, "Paris")
	cacheFile := filepath.Join(t.TempDir(), "c.sqlite")
	for i, tc := range []struct {
		args []string
		want []int // the thresholds of the calls made so far
	}{
		{nil, []int{3, 3}},
		{[]string{"--gemini-safety", "block_only_high"}, []int{3, 3}},
		{[]string{"--gemini-safety", "block_low_and_above"}, []int{3, 3, 1, 1}},
		{[]string{"--gemini-safety", "block_low_and_above"}, []int{3, 3, 1, 1}},
		{nil, []int{3, 3, 1, 1}},
	} {
		args := append([]string{"--provider", "googleai", "--model", "gemini-2.0-flash", "--base-url", srv.URL,
			"--concurrency", "1", "--cache", cacheFile}, tc.args...)
		recs, stderr, err := run(t, context.Background(), input(2, nil), args...)
		if err != nil || len(recs) != 2 || recs[1].Prediction.Text != "Paris" {
			t.Fatalf("run %d %v: %d records, %v; stderr:\n%s", i, tc.args, len(recs), err, stderr)
		}
		if got := srv.Thresholds(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("run %d %v: calls so far carried thresholds %v, want %v", i, tc.args, got, tc.want)
		}
	}
}

// costString is c's value, or "none" for nil.
func costString(c *float64) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprint(*c)
}
