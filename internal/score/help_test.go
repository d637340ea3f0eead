package score

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMetricsHelp: --help's table of metrics names every score, corpus metric and group, each
// row's text from one column on, wrapped so that no line (in the description's indent of 3) is
// past 100 columns; names too long for their column have a line of their own.
func TestMetricsHelp(t *testing.T) {
	reg := registry()
	help := metricsHelp(reg)
	var names []string
	for _, f := range reg {
		names = append(names, strings.Join(f.names, ", "))
	}
	for _, m := range corpusMetrics {
		names = append(names, strings.Join(m.names, ", "))
	}
	for g := range metricGroups {
		names = append(names, g)
	}
	for _, n := range names {
		if !strings.Contains(help, "\n   "+n+" ") && !strings.Contains(help, "\n   "+n+"\n") && !strings.HasPrefix(help, "   "+n+" ") {
			t.Errorf("metricsHelp does not start a row with %q:\n%s", n, help)
		}
	}
	for _, line := range strings.Split(strings.TrimRight(help, "\n"), "\n") {
		if n := 3 + utf8.RuneCountInString(line); n > 100 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
		text := strings.TrimLeft(line, " ")
		indent := len(line) - len(text)
		switch {
		case text == "" || strings.HasSuffix(text, ":"): // a heading or the gap before it
		case indent == 3 && len(line) > helpColumn && line[helpColumn-1] != ' ' && strings.Contains(text, "  "):
			t.Errorf("a row's text does not start at column %d: %q", helpColumn, line)
		case indent != 3 && indent != helpColumn:
			t.Errorf("a line indented by %d, neither a row's names (3) nor its text (%d): %q", indent, helpColumn, line)
		}
	}
	if !strings.Contains(help, "   rouge1_nostem, rouge2_nostem, rougeL_nostem\n"+strings.Repeat(" ", helpColumn)+"the same without stemming\n") {
		t.Errorf("long names do not have a line of their own:\n%s", help)
	}
}
