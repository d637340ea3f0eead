package score

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCorpusWarnsValueWithoutInterval checks that a corpus metric with a value but no interval,
// every resample leaving it without one (auc drawn with one class throughout), is named in a
// warning of too few resamples to place its bounds, by group, as qa-judge agree names a kappa
// with none: its missing interval said nothing of why. No warning names a metric without a value
// (auc of type z, whose records are all negatives), one with an interval, or any under
// --bootstrap 0, which asks for none.
func TestCorpusWarnsValueWithoutInterval(t *testing.T) {
	in := `{"schema":1,"id":"a","type":"x","answers":["1"],"prediction":{"text":"1","score":0.9}}
{"schema":1,"id":"b","type":"x","answers":["0"],"prediction":{"text":"0","score":0.2}}
{"schema":1,"id":"y0","type":"y","answers":["0"],"prediction":{"text":"0","score":0}}
{"schema":1,"id":"y1","type":"y","answers":["1"],"prediction":{"text":"1","score":0.1}}
{"schema":1,"id":"y2","type":"y","answers":["0"],"prediction":{"text":"0","score":0.2}}
{"schema":1,"id":"y3","type":"y","answers":["1"],"prediction":{"text":"1","score":0.3}}
{"schema":1,"id":"y4","type":"y","answers":["0"],"prediction":{"text":"0","score":0.4}}
{"schema":1,"id":"y5","type":"y","answers":["1"],"prediction":{"text":"1","score":0.5}}
{"schema":1,"id":"z1","type":"z","answers":["0"],"prediction":{"text":"0","score":0.3}}
{"schema":1,"id":"z2","type":"z","answers":["0"],"prediction":{"text":"0","score":0.4}}
`
	for _, tc := range []struct {
		name string
		args []string
		xCI  bool // whether type x's auc has an interval
		want []string
	}{
		{"type x of three resamples", []string{"--bootstrap", "3", "--seed", "5"}, false,
			[]string{"type x: auc: the metric has no interval: it had no value in each of the 3 resamples (auc needs both classes drawn), too few to place its bounds (give a larger --bootstrap)"}},
		{"no bootstrap", []string{"--bootstrap", "0", "--seed", "5"}, false, nil},
		{"intervals", []string{"--bootstrap", "1000", "--seed", "5"}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := summaryOf(t, in, append([]string{"--metrics", "auc"}, tc.args...))
			var got []string
			for _, w := range s.Warnings {
				if strings.Contains(w, "no interval") {
					got = append(got, w)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("warnings %q: the no-interval warnings differ (-want +got):\n%s", s.Warnings, diff)
			}
			if st := s.ByType["x"].Metrics["auc"]; st.Mean == nil || (st.CI != nil) != tc.xCI {
				t.Errorf("type x auc = %+v: want a value, and an interval %v", st, tc.xCI)
			}
			if st := s.ByType["z"].Metrics["auc"]; st != nil && st.Mean != nil {
				t.Errorf("type z auc = %+v, want no value", st)
			}
		})
	}
}
