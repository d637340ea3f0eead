package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/bpe"
	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// dryRunLines runs qa-predict --dry-run in-process and decodes its lines.
func dryRunLines(t *testing.T, stdin string, args ...string) ([]dryPrediction, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), append([]string{"qa-predict", "--dry-run"}, args...), strings.NewReader(stdin), &stdout, &stderr)
	command.Report(&stderr, "qa-predict", err)
	var lines []dryPrediction
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var d dryPrediction
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("dry-run line %q: %v", line, err)
		}
		lines = append(lines, d)
	}
	return lines, stderr.String(), command.ExitCode(err)
}

// TestDryRunShowsWhatIsSent: the requests a dry run shows for LoCoMo (category 2 and 5), a
// generic record, and a LongMemEval record read directly and with notes, are the ones a loopback
// server receives from a real run, in order, prompt, max_tokens and seed alike; the reading call
// after the notes is named, not shown.
func TestDryRunShowsWhatIsSent(t *testing.T) {
	locomo := func(id string, cat int) *record.Record {
		return &record.Record{Schema: 1, ID: id, Dataset: "locomo", Question: "What did Mel paint?", Answers: []string{"a lake"},
			Context: []record.Passage{{Title: "session_1", Date: "1:56 pm on 8 May, 2023", Text: "Mel: I painted a lake sunrise."}},
			Meta:    map[string]json.RawMessage{"category": json.RawMessage(strconv.Itoa(cat))}}
	}
	generic := &record.Record{Schema: 1, ID: "g1", Question: "Who wrote it?", Answers: []string{"Ann"},
		Context: []record.Passage{{Text: "Ann wrote it."}}}
	in := jsonl(t, locomo("locomo:c:1", 2), locomo("locomo:c:2", 5), generic, longMemEvalRecord("longmemeval:q1", ""))
	for _, reading := range []string{"direct", "con-separate"} {
		args := []string{"--provider", "openai", "--model", "gpt-4o", "--reading", reading, "--history-sessions", "3", "--seed", "7"}
		dry, stderr, code := dryRunLines(t, in, args...)
		if code != 0 || len(dry) != 4 {
			t.Fatalf("%s: dry run exit %d, %d lines; stderr %s", reading, code, len(dry), stderr)
		}
		srv, seen := recordingServer(t)
		if _, stderr, err := run(t, context.Background(), in, append(args, "--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "1")...); err != nil {
			t.Fatalf("%s: real run: %v\n%s", reading, err, stderr)
		}
		var shown []chatRequest
		for _, d := range dry {
			for _, c := range d.Requests {
				if c.Model != "gpt-4o" || c.PromptSHA256 != promptSHA256(c.Messages) || c.InputTokens <= 0 {
					t.Errorf("%s: %s request model %q sha %q tokens %d", reading, d.ID, c.Model, c.PromptSHA256, c.InputTokens)
				}
				seed := 0
				if c.Seed != nil {
					seed = *c.Seed
				}
				shown = append(shown, chatRequest{c.Model, c.MaxTokens, c.Messages[len(c.Messages)-1].Content, seed})
			}
		}
		sent := seen()
		if reading == "con-separate" {
			if last := dry[3]; len(last.Requests) != 3 || last.Requests[0].Stage != "notes" || last.Then == "" {
				t.Errorf("con-separate: the LongMemEval line %+v, want three note requests and the reading call named", last)
			}
			sent = sent[:len(sent)-1] // the reading call over the notes, which the dry run names
		}
		if len(shown) != len(sent) {
			t.Fatalf("%s: the dry run shows %d requests, the server received %d (then the reading call)", reading, len(shown), len(sent))
		}
		for i := range sent {
			if shown[i] != sent[i] || sent[i].Seed != 7 {
				t.Errorf("%s: request %d: shown max_tokens %d, seed %d\n%.300s\nsent max_tokens %d, seed %d (want 7)\n%.300s", reading, i,
					shown[i].MaxTokens, shown[i].Seed, shown[i].Prompt, sent[i].MaxTokens, sent[i].Seed, sent[i].Prompt)
			}
		}
	}
}

// TestDryRunSequences: for EvaLearn sequences the dry run shows each sequence's first student
// request, which must be the request EvaLearn's own evaluate.py made (the recorded transcript)
// with --seed as a run sends it, and names the later positions as waiting; it needs no key.
func TestDryRunSequences(t *testing.T) {
	calls := loadTranscript(t)
	dry, stderr, code := dryRunLines(t, seqInput(t), "--provider", "openai", "--model", "fake-client", "--seed", "7", "--judge-model", "fake-judge")
	if code != 0 {
		t.Fatalf("dry run exit %d; stderr %s", code, stderr)
	}
	firsts := 0
	for _, d := range dry {
		switch {
		case len(d.Requests) == 1:
			firsts++
			c := d.Requests[0]
			found := false
			for _, rc := range calls {
				if rc.Role == "client" && rc.Position == 1 && requestKey(rc.Request.Model, rc.Request.Messages) == requestKey(c.Model, c.Messages) {
					found = *rc.Request.Temperature == *c.Temperature && *rc.Request.MaxTokens == c.MaxTokens
				}
			}
			if !found || c.Stage != "student" {
				t.Errorf("%s: the dry-run request is none of evaluate.py's first requests (stage %s)", d.ID, c.Stage)
			}
			if c.Seed == nil || *c.Seed != 7 {
				t.Errorf("%s: the dry-run request's seed %v, want --seed's 7, which the student call carries to openai", d.ID, c.Seed)
			}
		case d.Then == "" || d.Error != "":
			t.Errorf("%s: %+v, want the later positions named as waiting", d.ID, d)
		}
	}
	if firsts != 2 {
		t.Errorf("%d sequences' first requests shown, want 2", firsts)
	}
	if !strings.Contains(stderr, "2 requests to fake-client") || !strings.Contains(stderr, "14 with calls that need replies first") {
		t.Errorf("summary %q", stderr)
	}
}

// TestDryRunSequenceWithoutTurns: a position without turns (a results file's prompt of one text,
// as qa-load --format evalearn-results reads it) asks its question as the one turn of its prompt,
// and an earlier one shows it so in the history: the requests are those of the same records with
// turns [question], where the question was once left out of both.
func TestDryRunSequenceWithoutTurns(t *testing.T) {
	pos := func(n int, withTurns bool) *record.Record {
		q := fmt.Sprintf("Question %d?", n)
		rec := &record.Record{Schema: 1, ID: fmt.Sprintf("evalearn:9:%d", n), Dataset: "evalearn", Type: "Extraction", Question: q,
			Rubric: "rubric", Sequence: &record.Sequence{ID: "9", Position: n}}
		if withTurns {
			rec.Turns = []string{q}
		}
		if n == 1 {
			rec.Prediction = &record.Prediction{Text: "an answer"}
			rec.Judgments = map[string]*record.Judgment{"evalearn": {Raw: `{"answer_score": 1}`}}
		}
		return rec
	}
	var msgs [2][]model.Message
	for i, withTurns := range []bool{false, true} {
		dry, stderr, code := dryRunLines(t, jsonl(t, pos(1, withTurns), pos(2, withTurns)), "--provider", "openai", "--model", "gpt-4o", "--judge-model", "gpt-4o")
		if code != 0 || len(dry) != 2 || len(dry[1].Requests) != 1 {
			t.Fatalf("turns %v: dry run exit %d, lines %+v; stderr %s", withTurns, code, dry, stderr)
		}
		msgs[i] = dry[1].Requests[0].Messages
	}
	if user := msgs[0][1].Content; !strings.Contains(user, "['Question 1?']") || !strings.HasSuffix(user, "[Question]:\nuser: Question 2?\n\n") {
		t.Errorf("without turns, the student is asked:\n%s", user)
	}
	if !slices.Equal(msgs[0], msgs[1]) {
		t.Errorf("without turns:\n%+v\nwith turns [question]:\n%+v", msgs[0], msgs[1])
	}
}

// TestDryRunCutHistories: the dry run says how many LongMemEval histories the token budget cut,
// as a run does, and shows the prompts cut.
func TestDryRunCutHistories(t *testing.T) {
	in := jsonl(t, longMemEvalRecord("longmemeval:q1", ""), longMemEvalRecord("longmemeval:q2", ""))
	whole, _, _ := dryRunLines(t, in, "--provider", "openai", "--model", "gpt-4o", "--history-tokens", "none")
	cut, stderr, code := dryRunLines(t, in, "--provider", "openai", "--model", "gpt-4o", "--history-tokens", "100")
	if code != 0 || !strings.Contains(stderr, "qa-predict: 2 LongMemEval histories cut to their first 100 o200k_base tokens") {
		t.Errorf("exit %d, stderr %q; want the cut counted", code, stderr)
	}
	if len(cut) != 2 || cut[0].Requests[0].InputTokens >= whole[0].Requests[0].InputTokens {
		t.Errorf("cut prompt %d tokens, whole %d; want fewer", cut[0].Requests[0].InputTokens, whole[0].Requests[0].InputTokens)
	}
}

// TestLoCoMoMaxTokens: a LoCoMo question goes out with LoCoMo's max_tokens 32, or 50 for each of
// --batch-size's questions, unless --max-tokens is given; a generic record gets --max-tokens (none
// by default) and a custom template's LoCoMo record too.
func TestLoCoMoMaxTokens(t *testing.T) {
	locomo := &record.Record{Schema: 1, ID: "locomo:c:1", Dataset: "locomo", Question: "What did Mel paint?", Answers: []string{"a lake"},
		Context: []record.Passage{{Title: "session_1", Date: "1:56 pm on 8 May, 2023", Text: "Mel: I painted a lake."}},
		Meta:    map[string]json.RawMessage{"category": json.RawMessage("4")}}
	generic := &record.Record{Schema: 1, ID: "g1", Question: "Who wrote it?", Answers: []string{"Ann"}}
	in := jsonl(t, locomo, generic)
	tmpl := clitest.TempFile(t, "t.tmpl", []byte("Q: {{.Question}}"))
	for _, tt := range []struct {
		args []string
		want [2]int // LoCoMo's, the generic record's
	}{
		{nil, [2]int{32, 0}},
		{[]string{"--max-tokens", "64"}, [2]int{64, 64}},
		{[]string{"--template", tmpl}, [2]int{0, 0}},
		{[]string{"--batch-size", "20"}, [2]int{1000, 0}},
		{[]string{"--batch-size", "20", "--max-tokens", "64"}, [2]int{64, 64}},
	} {
		srv, seen := recordingServer(t)
		args := append([]string{"--provider", "openai", "--model", "gpt-4o", "--concurrency", "1", "--base-url", srv.URL, "--api-key-file", keyFile(t)}, tt.args...)
		// The server's reply is no batch's json: under --batch-size the LoCoMo record is an error (exit 3).
		if _, stderr, err := run(t, context.Background(), in, args...); err != nil && !(slices.Contains(tt.args, "--batch-size") && command.ExitCode(err) == 3) {
			t.Fatalf("%v: %v\n%s", tt.args, err, stderr)
		}
		sent := seen()
		if len(sent) != 2 || sent[0].MaxTokens != tt.want[0] || sent[1].MaxTokens != tt.want[1] {
			t.Errorf("%v: sent %+v, want max_tokens %v", tt.args, sent, tt.want)
		}
	}
}

// TestDryRunFinishing: a dry run makes no call, so a run asked to finish (a first signal) stops
// at once, writes nothing more and says interrupted, and says it makes no call.
func TestDryRunFinishing(t *testing.T) {
	clitest.DryRunFinishing(t, Run, []string{"qa-predict", "--dry-run", "--provider", "openai", "--model", "gpt-4o-mini"}, input(3, nil))
}

// TestDryRunFinishingAtEOF: a first signal that comes while the dry run waits for more input,
// and none comes, still stops it as interrupted (exit 130), the requests of the records read
// before written; it ended as a finished run, with its summary and exit 0.
func TestDryRunFinishingAtEOF(t *testing.T) {
	clitest.DryRunFinishingAtEOF(t, Run, []string{"qa-predict", "--dry-run", "--provider", "openai", "--model", "gpt-4o-mini"}, input(3, nil), 3)
}

// TestDryRunMakesNoCache: a dry run checks --cache but writes no file: a cache that does not exist
// is not made (nor its -wal or -shm), and the folder holds what it held.
func TestDryRunMakesNoCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "replies.sqlite")
	lines, stderr, code := dryRunLines(t, input(2, nil), "--provider", "openai", "--model", "gpt-4o-mini", "--cache", path)
	if code != 0 || len(lines) != 2 {
		t.Fatalf("dry run: exit %d, %d lines; stderr %s", code, len(lines), stderr)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("the dry run made %v, want no file", files)
	}
}

