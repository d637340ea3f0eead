package score

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestCorpusWithoutValue: a corpus metric that no record gives a value (no record has what it
// reads) has a null mean of count 0 in overall and a warning that says why; under corpus its
// figure is null (auc, ranking, perplexity) or its section is left out (classification, corpus
// BLEU, gen_eval), but for the sections that keep the reference's figures for no input: chunk's
// conlleval 0s and pairwise's pn 128 with pn_inf. The README says so.
func TestCorpusWithoutValue(t *testing.T) {
	in := `{"schema":1,"id":"d","question":"q","answers":["Bern"]}
{"schema":1,"id":"z","question":"q","prediction":{"text":"Paris"}}
`
	metrics := []string{"accuracy", "auc", "pn", "pairwise_acc", "mrr", "map", "chunk_f1", "perplexity",
		"corpus_bleu", "gen_eval_bleu"}
	s, _ := summaryOf(t, in, []string{"--bootstrap", "0", "--metrics", strings.Join(metrics, ",")})
	for _, m := range metrics {
		st := s.Overall.Metrics[m]
		if st == nil || st.Mean != nil || st.Count != 0 {
			t.Errorf("overall %s = %+v, want a null mean of count 0", m, st)
		}
	}
	c := s.Corpus
	if c == nil {
		t.Fatal("no corpus section")
	}
	if c.Classification != nil || c.CorpusBLEU != nil || c.GenEval != nil {
		t.Errorf("corpus classification %v, corpus_bleu %v, gen_eval %v: want each left out", c.Classification, c.CorpusBLEU, c.GenEval)
	}
	if c.AUC == nil || c.AUC.AUC != nil {
		t.Errorf("corpus.auc = %+v, want auc null", c.AUC)
	}
	if c.Ranking == nil || c.Ranking.MRR != nil || c.Ranking.MAP != nil {
		t.Errorf("corpus.ranking = %+v, want mrr and map null", c.Ranking)
	}
	if c.Perplexity == nil || c.Perplexity.PPL != nil {
		t.Errorf("corpus.perplexity = %+v, want ppl null", c.Perplexity)
	}
	if c.Chunk == nil || c.Chunk.Records != 0 || c.Chunk.Precision != 0 || c.Chunk.Recall != 0 || c.Chunk.F1 != 0 {
		t.Errorf("corpus.chunk = %+v, want conlleval's 0s over no record", c.Chunk)
	}
	if p := c.Pairwise; p == nil || p.PN == nil || *p.PN != PNCap || !p.PNInf || p.PairwiseAcc != nil {
		t.Errorf("corpus.pairwise = %+v, want pn %g, pn_inf true, pairwise_acc null", p, PNCap)
	}
	for _, want := range []string{"classification:", "auc:", "pn, pairwise_acc:", "mrr, map:", "chunk_f1:", "perplexity:", "corpus_bleu, gen_eval_bleu:"} {
		found := false
		for _, w := range s.Warnings {
			found = found || strings.HasPrefix(w, want)
		}
		if !found {
			t.Errorf("no warning begins %q; warnings: %q", want, s.Warnings)
		}
	}
}

// TestCorpusScoreUnread: --score-field is read only for the metrics that take it (auc, pn,
// pairwise_acc, mrr, map); a record whose score is no number is no error of the classification
// metrics, which never read it, and the run exits 0. With auc selected it is one (exit 3).
func TestCorpusScoreUnread(t *testing.T) {
	in := `{"schema":1,"id":"a","question":"q","answers":["1"],"prediction":{"text":"1","score":"high"}}
{"schema":1,"id":"b","question":"q","answers":["0"],"prediction":{"text":"1","score":0.2}}
`
	for _, tc := range []struct {
		metrics string
		errs    bool
	}{
		{"classification", false},
		{"accuracy", false},
		{"classification,auc", true},
	} {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), []string{"qa-score", "--summary", "-", "--bootstrap", "0", "--metrics", tc.metrics},
			strings.NewReader(in), &stdout, &stderr)
		gotErrs := strings.Contains(stderr.String(), "prediction.score is not a number")
		if gotErrs != tc.errs || (err != nil) != tc.errs {
			t.Errorf("--metrics %s: error %v, stderr %s; want a score error: %v", tc.metrics, err, stderr.String(), tc.errs)
		}
		var s Summary
		if jerr := json.Unmarshal(stdout.Bytes(), &s); jerr != nil {
			t.Fatalf("--metrics %s: %v", tc.metrics, jerr)
		}
		if st := s.Overall.Metrics["accuracy"]; st == nil || st.Count != 2 {
			t.Errorf("--metrics %s: accuracy %+v, want both records", tc.metrics, st)
		}
	}
}

