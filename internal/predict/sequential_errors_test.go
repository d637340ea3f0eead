package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestSequentialCacheRerun runs the transcript twice with one cache: the rerun asks nothing and
// writes the same records, marked cached.
func TestSequentialCacheRerun(t *testing.T) {
	calls := loadTranscript(t)
	results := loadResults(t)
	scores := []float64{0, 1, 1, 0, 1, 0, 0}
	srv := newReplayServer(t, calls)
	args := seqArgs(t, srv.URL, "--cache", filepath.Join(t.TempDir(), "run.sqlite"))
	if _, stderr, err := seqRun(t, seqInput(t), args...); err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr)
	}
	recs, stderr, err := seqRun(t, seqInput(t), args...)
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr)
	}
	srv.check(t)
	if !regexp.MustCompile(`(?m)^qa-predict: evalearn judge .*; cost \$[0-9.]+ \(\$[0-9.]+ of it from the cache\)$`).MatchString(stderr) {
		t.Errorf("rerun's summary does not say which cost came from the cache:\n%s", stderr)
	}
	if srv.answeredTotal() != 28 {
		t.Errorf("server answered %d calls over both runs, want 28", srv.answeredTotal())
	}
	if len(recs) != 14 {
		t.Fatalf("rerun wrote %d records, want 14", len(recs))
	}
	for i, rec := range recs {
		checkTranscriptRecord(t, rec, calls[2*i], calls[2*i+1], results[i], scores[i%7], true)
	}
}

// lines splits the test input into its records' JSON lines.
func lines(t *testing.T) []string {
	return strings.Split(strings.TrimSpace(seqInput(t)), "\n")
}

// TestSequentialFailures checks that a failed or empty answer and a failed or unparsable verdict are
// errors on their records (never a 0 score) and what happens to the rest of the sequence.
func TestSequentialFailures(t *testing.T) {
	calls := loadTranscript(t)
	const skipped3 = "skipped: position 3 failed"
	tests := []struct {
		name   string
		faults map[int]fault
		// wantPred and wantJudge map record index → substring of the prediction / judgment error
		wantPred, wantJudge map[int]string
		asked               map[int]int // call index → times asked, for the calls that differ from 1
		rubric              string      // when set, the JSON of position 3's rubric in the input
	}{
		{
			name:     "empty answer",
			faults:   map[int]fault{4: {raw: " \n\t "}},
			wantPred: map[int]string{2: "empty reply", 3: skipped3, 4: skipped3, 5: skipped3, 6: skipped3},
			asked:    map[int]int{5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0},
		},
		{
			// Blank by Python's strip (evaluate.py's content.strip()) though not by Go's
			// unicode.IsSpace: the client takes it for an empty reply too.
			name:     "answer blank by Python's strip alone",
			faults:   map[int]fault{4: {raw: "\x1c\x1f"}},
			wantPred: map[int]string{2: "empty reply", 3: skipped3, 4: skipped3, 5: skipped3, 6: skipped3},
			asked:    map[int]int{5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0},
		},
		{
			name:     "failed answer",
			faults:   map[int]fault{4: {status: 400}},
			wantPred: map[int]string{2: "400", 3: skipped3, 4: skipped3, 5: skipped3, 6: skipped3},
			asked:    map[int]int{5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0},
		},
		{
			name:      "unparsable verdict",
			faults:    map[int]fault{13: {raw: "[Grade]: 1 point, no JSON"}},
			wantJudge: map[int]string{6: "unparsable"},
			asked:     map[int]int{13: 3}, // asked again --judge-parse-retries (2) times
		},
		{
			// EvaLearn's judge could not grade the answer: it is not asked, to be paid for in vain.
			name:     "position without a rubric",
			rubric:   `""`,
			wantPred: map[int]string{2: "no rubric", 3: skipped3, 4: skipped3, 5: skipped3, 6: skipped3},
			asked:    map[int]int{4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0},
		},
		{
			name:     "position whose rubric is white space",
			rubric:   `" \n"`,
			wantPred: map[int]string{2: "no rubric", 3: skipped3, 4: skipped3, 5: skipped3, 6: skipped3},
			asked:    map[int]int{4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0},
		},
		{
			name:     "position with a null rubric",
			rubric:   `null`,
			wantPred: map[int]string{2: "no rubric", 3: skipped3, 4: skipped3, 5: skipped3, 6: skipped3},
			asked:    map[int]int{4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0},
		},
		{
			name:      "failed verdict",
			faults:    map[int]fault{11: {status: 400}},
			wantJudge: map[int]string{5: "judge call"},
			wantPred:  map[int]string{6: "skipped: position 6 has no verdict"},
			asked:     map[int]int{12: 0, 13: 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newReplayServer(t, calls)
			srv.faults = tt.faults
			in := seqInput(t)
			if tt.rubric != "" {
				in = withRubric(t, tt.rubric)
			}
			recs, stderr, err := seqRun(t, in, seqArgs(t, srv.URL)...)
			if got := command.ExitCode(err); got != 3 {
				t.Errorf("exit code %d, want 3 (%v)\n%s", got, err, stderr)
			}
			srv.check(t)
			if len(recs) != 14 {
				t.Fatalf("got %d records, want 14", len(recs))
			}
			for i := range calls {
				want, ok := tt.asked[i]
				if !ok {
					want = 1
				}
				if got := srv.asked(i); got != want {
					t.Errorf("call %d asked %d times, want %d", i, got, want)
				}
			}
			for i, rec := range recs {
				checkFailure(t, rec, tt.wantPred, tt.wantJudge, i)
			}
		})
	}
}

