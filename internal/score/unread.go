package score

import (
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
)

// Flags that only some metrics read do nothing without one of them in --metrics, which a warning
// says, as of --labels, --baseline and --idf (config.go). A value from the flag's own QA_*
// variable is warned of too, naming it: none of these variables is read by another stage.

// labelMetrics are the corpus metrics that read a record's gold label and its mapping.
var labelMetrics = []string{"accuracy", "precision", "recall", "f1_score", "auc", "pn", "pairwise_acc", "mrr", "map"}

// scoredMetrics are the corpus metrics that read a record's score.
var scoredMetrics = []string{"auc", "pn", "pairwise_acc", "mrr", "map"}

// corpusReaders maps each flag of the corpus metrics that one of them alone reads to those that
// do. --pos-label is read by the classification metrics too under --average binary (warnUnreadCorpus).
var corpusReaders = []corpusReader{
	{"label-field", append(slices.Clone(labelMetrics), "chunk_p", "chunk_r", "chunk_f1")},
	{"label-map", labelMetrics},
	{"average", metricGroups["classification"]},
	{"zero-division", metricGroups["classification"]},
	{"pos-label", scoredMetrics},
	{"group-field", []string{"pn", "pairwise_acc", "mrr", "map"}},
	{"score-field", scoredMetrics},
	{"loss-field", []string{"perplexity"}},
	{"tokens-field", []string{"perplexity"}},
	{"bleu-weights", []string{"corpus_bleu", "gen_eval_bleu"}},
}

// corpusReader is a flag of corpusReaders and the corpus metrics that read it.
type corpusReader struct {
	flag    string
	metrics []string
}

// embedFlagNames are the flags of the embedding calls, which only sbert and BERTScore make.
var embedFlagNames = []string{"embed-provider", "embed-model", "embed-base-url", "embed-api-key-file",
	"embed-batch", "embed-concurrency", "embed-max-retries", "embed-timeout"}

// warnUnreadCorpus warns of each flag of corpusReaders set while none of the metrics that read
// it is among the selected corpus metrics (corpus).
func warnUnreadCorpus(c *cli.Context, corpus []string) {
	for _, r := range corpusReaders {
		if !flagSet(c, r.flag) {
			continue
		}
		metrics := readersOf(c, r.flag)
		readers := english.List(metrics) + "; without " + english.Form(len(metrics), "it", "one of them") + " in --metrics"
		if r.flag == "pos-label" {
			readers = english.List(r.metrics) + ", and under --average binary by " + english.List(metricGroups["classification"]) + "; with neither"
		}
		if slices.ContainsFunc(metrics, func(m string) bool { return slices.Contains(corpus, m) }) {
			continue
		}
		fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --%s%s is read by %s it does nothing\n", r.flag, command.FromEnv(c, r.flag), readers)
	}
}

// readersOf returns the corpus metrics that read flag, one of corpusReaders': --pos-label's
// include the classification metrics under --average binary.
func readersOf(c *cli.Context, flag string) []string {
	i := slices.IndexFunc(corpusReaders, func(r corpusReader) bool { return r.flag == flag })
	metrics := corpusReaders[i].metrics
	if flag == "pos-label" && c.String("average") == "binary" {
		metrics = append(slices.Clone(metricGroups["classification"]), metrics...)
	}
	return metrics
}

// warnMappedNames warns of a --pos-label (given or its default) and of each --labels class that
// --label-map maps to another label, when a selected metric reads it: they name labels as the
// metrics compare them, after the map, so that "yes" under --label-map yes=1 names no record's
// label (every record then a negative, or a class of none). A name that is itself one of the
// map's labels names that label, and is not warned of.
func warnMappedNames(c *cli.Context, cc *corpusConfig) {
	if cc.labels == nil {
		return
	}
	read := func(metrics []string) bool {
		return slices.ContainsFunc(metrics, func(m string) bool { return slices.Contains(cc.want, m) })
	}
	warn := func(flag, name string) {
		to := cc.labels.normalize(name)
		if to == name || slices.Contains(slices.Collect(maps.Values(cc.labels)), name) {
			return
		}
		from := command.FromEnv(c, flag)
		if !flagSet(c, flag) {
			from = " (its default)"
		}
		fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --%s%s names %q, but labels are compared after --label-map, which maps %q to %q: give %q to name that class\n",
			flag, from, name, name, to, to)
	}
	if read(readersOf(c, "pos-label")) {
		warn("pos-label", cc.posLabel)
	}
	if read(metricGroups["classification"]) {
		for _, l := range cc.classes {
			warn("labels", l)
		}
	}
}

