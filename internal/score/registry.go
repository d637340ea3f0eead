package score

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
)

// A family computes one or more named scores that share work (ROUGE-1, -2 and -L come from one
// tokenisation) for the records it applies to.
type family struct {
	names []string
	// heavy families (embedding metrics) run only when one of their names is asked for.
	heavy bool
	// named families run only when one of their names is asked for too, though light: figures a
	// benchmark's script prints that few report (HotpotQA's precisions and recalls), left out of
	// every record by default.
	named bool
	// batched families (embedding metrics) are computed for a batch of records by embedStage;
	// score is nil.
	batched bool
	// about is one line for --help.
	about string
	// applies reports whether the family scores rec at all; it must not look at the prediction's
	// text, so that a failed record counts as a zero for exactly the metrics it would have had
	// (whether the prediction has one, item.answered, a failed one counting as having one).
	applies func(it *item) bool
	// score writes the family's values, aligned with names, into out.
	score func(it *item, out []float64)
	// missing reports whether the benchmark's own script scores the record 0 when it has no
	// prediction, or one without what the family reads, an answer or supporting facts
	// (--missing-as-zero): nil for the families whose scripts leave such a record out,
	// or stop on it (SQuAD v2.0's), or that are no benchmark's.
	missing func(it *item) bool
}

// selection is the resolved --metrics list: the families to run and, for each produced score, its
// index in the output vector (-1 when not asked for).
type selection struct {
	families []*family
	// slots[f][k] is where families[f].names[k] goes in the value vector, or -1.
	slots [][]int
	names []string // the selected score names, in registry order
	// named lists those of names that --metrics names itself, not by a group, in registry order.
	named []string
	// grouped lists the groups --metrics names, in its order, each with those of its per-record
	// metrics that names holds and --metrics does not name itself, in registry order.
	grouped []namedGroup
	// corpus lists the selected corpus metrics (see corpus.go), in corpusNames order.
	corpus []string
}

// registryNames lists every score name in registry order.
func registryNames(reg []*family) []string {
	var names []string
	for _, f := range reg {
		names = append(names, f.names...)
	}
	return names
}

// selectMetrics resolves a comma-separated --metrics value against the registry, the corpus
// metrics and the group names (classification, ...). An empty list selects every light metric,
// and no corpus metric; a list that is not empty but names none (",", " ") is an error, as
// qa-load's --types "," is, not every light metric.
func selectMetrics(reg []*family, list string) (*selection, error) {
	want, direct := map[string]bool{}, map[string]bool{}
	var groups []string
	corpus := corpusNames()
	known := append(registryNames(reg), corpus...)
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if g, ok := metricGroups[n]; ok {
			for _, m := range g {
				want[m] = true
			}
			if !slices.Contains(groups, n) {
				groups = append(groups, n)
			}
			continue
		}
		if !slices.Contains(known, n) {
			groups := slices.Sorted(maps.Keys(metricGroups))
			return nil, fmt.Errorf("unknown metric %q (known: %s; groups: %s)%s", n, strings.Join(known, ", "), strings.Join(groups, ", "),
				english.DidYouMean(n, append(slices.Clip(known), groups...)))
		}
		want[n], direct[n] = true, true
	}
	if len(want) == 0 && list != "" {
		return nil, fmt.Errorf("%q names no metric", list)
	}
	sel := &selection{}
	for _, n := range corpus {
		if want[n] {
			sel.corpus = append(sel.corpus, n)
		}
	}
	for _, f := range reg {
		var slots []int
		any := false
		for _, n := range f.names {
			if (len(want) == 0 && !f.heavy && !f.named) || want[n] {
				slots = append(slots, len(sel.names))
				sel.names = append(sel.names, n)
				if direct[n] {
					sel.named = append(sel.named, n)
				}
				any = true
			} else {
				slots = append(slots, -1)
			}
		}
		if any {
			sel.families = append(sel.families, f)
			sel.slots = append(sel.slots, slots)
		}
	}
	for _, g := range groups {
		ng := namedGroup{name: g}
		for _, n := range sel.names {
			if slices.Contains(metricGroups[g], n) && !direct[n] {
				ng.members = append(ng.members, n)
			}
		}
		if len(ng.members) > 0 {
			sel.grouped = append(sel.grouped, ng)
		}
	}
	return sel, nil
}

// namedGroup is a group --metrics names (hotpot) with the per-record metrics it selected that
// --metrics does not name itself: a group's metric that no record gave a value is warned of, as
// one named itself is (Summary.unvaluedWarning).
type namedGroup struct {
	name    string
	members []string
}

// hasFamily reports whether the family whose first score is named first is selected (all its
// scores are computed when one of them is asked for).
func (s *selection) hasFamily(first string) bool {
	return slices.ContainsFunc(s.families, func(f *family) bool { return f.names[0] == first })
}

// index returns the position of name among the selected scores, or -1.
func (s *selection) index(name string) int { return slices.Index(s.names, name) }

// readsFacts reports whether a supporting-fact score (sp_em, sp_f1, joint_em, …) is
// selected: only then does decodeView read the records' gold and predicted facts.
func (s *selection) readsFacts() bool {
	return slices.ContainsFunc(s.names, factMetric)
}

// factMetric reports whether the score name reads supporting facts (sp_em, joint_f1, …).
func factMetric(name string) bool {
	return strings.HasPrefix(name, "sp_") || strings.HasPrefix(name, "joint_")
}

// metricsHelp is the table of score names shown by --help.
func metricsHelp(reg []*family) string {
	var b strings.Builder
	for _, f := range reg {
		heavy := ""
		if f.heavy {
			heavy = " (heavy: only when named)"
		} else if f.named {
			heavy = " (only when named)"
		}
		helpRow(&b, strings.Join(f.names, ", "), f.about+heavy)
	}
	b.WriteString("\nCORPUS METRICS (summary only, computed over all records; only when named):\n")
	for _, m := range corpusMetrics {
		helpRow(&b, strings.Join(m.names, ", "), m.about)
	}
	b.WriteString("\nGROUPS (names in --metrics that stand for several):\n")
	for _, g := range slices.Sorted(maps.Keys(metricGroups)) {
		helpRow(&b, g, strings.Join(metricGroups[g], ", "))
	}
	return b.String()
}

// The columns of metricsHelp's rows, within the description's indent of 3: the names indented
// by 3, their text from helpColumn on, wrapped to end by helpEnd.
const (
	helpColumn = 3 + 26
	helpEnd    = 100 - 3
)

// helpRow writes a row of metricsHelp: names, then about from helpColumn on, wrapped with a
// hanging indent; names too long for their column have a line of their own.
func helpRow(b *strings.Builder, names, about string) {
	pad := strings.Repeat(" ", helpColumn)
	line := "   " + names
	if len(line)+1 > helpColumn {
		b.WriteString(line + "\n")
		line = pad
	} else {
		line += pad[len(line):]
	}
	for _, l := range command.Wrap(about, helpEnd-helpColumn) {
		b.WriteString(line + l + "\n")
		line = pad
	}
}