// TestDryRunPricesEachRequest: the dry run prices each request's input alone, as the run's calls
// are priced, so that a long-context rate (gemini-2.5-pro's, past 200,000 prompt tokens) applies
// to the requests past it and not to a run whose requests add up past it: two requests of
// 150,000 tokens are 2 × 150,000 × $1.25 per million, one of 250,000 is 250,000 × $2.50.
func TestDryRunPricesEachRequest(t *testing.T) {
	for _, tc := range []struct {
		tokens []int
		want   string
	}{
		{[]int{150_000, 150_000}, "300000 input tokens (o200k_base), input $0.375000;"},
		{[]int{250_000}, "250000 input tokens (o200k_base), input $0.625000;"},
	} {
		tally := dryTally{prices: model.DefaultPrices(), model: "gemini-2.5-pro"}
		var d dryPrediction
		for _, n := range tc.tokens {
			d.Requests = append(d.Requests, dryCall{Model: "gemini-2.5-pro", InputTokens: n})
		}
		tally.count(d)
		var b strings.Builder
		tally.summarize(&b, 0)
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("requests of %v tokens: summary %q, want it to hold %q", tc.tokens, b.String(), tc.want)
		}
	}
}

// TestDryRunNotesWithoutBlocks: under con-separate a record with no history block to take notes
// on asks no note and sends the reading call at once (no-retrieval: the question alone), or
// fails (an empty history, on which upstream's reader stops): the dry run shows that request, or
// that error, not a reading call said to wait for replies.
func TestDryRunNotesWithoutBlocks(t *testing.T) {
	empty := longMemEvalRecord("longmemeval:empty", "")
	empty.Context = nil
	for _, tc := range []struct {
		retriever string
		recs      []*record.Record
	}{
		{"no-retrieval", []*record.Record{longMemEvalRecord("longmemeval:q1", ""), empty}},
		{"orig-turn", []*record.Record{empty}},
	} {
		retriever, in := tc.retriever, jsonl(t, tc.recs...)
		args := []string{"--provider", "openai", "--model", "gpt-4o", "--reading", "con-separate", "--retriever", retriever}
		dry, stderr, _ := dryRunLines(t, in, args...)
		if len(dry) != len(tc.recs) {
			t.Fatalf("%s: %d dry-run lines; stderr %s", retriever, len(dry), stderr)
		}
		srv, seen := recordingServer(t)
		out, _, _ := run(t, context.Background(), in, append(args, "--base-url", srv.URL, "--api-key-file", keyFile(t), "--concurrency", "1")...)
		if len(out) != len(tc.recs) {
			t.Fatalf("%s: the run wrote %d records", retriever, len(out))
		}
		sent := seen()
		var shown []chatRequest
		for _, d := range dry {
			if d.Then != "" {
				t.Errorf("%s: %s: then %q, but no call waits for a reply", retriever, d.ID, d.Then)
			}
			for _, c := range d.Requests {
				shown = append(shown, chatRequest{Model: c.Model, MaxTokens: c.MaxTokens, Prompt: c.Messages[len(c.Messages)-1].Content})
			}
		}
		if !slices.Equal(shown, sent) {
			t.Errorf("%s: the dry run shows %+v, the server received %+v", retriever, shown, sent)
		}
		for i, rec := range out {
			if got, want := dry[i].Error != "", rec.Prediction != nil && rec.Prediction.Error != ""; got != want {
				t.Errorf("%s: %s: dry-run error %q, the run's error %v", retriever, rec.ID, dry[i].Error, want)
			}
		}
	}
}

