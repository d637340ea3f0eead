package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/cell"
	"github.com/qapipe/qapipe/internal/command"
)

// agreeInput returns n judged records for agree, drawn from seed: types a, all (a row apart from
// the overall one) and none, and a type "same" where every judge calls every record correct
// (kappa has no value there); scores on both sides of every threshold, and some judgments
// missing, failed or without a score, and a bad line.
func agreeInput(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 0))
	var b strings.Builder
	for i := range n {
		typ := []string{"a", "all", "", "same"}[rng.IntN(4)]
		js := map[string]any{}
		for _, name := range []string{"j1", "j2", "j3"} {
			switch r := rng.IntN(20); {
			case typ == "same":
				js[name] = map[string]any{"score": 1}
			case r == 0: // missing
			case r == 1:
				js[name] = map[string]any{"error": "unparsable judge reply: ?"}
			case r == 2:
				js[name] = map[string]any{"raw": "no score"}
			default:
				js[name] = map[string]any{"score": []float64{0, 0.3, 0.5, 0.8, 1}[rng.IntN(5)]}
			}
		}
		rec := map[string]any{"schema": 1, "id": fmt.Sprintf("r%d", i), "question": "q", "answers": []string{"x"}, "judgments": js}
		if typ != "" {
			rec["type"] = typ
		}
		line, err := json.Marshal(rec)
		if err != nil {
			panic(err)
		}
		b.Write(append(line, '\n'))
		if i == n/2 {
			b.WriteString("{not json\n")
		}
	}
	return b.String()
}

// TestAgreeFormatsAgree runs agree over the same input with --format text and --format json and
// checks that the JSON holds every figure of the text, which rounds them: the judges, method and
// threshold, the counts, each row's n, agreement, kappa and intervals (none in the JSON where the
// text has "-" or no interval columns), the disagreements and the ones listed. stderr and the exit
// code are the same in both formats.
func TestAgreeFormatsAgree(t *testing.T) {
	for _, args := range [][]string{
		{"--bootstrap", "100", "--seed", "3", "--list", "5"},
		{"--names", "j1,j2", "--bootstrap", "0", "--list", "-1"},
		{"--names", "j3,j1", "--bootstrap", "50", "--list", "0", "--threshold", "0.3"},
		{"--names", "j1,j2,j3", "--bootstrap", "20", "--threshold", "0.9"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			input := agreeInput(uint64(len(args)), 80)
			run := func(format string) (string, string, int) {
				var stdout, stderr bytes.Buffer
				argv := append([]string{"qa-judge", "agree", "--format", format}, args...)
				err := Run(context.Background(), argv, strings.NewReader(input), &stdout, &stderr)
				command.Report(&stderr, "qa-judge", err)
				return stdout.String(), stderr.String(), command.ExitCode(err)
			}
			text, textErr, textExit := run("text")
			js, jsonErr, jsonExit := run("json")
			if textErr != jsonErr || textExit != jsonExit {
				t.Errorf("text: exit %d, stderr %q; json: exit %d, stderr %q; want the same", textExit, textErr, jsonExit, jsonErr)
			}
			var doc agreeDoc
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatalf("json report: %v\n%s", err, js)
			}
			if diff := cmp.Diff(parseAgreeText(t, text), textOf(doc)); diff != "" {
				t.Errorf("the JSON report's figures differ from the text's (-text +json):\n%s", diff)
			}
			for name, g := range doc.ByType {
				checkReasons(t, name, g)
			}
			checkReasons(t, "overall", doc.Overall)
			if args[1] == "0" && strings.Contains(js, `"ci"`) {
				t.Errorf("--bootstrap 0: the JSON report has an interval:\n%s", js)
			}
		})
	}
}

// agreeTextReport is what the text report says, as strings.
type agreeTextReport struct {
	Header, Records string
	Rows            [][]string // group, n, agree, CI, kappa, CI; without intervals no CI cells
	Disagreements   string
	Listed          []string
}