// withRubric is the test input with position 3's rubric (its third line's) the JSON value rubric.
func withRubric(t *testing.T, rubric string) string {
	t.Helper()
	in := lines(t)
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(in[2]), &m); err != nil {
		t.Fatal(err)
	}
	m["rubric"] = json.RawMessage(rubric)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	in[2] = string(b)
	return strings.Join(in, "\n") + "\n"
}

func checkFailure(t *testing.T, rec *record.Record, wantPred, wantJudge map[int]string, i int) {
	t.Helper()
	p, jg := rec.Prediction, rec.Judgments["evalearn"]
	if w, ok := wantPred[i]; ok {
		if p == nil || !strings.Contains(p.Error, w) || p.Text != "" || jg != nil {
			t.Errorf("%s: prediction %+v judgment %+v, want a prediction error containing %q and no judgment", rec.ID, p, jg, w)
		}
		return
	}
	if p == nil || p.Error != "" || p.Text == "" {
		t.Fatalf("%s: prediction %+v, want an answer", rec.ID, p)
	}
	if w, ok := wantJudge[i]; ok {
		if jg == nil || jg.Score != nil || !strings.Contains(jg.Error, w) {
			t.Errorf("%s: judgment %+v, want no score and an error containing %q", rec.ID, jg, w)
		}
		return
	}
	if jg == nil || jg.Score == nil || jg.Error != "" {
		t.Errorf("%s: judgment %+v, want a score", rec.ID, jg)
	}
}

