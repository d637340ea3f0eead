package predict

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/pkg/record"
)

// evaLearnPos is position n of EvaLearn sequence 9, with a rubric unless noRubric.
func evaLearnPos(n int, noRubric bool) *record.Record {
	q := fmt.Sprintf("Q%d: what is %d?", n, n)
	rubric := "rubric of " + q
	if noRubric {
		rubric = ""
	}
	return &record.Record{Schema: 1, ID: fmt.Sprintf("evalearn:9:%d", n), Dataset: "evalearn", Type: "Extraction", Question: q,
		Turns: []string{q}, Rubric: rubric, Sequence: &record.Sequence{ID: "9", Position: n}}
}

// passedRe and alreadyRe read the count of records passed through, and its note of those that
// failed, from the run's summary and the dry run's.
var (
	passedRe  = regexp.MustCompile(`(\d+) passed through((?: \([^)]*\))?)`)
	alreadyRe = regexp.MustCompile(`(\d+) already predicted((?: \([^)]*\))?)`)
	// needsJudgeRe reads the record a warning for want of --judge-model names.
	needsJudgeRe = regexp.MustCompile(`records with a sequence \(([^,)]+)`)
)

// dryMatchesRun dry-runs in with args, then runs it against srv, and checks that the dry run says
// what the run does: the same exit code; each record the dry run passes through written as it
// came, each it fails failed with its error, each it shows asked with the prompt it shows; as
// many calls as the dry run prices or names (a student call named as waiting is one call and its
// judge's another); and the same count of records passed through, and of those failed among them.
func dryMatchesRun(t *testing.T, srv *graderServer, in string, args ...string) []dryPrediction {
	t.Helper()
	dry, dstderr, code := dryRunLines(t, in, args...)
	srv.reset()
	recs, rstderr, err := seqRun(t, in, args...)
	if got := command.ExitCode(err); got != code {
		t.Errorf("dry run exits %d, the run %d\ndry run: %s\nrun: %s", code, got, dstderr, rstderr)
	}
	inRecs := readRecords(t, []byte(in))
	if len(dry) != len(inRecs) || len(recs) != len(inRecs) {
		t.Fatalf("%d records in, %d dry-run lines, %d records out\ndry run: %s\nrun: %s", len(inRecs), len(dry), len(recs), dstderr, rstderr)
	}
	named := 0
	for i, d := range dry {
		got := recs[i]
		switch {
		case d.AlreadyPredicted:
			was, _ := json.Marshal(inRecs[i])
			now, _ := json.Marshal(got)
			if string(was) != string(now) {
				t.Errorf("%s: the dry run passes it through, the run writes %s, not %s", d.ID, now, was)
			}
		case d.Error != "":
			if got.Prediction == nil || got.Prediction.Error != d.Error {
				t.Errorf("%s: the dry run fails it with %q, the run writes %+v", d.ID, d.Error, got.Prediction)
			}
		case len(d.Requests) > 0:
			if got.Prediction == nil || got.Prediction.PromptSHA256 != d.Requests[0].PromptSHA256 {
				t.Errorf("%s: the dry run asks prompt %s, the run writes %+v", d.ID, d.Requests[0].PromptSHA256, got.Prediction)
			}
		}
		for _, c := range d.Requests {
			if !c.Cached {
				named++
			}
		}
		switch {
		case strings.HasPrefix(d.Then, "EvaLearn's rubric judge"):
			named++
		case strings.HasPrefix(d.Then, "the student call"):
			named += 2
		}
	}
	if srv.calls != named {
		t.Errorf("the run made %d calls, the dry run priced or named %d\ndry run: %s\nrun: %s", srv.calls, named, dstderr, rstderr)
	}
	p, a := passedRe.FindStringSubmatch(rstderr), alreadyRe.FindStringSubmatch(dstderr)
	if p == nil || a == nil || p[1] != a[1] || p[2] != a[2] {
		t.Errorf("the run's summary says %q, the dry run's %q\ndry run: %s\nrun: %s", p, a, dstderr, rstderr)
	}
	if r, d := needsJudgeRe.FindStringSubmatch(rstderr), needsJudgeRe.FindStringSubmatch(dstderr); fmt.Sprint(r) != fmt.Sprint(d) {
		t.Errorf("the run's warning for want of --judge-model names %q, the dry run's %q\ndry run: %s\nrun: %s", r, d, dstderr, rstderr)
	}
	return dry
}