// TestDryRunSequenceBlankQuestion: an EvaLearn position whose question and turns are all empty or
// blanks (a records file, which qa-load does not check) is an error with no call, as a blank
// question of another benchmark is: the student would be asked nothing, and paid for it. A
// position with a blank question and a turn that holds one is asked by its turn.
func TestDryRunSequenceBlankQuestion(t *testing.T) {
	rec := func(n int, q string, turns ...string) *record.Record {
		return &record.Record{Schema: 1, ID: fmt.Sprintf("evalearn:9:%d", n), Dataset: "evalearn", Type: "Extraction", Question: q,
			Turns: turns, Rubric: "rubric", Sequence: &record.Sequence{ID: "9", Position: n}}
	}
	for _, tc := range []struct {
		name    string
		rec     *record.Record
		wantErr bool
	}{
		{"blank question, no turns", rec(1, " \n"), true},
		{"blank question and turns", rec(1, "  ", "  ", "\t"), true},
		{"blank question, a turn with one", rec(1, " ", "Question 1?"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dry, stderr, _ := dryRunLines(t, jsonl(t, tc.rec), "--provider", "openai", "--model", "gpt-4o", "--judge-model", "gpt-4o")
			if len(dry) != 1 {
				t.Fatalf("dry run lines %+v; stderr %s", dry, stderr)
			}
			d := dry[0]
			if got := strings.Contains(d.Error, "prompt: the question is empty or only blanks: there is nothing to ask"); got != tc.wantErr || (len(d.Requests) == 0) != tc.wantErr {
				t.Errorf("dry run line %+v; want the blank question's error and no request: %v", d, tc.wantErr)
			}
		})
	}
}

