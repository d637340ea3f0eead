package predict

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// batchCall is one batched request a loopback server received.
type batchCall struct {
	Model, Role string
	MaxTokens   int
	Seed        *int
	Content     string
	Questions   []string // the numbered question lines, without their numbers
}

// batchServer is a loopback server speaking OpenAI's chat wire format that answers a batched
// LoCoMo query with reply(questions) (batchHandler), and the calls it received.
func batchServer(t *testing.T, reply func(qs []string) string) (*httptest.Server, func() []batchCall) {
	var mu sync.Mutex
	var calls []batchCall
	srv := httptest.NewServer(batchHandler(reply, func(c batchCall) {
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func() []batchCall {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(calls)
	}
}

// batchHandler answers a batched LoCoMo query with reply(questions), reporting prompt_tokens 100
// and completion_tokens the number of questions, and hands each call to seen if not nil.
func batchHandler(reply func(qs []string) string, seen func(batchCall)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req chatBody
		if err := json.Unmarshal(b, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		m := req.Messages[len(req.Messages)-1]
		c := batchCall{Model: req.Model, Role: m.Role, MaxTokens: max(req.MaxTokens, req.MaxCompletionTokens), Seed: req.Seed, Content: m.Content}
		_, lines, _ := strings.Cut(m.Content, "whenever possible.\n\n")
		for i, line := range strings.Split(lines, "\n") {
			c.Questions = append(c.Questions, strings.TrimPrefix(line, fmt.Sprintf("%d: ", i)))
		}
		if seen != nil {
			seen(c)
		}
		content, _ := json.Marshal(reply(c.Questions))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":%d,"total_tokens":%d}}`,
			req.Model, content, len(c.Questions), 100+len(c.Questions))
	}
}

// goldenLoCoMo is the seven conv-26 records of internal/prompt's golden tests (sessions 1-4),
// locomo:conv-26:0 to :6 (categories 2, 2, 3, 1, 4, 5, 5).
func goldenLoCoMo(t *testing.T) []*record.Record {
	t.Helper()
	b, err := os.ReadFile("../prompt/testdata/golden/locomo_records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return readRecords(t, b)
}

// dictReply answers each question with "answer to" and its first word, and category-5 questions
// (those offering options) with "a", as a JSON dictionary keyed by question number.
func dictReply(qs []string) string {
	m := map[string]string{}
	for k, q := range qs {
		m[fmt.Sprint(k)] = "answer to " + strings.Fields(q)[0]
		if strings.Contains(q, "Select the correct answer") {
			m[fmt.Sprint(k)] = "a"
		}
	}
	b, _ := json.Marshal(m)
	return "```json\n" + string(b) + "\n```"
}

// TestLoCoMoBatchWire runs qa-predict --batch-size 3 against a loopback server over seven
// questions of one conversation, the second already predicted: blocks 0-2, 3-5 and 6 make three
// calls asking 0 and 2, 3 to 5, and 6, each with the batch query of its questions as
// LoCoMoBatchQA renders it, max_tokens 150 and gpt-4-turbo's settings. Every record comes back
// in order with its own answer read from the reply (category 5's letter mapped to its option),
// batch naming its call, and the call's usage on its first record only, so the totals count each
// call once.
func TestLoCoMoBatchWire(t *testing.T) {
	recs := goldenLoCoMo(t)
	recs[1].Prediction = &record.Prediction{Text: "earlier"}
	srv, seen := batchServer(t, dictReply)
	out, stderr, err := run(t, context.Background(), jsonl(t, recs...), "--provider", "openai", "--model", "gpt-4-turbo",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--batch-size", "3", "--concurrency", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	blocks := [][]int{{0, 2}, {3, 4, 5}, {6}}
	calls := seen()
	slices.SortFunc(calls, func(x, y batchCall) int { return strings.Compare(x.Questions[0], y.Questions[0]) })
	if len(calls) != len(blocks) {
		t.Fatalf("%d calls, want %d", len(calls), len(blocks))
	}
	p := &prompter{seed: 1}
	for _, block := range blocks {
		var asked []*record.Record
		var firsts []bool
		for _, i := range block {
			asked, firsts = append(asked, recs[i]), append(firsts, p.abstainFirst(recs[i].ID))
		}
		want, asks, _, err := prompt.LoCoMoBatchQA(asked, firsts, 128000, 3)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(calls, func(c batchCall) bool { return c.Content == want })
		if i < 0 {
			t.Fatalf("no call sent the query of block %v:\n%.2000s", block, want)
		}
		if c := calls[i]; c.MaxTokens != 150 || c.Role != "user" || c.Model != "gpt-4-turbo" || len(c.Questions) != len(block) {
			t.Errorf("block %v: sent max_tokens %d, role %q, model %q, %d questions; want 150, user, gpt-4-turbo, %d", block, c.MaxTokens, c.Role, c.Model, len(c.Questions), len(block))
		}
		for k, i := range block {
			pred := out[i].Prediction
			wantText := "answer to " + strings.Fields(recs[i].Question)[0]
			if asks[k].Options != nil {
				wantText = asks[k].Options[0]
			}
			wantBatch := record.Batch{First: recs[block[0]].ID, Index: k, Size: len(block)}
			if pred == nil || pred.Error != "" || pred.Text != wantText || pred.Batch == nil || !reflect.DeepEqual(*pred.Batch, wantBatch) {
				t.Errorf("%s: prediction %+v, want %q in batch %+v", recs[i].ID, pred, wantText, wantBatch)
				continue
			}
			if k == 0 && (pred.Usage == nil || pred.CostUSD == nil) || k > 0 && (pred.Usage != nil || pred.CostUSD != nil || pred.LatencyMS != 0) {
				t.Errorf("%s, question %d of its call: usage %v, cost %v, latency %d; want them on the first question alone", recs[i].ID, k, pred.Usage, pred.CostUSD, pred.LatencyMS)
			}
			if pred.PromptSHA256 != promptSHA256([]model.Message{{Role: "user", Content: want}}) {
				t.Errorf("%s: prompt_sha256 %s, not that of the call", recs[i].ID, pred.PromptSHA256)
			}
		}
	}
	if len(out) != len(recs) || out[1].Prediction.Text != "earlier" || out[1].Prediction.Batch != nil {
		t.Errorf("%d records out, the second %+v; want 7, the second passed through", len(out), out[1].Prediction)
	}
	for i, rec := range out {
		if rec.ID != recs[i].ID {
			t.Errorf("record %d is %s, want %s", i, rec.ID, recs[i].ID)
		}
	}
	if want := "qa-predict: 7 records: 6 predicted (0 cached), 1 passed through, 0 errors; tokens 300 in, 6 out;"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestLoCoMoBatchReplyErrors: a reply LoCoMo's script cannot read is an error on every record of
// its call (the first keeping the call's usage, which was paid for), a question missing from a
// readable reply an error on its record alone; the other records keep their answers, every
// record comes out, and the exit code is 3.
func TestLoCoMoBatchReplyErrors(t *testing.T) {
	recs := goldenLoCoMo(t)
	srv, _ := batchServer(t, func(qs []string) string {
		switch {
		case strings.HasPrefix(qs[0], recs[0].Question):
			return "Sorry, I cannot answer these questions."
		case strings.HasPrefix(qs[0], recs[3].Question):
			return `{"0": "Sweden", "2": "b"}` // no answer for question 1, locomo:conv-26:4
		}
		return dictReply(qs)
	})
	out, stderr, err := run(t, context.Background(), jsonl(t, recs...), "--provider", "openai", "--model", "gpt-4-turbo",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--batch-size", "3")
	if command.ExitCode(err) != 3 || len(out) != len(recs) {
		t.Fatalf("exit %d, %d records; want 3, %d\n%s", command.ExitCode(err), len(out), len(recs), stderr)
	}
	for i, rec := range out {
		p := rec.Prediction
		switch i {
		case 0, 1, 2:
			if p.Error == "" || p.Text != "" || !strings.Contains(p.Error, "cannot read the batched reply") || !strings.Contains(p.Error, "Sorry, I cannot") {
				t.Errorf("%s: %+v, want the unreadable reply as its error", rec.ID, p)
			}
			if (p.Usage != nil) != (i == 0) {
				t.Errorf("%s: usage %v, want the call's usage on the first record alone", rec.ID, p.Usage)
			}
		case 4:
			if p.Error == "" || p.Text != "" || !strings.Contains(p.Error, "question 1: not in the reply") {
				t.Errorf("%s: %+v, want question 1's error", rec.ID, p)
			}
		case 3, 5:
			want := "Sweden"
			if i == 5 { // category 5: its "b" is option (b), in the order --seed 1 draws
				ask, _ := prompt.LoCoMoAskOf(recs[i], (&prompter{seed: 1}).abstainFirst(recs[i].ID))
				want = ask.Options[1]
			}
			if p.Error != "" || p.Text != want {
				t.Errorf("%s: %+v, want %q", rec.ID, p, want)
			}
		}
	}
	if want := "7 records: 3 predicted (0 cached), 0 passed through, 4 errors; tokens 300 in, 7 out"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestLoCoMoBatchCacheAndDryRun: the dry run shows each call a run makes, its seed too, asks
// naming its records; a second run with --cache makes no call and gives every record the same
// prediction, cached.
func TestLoCoMoBatchCacheAndDryRun(t *testing.T) {
	recs := goldenLoCoMo(t)
	stdin := jsonl(t, recs...)
	args := []string{"--provider", "openai", "--model", "gpt-3.5-turbo", "--locomo-variant", "gpt-3.5-turbo-4k", "--batch-size", "4", "--seed", "7"}
	dry, stderr, code := dryRunLines(t, stdin, args...)
	if code != 0 || len(dry) != len(recs) {
		t.Fatalf("dry run exit %d, %d lines\n%s", code, len(dry), stderr)
	}
	srv, seen := batchServer(t, dictReply)
	cache := filepath.Join(t.TempDir(), "cache.sqlite")
	args = append(args, "--base-url", srv.URL, "--api-key-file", keyFile(t), "--cache", cache, "--concurrency", "1")
	first, stderr, err := run(t, context.Background(), stdin, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	calls := seen()
	var shown []dryPrediction
	for _, d := range dry {
		if len(d.Requests) > 0 {
			shown = append(shown, d)
		}
	}
	if len(calls) != 2 || len(shown) != 2 {
		t.Fatalf("%d calls, %d shown; want 2 (blocks 0-3 and 4-6)", len(calls), len(shown))
	}
	for i, d := range shown {
		c, m := calls[i], d.Requests[0].Messages[0]
		if m.Content != c.Content || m.Role != c.Role || c.Role != "system" || d.Requests[0].MaxTokens != c.MaxTokens || c.MaxTokens != 200 {
			t.Errorf("call %d: shown %s max_tokens %d, sent %s max_tokens %d (want system, 200)", i, m.Role, d.Requests[0].MaxTokens, c.Role, c.MaxTokens)
		}
		if s := d.Requests[0].Seed; s == nil || c.Seed == nil || *s != *c.Seed || *c.Seed != 7 {
			t.Errorf("call %d: shown seed %v, sent %v; want 7 both", i, s, c.Seed)
		}
		if want := []string{recs[4*i].ID}; !slices.Equal(d.Asks[:1], want) || len(d.Asks) != len(c.Questions) {
			t.Errorf("call %d: asks %v for %d questions sent", i, d.Asks, len(c.Questions))
		}
	}
	if dry[1].AskedWith != recs[0].ID || dry[6].AskedWith != recs[4].ID {
		t.Errorf("asked_with %q and %q, want %s and %s", dry[1].AskedWith, dry[6].AskedWith, recs[0].ID, recs[4].ID)
	}
	second, stderr, err := run(t, context.Background(), stdin, args...)
	if err != nil || len(seen()) != 2 {
		t.Fatalf("second run: %v, %d calls in all; want no new call\n%s", err, len(seen()), stderr)
	}
	for i := range second {
		p, q := first[i].Prediction, second[i].Prediction
		if !q.Cached || q.Text != p.Text || q.Text == "" || !reflect.DeepEqual(*q.Batch, *p.Batch) || (q.Usage == nil) != (p.Usage == nil) {
			t.Errorf("%s: second run %+v, first %+v; want the same answer, cached", recs[i].ID, q, p)
		}
	}
}

// TestLoCoMoBatchUpstream runs the dry run of qa-predict over the conversations of LoCoMo's own
// batched requests (internal/prompt's locomo_batch.json, written by scripts/locomo-requests.py
// --batch from get_gpt_answers): conv-26 whole as qa-load reads it, with the published settings
// (--batch-size 10 for gpt-3.5-turbo-16k and -4k, 20 for gpt-4-turbo), and seven of its questions
// with some already predicted. Each request shown is upstream's, in order: the questions it asks,
// the query's sha256, role, model and max_tokens.
func TestLoCoMoBatchUpstream(t *testing.T) {
	b, err := os.ReadFile("../prompt/testdata/golden/locomo_batch.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Requests []struct {
			Records   string `json:"records"`
			BatchSize int    `json:"batch_size"`
			Variant   string `json:"variant"`
			MaxLength int    `json:"max_length"`
			Answered  []int  `json:"answered"`
			Requests  []struct {
				Asked     []int  `json:"asked"`
				Model     string `json:"model"`
				Role      string `json:"role"`
				MaxTokens int    `json:"max_tokens"`
				SHA256    string `json:"sha256"`
			} `json:"requests"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	var conv26 bytes.Buffer
	if err := load.Run(context.Background(), []string{"qa-load", "../../testdata/locomo/locomo_conv26.json"}, nil, &conv26, io.Discard); err != nil {
		t.Fatal(err)
	}
	files := map[string][]*record.Record{"golden": goldenLoCoMo(t), "conv26": readRecords(t, conv26.Bytes())}
	checked := 0
	for _, c := range golden.Requests {
		v, _ := prompt.LoCoMoVariantNamed(c.Variant)
		if v.MaxLength != c.MaxLength {
			continue // a limit of upstream's table replaced, which no flag gives
		}
		var in []*record.Record
		for i, rec := range files[c.Records] {
			r := *rec
			if slices.Contains(c.Answered, i) {
				r.Prediction = &record.Prediction{Text: "earlier"}
			}
			in = append(in, &r)
		}
		dry, stderr, code := dryRunLines(t, jsonl(t, in...), "--provider", "openai", "--model", v.Model,
			"--locomo-variant", c.Variant, "--batch-size", fmt.Sprint(c.BatchSize))
		if code != 0 {
			t.Fatalf("%s --batch-size %d %s: exit %d\n%s", c.Records, c.BatchSize, c.Variant, code, stderr)
		}
		var shown []dryPrediction
		for _, d := range dry {
			if len(d.Requests) > 0 {
				shown = append(shown, d)
			}
		}
		if len(shown) != len(c.Requests) {
			t.Errorf("%s --batch-size %d %s: %d requests, upstream sends %d", c.Records, c.BatchSize, c.Variant, len(shown), len(c.Requests))
			continue
		}
		for i, r := range c.Requests {
			d := shown[i]
			var ids []string
			for _, k := range r.Asked {
				ids = append(ids, in[k].ID)
			}
			req := d.Requests[0]
			sum := sha256.Sum256([]byte(req.Messages[0].Content))
			if !slices.Equal(d.Asks, ids) || hex.EncodeToString(sum[:]) != r.SHA256 || req.Messages[0].Role != r.Role ||
				req.Model != r.Model || req.MaxTokens != r.MaxTokens || len(req.Messages) != 1 {
				t.Errorf("%s --batch-size %d %s, request %d: asks %v, %s message of %d bytes, model %s, max_tokens %d; upstream asks %v, %s, model %s, max_tokens %d",
					c.Records, c.BatchSize, c.Variant, i, d.Asks, req.Messages[0].Role, len(req.Messages[0].Content), req.Model, req.MaxTokens, ids, r.Role, r.Model, r.MaxTokens)
			}
			checked++
		}
	}
	if checked < 55 {
		t.Errorf("%d requests checked, want the 57 of the published settings and the golden records", checked)
	}
}

// TestLoCoMoBatchFinish: asked to finish while its first call is in flight, a run keeps that
// call's answers and makes no other: the records of the later blocks carry the error of a call
// not made, every record is written, and --retry-errors over the output asks those blocks, each
// in one call, as an uninterrupted run would.
func TestLoCoMoBatchFinish(t *testing.T) {
	recs := goldenLoCoMo(t)
	hung, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv, seen := batchServer(t, func(qs []string) string {
		once.Do(func() {
			close(hung)
			<-release
		})
		return dictReply(qs)
	})
	args := []string{"qa-predict", "--provider", "openai", "--model", "gpt-4-turbo", "--base-url", srv.URL,
		"--api-key-file", keyFile(t), "--batch-size", "3", "--concurrency", "1"}
	ctx, finish := interrupt.WithFinish(context.Background())
	go func() {
		<-hung
		finish()
		close(release)
	}()
	var stdout, stderr bytes.Buffer
	err := Run(ctx, args, strings.NewReader(jsonl(t, recs...)), &stdout, &stderr)
	if got := command.ExitCode(err); got != command.ExitInterrupted {
		t.Errorf("exit code %d (%v), want %d\n%s", got, err, command.ExitInterrupted, stderr.String())
	}
	out := readRecords(t, stdout.Bytes())
	if len(out) != len(recs) || len(seen()) != 1 {
		t.Fatalf("%d records written, %d calls; want %d, 1", len(out), len(seen()), len(recs))
	}
	for i, rec := range out {
		p := rec.Prediction
		if answered := p.Error == "" && p.Text != ""; answered != (i < 3) || i >= 3 && p.Error != interrupt.ErrNotCalled.Error() {
			t.Errorf("%s: %+v; want answered %v, else the error of a call not made", rec.ID, p, i < 3)
		}
	}
	resumed, stderr2, err := run(t, context.Background(), stdout.String(), append(args[1:], "--retry-errors")...)
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr2)
	}
	calls := seen()
	if len(calls) != 3 || len(calls[1].Questions)+len(calls[2].Questions) != 4 {
		t.Fatalf("%d calls in all; want 3, the rerun asking blocks 3-5 and 6", len(calls))
	}
	for _, rec := range resumed {
		if p := rec.Prediction; p.Error != "" || p.Text == "" || p.Batch == nil {
			t.Errorf("%s after the rerun: %+v", rec.ID, p)
		}
	}
}

func TestLoCoMoPlace(t *testing.T) {
	for _, tt := range []struct {
		id    string
		conv  string
		index int
		ok    bool
	}{
		{"locomo:conv-26:17", "locomo:conv-26", 17, true},
		{"locomo:a:b:0", "locomo:a:b", 0, true},
		{"locomo:c:-1", "", 0, false},
		{"locomo:c:+1", "", 0, false},
		{"locomo:c:x", "", 0, false},
		{"locomo:c:", "", 0, false},
		{"nocolon", "", 0, false},
	} {
		conv, index, err := locomoPlace(tt.id)
		if conv != tt.conv || index != tt.index || (err == nil) != tt.ok {
			t.Errorf("locomoPlace(%q) = %q, %d, %v; want %q, %d, ok %v", tt.id, conv, index, err, tt.conv, tt.index, tt.ok)
		}
	}
}

// TestLoCoMoBatchPlaces: in a dry run with --batch-size 3, a record repeating the place of
// another in its block is an error and the block asks the others; a record of a block that comes
// back after another block keeps its prediction when it has one (it passes through) and is an
// error otherwise.
func TestLoCoMoBatchPlaces(t *testing.T) {
	recs := goldenLoCoMo(t)
	dup := *recs[1]
	dup.Question = "A repeated place?"
	back, backDone := *recs[2], *recs[2]
	backDone.ID, backDone.Prediction = "locomo:conv-26:1", &record.Prediction{Text: "earlier"}
	in := []*record.Record{recs[0], recs[1], &dup, recs[3], &back, &backDone}
	dry, stderr, code := dryRunLines(t, jsonl(t, in...), "--provider", "openai", "--model", "gpt-4-turbo", "--batch-size", "3")
	if code != 3 || len(dry) != len(in) {
		t.Fatalf("exit %d, %d lines; want 3, %d\n%s", code, len(dry), len(in), stderr)
	}
	want := []string{"asks 2", "asked_with", "error repeats the place", "asks 1", "error reappear", "already_predicted"}
	for i, d := range dry {
		var got string
		switch {
		case len(d.Asks) > 0:
			got = fmt.Sprintf("asks %d", len(d.Asks))
		case d.AskedWith != "":
			got = "asked_with"
		case d.AlreadyPredicted:
			got = "already_predicted"
		case strings.Contains(d.Error, "repeats the place"):
			got = "error repeats the place"
		case strings.Contains(d.Error, "reappear"):
			got = "error reappear"
		}
		if got != want[i] {
			t.Errorf("line %d (%s): %+v, want %s", i, in[i].ID, d, want[i])
		}
	}
}

// TestLoCoMoBatchFirstMissing: when a readable batched reply lacks the answer of its first
// question, that question's error is on its record alone; the other questions of the call keep
// their answers and no error.
func TestLoCoMoBatchFirstMissing(t *testing.T) {
	recs := goldenLoCoMo(t)[:3]
	srv, _ := batchServer(t, func(qs []string) string { return `{"1": "Sweden", "2": "Paris"}` })
	out, stderr, err := run(t, context.Background(), jsonl(t, recs...), "--provider", "openai", "--model", "gpt-4-turbo",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--batch-size", "3")
	if command.ExitCode(err) != 3 || len(out) != 3 {
		t.Fatalf("exit %d, %d records; want 3, 3\n%s", command.ExitCode(err), len(out), stderr)
	}
	if p := out[0].Prediction; !strings.Contains(p.Error, "question 0: not in the reply") || p.Text != "" {
		t.Errorf("%s: %+v, want question 0's error", out[0].ID, p)
	}
	for i, want := range []string{"", "Sweden", "Paris"} {
		if p := out[i].Prediction; i > 0 && (p.Error != "" || p.Text != want) {
			t.Errorf("%s: text %q, error %q; want %q and no error", out[i].ID, p.Text, p.Error, want)
		}
	}
	if want := "3 records: 2 predicted (0 cached), 0 passed through, 1 error"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestLoCoMoBatchUnreadableNotCached: a batched reply from which no question gets its answer (one
// LoCoMo's script cannot read at all, or one without any of the questions asked) is not kept in
// the cache, so that --retry-errors over the run's output asks the same questions again and gets
// the model's new reply, instead of the unreadable one from the cache, forever. A reply that
// answers some of its questions stays cached.
func TestLoCoMoBatchUnreadableNotCached(t *testing.T) {
	recs := goldenLoCoMo(t)
	var mu sync.Mutex
	asked := map[string]int{}
	srv, seen := batchServer(t, func(qs []string) string {
		mu.Lock()
		defer mu.Unlock()
		asked[qs[0]]++
		switch {
		case asked[qs[0]] > 1:
			return dictReply(qs)
		case strings.HasPrefix(qs[0], recs[0].Question):
			return `{"7": "Sweden"}` // readable, but none of the questions asked
		case strings.HasPrefix(qs[0], recs[3].Question):
			return "Sorry, I cannot answer these questions."
		}
		return dictReply(qs)
	})
	args := []string{"--provider", "openai", "--model", "gpt-4-turbo", "--base-url", srv.URL, "--api-key-file", keyFile(t),
		"--batch-size", "3", "--cache", filepath.Join(t.TempDir(), "cache.sqlite"), "--concurrency", "1"}
	first, stderr, err := run(t, context.Background(), jsonl(t, recs...), args...)
	if command.ExitCode(err) != 3 || len(first) != len(recs) || len(seen()) != 3 {
		t.Fatalf("first run: exit %d, %d records, %d calls; want 3, %d, 3\n%s", command.ExitCode(err), len(first), len(seen()), len(recs), stderr)
	}
	for i, rec := range first {
		if failed := rec.Prediction.Error != ""; failed != (i < 6) {
			t.Fatalf("first run: %s: %+v, want an error on the records of the first two blocks alone", rec.ID, rec.Prediction)
		}
	}
	second, stderr, err := run(t, context.Background(), jsonl(t, first...), append(args, "--retry-errors")...)
	if err != nil || len(seen()) != 5 {
		t.Fatalf("--retry-errors: %v, %d calls in all; want no error and 2 new calls (the failed blocks asked again)\n%s", err, len(seen()), stderr)
	}
	for _, rec := range second[:6] {
		if p := rec.Prediction; p.Error != "" || p.Text == "" || p.Cached {
			t.Errorf("--retry-errors: %s: %+v, want a new answer", rec.ID, p)
		}
	}
}

// TestLoCoMoBatchForgetFails: when the cache cannot drop a batched reply that answers none of
// its questions, every record of the call says so after its own error, as one well-formed
// message: the reply's fault, then the cache's. The cache file refuses deletes through a trigger.
func TestLoCoMoBatchForgetFails(t *testing.T) {
	recs := goldenLoCoMo(t)[:6]
	srv, _ := batchServer(t, func(qs []string) string {
		if strings.HasPrefix(qs[0], recs[0].Question) {
			return `{"7": "Sweden"}` // readable, but none of the questions asked
		}
		return "Sorry, I cannot answer these questions."
	})
	path := filepath.Join(t.TempDir(), "cache.sqlite")
	c, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TRIGGER keep BEFORE DELETE ON entries BEGIN SELECT RAISE(ABORT, 'deletes refused'); END`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, stderr, err := run(t, context.Background(), jsonl(t, recs...), "--provider", "openai", "--model", "gpt-4-turbo",
		"--base-url", srv.URL, "--api-key-file", keyFile(t), "--batch-size", "3", "--cache", path, "--concurrency", "1")
	if command.ExitCode(err) != 3 || len(out) != len(recs) {
		t.Fatalf("exit %d, %d records; want 3, %d\n%s", command.ExitCode(err), len(out), len(recs), stderr)
	}
	forget := "; cache " + path + ": delete: "
	for i, rec := range out {
		reply := `reply: question ` + strconv.Itoa(i%3) + `: not in the reply`
		if i >= 3 {
			reply = "reply: " + prompt.ErrLoCoMoReply.Error()
		}
		p := rec.Prediction
		at := strings.Index(p.Error, forget)
		if !strings.HasPrefix(p.Error, reply) || at < 0 || strings.Count(p.Error, forget) != 1 || !strings.Contains(p.Error[at:], "deletes refused") {
			t.Errorf("%s: error %q, want %q…, then %q… \"deletes refused\"", rec.ID, p.Error, reply, forget)
		}
	}
}

// TestLoCoMoBatchDryRunCachedFailure: a dry run over --cache reads a batch's cached reply as the
// run does: a question the reply holds no answer for fails its record, as an empty reply a
// --empty-reply keep run stored fails every record of its batch without keep, with no call; the
// dry run gives those records the error and exits 3, as the rerun does.
func TestLoCoMoBatchDryRunCachedFailure(t *testing.T) {
	recs := goldenLoCoMo(t)
	stdin := jsonl(t, recs...)
	srv, seen := batchServer(t, func(qs []string) string {
		switch {
		case strings.HasPrefix(qs[0], recs[0].Question):
			return `{"0": "Sweden", "2": "b"}` // no answer for questions 1 and 3
		case strings.HasPrefix(qs[0], recs[4].Question):
			return "<think>\nThe first question" // cut in its thinking: fails 4 to 6
		}
		return dictReply(qs)
	})
	cache := filepath.Join(t.TempDir(), "cache.sqlite")
	args := []string{"--provider", "openai", "--model", "gpt-4-turbo", "--base-url", srv.URL, "--batch-size", "4", "--cache", cache,
		"--concurrency", "1", "--think", "strip"}
	run(t, context.Background(), stdin, append(args, "--api-key-file", keyFile(t))...)
	dry, stderr, code := dryRunLines(t, stdin, args...)
	if code != 3 || len(dry) != len(recs) {
		t.Fatalf("dry run exit %d, %d lines; want 3, %d\n%s", code, len(dry), len(recs), stderr)
	}
	failed := func(d dryPrediction) string {
		if len(d.Requests) > 0 && d.Requests[0].Error != "" {
			return d.Requests[0].Error
		}
		return d.Error
	}
	for i, d := range dry {
		want := map[int]string{1: "question 1: not in the reply", 3: "question 3: not in the reply", 4: "cut in its thinking", 5: "cut in its thinking", 6: "cut in its thinking"}[i]
		if e := failed(d); (e == "") != (want == "") || !strings.Contains(e, want) {
			t.Errorf("%s: error %q, want %q", d.ID, e, want)
		}
	}
	if want := "5 records whose replies in the cache would fail them"; !strings.Contains(stderr, want) {
		t.Errorf("dry run stderr lacks %q:\n%s", want, stderr)
	}
	before := len(seen())
	out, rerr, err := run(t, context.Background(), stdin, args...)
	if command.ExitCode(err) != 3 || len(seen()) != before {
		t.Fatalf("rerun: exit %d, %d calls; want 3, none\n%s", command.ExitCode(err), len(seen())-before, rerr)
	}
	for i, rec := range out {
		if (rec.Prediction.Error != "") != (failed(dry[i]) != "") {
			t.Errorf("%s: rerun error %q, dry run's %q", rec.ID, rec.Prediction.Error, failed(dry[i]))
		}
	}
}

// TestLoCoMoBatchCutReply: a batched reply that stopped at max_tokens (finish_reason length)
// before LoCoMo's script could read it, or before a question's answer, says so on every record it
// fails, in the run and in a dry run over --cache, where "cannot read the batched reply" alone
// hid that a larger --max-tokens lets it finish; a question the reply answered before the cut
// keeps its answer.
func TestLoCoMoBatchCutReply(t *testing.T) {
	recs := goldenLoCoMo(t)[:3]
	for _, tt := range []struct {
		name, reply string
		failed      []bool // by record
	}{
		{"unreadable", `{"0": "7 May 2023", "1": "20`, []bool{true, true, true}},
		{"a question left out", `{"0": "7 May 2023", "1": "2022"}`, []bool{false, false, true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				content, _ := json.Marshal(tt.reply)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4-turbo","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"length"}],"usage":{"prompt_tokens":100,"completion_tokens":150,"total_tokens":250}}`, content)
			}))
			t.Cleanup(srv.Close)
			const note = " (the reply stopped at max_tokens 150, cut short: a larger --max-tokens lets it finish)"
			args := []string{"--provider", "openai", "--model", "gpt-4-turbo", "--base-url", srv.URL, "--api-key-file", keyFile(t),
				"--batch-size", "3", "--cache", filepath.Join(t.TempDir(), "cache.sqlite")}
			out, stderr, err := run(t, context.Background(), jsonl(t, recs...), args...)
			if command.ExitCode(err) != 3 || len(out) != len(recs) {
				t.Fatalf("exit %d, %d records; want 3, %d\n%s", command.ExitCode(err), len(out), len(recs), stderr)
			}
			for i, rec := range out {
				if p := rec.Prediction; tt.failed[i] != strings.HasSuffix(p.Error, note) {
					t.Errorf("%s: error %q; want it ending %q: %v", rec.ID, p.Error, note, tt.failed[i])
				}
			}
			if !tt.failed[0] { // a reply that answers a question stays in the cache: the dry run reads it
				dry, stderr, code := dryRunLines(t, jsonl(t, recs...), args...)
				if code != 3 || len(dry) != len(recs) {
					t.Fatalf("dry run exit %d, %d lines; want 3, %d\n%s", code, len(dry), len(recs), stderr)
				}
				for i, d := range dry {
					e := d.Error
					if len(d.Requests) > 0 && d.Requests[0].Error != "" {
						e = d.Requests[0].Error
					}
					if tt.failed[i] != strings.HasSuffix(e, note) {
						t.Errorf("dry run: %s: error %q; want it ending %q: %v", d.ID, e, note, tt.failed[i])
					}
				}
			}
		})
	}
}