// TestDryRunMatchesRunSequences: for inputs that reach each way a sequence's positions go — the
// positions after one a run without --judge-model cannot ask, a position without a rubric after
// one waiting for its verdict, positions passed through or solved again from the cache — a dry
// run says what a run then does, record by record, call by call and in its summary and exit code.
func TestDryRunMatchesRunSequences(t *testing.T) {
	srv := newGraderServer(t)
	dir := t.TempDir()
	full := seqArgs(t, srv.URL, "--cache", filepath.Join(dir, "c.sqlite"))
	noJudge := slicesWithout(full, "--judge-model", "fake-judge")
	answered, stderr, err := seqRun(t, jsonl(t, evaLearnPos(1, false), evaLearnPos(2, false), evaLearnPos(3, false)),
		seqArgs(t, srv.URL, "--cache", filepath.Join(dir, "answered.sqlite"))...)
	if err != nil || len(answered) != 3 {
		t.Fatalf("answering run: %v, %d records\n%s", err, len(answered), stderr)
	}
	unanswered := func(rec *record.Record) *record.Record {
		r := *rec
		r.Prediction, r.Judgments = nil, nil
		return &r
	}
	tests := []struct {
		name string
		recs []*record.Record
		args []string
		kept []int // the records passed through, as written
	}{
		// Without a judge model the run asks nothing: the positions answered before keep their
		// paid answers and verdicts, after an unanswered one too (a rerun with it asks them again).
		{"no judge model, answered positions after an unanswered one", []*record.Record{unanswered(answered[0]), answered[1], answered[2]}, noJudge, []int{1, 2}},
		{"no judge model, answered positions first", []*record.Record{answered[0], answered[1], unanswered(answered[2])}, noJudge, []int{0, 1}},
		{"no rubric after a position waiting for its verdict", []*record.Record{evaLearnPos(1, false), evaLearnPos(2, true), evaLearnPos(3, false)}, full, nil},
		{"no rubric first", []*record.Record{evaLearnPos(1, true), answered[1], answered[2]}, full, nil},
		{"answered positions, one asked again", []*record.Record{answered[0], unanswered(answered[1]), answered[2]}, full, []int{0}},
		{"answered, failed verdict, retry errors", []*record.Record{answered[0], failedVerdict(answered[1]), answered[2]}, append(full, "--retry-errors"), []int{0}},
		{"a repeated position answered, after its first asked", []*record.Record{evaLearnPos(1, false), answered[0], answered[1]}, full, nil},
		{"answered, failed verdict, passed through", []*record.Record{answered[0], failedVerdict(answered[1]), answered[2]}, full, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dry := dryMatchesRun(t, srv, jsonl(t, tt.recs...), tt.args...)
			var kept []int
			for i, d := range dry {
				if d.AlreadyPredicted {
					kept = append(kept, i)
				}
			}
			if !slices.Equal(kept, tt.kept) {
				t.Errorf("records passed through %v, want %v", kept, tt.kept)
			}
		})
	}
}

// failedVerdict is rec with its EvaLearn verdict failed, unparsable.
func failedVerdict(rec *record.Record) *record.Record {
	r := *rec
	jg := *rec.Judgments[judgeKey]
	jg.Error, jg.Raw = "unparsable verdict", "[Grade]: 1 point, no JSON"
	r.Judgments = map[string]*record.Judgment{judgeKey: &jg}
	return &r
}

// slicesWithout is args without the flag and its value.
func slicesWithout(args []string, flag, value string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == flag && i+1 < len(args) && args[i+1] == value {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