// TestSequentialGrouping checks the order and contiguity rules: positions given out of order are
// solved in order and written in input order, a sequence id that reappears after another
// sequence is an error on its later records, a duplicate position is an error, and a record
// without a sequence between sequences passes through.
func TestSequentialGrouping(t *testing.T) {
	calls := loadTranscript(t)
	in := lines(t)
	plain := `{"schema":1,"id":"plain","question":"q","answers":["a"],"prediction":{"text":"a"}}`
	t.Run("shuffled positions", func(t *testing.T) {
		srv := newReplayServer(t, calls)
		order := []int{3, 0, 6, 1, 5, 2, 4, 13, 12, 11, 10, 9, 8, 7}
		var shuffled []string
		for _, i := range order {
			shuffled = append(shuffled, in[i])
		}
		recs, stderr, err := seqRun(t, strings.Join(shuffled, "\n")+"\n", seqArgs(t, srv.URL)...)
		if err != nil {
			t.Fatalf("run: %v\n%s", err, stderr)
		}
		srv.check(t)
		if srv.answeredTotal() != 28 {
			t.Errorf("server answered %d calls, want 28", srv.answeredTotal())
		}
		results := loadResults(t)
		for k, rec := range recs {
			i := order[k]
			checkTranscriptRecord(t, rec, calls[2*i], calls[2*i+1], results[i], []float64{0, 1, 1, 0, 1, 0, 0}[i%7], false)
		}
	})
	t.Run("reappearing sequence, duplicate, plain record", func(t *testing.T) {
		srv := newReplayServer(t, calls)
		// seq 4 positions 1-3 (position 2 twice), a plain record, seq 36, then seq 4 positions 4-7
		input := slicesConcat(in[0:2], []string{in[1], in[2], plain}, in[7:14], in[3:7])
		recs, stderr, err := seqRun(t, strings.Join(input, "\n")+"\n", seqArgs(t, srv.URL)...)
		if got := command.ExitCode(err); got != 3 {
			t.Errorf("exit code %d, want 3 (%v)\n%s", got, err, stderr)
		}
		srv.check(t)
		if srv.answeredTotal() != 6+14 {
			t.Errorf("server answered %d calls, want 20 (seq 4 positions 1-3, seq 36)", srv.answeredTotal())
		}
		if len(recs) != len(input) {
			t.Fatalf("got %d records, want %d", len(recs), len(input))
		}
		for k, rec := range recs {
			var src record.Record
			if err := json.Unmarshal([]byte(input[k]), &src); err != nil {
				t.Fatal(err)
			}
			if rec.ID != src.ID {
				t.Fatalf("record %d is %s, want %s (input order)", k, rec.ID, src.ID)
			}
			var wantErr string
			switch {
			case k == 2:
				wantErr = "duplicate position 2 in sequence 4"
			case k >= 12:
				wantErr = "sequence 4 reappears"
			}
			p := rec.Prediction
			switch {
			case rec.ID == "plain":
				if p == nil || p.Text != "a" || p.Model != "" || rec.Judgments != nil {
					t.Errorf("plain record changed: %+v", p)
				}
			case wantErr != "":
				if p == nil || !strings.Contains(p.Error, wantErr) {
					t.Errorf("%s (line %d): prediction %+v, want error %q", rec.ID, k+1, p, wantErr)
				}
			case p == nil || p.Error != "" || rec.Judgments["evalearn"] == nil || rec.Judgments["evalearn"].Score == nil:
				t.Errorf("%s (line %d): prediction %+v, want an answer and a verdict", rec.ID, k+1, p)
			}
		}
	})
	t.Run("no judge model", func(t *testing.T) {
		srv := newReplayServer(t, calls)
		args := seqArgs(t, srv.URL)
		for i, a := range args {
			if a == "--judge-model" {
				args = append(args[:i:i], args[i+2:]...)
				break
			}
		}
		// A plain record first: it is answered, and still written with the others.
		plain := `{"schema":1,"id":"plain","question":"Q?","answers":["A"]}` + "\n"
		out, stderr, err := seqRun(t, plain+seqInput(t), args...)
		if got := command.ExitCode(err); got != 3 || !strings.Contains(stderr, "--judge-model is required") {
			t.Errorf("exit code %d, stderr %q; want 3 and a message naming --judge-model", got, stderr)
		}
		in, noJudge := 1+strings.Count(seqInput(t), "\n"), 0
		for _, r := range out {
			if r.Prediction != nil && strings.HasPrefix(r.Prediction.Error, "needs --judge-model") {
				noJudge++
			}
		}
		if len(out) != in || noJudge != in-1 || out[0].ID != "plain" {
			t.Errorf("%d records out of %d, %d with the --judge-model error; want all, all but the plain one", len(out), in, noJudge)
		}
		if srv.answeredTotal() > 1 {
			t.Errorf("server answered %d calls, want at most the plain record's", srv.answeredTotal())
		}
	})
}

