package judge

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/stats"
)

// agreeReport is what qa-judge agree reports: the judges compared, the rows of figures, the
// records compared and left out, the disagreements and the warnings.
type agreeReport struct {
	names    []string
	items    []Item // the records compared
	rows     []Agreement
	leftOut  int // records left out: a compared judgment missing or failed
	failed   int // of those, the records with a failed one
	warnings []string
	cfg      agreeConfig
}

// disagreements returns the records compared on which the judges' verdicts differ, in input order.
func (r *agreeReport) disagreements() []Item {
	var dis []Item
	for _, it := range r.items {
		for _, c := range it.Ratings[1:] {
			if c != it.Ratings[0] {
				dis = append(dis, it)
				break
			}
		}
	}
	return dis
}

// listed returns the first --list of dis (all of them for -1).
func (r *agreeReport) listed(dis []Item) []Item {
	if r.cfg.maxList >= 0 && len(dis) > r.cfg.maxList {
		return dis[:r.cfg.maxList]
	}
	return dis
}

// writeText prints the report as a table for people.
func (r *agreeReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "judges: %s (%s; verdict = score >= %g)\n", strings.Join(r.names, ", "), KappaName(len(r.names)), r.cfg.threshold)
	fmt.Fprintf(w, "records: %d compared, %d left out (a judgment missing or failed)\n\n", len(r.items), r.leftOut)
	// Without an interval in the table (--bootstrap 0, or no record compared) the two "95% CI"
	// columns are left out rather than printed empty, as qa-score's summary leaves out its own.
	withCI := slices.ContainsFunc(r.rows, func(a Agreement) bool { return hasCI(a.RawCI) || hasCI(a.KappaCI) })
	if withCI {
		fmt.Fprintf(w, "%-28s %6s %7s %-17s %7s %-17s\n", "type", "n", "agree", "95% CI", "kappa", "95% CI")
	} else {
		fmt.Fprintf(w, "%-28s %6s %7s %7s\n", "type", "n", "agree", "kappa")
	}
	for _, a := range r.rows {
		if withCI {
			fmt.Fprintf(w, "%-28s %6d %7s %-17s %7s %-17s\n", a.Group, a.N, num(a.Raw), ci(a.RawCI), num(a.Kappa), ci(a.KappaCI))
		} else {
			fmt.Fprintf(w, "%-28s %6d %7s %7s\n", a.Group, a.N, num(a.Raw), num(a.Kappa))
		}
	}
	dis := r.disagreements()
	fmt.Fprintf(w, "\ndisagreements: %d\n", len(dis))
	listed := r.listed(dis)
	for _, it := range listed {
		parts := make([]string, len(r.names))
		for k, n := range r.names {
			parts[k] = fmt.Sprintf("%s=%d", n, it.Ratings[k])
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", it.ID, it.Type, strings.Join(parts, " "))
	}
	if more := len(dis) - len(listed); more > 0 {
		fmt.Fprintf(w, "  ... %d more\n", more)
	}
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

// hasCI reports whether iv is an interval: the bootstrap gives none with no resample, no item,
// or (κ) no resample where the statistic is defined.
func hasCI(iv stats.Interval) bool { return !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

func ci(iv stats.Interval) string {
	if !hasCI(iv) {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", iv.Lo, iv.Hi)
}