// TestDryRunHistoryWarning: an open model of LongMemEval's table, whose history its script cuts
// with a tokenizer qapipe does not have, is warned of by a dry run as by the run, once, under
// every reading (con-separate's notes too).
func TestDryRunHistoryWarning(t *testing.T) {
	const want = "warning: LongMemEval cuts meta-llama/Meta-Llama-3.1-8B-Instruct's history to 126200 tokens of its Hugging Face tokenizer"
	in := jsonl(t, longMemEvalRecord("longmemeval:q1", ""), longMemEvalRecord("longmemeval:q2", ""))
	for _, reading := range []string{"direct", "con", "con-separate"} {
		args := []string{"--provider", "openai", "--model", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--reading", reading, "--history-sessions", "2"}
		srv, _ := recordingServer(t)
		_, stderr, err := run(t, context.Background(), in, append(args, "--base-url", srv.URL, "--api-key-file", keyFile(t))...)
		if err != nil || strings.Count(stderr, want) != 1 {
			t.Fatalf("%s: run: %v, want the warning once:\n%s", reading, err, stderr)
		}
		_, stderr, code := dryRunLines(t, in, args...)
		if code != 0 || strings.Count(stderr, want) != 1 {
			t.Errorf("%s: dry run exit %d, want the run's warning once:\n%s", reading, code, stderr)
		}
	}
}

// TestDryRunJudgeApart: the summary counts and prices the EvaLearn judge's requests apart from
// the student's, even when both go to the same model, after the student's: 1,000 and 2,000 tokens
// of gpt-4o-mini at $0.15 a million.
func TestDryRunJudgeApart(t *testing.T) {
	tally := dryTally{prices: model.DefaultPrices(), model: "gpt-4o-mini"}
	tally.count(dryPrediction{Requests: []dryCall{{Stage: "judge", Model: "gpt-4o-mini", InputTokens: 2000},
		{Stage: "student", Model: "gpt-4o-mini", InputTokens: 1000}}})
	var b strings.Builder
	tally.summarize(&b, 0)
	want := "1 record: 1 request to gpt-4o-mini, 1000 input tokens (o200k_base), input $0.000150; " +
		"1 judge request to gpt-4o-mini, 2000 input tokens (o200k_base), input $0.000300;"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary %q, want it to hold %q", b.String(), want)
	}
}

