package judge

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/stats"
)

// seedItems returns the same twelve verdict pairs under each of types, in turn.
func seedItems(types ...string) []Item {
	pairs := [][]int{{1, 1}, {0, 0}, {1, 0}, {1, 1}, {0, 1}, {1, 1}, {0, 0}, {1, 1}, {1, 0}, {0, 0}, {1, 1}, {0, 0}}
	var items []Item
	for _, t := range types {
		for i, p := range pairs {
			items = append(items, Item{ID: t + string(rune('a'+i)), Type: t, Ratings: p})
		}
	}
	return items
}

// intervalsFrom are the agreement and kappa intervals of items' rows resampled from src, as
// Agree draws them: each figure from a source of its own, new from src.
func intervalsFrom(items []Item, src func() *rand.Rand) [2]stats.Interval {
	a := agreement("", items, 200, 0.95, src)
	return [2]stats.Interval{a.RawCI, a.KappaCI}
}

// TestAgreeTypeSeeds checks that each type's intervals are drawn from --seed and the type's name
// (stats.NewGroupRand, as qa-learncurve's and, with its own names, qa-score's groups are), not from
// --seed alone: two types of the same verdicts get intervals of their own, each the same as in a
// run over that type alone; the overall row keeps --seed, but for the one type of every record,
// whose intervals it then has.
func TestAgreeTypeSeeds(t *testing.T) {
	const seed = 5
	rows := Agree(seedItems("x", "y"), 200, 0.95, seed)
	if diff := cmp.Diff(rows, Agree(seedItems("x", "y"), 200, 0.95, seed)); diff != "" {
		t.Errorf("two runs with one seed differ (-first +second):\n%s", diff)
	}
	byType := map[string][2]stats.Interval{}
	for _, r := range rows[1:] {
		byType[r.Group] = [2]stats.Interval{r.RawCI, r.KappaCI}
	}
	plain := intervalsFrom(seedItems("x"), func() *rand.Rand { return stats.NewRand(seed) })
	for _, typ := range []string{"x", "y"} {
		want := intervalsFrom(seedItems(typ), func() *rand.Rand { return stats.NewGroupRand(seed, "type\x00"+typ) })
		if diff := cmp.Diff(want, byType[typ]); diff != "" {
			t.Errorf("type %s: intervals not from --seed and the type's name (-want +got):\n%s", typ, diff)
		}
		if byType[typ] == plain {
			t.Errorf("type %s: intervals %v drawn from --seed alone", typ, byType[typ])
		}
		alone := Agree(seedItems(typ), 200, 0.95, seed)
		if diff := cmp.Diff(want, [2]stats.Interval{alone[1].RawCI, alone[1].KappaCI}); diff != "" {
			t.Errorf("type %s alone: intervals differ from those beside another type (-beside +alone):\n%s", typ, diff)
		}
		if diff := cmp.Diff(alone[1].RawCI, alone[0].RawCI); diff != "" {
			t.Errorf("type %s alone: the overall row's agreement interval is not the type's (-type +overall):\n%s", typ, diff)
		}
	}
	if byType["x"] == byType["y"] {
		t.Errorf("types x and y, of the same verdicts, have the same intervals %v: one stream of resamples", byType["x"])
	}
	overall := intervalsFrom(seedItems("x", "y"), func() *rand.Rand { return stats.NewRand(seed) })
	if diff := cmp.Diff(overall, [2]stats.Interval{rows[0].RawCI, rows[0].KappaCI}); diff != "" {
		t.Errorf("overall: intervals not from --seed (-want +got):\n%s", diff)
	}
}
