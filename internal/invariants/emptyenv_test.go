package invariants

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/learncurve"
	"github.com/qapipe/qapipe/internal/load"
	"github.com/qapipe/qapipe/internal/predict"
	"github.com/qapipe/qapipe/internal/score"
)

// helpVar is a variable as --help names it beside a flag: "[$QA_SEED]".
var helpVar = regexp.MustCompile(`\$(QA_[A-Z0-9_]+)`)

// TestEmptyEnvIsUnset: every QA_* variable that a command's --help names (qa-judge agree's
// too), set to the empty string, is as if unset: the run gives the same stdout, stderr and
// error as one without it. Each command runs over records that its flags read, configured
// through variables (QA_PROVIDER=extractive, QA_SUMMARY=-, …), so that a variable under test
// is read where a flag typed would have shadowed it; one of those, under test, is unset in
// one run and empty in the other. An export QA_X= (a make variable left empty, a CI template's
// blank field) was refused by some flags (QA_BLEU_WEIGHTS, QA_THINK, QA_CONTEXT, QA_STOP…),
// read as the class "" by QA_POS_LABEL, and taken for unset by others.
func TestEmptyEnvIsUnset(t *testing.T) {
	dir := t.TempDir()
	for _, st := range []struct {
		prog string
		run  command.RunFunc
		env  map[string]string
	}{
		{"qa-load", load.Run, map[string]string{"QA_FORMAT": "records", "QA_LOAD_SUMMARY": "true"}},
		{"qa-predict", predict.Run, map[string]string{"QA_PROVIDER": "extractive", "QA_FORCE": "true"}},
		{"qa-judge", judge.Run, map[string]string{"QA_JUDGE_MODE": "rules", "QA_JUDGE_FORCE": "true"}},
		{"qa-judge agree", judge.Run, map[string]string{"QA_AGREE_NAMES": "a,b", "QA_AGREE_LIST": "1"}},
		{"qa-score", score.Run, map[string]string{"QA_METRICS": "em,corpus_bleu,classification,auc", "QA_SUMMARY": "-",
			"QA_MISMATCHES": filepath.Join(dir, "low.jsonl"), "QA_MISMATCH_METRIC": "em"}},
		{"qa-learncurve", learncurve.Run, map[string]string{"QA_JUDGE": "evalearn", "QA_WARMUP": "0", "QA_PROBLEMS": "4"}},
	} {
		input := filepath.Join(dir, strings.ReplaceAll(st.prog, " ", "-")+".jsonl")
		if err := os.WriteFile(input, []byte(emptyEnvRecords(st.prog)), 0o644); err != nil {
			t.Fatal(err)
		}
		var help bytes.Buffer
		st.run(context.Background(), append(strings.Fields(st.prog), "--help"), strings.NewReader(""), &help, &help) //nolint:errcheck // the help is what counts
		vars := helpVar.FindAllStringSubmatch(help.String(), -1)
		if len(vars) < 5 {
			t.Fatalf("%s --help names %d variables:\n%s", st.prog, len(vars), help.String())
		}
		run := func(t *testing.T, v string, empty bool) string {
			for k, val := range st.env {
				t.Setenv(k, val)
			}
			t.Setenv(v, "")
			if !empty {
				os.Unsetenv(v) // t.Setenv restores it
			}
			var out, errb bytes.Buffer
			err := st.run(context.Background(), append(strings.Fields(st.prog), input), strings.NewReader(""), &out, &errb)
			return fmt.Sprintf("exit %d, error %v\nstderr:\n%s\nstdout:\n%s", command.ExitCode(err), err, errb.String(), out.String())
		}
		t.Run(st.prog, func(t *testing.T) {
			if got := run(t, "QA_TEST_NONE", false); !strings.HasPrefix(got, "exit 0,") {
				t.Fatalf("%s with %v: %s\nwant exit 0, for the variables under test to be read", st.prog, st.env, got)
			}
		})
		for _, m := range vars {
			v := m[1]
			t.Run(st.prog+"/"+v, func(t *testing.T) {
				unset, empty := run(t, v, false), run(t, v, true)
				if empty != unset {
					t.Errorf("%s=%q %s:\n%s\nwant, as with %s unset:\n%s", v, "", st.prog, empty, v, unset)
				}
			})
		}
	}
}

// emptyEnvRecords returns records that prog reads with the flags of TestEmptyEnvIsUnset: stageRecords,
// with a type, a prediction score for auc and the benchmark's dataset for qa-learncurve.
func emptyEnvRecords(prog string) string {
	recs := stageRecords(prog, 4)
	recs = strings.ReplaceAll(recs, `"prediction":{"text":"Paris"}`, `"type":"t","prediction":{"text":"Paris","score":0.5}`)
	if prog == "qa-learncurve" {
		recs = strings.ReplaceAll(recs, `{"schema":1,`, `{"schema":1,"dataset":"evalearn",`)
	}
	return recs
}