// TestDryRunInputTokens: a request's input_tokens, and the stderr's count, are the messages'
// text tokens (counted here by bpe) and, for a call to OpenAI's own API, the chat format's as its
// usage.prompt_tokens counts them: 3 tokens and the role's 1 a message, 3 priming the reply. o3's
// system text heads its user message: one message. Other providers and servers: the text alone.
func TestDryRunInputTokens(t *testing.T) {
	rec := &record.Record{Schema: 1, ID: "g1", Question: "Who wrote it?", Answers: []string{"Ann"},
		Context: []record.Passage{{Text: "Ann wrote it."}}}
	in := jsonl(t, rec)
	for _, tc := range []struct {
		name     string
		args     []string
		messages int // on the wire
		overhead int
	}{
		{"gpt-4o-mini", []string{"--provider", "openai", "--model", "gpt-4o-mini"}, 1, 1*4 + 3},
		{"gpt-4o-mini system", []string{"--provider", "openai", "--model", "gpt-4o-mini", "--system", "Terse."}, 2, 2*4 + 3},
		{"gpt-4 system", []string{"--provider", "openai", "--model", "gpt-4", "--system", "Terse."}, 2, 2*4 + 3},
		{"api.openai.com", []string{"--provider", "openai", "--base-url", "https://api.openai.com/v1", "--model", "gpt-4o-mini", "--system", "Terse."}, 2, 2*4 + 3},
		{"o3 system merged", []string{"--provider", "openai", "--model", "o3", "--system", "Terse."}, 1, 1*4 + 3},
		{"vllm", []string{"--provider", "openai", "--base-url", "http://127.0.0.1:8000/v1", "--model", "gpt-4o-mini", "--system", "Terse."}, 2, 0},
		{"ollama", []string{"--provider", "ollama", "--model", "llama3", "--system", "Terse."}, 2, 0},
		{"anthropic", []string{"--provider", "anthropic", "--model", "claude-3-5-haiku-20241022", "--system", "Terse."}, 2, 0},
		{"googleai", []string{"--provider", "googleai", "--model", "gemini-2.0-flash", "--system", "Terse."}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dry, stderr, code := dryRunLines(t, in, tc.args...)
			if code != 0 || len(dry) != 1 || len(dry[0].Requests) != 1 {
				t.Fatalf("dry run exit %d, lines %+v; stderr %s", code, dry, stderr)
			}
			c := dry[0].Requests[0]
			if len(c.Messages) != tc.messages {
				t.Fatalf("%d messages %+v, want %d", len(c.Messages), c.Messages, tc.messages)
			}
			text := 0
			for _, m := range c.Messages {
				text += bpe.ForModel(c.Model).Count(m.Content)
			}
			if want := text + tc.overhead; c.InputTokens != want {
				t.Errorf("input_tokens %d, want %d (text %d + %d)", c.InputTokens, want, text, tc.overhead)
			}
			if want := fmt.Sprintf("1 request to %s, %d input tokens", c.Model, text+tc.overhead); !strings.Contains(stderr, want) {
				t.Errorf("stderr %q, want %q", stderr, want)
			}
		})
	}
}