var (
	agreeRowCI = regexp.MustCompile(`^(overall|type \S+) +(\d+) +(\S+) +(\[\S+, \S+\]|-) +(\S+) +(\[\S+, \S+\]|-)$`)
	agreeRow   = regexp.MustCompile(`^(overall|type \S+) +(\d+) +(\S+) +(\S+)$`)
	// The table's heading, with and without the intervals' columns.
	agreeHeadCI = regexp.MustCompile(`^(group) +(n) +(agree) +(\d+% CI) +(kappa) +(\d+% CI)$`)
	agreeHead   = regexp.MustCompile(`^(group) +(n) +(agree) +(kappa)$`)
)

// parseAgreeText reads the text report.
func parseAgreeText(t *testing.T, text string) agreeTextReport {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	r := agreeTextReport{Header: lines[0], Records: lines[1]}
	withCI := strings.Contains(lines[3], "95% CI")
	i := 4
	for ; lines[i] != ""; i++ {
		re := agreeRow
		if withCI {
			re = agreeRowCI
		}
		m := re.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("text report: row %q", lines[i])
		}
		r.Rows = append(r.Rows, m[1:])
	}
	r.Disagreements = lines[i+1]
	r.Listed = lines[i+2:]
	return r
}

// textOf writes the figures of doc as the text report does, for comparison with parseAgreeText's:
// the rows named as qa-score's summary names its groups, "overall" and "type " and the type, the
// types, ids and judges' names as cell.Value names them.
func textOf(doc agreeDoc) agreeTextReport {
	judges := make([]string, len(doc.Judges))
	for k, n := range doc.Judges {
		judges[k] = cell.Value(n)
	}
	method := map[string]string{"cohen": "Cohen's kappa", "fleiss": "Fleiss' kappa"}[doc.KappaMethod]
	r := agreeTextReport{
		Header:        fmt.Sprintf("judges: %s (%s; verdict = score >= %s)", strings.Join(judges, ", "), method, strconv.FormatFloat(doc.Threshold, 'g', -1, 64)),
		Records:       fmt.Sprintf("records: %d compared, %d left out (a judgment missing or failed)", doc.Compared, doc.LeftOut),
		Disagreements: fmt.Sprintf("disagreements: %d", doc.Disagreements.Count),
	}
	if doc.LeftOutMissing+doc.LeftOutFailed != doc.LeftOut {
		r.Records += fmt.Sprintf(" (but %d missing + %d failed)", doc.LeftOutMissing, doc.LeftOutFailed)
	}
	withCI := false
	groups := []agreeGroup{doc.Overall}
	names := []string{"overall"}
	for _, k := range slices.Sorted(maps.Keys(doc.ByType)) {
		groups, names = append(groups, doc.ByType[k]), append(names, "type "+cell.Value(k))
	}
	for _, g := range groups {
		withCI = withCI || g.Agreement.CI != nil || g.Kappa.CI != nil
	}
	value := func(s agreeStat) string {
		if s.Value == nil {
			return "-"
		}
		return fmt.Sprintf("%.3f", *s.Value)
	}
	interval := func(s agreeStat) string {
		if s.CI == nil {
			return "-"
		}
		return fmt.Sprintf("[%.3f, %.3f]", s.CI[0], s.CI[1])
	}
	for k, g := range groups {
		row := []string{names[k], strconv.Itoa(g.Records), value(g.Agreement), value(g.Kappa)}
		if withCI {
			row = []string{names[k], strconv.Itoa(g.Records), value(g.Agreement), interval(g.Agreement), value(g.Kappa), interval(g.Kappa)}
		}
		r.Rows = append(r.Rows, row)
	}
	for _, d := range doc.Disagreements.Listed {
		parts := make([]string, len(doc.Judges))
		for k, n := range doc.Judges {
			parts[k] = fmt.Sprintf("%s=%d", judges[k], d.Verdicts[n])
		}
		r.Listed = append(r.Listed, fmt.Sprintf("  %s\t%s\t%s", cell.Value(d.ID), cell.Value(d.Type), strings.Join(parts, " ")))
	}
	if more := doc.Disagreements.Count - len(doc.Disagreements.Listed); more > 0 {
		r.Listed = append(r.Listed, fmt.Sprintf("  ... %d more", more))
	}
	return r
}

// checkReasons fails unless each figure of g with no value has a reason, and each with one has
// none.
func checkReasons(t *testing.T, name string, g agreeGroup) {
	t.Helper()
	for fig, s := range map[string]agreeStat{"agreement": g.Agreement, "kappa": g.Kappa} {
		if (s.Value == nil) != (s.Reason != "") {
			t.Errorf("%s %s: value %v, reason %q; want a reason exactly when there is no value", name, fig, s.Value, s.Reason)
		}
	}
}

