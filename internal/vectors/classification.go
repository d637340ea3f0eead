package vectors

// ClassificationCounts are the case counts of the classification golden files, as the table of
// the golden README (golden/classification/README.md) gives them, for the tests that read a copy
// (pkg/metric's and qa-score's): a copy that lost whole lines fails on its count.
var ClassificationCounts = map[string]int{
	"accuracy_prf.jsonl": 42,
	"auc.jsonl":          42,
	"pairwise.jsonl":     41,
	"chunk.jsonl":        45,
	"ranking.jsonl":      42,
	"corpus_bleu.jsonl":  42,
	"ppl.jsonl":          29,
}

// ClassificationRandomCount is the case count of each file of random classification cases
// (pkg/metric/testdata/classification/random): the --n of the command its README gives.
const ClassificationRandomCount = 250