// warnUnreadEmbed warns, in one line, of the flags of the embedding calls set in a run that
// selects no embedding metric (embedMetrics).
func warnUnreadEmbed(c *cli.Context, embedMetrics []string) {
	if len(embedMetrics) > 0 {
		return
	}
	var set []string
	for _, f := range embedFlagNames {
		if flagSet(c, f) {
			set = append(set, "--"+f+command.FromEnv(c, f))
		}
	}
	if len(set) == 0 {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: %s %s the embedding calls; without sbert or a bertscore metric in --metrics %s nothing\n",
		english.List(set), english.Form(len(set), "configures", "configure"), english.Form(len(set), "it does", "they do"))
}

// warnUnreadBERTScore warns of --baseline and --idf, those of them set, and of
// --embed-prefix-space, in a run that selects no BERTScore metric, naming the variable a value
// came from.
func warnUnreadBERTScore(c *cli.Context) {
	if c.Bool("embed-prefix-space") {
		fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --embed-prefix-space%s puts a space before the texts BERTScore sends to TEI; without bertscore_p, bertscore_r or bertscore_f1 in --metrics it does nothing\n",
			command.FromEnv(c, "embed-prefix-space"))
	}
	baseline, idf := flagSet(c, "baseline"), c.Bool("idf")
	what, n := "", 1
	switch {
	case baseline && idf:
		n = 2
		what = "--baseline" + command.FromEnv(c, "baseline") + " and --idf" + command.FromEnv(c, "idf") + " rescale and weight BERTScore"
	case baseline:
		what = "--baseline" + command.FromEnv(c, "baseline") + " rescales BERTScore"
	case idf:
		what = "--idf" + command.FromEnv(c, "idf") + " weights BERTScore's tokens"
	default:
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: %s; without bertscore_p, bertscore_r or bertscore_f1 in --metrics %s nothing\n",
		what, english.Form(n, "it does", "they do"))
}

// warnUnreadJudge warns of a --judge typed on the command line in a run that does not select
// judge_score, the one metric that reads it. QA_JUDGE is not warned of: qa-learncurve reads it
// too, so a pipeline that exports it for that sets it here as well.
func warnUnreadJudge(c *cli.Context, sel *selection) {
	if !flagSet(c, "judge") || command.FromEnv(c, "judge") != "" || sel.index("judge_score") >= 0 {
		return
	}
	fmt.Fprintln(c.App.ErrWriter, "qa-score: warning: --judge names the judgment judge_score reads; without judge_score in --metrics it does nothing")
}

// warnUnreadMissing warns of --missing-as-zero in a run that selects none of the metrics it counts
// 0 (the families with a missing rule: em, f1, hotpot_*, sp_*, joint_*, cmrc_*, locomo_f1), with a summary or
// mismatches for it to shape (without them warnZeroFlags has warned already).
func warnUnreadMissing(c *cli.Context, sel *selection, summary, mismatches string) {
	if !c.Bool("missing-as-zero") || summary == "" && mismatches == "" ||
		slices.ContainsFunc(sel.families, func(f *family) bool { return f.missing != nil }) {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "qa-score: warning: --missing-as-zero%s counts a missing prediction as 0 in em, f1, hotpot_*, sp_*, joint_*, cmrc_* and locomo_f1; without one of them in --metrics it does nothing\n",
		command.FromEnv(c, "missing-as-zero"))
}

// flagSet reports whether flag name was given a value, on the command line or by its variable;
// an empty text sets nothing.
func flagSet(c *cli.Context, name string) bool {
	v, text := c.Value(name).(string)
	return c.IsSet(name) && (!text || v != "")
}
