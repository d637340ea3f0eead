package score

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/clitest"
)

// FuzzSelectMetrics: --metrics. An accepted list selects, in registry (and corpus) order and once
// each, exactly the metrics it names, a group standing for its members (the empty list for every
// light metric and no corpus one); the slots place each selected score where its name is; and the
// selected names, given back as a list, select the same. A refused list names the first unknown
// name, trimmed and Go-quoted, or, when it names none, quotes the list whole. Every message is
// valid UTF-8.
func FuzzSelectMetrics(f *testing.F) {
	for _, s := range []string{"", "em", "em,f1", " em , f1 ", ",", " , ", "classification", "classification,auc,pairwise,ranking",
		"bertscore_p,bertscore_r,bertscore_f1", "f1,f1", "F1", "emm", "em,,f1", "\xff", "em\x00", "ranking,mrr", "chunk", "hotpot", "hotpot,sp_em"} {
		f.Add(s)
	}
	for _, s := range clitest.FlagTexts(f, "metrics") {
		f.Add(s)
	}
	reg := registry()
	all, corpus := registryNames(reg), corpusNames()
	f.Fuzz(func(t *testing.T, list string) {
		sel, err := selectMetrics(reg, list)
		var items []string
		for n := range strings.SplitSeq(list, ",") {
			if n = strings.TrimSpace(n); n != "" {
				items = append(items, n)
			}
		}
		if err != nil {
			msg := err.Error()
			if !utf8.ValidString(msg) {
				t.Errorf("selectMetrics(%q): error %q is not valid UTF-8", list, msg)
			}
			first := ""
			for _, n := range items {
				if _, group := metricGroups[n]; !group && !slices.Contains(all, n) && !slices.Contains(corpus, n) {
					first = n
					break
				}
			}
			want := strconv.Quote(list) + " names no metric"
			if first != "" {
				want = "unknown metric " + strconv.Quote(first) + " "
			} else if len(items) > 0 {
				t.Errorf("selectMetrics(%q): error %q, but every name is known", list, msg)
			}
			if !strings.HasPrefix(msg, want) {
				t.Errorf("selectMetrics(%q): error %q, want it to begin %q", list, msg, want)
			}
			return
		}
		if list != "" && len(items) == 0 {
			t.Fatalf("selectMetrics(%q) = %q, want an error: it names no metric", list, sel.names)
		}
		want := map[string]bool{}
		for _, n := range items {
			if g, ok := metricGroups[n]; ok {
				for _, m := range g {
					want[m] = true
				}
			} else {
				want[n] = true
			}
		}
		var wantNames, wantCorpus []string
		for _, fam := range reg {
			for _, n := range fam.names {
				if want[n] || len(items) == 0 && !fam.heavy && !fam.named {
					wantNames = append(wantNames, n)
				}
			}
		}
		for _, n := range corpus {
			if want[n] {
				wantCorpus = append(wantCorpus, n)
			}
		}
		if !slices.Equal(sel.names, wantNames) || !slices.Equal(sel.corpus, wantCorpus) {
			t.Errorf("selectMetrics(%q) = %q, corpus %q; want %q, corpus %q", list, sel.names, sel.corpus, wantNames, wantCorpus)
		}
		if len(sel.slots) != len(sel.families) {
			t.Fatalf("selectMetrics(%q): %d slot lists for %d families", list, len(sel.slots), len(sel.families))
		}
		placed := 0
		for i, fam := range sel.families {
			if len(sel.slots[i]) != len(fam.names) {
				t.Fatalf("selectMetrics(%q): family %q has %d slots", list, fam.names, len(sel.slots[i]))
			}
			for k, s := range sel.slots[i] {
				switch {
				case s == -1 && slices.Contains(sel.names, fam.names[k]):
					t.Errorf("selectMetrics(%q): %s selected but given no slot", list, fam.names[k])
				case s != -1 && (s >= len(sel.names) || sel.names[s] != fam.names[k]):
					t.Errorf("selectMetrics(%q): %s placed at slot %d of %q", list, fam.names[k], s, sel.names)
				case s != -1:
					placed++
				}
			}
		}
		if placed != len(sel.names) {
			t.Errorf("selectMetrics(%q): %d of %d selected scores have a slot", list, placed, len(sel.names))
		}
		again, err := selectMetrics(reg, strings.Join(append(slices.Clone(sel.names), sel.corpus...), ","))
		if len(items) > 0 && (err != nil || !slices.Equal(again.names, sel.names) || !slices.Equal(again.corpus, sel.corpus)) {
			t.Errorf("selectMetrics(%q) = %q, %q; read again: %v", list, sel.names, sel.corpus, err)
		} else if err == nil && len(items) > 0 && !cmp.Equal(again.slots, sel.slots) {
			t.Errorf("selectMetrics(%q): slots %v, read again %v", list, sel.slots, again.slots)
		}
	})
}

// FuzzParseBy: --by, given twice (as the flag may be, each value holding comma-separated paths).
// An accepted value gives each path once, in the order first given, as parsePath reads it, none
// of them type (the summary's own breakdown); the paths written back as one list read the same.
// A value is refused just when one of its paths is, or is type, with parsePath's message (a
// blank path among commas: the value quoted) or the type one. Every message is valid UTF-8.
func FuzzParseBy(f *testing.F) {
	for _, s := range []string{"meta.level", "meta.level,dataset", "meta.level, meta.level", "type", " type ", "meta.type",
		"answers[0]", "a,,b", ",", "", "a..b", "[type]", "meta.v\xff", "prediction.model,meta.src"} {
		f.Add(s, "")
	}
	for _, s := range clitest.FlagTexts(f, "by") {
		f.Add(strings.TrimSuffix(s, ":"), "meta.level")
	}
	f.Fuzz(func(t *testing.T, v1, v2 string) {
		values := []string{v1, v2}
		b, err := parseBy(values)
		var want byFields
		var wantErr error
		for _, v := range values {
			for s := range strings.SplitSeq(v, ",") {
				p, err := parsePath(s)
				if err == nil && p.String() == "type" {
					err = errByType
				}
				if err != nil && strings.TrimSpace(s) == "" && strings.Contains(v, ",") {
					err = errorString(strconv.Quote(v) + " holds an empty path")
				}
				if err != nil {
					wantErr = err
					break
				}
				if !slices.ContainsFunc(want, func(q fieldPath) bool { return q.String() == p.String() }) {
					want = append(want, p)
				}
			}
			if wantErr != nil {
				break
			}
		}
		if err != nil || wantErr != nil {
			if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
				t.Fatalf("parseBy(%q) = %q, %v; want the error %v", values, b, err, wantErr)
			}
			if !utf8.ValidString(err.Error()) {
				t.Errorf("parseBy(%q): error %q is not valid UTF-8", values, err)
			}
			return
		}
		if !cmp.Equal(b, want) {
			t.Errorf("parseBy(%q) = %q, want %q", values, b, want)
		}
		strs := make([]string, len(b))
		for i, p := range b {
			strs[i] = p.String()
		}
		if again, err := parseBy([]string{strings.Join(strs, ",")}); err != nil || !cmp.Equal(again, b) {
			t.Errorf("parseBy(%q) = %q; read again: %q, %v", values, b, again, err)
		}
	})
}

// errByType is parseBy's error for the type path.
var errByType = errorString("the summary is broken down by type already")

type errorString string

func (e errorString) Error() string { return string(e) }
