package examples

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// figure is a number the README quotes from a run on the shipped samples: readme finds it in the
// README (its groups are the figures), script is the run, and got reads the same figures, in the
// README's format, from the run's stdout and stderr.
type figure struct {
	name   string
	readme *regexp.Regexp
	script string
	got    func(t *testing.T, stdout, stderr string) []string
}

// summaryMeans reads qa-score's JSON summary on stdout and returns the overall means of metrics,
// each with three decimals, as the README quotes them.
func summaryMeans(metrics ...string) func(t *testing.T, stdout, stderr string) []string {
	return func(t *testing.T, stdout, _ string) []string {
		var s struct {
			Overall struct {
				Metrics map[string]struct {
					Mean  *float64 `json:"mean"`
					Count int      `json:"count"`
				} `json:"metrics"`
			} `json:"overall"`
		}
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("summary: %v\n%.300s", err, stdout)
		}
		var out []string
		for _, m := range metrics {
			v := s.Overall.Metrics[m]
			if v.Mean == nil {
				t.Fatalf("summary has no mean of %s:\n%.300s", m, stdout)
			}
			out = append(out, strconv.FormatFloat(*v.Mean, 'f', 3, 64))
		}
		return out
	}
}

// stderrCounts returns the groups of re in stderr.
func stderrCounts(re string) func(t *testing.T, stdout, stderr string) []string {
	r := regexp.MustCompile(re)
	return func(t *testing.T, _, stderr string) []string {
		m := r.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("stderr does not match %q:\n%s", re, stderr)
		}
		return m[1:]
	}
}

