package judge

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qapipe/qapipe/internal/stats"
)

// TestAgreeWarnsKappaWithoutInterval checks that a row whose kappa has a value but no interval,
// every resample drawn with one verdict throughout, is named in a warning of too few resamples to
// place the bounds, beside the warning of a partial interval: its "-" said nothing of why.
func TestAgreeWarnsKappaWithoutInterval(t *testing.T) {
	nan := stats.Interval{Lo: math.NaN(), Hi: math.NaN()}
	some := stats.Interval{Lo: 0.2, Hi: 0.9}
	for _, tc := range []struct {
		name string
		reps int
		rows []Agreement
		want string
	}{
		{"one row of three resamples", 3, []Agreement{{Group: "overall", N: 2, Kappa: 0, RawCI: some, KappaCI: stats.Interval{Lo: math.NaN(), Hi: math.NaN(), Undefined: 3}}},
			"kappa has no interval in overall: every verdict was the same in each of the 3 resamples, too few to place its bounds (give a larger --bootstrap)"},
		{"one resample, two rows", 1, []Agreement{
			{Group: "overall", N: 2, Kappa: 0, RawCI: some, KappaCI: stats.Interval{Lo: math.NaN(), Hi: math.NaN(), Undefined: 1}},
			{Group: "a\tb", N: 2, Kappa: 0, RawCI: some, KappaCI: stats.Interval{Lo: math.NaN(), Hi: math.NaN(), Undefined: 1}}},
			`kappa has no interval in overall, type "a\tb": every verdict was the same in the one resample, too few to place its bounds (give a larger --bootstrap)`},
		{"kappa without a value", 3, []Agreement{{Group: "overall", N: 2, Kappa: math.NaN(), RawCI: some, KappaCI: stats.Interval{Lo: math.NaN(), Hi: math.NaN(), Undefined: 3}}}, ""},
		{"no bootstrap", 0, []Agreement{{Group: "overall", N: 2, Kappa: 0, RawCI: nan, KappaCI: nan}}, ""},
		{"an interval", 3, []Agreement{{Group: "overall", N: 2, Kappa: 0, RawCI: some, KappaCI: some}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := []Item{{ID: "r1", Ratings: []int{1, 1}}, {ID: "r2", Ratings: []int{0, 1}}}
			ws := agreeWarnings(items, tc.rows, tc.reps, 0.95)
			var got []string
			for _, w := range ws {
				if strings.HasPrefix(w, "kappa has no interval") {
					got = append(got, w)
				}
			}
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("warnings %q: the kappa warning differs (-want +got):\n%s", ws, diff)
			}
		})
	}
}
