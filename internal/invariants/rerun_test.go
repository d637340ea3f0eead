package invariants

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// genAnswered returns one record line that a finished run could have written: a prediction, and
// for a record of a sequence an EvaLearn verdict (a score, or a raw reply alone, as EvaLearn's own
// results hold it), with unknown members at every level.
func genAnswered(r *rand.Rand, seq, pos int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"schema":1,"id":"s%d:%d","dataset":"evalearn","question":"q","turns":["q"],"answers":[],"rubric":"r"`, seq, pos)
	fmt.Fprintf(&b, `,"sequence":{"id":"%d","position":%d%s}`, seq, pos, unknown(r, 1))
	fmt.Fprintf(&b, `,"prediction":{"text":"answer %d","model":"m0","provider":"p0"%s}`, pos, unknown(r, 2))
	if r.IntN(2) == 0 {
		fmt.Fprintf(&b, `,"judgments":{"evalearn":{"score":%d,"mode":"evalearn","raw":"{\"answer_score\": 1}"%s}}`, r.IntN(2), unknown(r, 1))
	} else {
		b.WriteString(`,"judgments":{"evalearn":{"raw":"[JSON]: {\"answer_score\": 0}"}}`)
	}
	b.WriteString(unknown(r, 3))
	return b.String() + "}"
}

// TestAnsweredPassThroughInAnyOrder runs qa-predict over records that are all answered already,
// in their order, shuffled and each twice (saved runs put together, a sorted file), and qa-judge
// under the EvaLearn judge's name over the same: neither is asked to redo anything, so each
// record's prediction and judgments come out as they went in, and the run succeeds, whatever the
// order.
func TestAnsweredPassThroughInAnyOrder(t *testing.T) {
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 13))
		var recs []string
		for seq := range 4 {
			for pos := 1; pos <= 1+r.IntN(5); pos++ {
				recs = append(recs, genAnswered(r, seq, pos))
			}
		}
		for _, order := range []string{"in order", "shuffled", "twice"} {
			in := append([]string(nil), recs...)
			switch order {
			case "shuffled":
				r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			case "twice": // every record next to its repeat, as a sort of two runs put together
				in = nil
				for _, l := range recs {
					in = append(in, l, l)
				}
			}
			file := write(t, t.TempDir(), "in.jsonl", []byte(strings.Join(in, "\n")+"\n"))
			for _, st := range []string{"predict", "judge"} {
				name := fmt.Sprintf("seed%d/%s/%s", seed, order, st)
				var extra []string
				if st == "judge" {
					extra = []string{"--name", "evalearn"}
				}
				out, stderr, code := runStage(t, st, file, extra...)
				if code != 0 {
					t.Errorf("%s: exit %d, want 0; stderr:\n%s", name, code, stderr)
				}
				outL := lines(out)
				if len(outL) != len(in) {
					t.Fatalf("%s: %d records in, %d out; stderr:\n%s", name, len(in), len(outL), stderr)
				}
				for i, l := range outL {
					mi, mo := members(t, []byte(in[i])), members(t, l)
					for _, k := range []string{"id", "prediction", "judgments", "sequence"} {
						if a, b := canon(t, mi[k]), canon(t, mo[k]); a != b {
							t.Errorf("%s: line %d: %s changed:\n in %s\nout %s", name, i+1, k, a, b)
						}
					}
				}
				if t.Failed() {
					t.FailNow()
				}
			}
		}
	}
}

// TestForceLeavesOnlyThisRunsJudgments judges records under one name with the rules, then
// again with --force (and with --retry-errors) under a route that leaves some types out: every
// judgment under that name that comes out is this run's, none left from the first, and the
// judge_score that may have read a judgment removed or replaced goes with it, while every other
// judge's verdict and every other score stays.
func TestForceLeavesOnlyThisRunsJudgments(t *testing.T) {
	route := `{"*": "rules", "d/skipme": "skip"}`
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 17))
		var in bytes.Buffer
		n := 30
		for i := range n {
			typ := []string{"skipme", "kept"}[r.IntN(2)]
			k := r.IntN(len(texts))
			fmt.Fprintf(&in, `{"schema":1,"id":"r%d","dataset":"d","type":%q,"question":%q,"answers":[%q],"prediction":{"text":%q}`, i, typ, questions[k], golds[k], golds[r.IntN(len(golds))])
			switch r.IntN(3) {
			case 0:
				fmt.Fprintf(&in, `,"judgments":{"x":{"score":1,"mode":"adversarial"%s},"other":{"score":0}}`, unknown(r, 1))
			case 1:
				in.WriteString(`,"judgments":{"x":{"mode":"rules-approximate","error":"failed"}}`)
			}
			if r.IntN(2) == 0 {
				in.WriteString(`,"scores":{"judge_score":1,"em":0}`)
			}
			in.WriteString(unknown(r, 2) + "}\n")
		}
		dir := t.TempDir()
		file := write(t, dir, "in.jsonl", in.Bytes())
		routes := write(t, dir, "route.json", []byte(route))
		for _, flag := range []string{"--force", "--retry-errors"} {
			name := fmt.Sprintf("seed%d/%s", seed, flag)
			out, stderr, code := runStage(t, "judge", file, "--mode", "auto", "--route", routes, "--name", "x", flag)
			if code != 0 {
				t.Errorf("%s: exit %d, want 0; stderr:\n%s", name, code, stderr)
			}
			inL, outL := lines(in.Bytes()), lines(out)
			if len(inL) != len(outL) {
				t.Fatalf("%s: %d records in, %d out; stderr:\n%s", name, len(inL), len(outL), stderr)
			}
			for i := range inL {
				mi, mo := members(t, inL[i]), members(t, outL[i])
				for k, v := range mi {
					if k != "judgments" && k != "scores" && canon(t, v) != canon(t, mo[k]) {
						t.Errorf("%s: line %d: member %q %s became %s", name, i+1, k, v, mo[k])
					}
				}
				ji, jo := judgmentsOf(t, mi["judgments"]), judgmentsOf(t, mo["judgments"])
				skipped := strings.Contains(string(mi["type"]), "skipme")
				redone := flag == "--force" || strings.Contains(string(ji["x"]), `"error"`)
				x, had := jo["x"], ji["x"] != nil
				switch {
				case skipped && redone && x != nil:
					t.Errorf("%s: line %d: left out by the route, it keeps judgment x %s", name, i+1, x)
				case !skipped && redone && !strings.Contains(string(x), `"mode":"rules-approximate"`):
					t.Errorf("%s: line %d: judgment x %s, want this run's", name, i+1, x)
				case !redone && had && canon(t, x) != canon(t, ji["x"]):
					t.Errorf("%s: line %d: judgment x %s passed through as %s", name, i+1, ji["x"], x)
				}
				if canon(t, ji["other"]) != canon(t, jo["other"]) {
					t.Errorf("%s: line %d: judgment other %s became %s", name, i+1, ji["other"], jo["other"])
				}
				if redone && had && strings.Contains(string(mo["scores"]), "judge_score") {
					t.Errorf("%s: line %d: judgment x redone, judge_score kept: %s", name, i+1, mo["scores"])
				}
				if strings.Contains(string(mi["scores"]), `"em"`) && !strings.Contains(string(mo["scores"]), `"em"`) {
					t.Errorf("%s: line %d: scores %s lost em: %s", name, i+1, mi["scores"], mo["scores"])
				}
			}
			if t.Failed() {
				t.FailNow()
			}
		}
	}
}

// judgmentsOf returns the members of a judgments object (none when v is empty).
func judgmentsOf(t *testing.T, v []byte) map[string][]byte {
	t.Helper()
	if len(v) == 0 {
		return map[string][]byte{}
	}
	return members(t, v)
}
