package predict

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/cache/cachetest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestDryRunCachedRequests: a dry run with --cache marks the requests the cache would answer, and
// counts and prices the others alone; a rerun with the cache then calls for exactly those others.
// A failed request's reply is not stored, so it is priced; an empty reply kept under --empty-reply
// keep is stored, and a run serves it under either mode (under error as its error, with no call:
// the dry run's request carries that error, and it exits 3, as the run does).
func TestDryRunCachedRequests(t *testing.T) {
	faults := map[int]string{2: "empty"}
	tests := []struct {
		name       string
		first, dry []string // the first run's flags, the dry run's and the rerun's
		want       []string // the ids whose request the cache answers
		failed     string   // the id whose cached reply fails it, as the run serves it: exit 3
	}{
		{"failed reply not stored", nil, nil, []string{"r0", "r1"}, ""},
		{"empty reply kept", []string{"--empty-reply", "keep"}, []string{"--empty-reply", "keep"}, []string{"r0", "r1", "r2"}, ""},
		{"kept empty reply served as its error", []string{"--empty-reply", "keep"}, nil, []string{"r0", "r1", "r2"}, "r2"},
		{"another seed", nil, []string{"--seed", "7"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := faultServer(t)
			path := filepath.Join(t.TempDir(), "c.sqlite")
			args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--cache", path, "--concurrency", "1"}
			if _, stderr, err := run(t, context.Background(), input(3, faults), append(append(args, "--api-key-file", keyFile(t)), tt.first...)...); err != nil && tt.first != nil {
				t.Fatalf("first run: %v\n%s", err, stderr)
			}
			lines, stderr, code := dryRunLines(t, input(4, faults), append(args, tt.dry...)...)
			if wantCode := map[bool]int{false: 0, true: 3}[tt.failed != ""]; code != wantCode || len(lines) != 4 {
				t.Fatalf("dry run: exit %d, %d lines, want exit %d; stderr %s", code, len(lines), wantCode, stderr)
			}
			var got []string
			others := 0
			for _, d := range lines {
				if len(d.Requests) != 1 {
					t.Fatalf("dry run line %s: %d requests, want 1", d.ID, len(d.Requests))
				}
				if e := d.Requests[0].Error; (e != "") != (d.ID == tt.failed) || e != "" && !strings.Contains(e, "empty reply") {
					t.Errorf("dry run line %s: request error %q, want one of an empty reply on %q alone", d.ID, e, tt.failed)
				}
				if d.Requests[0].Cached {
					got = append(got, d.ID)
				} else {
					others += d.Requests[0].InputTokens
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("dry run marks %v cached, want %v", got, tt.want)
			}
			want := []string{"4 requests to gpt-4o-mini, " + itoa(len(tt.want)) + " answered by the cache; the other " + itoa(4-len(tt.want)) + ": " + itoa(others) + " input tokens"}
			for _, w := range want {
				if !strings.Contains(stderr, w) {
					t.Errorf("dry run stderr %q, want it to hold %q", stderr, w)
				}
			}
			srv.calls.Store(0)
			run(t, context.Background(), input(4, faults), append(append(args, "--api-key-file", keyFile(t)), tt.dry...)...)
			if calls := srv.calls.Load(); calls != int64(4-len(tt.want)) {
				t.Errorf("the rerun made %d calls, the dry run priced %d", calls, 4-len(tt.want))
			}
			if tt.failed != "" && !strings.Contains(stderr, "1 record whose reply in the cache would fail it") {
				t.Errorf("dry run stderr %q, want it to count the record the cached reply fails", stderr)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDryRunLeavesCacheAlone: a dry run reads --cache without changing a byte of it or of its
// folder, nor leaving a file there: a cache a run closed, and one with the -wal journal and -shm
// index a killed run leaves, whose replies are in the journal alone.
func TestDryRunLeavesCacheAlone(t *testing.T) {
	srv := faultServer(t)
	for _, killed := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "c.sqlite")
		var held *cache.Cache
		if killed { // another connection open keeps the run's replies in the journal
			var err error
			if held, err = cache.Open(path); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--cache", path}
		if _, stderr, err := run(t, context.Background(), input(2, nil), append(args, "--api-key-file", keyFile(t))...); err != nil {
			t.Fatalf("first run: %v\n%s", err, stderr)
		}
		if killed {
			dir = copyFolder(t, dir) // as kill -9 leaves it: the file, its -wal and -shm
			path = filepath.Join(dir, "c.sqlite")
			args[len(args)-1] = path
			held.Close()
			if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
				t.Fatalf("killed: no journal to read (%v)", err)
			}
		}
		before := folder(t, dir)
		lines, stderr, code := dryRunLines(t, input(2, nil), args...)
		if code != 0 || len(lines) != 2 || !lines[0].Requests[0].Cached || !lines[1].Requests[0].Cached {
			t.Errorf("killed %v: dry run exit %d, lines %+v, want 2 cached; stderr %s", killed, code, lines, stderr)
		}
		if after := folder(t, dir); !slices.EqualFunc(after, before, func(a, b string) bool { return a == b }) {
			t.Errorf("killed %v: the dry run changed the folder:\n%v\nwas\n%v", killed, after, before)
		}
	}
}

// folder is each file of dir: its name, mode, time and bytes.
func folder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, _ := d.Info()
		b, _ := os.ReadFile(p)
		out = append(out, p+" "+st.Mode().String()+" "+st.ModTime().String()+" "+string(bytes.ReplaceAll(b, []byte{0}, nil)))
		return nil
	})
	return out
}

// copyFolder copies the files of dir to a new folder.
func copyFolder(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// TestDryRunCachedThinking: under --think strip a dry run reads a cached reply as the run's client
// does (model.Thinking, from outside the cache): a reply cut in its thinking, or with nothing after
// it, is served with no call and fails its record, so the dry run marks it cached, gives its
// request that error and exits 3, as the rerun does; one with an answer after its thinking, or
// with nothing after it under --empty-reply keep, passes.
func TestDryRunCachedThinking(t *testing.T) {
	tests := []struct {
		name        string
		fault       string
		first, rest []string // the first run's flags; the dry run's and the rerun's
		wantErr     string   // r1's request error, "" for none
	}{
		{"cut in its thinking", "thinkcut", []string{"--think", "strip"}, []string{"--think", "strip"}, "reply cut in its thinking"},
		{"cut after its thinking", "thinkonlycut", []string{"--think", "strip"}, []string{"--think", "strip"}, "empty reply"},
		{"kept under --think keep, stripped now", "thinkonly", []string{"--think", "keep"}, []string{"--think", "strip"}, "empty reply"},
		{"nothing after it, kept", "thinkonly", []string{"--think", "strip", "--empty-reply", "keep"},
			[]string{"--think", "strip", "--empty-reply", "keep"}, ""},
		{"an answer after it", "think", []string{"--think", "keep"}, []string{"--think", "strip"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := faultServer(t)
			path := filepath.Join(t.TempDir(), "c.sqlite")
			args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--cache", path, "--concurrency", "1"}
			faults := map[int]string{1: tt.fault}
			run(t, context.Background(), input(2, faults), append(append(args, "--api-key-file", keyFile(t)), tt.first...)...)
			lines, stderr, code := dryRunLines(t, input(2, faults), append(args, tt.rest...)...)
			if len(lines) != 2 || !lines[0].Requests[0].Cached || !lines[1].Requests[0].Cached {
				t.Fatalf("dry run lines %+v, want both cached; stderr %s", lines, stderr)
			}
			if e := lines[1].Requests[0].Error; (e == "") != (tt.wantErr == "") || !strings.Contains(e, tt.wantErr) {
				t.Errorf("dry run: r1's request error %q, want %q", e, tt.wantErr)
			}
			srv.calls.Store(0)
			_, rerr, err := run(t, context.Background(), input(2, faults), append(append(args, "--api-key-file", keyFile(t)), tt.rest...)...)
			if wantCode := map[bool]int{false: 0, true: 3}[tt.wantErr != ""]; code != wantCode || (err != nil) != (tt.wantErr != "") {
				t.Errorf("dry run exit %d, want %d, as the rerun (error %v; %s); dry run stderr %s", code, wantCode, err, rerr, stderr)
			}
			if calls := srv.calls.Load(); calls != 0 {
				t.Errorf("the rerun made %d calls, want none", calls)
			}
		})
	}
}

// TestDryRunCachedStudentFails: a sequence's position whose student reply the cache serves fails
// it with no call (cut in its thinking, under --think strip): the run judges nothing and skips the
// positions after it, and so does the dry run, where it named the judge and the next student call
// as waiting.
func TestDryRunCachedStudentFails(t *testing.T) {
	pos := func(n int, fault string) *record.Record {
		q := fmt.Sprintf("ID%d what is %d?%s", n, n, fault)
		return &record.Record{Schema: 1, ID: fmt.Sprintf("evalearn:9:%d", n), Dataset: "evalearn", Type: "Extraction", Question: q,
			Turns: []string{q}, Rubric: "rubric", Sequence: &record.Sequence{ID: "9", Position: n}}
	}
	stdin := jsonl(t, pos(1, " FAULTS=thinkcut"), pos(2, ""))
	srv := faultServer(t)
	path := filepath.Join(t.TempDir(), "c.sqlite")
	args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--judge-model", "gpt-4o-mini", "--base-url", srv.URL,
		"--cache", path, "--think", "strip"}
	run(t, context.Background(), stdin, append(args, "--api-key-file", keyFile(t))...)
	dry, stderr, code := dryRunLines(t, stdin, args...)
	if code != 3 || len(dry) != 2 || len(dry[0].Requests) != 1 {
		t.Fatalf("dry run exit %d, lines %+v; want 3; stderr %s", code, dry, stderr)
	}
	if c := dry[0].Requests[0]; !c.Cached || !strings.Contains(c.Error, "cut in its thinking") || dry[0].Then != "" {
		t.Errorf("position 1: %+v, then %q; want its cached reply's error, and no judge", c, dry[0].Then)
	}
	if d := dry[1]; d.Error != "skipped: position 1 failed" || d.Then != "" {
		t.Errorf("position 2: %+v; want it skipped", d)
	}
	srv.calls.Store(0)
	out, _, _ := run(t, context.Background(), stdin, append(args, "--api-key-file", keyFile(t))...)
	if srv.calls.Load() != 0 || len(out) != 2 || out[1].Prediction == nil || out[1].Prediction.Error != dry[1].Error {
		t.Errorf("rerun: %d calls, %+v; want none, position 2 %q", srv.calls.Load(), out, dry[1].Error)
	}
}

// TestDryRunDamagedCache: a --cache whose entries cannot be read (a page of the file overwritten
// after a run made it, which opening it does not see) answers none of the requests, as the run
// asks each of them again: the dry run prices them all, and warns how many entries of which file
// could not be read.
func TestDryRunDamagedCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	damageEntries(t, path)
	lines, stderr, code := dryRunLines(t, input(2, nil), "--provider", "openai", "--model", "gpt-4o-mini", "--cache", path)
	if code != 0 || len(lines) != 2 || lines[0].Requests[0].Cached || lines[1].Requests[0].Cached {
		t.Fatalf("dry run: exit %d, lines %+v, want 2 not cached, exit 0; stderr %s", code, lines, stderr)
	}
	for _, want := range []string{
		"qa-predict: warning: 2 entries of the cache " + path + " could not be read (",
		"): counted as not answered by it\n",
		"2 requests to gpt-4o-mini, 0 answered by the cache; the other 2: ",
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

// TestDryRunCachedNoteFails: under con-separate a note whose reply the cache serves and that fails
// its record (cut in its thinking under --think strip, or an empty one a --empty-reply keep run
// stored, read without keep) stops the record's calls there with no call, as the run stops: the
// dry run lists no note after it, prices none, and names no reading call; a rerun then makes
// exactly the calls the dry run priced. Under keep the empty note passes, and the note after it,
// which the first run's call failed, is priced, and the reading call named, as the rerun makes
// both.
func TestDryRunCachedNoteFails(t *testing.T) {
	tests := []struct {
		name         string
		fault2       string   // the second note's fault
		first, rest  []string // the first run's flags; the dry run's and the rerun's
		wantErr      string   // the second note's request error, "" for none
		wantRequests int      // the requests listed
	}{
		{"cut in its thinking", "thinkcut", []string{"--think", "strip"}, []string{"--think", "strip"}, "reply cut in its thinking", 2},
		{"kept empty note served as its error", "empty", []string{"--empty-reply", "keep"}, nil, "empty reply", 2},
		{"kept empty note kept", "empty", []string{"--empty-reply", "keep"}, []string{"--empty-reply", "keep"}, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := longMemEvalRecord("longmemeval:q1", "")
			rec.Context[6].Text += " ID11 FAULTS=" + tt.fault2
			rec.Context[7].Text += " ID12 FAULTS=400" // the third note's call fails once: not stored
			in := jsonl(t, rec)
			srv := faultServer(t)
			args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--cache", filepath.Join(t.TempDir(), "c.sqlite"),
				"--reading", "con-separate", "--history-sessions", "3"}
			run(t, context.Background(), in, append(append(args, "--api-key-file", keyFile(t)), tt.first...)...)
			lines, stderr, code := dryRunLines(t, in, append(args, tt.rest...)...)
			if wantCode := map[bool]int{false: 0, true: 3}[tt.wantErr != ""]; code != wantCode || len(lines) != 1 {
				t.Fatalf("dry run: exit %d, %d lines, want exit %d; stderr %s", code, len(lines), wantCode, stderr)
			}
			d := lines[0]
			if len(d.Requests) != tt.wantRequests || !d.Requests[0].Cached || !d.Requests[1].Cached {
				t.Fatalf("dry run: %d requests, want %d, the first two cached; stderr %s", len(d.Requests), tt.wantRequests, stderr)
			}
			if e := d.Requests[1].Error; (e == "") != (tt.wantErr == "") || !strings.Contains(e, tt.wantErr) {
				t.Errorf("dry run: the second note's error %q, want %q", e, tt.wantErr)
			}
			if (d.Then == "") != (tt.wantErr != "") {
				t.Errorf("dry run: then %q, want the reading call named only when no note fails", d.Then)
			}
			priced := 0
			for _, c := range d.Requests {
				if !c.Cached {
					priced++
				}
			}
			if d.Then != "" {
				priced++ // the reading call, named
			}
			srv.calls.Store(0)
			out, rerr, _ := run(t, context.Background(), in, append(append(args, "--api-key-file", keyFile(t)), tt.rest...)...)
			if calls := srv.calls.Load(); calls != int64(priced) {
				t.Errorf("the rerun made %d calls, the dry run priced or named %d; stderr %s", calls, priced, stderr)
			}
			if len(out) != 1 || (out[0].Prediction.Error != "") != (tt.wantErr != "") {
				t.Errorf("rerun: %+v, want an error %v; stderr %s", out, tt.wantErr != "", rerr)
			}
		})
	}
}