var figures = []figure{
	{
		name:   "extractive on HotpotQA",
		readme: regexp.MustCompile(`\(` + "`testdata/hotpotqa/hotpotqa_sample50.jsonl`" + `, 50 records\) it scores EM (\d\.\d{3}) / F1 (\d\.\d{3})`),
		script: "qa-load testdata/hotpotqa/hotpotqa_sample50.jsonl | qa-predict --provider extractive | qa-score --metrics em,f1 --summary -",
		got:    summaryMeans("em", "f1"),
	},
	{
		name:   "extractive on LoCoMo",
		readme: regexp.MustCompile(`shipped LoCoMo\s+conversation \((\d+) questions\) official LoCoMo F1 (\d\.\d{3})`),
		script: "qa-load testdata/locomo/locomo_conv26.json | qa-predict --provider extractive | qa-score --metrics locomo_f1 --summary -",
		got: func(t *testing.T, stdout, stderr string) []string {
			n := stderrCounts(`qa-predict: (\d+) records`)(t, stdout, stderr)
			return append(n, summaryMeans("locomo_f1")(t, stdout, stderr)...)
		},
	},
	{
		name:   "extractive on CMRC 2018",
		readme: regexp.MustCompile(`CMRC F1 (\d\.\d{3}) on the shipped CMRC 2018 sample \((\d+) questions\)`),
		script: "qa-load testdata/cmrc2018/cmrc2018_dev_sample10.json | qa-predict --provider extractive | qa-score --metrics cmrc_f1 --summary -",
		got: func(t *testing.T, stdout, stderr string) []string {
			n := stderrCounts(`qa-predict: (\d+) records`)(t, stdout, stderr)
			return append(summaryMeans("cmrc_f1")(t, stdout, stderr), n...)
		},
	},
	{
		// evaluate-v2.0.py prints 100 times the mean: the README gives both for one run
		name:   "SQuAD v2.0 scale",
		readme: regexp.MustCompile("on `testdata/squad/squad_v20_synthetic.json` and its predictions `evaluate-v2.0.py` prints `exact` (\\d+\\.\\d{3}), a `squad2_em` mean of (\\d\\.\\d{3})"),
		script: "qa-load --predictions testdata/squad/squad_v20_synthetic_predictions.json testdata/squad/squad_v20_synthetic.json | qa-score --metrics squad2_em --summary -",
		got: func(t *testing.T, stdout, stderr string) []string {
			var s struct {
				Overall struct {
					Metrics map[string]struct{ Mean float64 } `json:"metrics"`
				} `json:"overall"`
			}
			if err := json.Unmarshal([]byte(stdout), &s); err != nil {
				t.Fatal(err)
			}
			return append([]string{strconv.FormatFloat(100*s.Overall.Metrics["squad2_em"].Mean, 'f', 3, 64)}, summaryMeans("squad2_em")(t, stdout, stderr)...)
		},
	},
	{
		// cmrc2018_evaluate.py prints EM, F1, their AVERAGE, TOTAL and SKIP: the README says
		// where each is in the summary, and quotes them for one run
		name: "CMRC 2018 figures",
		readme: regexp.MustCompile(`scores the third 0 \(EM (\d+\.\d{3}), F1 (\d+\.\d{3}), ` +
			`AVERAGE (\d+\.\d{3}), TOTAL (\d+), SKIP (\d+)\)`),
		script: `qa-load --limit 3 --predictions <(echo '{"DEV_0_QUERY_0": "光荣和ω-force", "DEV_0_QUERY_1": "村雨城游戏"}') ` +
			"testdata/cmrc2018/cmrc2018_dev_sample10.json | qa-score --metrics cmrc_em,cmrc_f1 --missing-as-zero --summary -",
		got: func(t *testing.T, stdout, _ string) []string {
			var s struct {
				MissingAsZero int `json:"missing_as_zero"`
				Overall       struct {
					Metrics map[string]struct {
						Mean  float64
						Count int
					} `json:"metrics"`
				} `json:"overall"`
			}
			if err := json.Unmarshal([]byte(stdout), &s); err != nil {
				t.Fatal(err)
			}
			em, f1 := s.Overall.Metrics["cmrc_em"], s.Overall.Metrics["cmrc_f1"]
			pct := func(v float64) string { return strconv.FormatFloat(100*v, 'f', 3, 64) }
			return []string{pct(em.Mean), pct(f1.Mean), pct((em.Mean + f1.Mean) / 2), strconv.Itoa(em.Count),
				strconv.Itoa(s.MissingAsZero)}
		},
	},
	{
		name:   "LoCoMo batches",
		readme: regexp.MustCompile(`--batch-size 10 \| cut -c 1-200   # (two) requests of (ten) questions`),
		script: "qa-load --limit 20 testdata/locomo/locomo_conv26.json | qa-predict --dry-run --provider openai --model gpt-3.5-turbo --locomo-variant gpt-3.5-turbo-16k --batch-size 10 > /dev/null",
		got: func(t *testing.T, stdout, stderr string) []string {
			m := stderrCounts(`20 records: (\d+) requests to gpt-3\.5-turbo.* (\d+) asked in another record's request`)(t, stdout, stderr)
			words := map[string]string{"2": "two", "18": "ten"} // 18 asked with the first of their block: blocks of ten
			return []string{words[m[0]], words[m[1]]}
		},
	},
	{
		name:   "another tool's classifier scored",
		readme: regexp.MustCompile(`it gives accuracy (\d\.\d{3}),\s+precision (\d\.\d{3}), recall (\d\.\d{3}), f1_score (\d\.\d{3}) \(macro averages, qa-score's default\) and auc (\d\.\d{3})`),
		script: "qa-load --map id=qid,answers=gold,prediction=pred,prediction_score=prob testdata/generic/scores.csv | qa-score --metrics classification,auc --summary -",
		got:    summaryMeans("accuracy", "precision", "recall", "f1_score", "auc"),
	},
	{
		name:   "two judges",
		readme: regexp.MustCompile(`two_judges\.jsonl   # two judges on (\d+) synthetic records`),
		script: "qa-judge agree --list 3 internal/judge/testdata/two_judges.jsonl",
		got: func(t *testing.T, stdout, _ string) []string {
			m := regexp.MustCompile(`records: (\d+) compared, 0 left out`).FindStringSubmatch(stdout)
			if m == nil {
				t.Fatalf("agree's report has no count of records compared:\n%s", stdout)
			}
			return m[1:]
		},
	},
}

// TestREADMEFigures checks the figures the README quotes from runs on the shipped samples against
// what the commands print now, so that a change to a predictor or a metric that moves them makes
// the README be updated with it. TestREADME only checks that the examples run.
func TestREADMEFigures(t *testing.T) {
	bin := commands(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(` *\n *`).ReplaceAll(b, []byte(" ")) // a sentence's line breaks, wherever the wrap put them
	for _, f := range figures {
		t.Run(f.name, func(t *testing.T) {
			m := f.readme.FindSubmatch(b)
			if m == nil {
				t.Fatalf("README.md does not match %q: the sentence quoting the figures changed", f.readme)
			}
			stdout, stderr, err := bash(t, root, bin, "set -euo pipefail\n"+f.script)
			if err != nil {
				t.Fatalf("%s: %v\nstderr:\n%s", f.script, err, stderr)
			}
			got := f.got(t, stdout, stderr)
			for i, g := range got {
				if want := string(m[i+1]); g != want {
					t.Errorf("%s: figure %d = %s, README.md says %s", f.script, i+1, g, want)
				}
			}
		})
	}
}