// TestAgreeTableAligned checks that the table's columns line up whatever the types' lengths: a
// type far longer than the others, one Go-quoted, one with a letter beyond ASCII. In every line,
// heading included, the names and the intervals start, and the figures (n, agreement, kappa)
// end, at the same character as in the heading.
func TestAgreeTableAligned(t *testing.T) {
	types := []string{"a", "single-session-preference-with-a-long-name", "two\nlines", "café", ""}
	var in strings.Builder
	for i := range 40 {
		fmt.Fprintf(&in, `{"schema":1,"id":"r%d","type":%q,"question":"q","answers":["x"],"judgments":{"j1":{"score":%d},"j2":{"score":%d}}}`+"\n",
			i, types[i%len(types)], i%2, i/2%2)
	}
	for _, bootstrap := range []string{"0", "50"} {
		t.Run("bootstrap "+bootstrap, func(t *testing.T) {
			stdout, stderr, code := runJudge(t, []string{"agree", "--bootstrap", bootstrap}, in.String())
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			lines := strings.Split(stdout, "\n")
			head, row, left := agreeHead, agreeRow, []bool{true, false, false, false}
			if bootstrap != "0" {
				head, row, left = agreeHeadCI, agreeRowCI, []bool{true, false, false, true, false, true}
			}
			want := columnEdges(head.FindStringSubmatchIndex(lines[3]), lines[3], left)
			if want == nil {
				t.Fatalf("heading %q does not match %v", lines[3], head)
			}
			rows := 0
			for _, line := range lines[4:] {
				if line == "" {
					break
				}
				rows++
				if got := columnEdges(row.FindStringSubmatchIndex(line), line, left); !slices.Equal(got, want) {
					t.Errorf("row %q: columns at %v, want %v as in the heading:\n%s", line, got, want, stdout)
				}
			}
			if rows != len(types) { // all, then the four types
				t.Errorf("%d rows, want %d:\n%s", rows, len(types), stdout)
			}
		})
	}
}

// columnEdges returns, for each group that m (a FindStringSubmatchIndex of line) matched, the
// character at which it starts (left[k]: a column aligned to the left) or ends (to the right),
// or nil for no match.
func columnEdges(m []int, line string, left []bool) []int {
	if m == nil {
		return nil
	}
	edges := make([]int, len(left))
	for k, l := range left {
		at := m[2*k+3]
		if l {
			at = m[2*k+2]
		}
		edges[k] = utf8.RuneCountInString(line[:at])
	}
	return edges
}

// TestAgreeListed: --list N lists the first N disagreements, 0 none and -1 all.
func TestAgreeListed(t *testing.T) {
	dis := []Item{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	for _, tc := range []struct{ list, want int }{{0, 0}, {2, 2}, {3, 3}, {5, 3}, {-1, 3}} {
		r := &agreeReport{cfg: agreeConfig{maxList: tc.list}}
		if got := r.listed(dis); len(got) != tc.want || tc.want > 0 && got[0].ID != "a" {
			t.Errorf("--list %d: listed %v, want the first %d", tc.list, got, tc.want)
		}
	}
}

// TestRepeatedWarning: the warning of records that repeat an earlier record's id guesses the
// causes a command still lets through (one file named twice is refused), says how to compare
// two files judged apart, and names the first repeat.
func TestRepeatedWarning(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, `1 record repeats the id of an earlier record: each counts in every figure as a record of its own ` +
			`(a file beside a copy of it, files that overlap, or an id field that is not unique? files of the same records judged apart are not joined: judge one file with each judge in turn): ` +
			`a.jsonl:3 (id "r1")`},
		{3, `3 records repeat the id of an earlier record: each counts in every figure as a record of its own ` +
			`(a file beside a copy of it, files that overlap, or an id field that is not unique? files of the same records judged apart are not joined: judge one file with each judge in turn); ` +
			`the first is a.jsonl:3 (id "r1")`},
	} {
		if got := repeatedWarning(tc.n, `a.jsonl:3 (id "r1")`); got != tc.want {
			t.Errorf("repeatedWarning(%d, ...) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