// TestDryRunCachedNotesReading: under con-separate a record whose notes the cache holds, each
// passing, has the reading call's prompt made of their replies, as the run makes it: the dry run
// shows that call, marked cached when the cache holds its reply too (exit 3 when that reply fails
// the record, cut in its thinking under --think strip, as the run exits), and prices it when not
// (the rerun of a run stopped before it); a rerun then makes exactly the calls the dry run priced.
func TestDryRunCachedNotesReading(t *testing.T) {
	tests := []struct {
		name    string
		faults  string // the question's: the three notes' calls, then the reading call's
		think   string
		cached  bool   // the reading call's reply is in the cache
		wantErr string // the reading call's request error, "" for none
	}{
		{"reading cut in its thinking", "ok,ok,ok,thinkcut", "strip", true, "reply cut in its thinking"},
		{"reading answered", "ok", "keep", true, ""},
		{"reading failed, not stored", "ok,ok,ok,400", "keep", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := longMemEvalRecord("longmemeval:q1", "")
			rec.Question = "ID20 FAULTS=" + tt.faults + " Where do I work?"
			in := jsonl(t, rec)
			srv := faultServer(t)
			args := []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--cache", filepath.Join(t.TempDir(), "c.sqlite"),
				"--reading", "con-separate", "--history-sessions", "3", "--think", tt.think}
			run(t, context.Background(), in, append(args, "--api-key-file", keyFile(t))...)
			if n := srv.calls.Load(); n != 4 {
				t.Fatalf("first run: %d calls, want 4", n)
			}
			lines, stderr, code := dryRunLines(t, in, args...)
			if wantCode := map[bool]int{false: 0, true: 3}[tt.wantErr != ""]; code != wantCode || len(lines) != 1 {
				t.Fatalf("dry run: exit %d, %d lines, want exit %d; stderr %s", code, len(lines), wantCode, stderr)
			}
			d := lines[0]
			if len(d.Requests) != 4 || d.Then != "" {
				t.Fatalf("dry run: %d requests, then %q; want the three notes and the reading call; stderr %s", len(d.Requests), d.Then, stderr)
			}
			c := d.Requests[3]
			if c.Stage != "answer" || c.MaxTokens != 800 || c.Cached != tt.cached || (c.Error == "") != (tt.wantErr == "") || !strings.Contains(c.Error, tt.wantErr) {
				t.Errorf("dry run: the reading call %s, max_tokens %d, cached %v, error %q; want answer, 800, %v, %q", c.Stage, c.MaxTokens, c.Cached, c.Error, tt.cached, tt.wantErr)
			}
			priced := 0
			for _, c := range d.Requests {
				if !c.Cached {
					priced++
				}
			}
			srv.calls.Store(0)
			out, rerr, err := run(t, context.Background(), in, append(args, "--api-key-file", keyFile(t))...)
			if calls := srv.calls.Load(); calls != int64(priced) {
				t.Errorf("the rerun made %d calls, the dry run priced %d; stderr %s", calls, priced, stderr)
			}
			if command.ExitCode(err) != code || len(out) != 1 || out[0].Prediction.PromptSHA256 != c.PromptSHA256 {
				t.Errorf("rerun: exit %d, %+v; want exit %d, the prompt the dry run shows; stderr %s", command.ExitCode(err), out, code, rerr)
			}
		})
	}
}

