package score

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
)

// boundedContext makes each generated record weigh about 3 kB, so that a stage holding every
// record would grow by tens of MB over the run.
var boundedContext = strings.Repeat("The Denver Broncos won Super Bowl 50 in Santa Clara. ", 56)

// TestMemoryBounded: qa-score with every default metric (and no summary) keeps a bounded window
// of records, however long its input.
func TestMemoryBounded(t *testing.T) {
	clitest.Bounded(t, clitest.Stream{
		Run:   Run,
		Args:  []string{"qa-score"},
		N:     4000,
		Line:  boundedLine,
		Limit: 4 << 20,
	})
}

func boundedLine(i int) []byte {
	return fmt.Appendf(nil, `{"schema":1,"id":"r%d","dataset":"squad","type":"t%d","question":"Who won %d?",`+
		`"answers":["Denver Broncos","Broncos %d"],"context":[{"title":"SB","text":%q}],`+
		`"prediction":{"text":"the Broncos of Denver %d"}}`, i, i%3, i, i%7, boundedContext, i%11)
}

// TestMemoryBoundedSummary: with --summary, qa-score keeps each record's scores (8 bytes per
// record and metric, for the bootstrap), not the records.
func TestMemoryBoundedSummary(t *testing.T) {
	clitest.Bounded(t, clitest.Stream{
		Run:   Run,
		Args:  []string{"qa-score", "--summary", t.TempDir() + "/summary.json"},
		N:     4000,
		Line:  boundedLine,
		Limit: 4 << 20,
	})
}

// TestMemoryBoundedScores: without --summary, qa-score keeps no per-record values either: over
// many small records, 8 bytes per record and metric add up (about 30 MB between the two
// measurements here, against a limit that leaves room for the heap's noise under -race).
//
// Note: under -race on a loaded machine the live heap takes more than 9,000 records to settle
// (which buffers fill up was not pinned down; the metrics' scratches grew that day): with 90,000
// lines it read 21 MB at a tenth and 24–25 MB at nine tenths, and with 270,000 lines 24 MB at a
// tenth and 22 MB at nine tenths, so it does not grow with the input. The first measurement is
// now taken after it settles.
func TestMemoryBoundedScores(t *testing.T) {
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-score"},
		N:    270000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"s%d","type":"t%d","question":"q","answers":["a b %d"],"prediction":{"text":"a c %d"}}`, i, i%3, i%5, i%7)
		},
		Limit: 3 << 20,
	})
}

// TestMemoryBoundedSummaryNoIntervals: with --summary and --bootstrap 0, qa-score keeps each
// group's running figures, not a value per record and metric: over many small records in three
// types and four --by groups, keeping them added 63 MB between the two measurements
// (8 bytes a value, in its type's group and its --by group). The ids repeat, a hundred of them,
// for the set of id hashes, which a summary keeps (repeated ids), is the one thing that grows.
func TestMemoryBoundedSummaryNoIntervals(t *testing.T) {
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-score", "--summary", t.TempDir() + "/summary.json", "--bootstrap", "0", "--by", "meta.level"},
		N:    270000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"s%d","type":"t%d","question":"q","answers":["a b %d"],"meta":{"level":%d},`+
				`"prediction":{"text":"a c %d"}}`, i%100, i%3, i%5, i%4, i%7)
		},
		Limit: 3 << 20,
	})
}

// TestMemoryBoundedCorpusNoIntervals: with --summary and --bootstrap 0 the corpus metrics whose
// figures are sums keep each group's running figures, not each record's part: the classification
// table, the chunk and BLEU counts, the perplexity sums. Over many small records in three types
// and four --by groups, keeping each record's label pair, loss, token count, chunk and BLEU counts
// (as the intervals need them) added some 170 MB between the two measurements. auc and the query
// groups' metrics (pn, pairwise_acc, mrr, map) keep a part of each record by their nature, and are
// left out.
func TestMemoryBoundedCorpusNoIntervals(t *testing.T) {
	tags := []string{"B-PER I-PER O", "O B-LOC O", "B-ORG O O", "O O O"}
	clitest.Bounded(t, clitest.Stream{
		Run: Run,
		Args: []string{"qa-score", "--summary", t.TempDir() + "/summary.json", "--bootstrap", "0", "--by", "meta.level",
			"--metrics", "classification,chunk,perplexity,corpus_bleu,gen_eval_bleu"},
		N: 270000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"s%d","type":"t%d","question":"q","answers":[%q],"meta":{"level":%d},`+
				`"prediction":{"text":%q,"loss":%d.25,"tokens":%d}}`, i%100, i%3, tags[i%4], i%4, tags[i%3], i%50, 1+i%9)
		},
		Limit: 3 << 20,
	})
}

// TestMemoryBoundedLoCoMoJudge: the locomo_judge section keeps one small entry per conversation
// (its means, by category), never a record or its line, however many records each has.
func TestMemoryBoundedLoCoMoJudge(t *testing.T) {
	clitest.Bounded(t, clitest.Stream{
		Run:  Run,
		Args: []string{"qa-score", "--metrics", "judge_score", "--summary", t.TempDir() + "/summary.json"},
		N:    4000,
		Line: func(i int) []byte {
			return fmt.Appendf(nil, `{"schema":1,"id":"locomo:conv-%d:%d","dataset":"locomo","type":"single_hop","question":"q %d",`+
				`"answers":["a"],"meta":{"category":%d},"context":[{"title":"c","text":%q}],"prediction":{"text":"x"},`+
				`"judgments":{"j":{"score":%d,"mode":"locomo-continuous"}}}`, i%10, i, i, 1+i%5, boundedContext, i%2)
		},
		Limit: 4 << 20,
	})
}