// TestSequentialPassThrough feeds back a finished run whose last positions were removed: the
// earlier positions pass through and form the history, so only the missing positions are asked,
// with the same requests as the first time.
func TestSequentialPassThrough(t *testing.T) {
	calls := loadTranscript(t)
	srv := newReplayServer(t, calls)
	full, stderr, err := seqRun(t, seqInput(t), seqArgs(t, srv.URL)...)
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr)
	}
	var b strings.Builder
	for i, rec := range full {
		if i%7 >= 4 { // positions 5-7 of both sequences to do again
			rec.Prediction, rec.Judgments = nil, nil
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	before := srv.answeredTotal()
	recs, stderr, err := seqRun(t, b.String(), seqArgs(t, srv.URL)...)
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr)
	}
	srv.check(t)
	if got := srv.answeredTotal() - before; got != 12 {
		t.Errorf("second run asked %d calls, want 12 (3 positions × 2 calls × 2 sequences)", got)
	}
	results := loadResults(t)
	for i, rec := range recs {
		checkTranscriptRecord(t, rec, calls[2*i], calls[2*i+1], results[i], []float64{0, 1, 1, 0, 1, 0, 0}[i%7], false)
	}

	// a passed-through position without a verdict cannot be history: the rest is skipped
	rec := *full[0]
	rec.Judgments = nil
	line, _ := json.Marshal(&rec)
	input := string(line) + "\n" + strings.Join(lines(t)[1:7], "\n") + "\n"
	recs, _, err = seqRun(t, input, seqArgs(t, srv.URL)...)
	if got := command.ExitCode(err); got != 3 {
		t.Errorf("exit code %d, want 3", got)
	}
	for _, r := range recs[1:] {
		if r.Prediction == nil || !strings.Contains(r.Prediction.Error, "position 1 has a prediction but no evalearn verdict") {
			t.Errorf("%s: prediction %+v, want skipped", r.ID, r.Prediction)
		}
	}
}