// TestDryRunCachedJudge: a sequence's position whose student reply the cache serves, and passes,
// has its judge request made as the run makes it, of that answer: the dry run shows it, marked
// cached when the cache holds the judge's replies (its error given when they fail the verdict,
// empty or unparsable to the last re-ask, as the run's judge reads them, and the dry run exiting
// 3 as the run does), priced at the judge model when not; the positions after it follow as the
// run goes on (skipped when the verdict is empty, asked on the history an unparsable one stands
// in), named as waiting only after a call the cache does not hold. A plain rerun of the input then
// makes exactly the calls the dry run priced or named, and exits as it did.
func TestDryRunCachedJudge(t *testing.T) {
	const skipped = "skipped: position 3 has no verdict"
	tests := []struct {
		name      string
		faults    map[int]fault // the first run's; the rerun is answered as recorded
		wantCode  int
		judgeErr  map[int]string // the first sequence's position → its judge request's error
		priced    []int          // the first sequence's positions whose judge request is priced
		named     []int          // the first sequence's positions named as waiting (a student and a judge call each)
		lineError map[int]string // the first sequence's position → its line's error
	}{
		{"empty verdict", map[int]fault{5: {raw: ""}}, 3, map[int]string{3: "empty"}, nil, nil,
			map[int]string{4: skipped, 5: skipped, 6: skipped, 7: skipped}},
		{"unparsable verdict", map[int]fault{13: {raw: "[Grade]: 1 point, no JSON"}}, 3, map[int]string{7: "unparsable"}, nil, nil, nil},
		{"failed verdict, not stored", map[int]fault{13: {status: 400}}, 0, nil, []int{7}, nil, nil},
		{"failed verdict mid-sequence", map[int]fault{11: {status: 400}}, 0, nil, []int{6}, []int{7}, nil},
	}
	calls := loadTranscript(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newReplayServer(t, calls)
			srv.faults = tt.faults
			args := seqArgs(t, srv.URL, "--cache", filepath.Join(t.TempDir(), "run.sqlite"))
			if _, stderr, err := seqRun(t, seqInput(t), args...); command.ExitCode(err) != 3 {
				t.Fatalf("first run: %v, want exit 3\n%s", err, stderr)
			}
			before := srv.answeredTotal()
			srv.faults = map[int]fault{}
			dry, stderr, code := dryRunLines(t, seqInput(t), args...)
			if code != tt.wantCode || len(dry) != 14 {
				t.Fatalf("dry run: exit %d, %d lines, want exit %d, 14; stderr %s", code, len(dry), tt.wantCode, stderr)
			}
			priced, judgeTokens := 0, 0
			for i, d := range dry {
				pos := i%7 + 1
				first := i < 7
				switch {
				case first && tt.lineError[pos] != "":
					if d.Error != tt.lineError[pos] || len(d.Requests) != 0 {
						t.Errorf("%s: %+v, want the error %q", d.ID, d, tt.lineError[pos])
					}
					continue
				case first && slices.Contains(tt.named, pos):
					if d.Then == "" || len(d.Requests) != 0 {
						t.Errorf("%s: %+v, want it named as waiting", d.ID, d)
					}
					priced += 2
					continue
				}
				if len(d.Requests) != 2 || d.Then != "" || d.Error != "" {
					t.Fatalf("%s: %d requests, then %q, error %q; want the student's and the judge's; stderr %s", d.ID, len(d.Requests), d.Then, d.Error, stderr)
				}
				s, j := d.Requests[0], d.Requests[1]
				if s.Stage != "student" || !s.Cached || s.Error != "" {
					t.Errorf("%s: student request %+v, want it cached", d.ID, s)
				}
				wantPriced := first && slices.Contains(tt.priced, pos)
				wantErr := ""
				if first {
					wantErr = tt.judgeErr[pos]
				}
				if j.Stage != "judge" || j.Model != "fake-judge" || j.Cached == wantPriced || (j.Error == "") != (wantErr == "") || !strings.Contains(j.Error, wantErr) {
					t.Errorf("%s: judge request %s to %s, cached %v, error %q; want judge to fake-judge, cached %v, error %q", d.ID, j.Stage, j.Model, j.Cached, j.Error, !wantPriced, wantErr)
				}
				if want := calls[2*i+1].Request.Messages; !slices.Equal(j.Messages, want) {
					t.Errorf("%s: judge messages %q, want the run's %q", d.ID, j.Messages, want)
				}
				if wantPriced {
					priced++
					judgeTokens += j.InputTokens
				}
			}
			if want := fmt.Sprintf("judge requests to fake-judge, %d answered by the cache; the other %d: %d input tokens", 14-len(tt.lineError)-len(tt.named)-len(tt.priced), len(tt.priced), judgeTokens); !strings.Contains(stderr, want) {
				t.Errorf("dry run stderr %q, want it to hold %q", stderr, want)
			}
			recs, rerr, err := seqRun(t, seqInput(t), args...)
			srv.check(t)
			if got := srv.answeredTotal() - before; got != priced {
				t.Errorf("the rerun made %d calls, the dry run priced or named %d; dry run stderr %s", got, priced, stderr)
			}
			if command.ExitCode(err) != code || len(recs) != 14 {
				t.Fatalf("rerun: exit %d, %d records; want exit %d as the dry run's, 14; stderr %s", command.ExitCode(err), len(recs), code, rerr)
			}
			for i, d := range dry {
				if len(d.Requests) != 2 {
					continue
				}
				p, jg := recs[i].Prediction, recs[i].Judgments["evalearn"]
				if p.PromptSHA256 != d.Requests[0].PromptSHA256 || jg == nil || jg.PromptSHA256 != d.Requests[1].PromptSHA256 ||
					(jg.Error == "") != (d.Requests[1].Error == "") {
					t.Errorf("%s: the rerun's prediction %+v, judgment %+v; want the prompts and the verdict's error the dry run shows", d.ID, p, jg)
				}
			}
		})
	}
}