// TestPosLabelTwins: a gold label that differs from --pos-label only in case or surrounding white
// space ("Yes" for yes) compares as another label, a negative to auc and of relevance 0 to the
// query groups' metrics, as scikit-learn has it; a warning says so, and none is given once
// --label-map joins them.
func TestPosLabelTwins(t *testing.T) {
	in := `{"schema":1,"id":"a","question":"q","answers":["yes"],"prediction":{"text":"","score":0.9},"meta":{"group":"g"}}
{"schema":1,"id":"b","question":"q","answers":["Yes"],"prediction":{"text":"","score":0.8},"meta":{"group":"g"}}
{"schema":1,"id":"c","question":"q","answers":["no"],"prediction":{"text":"","score":0.1},"meta":{"group":"g"}}
`
	const want = `auc, mrr, map: 1 record has a gold label that differs from --pos-label "yes" only in case or surrounding white space (the first: "Yes"): labels compare exactly, so it is negative (relevance 0); --label-map joins them (yes=yes)`
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--pos-label", "yes"}, true},
		{[]string{"--pos-label", "yes", "--label-map", "yes=yes"}, false},
		{[]string{"--pos-label", "no"}, false},
	} {
		s, _ := summaryOf(t, in, append([]string{"--bootstrap", "0", "--metrics", "auc,mrr,map"}, tc.args...))
		if got := slices.Contains(s.Warnings, want); got != tc.warn {
			t.Errorf("%q: warned %v, want %v; warnings %q", tc.args, got, tc.warn, s.Warnings)
		}
	}
}

// TestLabelFieldUnreadable: a --label-field value that is no string, number or boolean (an
// array, an object) is a field that cannot be read: reported with the record, named in its
// score_errors, and the run exits 3, where it was taken for a record without a gold label, with
// no word but the count of unscored records. A missing or null one is no label, as before.
func TestLabelFieldUnreadable(t *testing.T) {
	in := `{"schema":1,"id":"a","question":"q","answers":["x"],"prediction":{"text":"1"},"meta":{"label":1}}
{"schema":1,"id":"b","question":"q","answers":["x"],"prediction":{"text":"0"},"meta":{"label":["0"]}}
{"schema":1,"id":"c","question":"q","answers":["x"],"prediction":{"text":"0"},"meta":{"label":null}}
{"schema":1,"id":"d","question":"q","answers":["x"],"prediction":{"text":"0"},"meta":{}}
`
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"qa-score", "--summary", t.TempDir() + "/s.json", "--bootstrap", "0",
		"--metrics", "accuracy,chunk_f1", "--label-field", "meta.label"}, strings.NewReader(in), &stdout, &stderr)
	if err == nil {
		t.Errorf("exit 0, want an error; stderr %s", stderr.String())
	}
	const msg = `stdin:2 (id "b"): meta.label is no string, number or boolean`
	if !strings.Contains(stderr.String(), msg) || strings.Count(stderr.String(), "is no string, number or boolean") != 1 {
		t.Errorf("stderr %s: want %q once", stderr.String(), msg)
	}
	lines := strings.Split(stdout.String(), "\n")
	for _, m := range []string{`"accuracy"`, `"chunk_f1"`} {
		if !strings.Contains(lines[1], `"score_errors"`) || !strings.Contains(lines[1], m) {
			t.Errorf("record b %s: want %s in its score_errors", lines[1], m)
		}
	}
}