func slicesConcat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// FuzzBatches checks the grouping rule on arbitrary streams: every record comes out once and in
// order, a batch holds one plain record or contiguous records of one sequence or one LoCoMo
// batch, and a sequence or LoCoMo batch is marked reappeared exactly when an earlier batch
// already had it. A byte b gives a plain record (b%8 == 0), one of sequence b%8 (1 to 3) or one
// of LoCoMo batch b%8 (4 to 7).
func FuzzBatches(f *testing.F) {
	f.Add([]byte{1, 1, 1, 2, 2, 0, 3})
	f.Add([]byte{1, 2, 1, 0, 0, 2, 2})
	f.Add([]byte{4, 4, 5, 1, 1, 4, 0, 6, 6})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, ids []byte) {
		var recs []*record.Record
		for i, b := range ids {
			rec := &record.Record{ID: fmt.Sprint(i)}
			switch k := b % 8; {
			case k >= 4:
				rec.Type = fmt.Sprint(k) // the block blockOf names below
			case k > 0:
				rec.Sequence = &record.Sequence{ID: fmt.Sprint(k), Position: i}
			}
			recs = append(recs, rec)
		}
		src := func(yield func(*record.Record) error) error {
			for _, r := range recs {
				if err := yield(r); err != nil {
					return err
				}
			}
			return nil
		}
		blockOf := func(r *record.Record) string { return r.Type }
		var out []*record.Record
		seen := map[string]bool{}
		prev := ""
		err := batches(src, blockOf, maxClosed)(func(b *batch) error {
			key := ""
			switch {
			case b.seq != "" && b.block != "":
				t.Fatalf("batch %+v is of a sequence and a LoCoMo batch", b)
			case b.seq != "":
				key = "s" + b.seq
			case b.block != "":
				key = "b" + b.block
			}
			if len(b.recs) == 0 || (key == "" && len(b.recs) != 1) || (key != "" && key == prev) {
				t.Fatalf("bad batch %+v after %q", b, prev)
			}
			for _, r := range b.recs {
				if got := seqID(r); got != b.seq || r.Type != b.block {
					t.Fatalf("record %s of sequence %q, block %q in batch of %q, %q", r.ID, got, r.Type, b.seq, b.block)
				}
			}
			if b.reappeared != (key != "" && seen[key]) {
				t.Fatalf("batch of %q: reappeared = %v, seen before = %v", key, b.reappeared, seen[key])
			}
			seen[key], prev = true, key
			out = append(out, b.recs...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != len(recs) {
			t.Fatalf("batches hold %d records, want %d", len(out), len(recs))
		}
		for i := range out {
			if out[i] != recs[i] {
				t.Fatalf("record %d is %s, want %s", i, out[i].ID, recs[i].ID)
			}
		}
	})
}

func seqID(r *record.Record) string {
	if r.Sequence == nil {
		return ""
	}
	return r.Sequence.ID
}

// TestSequentialJudgeEndpoint sends the judge's requests to --judge-base-url and the student's to
// --base-url.
func TestSequentialJudgeEndpoint(t *testing.T) {
	calls := loadTranscript(t)
	student, judgeSrv := newReplayServer(t, calls), newReplayServer(t, calls)
	recs, stderr, err := seqRun(t, seqInput(t), seqArgs(t, student.URL, "--judge-base-url", judgeSrv.URL)...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	student.check(t)
	judgeSrv.check(t)
	for i, c := range calls {
		wantS, wantJ := 1, 0
		if c.Role == "judge" {
			wantS, wantJ = 0, 1
		}
		if s, j := student.asked(i), judgeSrv.asked(i); s != wantS || j != wantJ {
			t.Errorf("call %d (%s): student server asked %d times, judge server %d; want %d, %d", i, c.Role, s, j, wantS, wantJ)
		}
	}
	if len(recs) != 14 {
		t.Errorf("got %d records, want 14", len(recs))
	}
}

// TestSequentialRetryUnparsableVerdict: a verdict that could not be parsed, passed through, still
// counts as an error; --retry-errors over it asks the judge again with --cache on, as new samples,
// instead of reading the same unparsable replies back from the cache; the answer itself comes
// from the cache.
func TestSequentialRetryUnparsableVerdict(t *testing.T) {
	calls := loadTranscript(t)
	srv := newReplayServer(t, calls)
	srv.faults = map[int]fault{13: {raw: "[Grade]: 1 point, no JSON"}}
	args := seqArgs(t, srv.URL, "--cache", filepath.Join(t.TempDir(), "run.sqlite"))
	first, stderr, err := seqRun(t, seqInput(t), args...)
	if command.ExitCode(err) != 3 || len(first) != 14 {
		t.Fatalf("first run: %d records, %v\n%s", len(first), err, stderr)
	}
	if jg := first[6].Judgments["evalearn"]; jg == nil || !strings.Contains(jg.Error, "unparsable") || jg.Attempts != 3 {
		t.Fatalf("first run's last verdict %+v, want unparsable after 3 attempts", jg)
	}
	srv.faults = map[int]fault{} // the judge now replies as recorded
	var out strings.Builder
	for _, r := range first {
		b, _ := json.Marshal(r)
		out.Write(append(b, '\n'))
	}
	// Passed through, the failed verdict still counts (exit 3), and nothing is asked.
	if _, stderr, err := seqRun(t, out.String(), args...); command.ExitCode(err) != 3 || srv.asked(13) != 3 {
		t.Errorf("rerun without --retry-errors: %v, verdict asked %d times, want exit 3 and 3\n%s", err, srv.asked(13), stderr)
	}
	recs, stderr, err := seqRun(t, out.String(), append(args, "--retry-errors")...)
	if err != nil || len(recs) != 14 {
		t.Fatalf("rerun: %d records, %v\n%s", len(recs), err, stderr)
	}
	if got := srv.asked(13); got != 4 {
		t.Errorf("the last verdict was asked %d times over both runs, want 4 (3, then 1 new sample)", got)
	}
	if got := srv.asked(12); got != 1 {
		t.Errorf("the last answer was asked %d times over both runs, want 1 (then from the cache)", got)
	}
	if jg := recs[6].Judgments["evalearn"]; jg == nil || jg.Error != "" || jg.Score == nil || *jg.Score != 0 || jg.Attempts != 4 {
		t.Errorf("rerun's last verdict %+v, want the recorded score 0 at attempt 4", jg)
	}
	// The positions whose verdicts stood are passed through as the first run wrote them, not
	// solved again (which the cache would have served, marked cached).
	for i, rec := range recs {
		if i == 6 {
			continue
		}
		if p, jg := rec.Prediction, rec.Judgments["evalearn"]; p == nil || p.Cached || jg == nil || jg.Cached {
			t.Errorf("rerun's %s: prediction %+v, judgment %+v; want both passed through, not from the cache", rec.ID, p, jg)
		}
	}
}

// TestSequentialMessagesNameFirst: the messages that name one record or sequence of several
// (records of a sequence left unanswered for want of --judge-model, sequences that lack earlier
// positions) name the first in the input, run after run; they named whichever batch a worker
// happened to solve first.
func TestSequentialMessagesNameFirst(t *testing.T) {
	var in strings.Builder
	for s := range 40 {
		for p := 2; p <= 3; p++ { // position 1 left out: every sequence lacks it
			fmt.Fprintf(&in, `{"schema":1,"id":"evalearn:s%02d:%d","dataset":"evalearn","question":"Q?","answers":[],"sequence":{"id":"s%02d","position":%d}}`+"\n", s, p, s, p)
		}
	}
	for range 10 {
		_, stderr, err := seqRun(t, in.String(), "--provider", "extractive", "--concurrency", "8")
		if code := command.ExitCode(err); code != 3 {
			t.Fatalf("exit code %d, want 3\n%s", code, stderr)
		}
		for _, want := range []string{"(evalearn:s00:2, …)", "(sequence s00 has positions 2, 3)"} {
			if !strings.Contains(stderr, want) {
				t.Fatalf("stderr names another record or sequence than the first, want %q:\n%s", want, stderr)
			}
		}
	}
}

// TestSequentialReappearingAnswered feeds back a finished run with part of a sequence moved after
// another sequence (two saved runs put together, say): the positions answered before pass
// through as they came, answers and verdicts kept, and only the one left to answer, which has no
// history there, is an error; the dry run says the same of each.
func TestSequentialReappearingAnswered(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), append([]string{"qa-predict"}, seqArgs(t, srv.URL)...), strings.NewReader(seqInput(t)), &stdout, &stderr); err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr.String())
	}
	done := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(done) != 14 {
		t.Fatalf("first run wrote %d records, want 14", len(done))
	}
	todo := lines(t)[5] // the second sequence's position 6, not answered yet
	// the second sequence's positions 1-3, the other sequence, then its positions 4-7
	input := slicesConcat(done[0:3], done[7:14], done[3:5], []string{todo}, done[6:7])
	before := srv.answeredTotal()
	stdout.Reset()
	stderr.Reset()
	err := Run(context.Background(), append([]string{"qa-predict"}, seqArgs(t, srv.URL)...), strings.NewReader(strings.Join(input, "\n")+"\n"), &stdout, &stderr)
	if got := command.ExitCode(err); got != 3 {
		t.Errorf("exit code %d, want 3 (%v)\n%s", got, err, stderr.String())
	}
	if got := srv.answeredTotal() - before; got != 0 {
		t.Errorf("second run asked %d calls, want none", got)
	}
	out := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(out) != len(input) {
		t.Fatalf("second run wrote %d records, want %d", len(out), len(input))
	}
	for i, line := range out {
		if i == 12 {
			if rec := readRecords(t, []byte(line))[0]; rec.Prediction == nil || !strings.Contains(rec.Prediction.Error, "reappears after other records") {
				t.Errorf("line %d: prediction %+v, want the error that its sequence reappears", i+1, rec.Prediction)
			}
			continue
		}
		if line != input[i] {
			t.Errorf("line %d changed:\n got %s\nwant %s", i+1, line, input[i])
		}
	}
	if !strings.Contains(stderr.String(), "13 passed through, 1 error") {
		t.Errorf("stderr does not count 13 records passed through and 1 error:\n%s", stderr.String())
	}

	stdout.Reset()
	stderr.Reset()
	args := append([]string{"qa-predict", "--dry-run"}, seqArgs(t, srv.URL)...)
	err = Run(context.Background(), args, strings.NewReader(strings.Join(input, "\n")+"\n"), &stdout, &stderr)
	if got := command.ExitCode(err); got != 3 || !strings.Contains(stderr.String(), "13 already predicted, 1 error") {
		t.Errorf("dry run: exit code %d, want 3, and a count of 13 already predicted and 1 error (%v)\n%s", got, err, stderr.String())
	}
	for i, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		var d struct {
			AlreadyPredicted bool   `json:"already_predicted"`
			Error            string `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("dry run line %d: %v", i+1, err)
		}
		if want := i != 12; d.AlreadyPredicted != want || (d.Error != "") == want {
			t.Errorf("dry run line %d: already_predicted %v, error %q; want already_predicted %v", i+1, d.AlreadyPredicted, d.Error, want)
		}
	}
}

// TestSequentialAnsweredKept feeds back a finished run whose sequence cannot give a history past
// some point, position 1 without its verdict, or whose positions are repeated (a run given twice,
// sorted): the positions answered before need no history and pass through as they came, and so
// do the repeats, where they were an error on their records (a duplicate in qa-learncurve's
// reading overwrites the first, so one run's learning curve read as all wrong). The dry run says
// the same.
func TestSequentialAnsweredKept(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), append([]string{"qa-predict"}, seqArgs(t, srv.URL)...), strings.NewReader(seqInput(t)), &stdout, &stderr); err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr.String())
	}
	done := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	noVerdict := regexp.MustCompile(`,"judgments":\{.*\}\}$`).ReplaceAllString(done[0], "}")
	if noVerdict == done[0] {
		t.Fatalf("no judgments to take out of %s", done[0])
	}
	var twice []string
	for _, l := range done[:7] {
		twice = append(twice, l, l)
	}
	for _, tt := range []struct {
		name string
		in   []string
	}{
		{"position 1 without its verdict", slicesConcat([]string{noVerdict}, done[1:])},
		{"every position twice", twice},
	} {
		t.Run(tt.name, func(t *testing.T) {
			input := strings.Join(tt.in, "\n") + "\n"
			before := srv.answeredTotal()
			var stdout, stderr bytes.Buffer
			if err := Run(context.Background(), append([]string{"qa-predict"}, seqArgs(t, srv.URL)...), strings.NewReader(input), &stdout, &stderr); err != nil {
				t.Errorf("run: %v\n%s", err, stderr.String())
			}
			if got := srv.answeredTotal() - before; got != 0 {
				t.Errorf("run asked %d calls, want none", got)
			}
			if stdout.String() != input {
				t.Errorf("records changed:\n got %s\nwant %s", stdout.String(), input)
			}
			stdout.Reset()
			stderr.Reset()
			args := append([]string{"qa-predict", "--dry-run"}, seqArgs(t, srv.URL)...)
			if err := Run(context.Background(), args, strings.NewReader(input), &stdout, &stderr); err != nil {
				t.Errorf("dry run: %v\n%s", err, stderr.String())
			}
			if want := fmt.Sprintf("%d already predicted, 0 errors", len(tt.in)); !strings.Contains(stderr.String(), want) {
				t.Errorf("dry run's stderr does not say %q:\n%s", want, stderr.String())
			}
		})
	}
}

// TestSequenceEarlierPassedThrough: a position passed through, answered by an earlier run, stands
// in the next position's history with its answer stripped, as evaluate.py's gpt4res is; one whose
// prediction failed leaves the positions after it unasked, saying so.
func TestSequenceEarlierPassedThrough(t *testing.T) {
	verdict := "[Grade]: 1 point\n[JSON]: ```json\n{\"answer_score\": 1}\n```"
	lines := strings.SplitAfter(seqInput(t), "\n")[:2]
	first := func(pred string) string {
		var r map[string]any
		if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
			t.Fatal(err)
		}
		var p any
		if err := json.Unmarshal([]byte(pred), &p); err != nil {
			t.Fatal(err)
		}
		r["prediction"] = p
		if !strings.Contains(pred, "error") {
			r["judgments"] = map[string]any{judgeKey: map[string]any{"raw": verdict, "score": 1}}
		}
		b, _ := json.Marshal(r)
		return string(b) + "\n"
	}
	t.Run("answered", func(t *testing.T) {
		srv, prompts := thinkingServer(t, func(m, _ string) string {
			if m == "fake-judge" {
				return verdict
			}
			return "Y"
		})
		recs, stderr, err := seqRun(t, first(`{"text":" \u00a0X-answer \n"}`)+lines[1], seqArgs(t, srv.URL)...)
		if err != nil || len(recs) != 2 {
			t.Fatalf("%v (%d records)\n%s", err, len(recs), stderr)
		}
		ps := prompts()
		if len(ps) != 2 {
			t.Fatalf("%d calls, want 2: the second answer and its verdict", len(ps))
		}
		if !strings.Contains(ps[0], "X-answer") || strings.Contains(ps[0], "\u00a0X-answer") || strings.Contains(ps[0], "X-answer \n") {
			t.Errorf("the second answer's prompt does not show the first answer stripped:\n%q", ps[0])
		}
	})
	t.Run("failed", func(t *testing.T) {
		srv, prompts := thinkingServer(t, func(string, string) string { return "Y" })
		recs, _, err := seqRun(t, first(`{"error":"HTTP 500"}`)+lines[1], seqArgs(t, srv.URL)...)
		if command.ExitCode(err) != 3 || len(recs) != 2 {
			t.Fatalf("%v (%d records), want exit 3 and 2 records", err, len(recs))
		}
		if p := recs[1].Prediction; p == nil || p.Error != "skipped: position 1 failed" {
			t.Errorf("second position's prediction %+v, want the error %q", p, "skipped: position 1 failed")
		}
		if n := len(prompts()); n != 0 {
			t.Errorf("%d calls, want none", n)
		}
	})
}

// TestSequenceGapFromZero: in a sequence of positions 0 and 2, position 0 is none of EvaLearn's
// and one qa-learncurve skips: an error on its record, asked nothing; position 2 lacks position 1,
// and is warned of as any sequence that lacks earlier positions.
func TestSequenceGapFromZero(t *testing.T) {
	in := `{"schema":1,"id":"evalearn:s:0","dataset":"evalearn","question":"Q?","answers":[],"sequence":{"id":"s","position":0}}
{"schema":1,"id":"evalearn:s:2","dataset":"evalearn","question":"Q?","answers":[],"sequence":{"id":"s","position":2}}
`
	recs, stderr, _ := seqRun(t, in, "--provider", "extractive")
	if want := "warning: 1 sequence lacks earlier positions (sequence s has position 2)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	want := "position 0 in sequence s: want a position of 1 or more, as qa-learncurve reads it"
	if len(recs) != 2 || recs[0].Prediction == nil || recs[0].Prediction.Error != want {
		t.Errorf("records %+v, want the first to fail with %q", recs, want)
	}
}