// TestDryRunRetriedVerdict: --retry-errors over a position whose verdict was unparsable solves it
// again, its answer from the cache and its verdict asked as a new sample, which the cache does not
// hold: the dry run shows the judge's request of that sample, priced, and the rerun makes that one
// call.
func TestDryRunRetriedVerdict(t *testing.T) {
	srv := newReplayServer(t, loadTranscript(t))
	srv.faults = map[int]fault{13: {raw: "[Grade]: 1 point, no JSON"}}
	args := seqArgs(t, srv.URL, "--cache", filepath.Join(t.TempDir(), "run.sqlite"))
	first, stderr, err := seqRun(t, seqInput(t), args...)
	if command.ExitCode(err) != 3 || len(first) != 14 {
		t.Fatalf("first run: %d records, %v\n%s", len(first), err, stderr)
	}
	srv.faults = map[int]fault{}
	in := jsonl(t, first...)
	args = append(args, "--retry-errors")
	dry, stderr, code := dryRunLines(t, in, args...)
	if code != 0 || len(dry) != 14 || len(dry[6].Requests) != 2 {
		t.Fatalf("dry run: exit %d, %+v; want exit 0 and position 7's two requests; stderr %s", code, dry, stderr)
	}
	if s, j := dry[6].Requests[0], dry[6].Requests[1]; !s.Cached || j.Cached || j.Stage != "judge" || j.Error != "" {
		t.Errorf("dry run: position 7's requests %+v, %+v; want the student's cached, the judge's priced", s, j)
	}
	if !strings.Contains(stderr, "1 judge request to fake-judge, 0 answered by the cache; the other 1: ") {
		t.Errorf("dry run stderr %q, want the judge's request priced", stderr)
	}
	before := srv.answeredTotal()
	recs, rerr, err := seqRun(t, in, args...)
	if err != nil || srv.answeredTotal()-before != 1 || recs[6].Judgments["evalearn"].Attempts != 4 {
		t.Errorf("rerun: %v, %d calls; want one, the fourth sample; stderr %s", err, srv.answeredTotal()-before, rerr)
	}
}
