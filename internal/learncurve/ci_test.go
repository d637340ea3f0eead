package learncurve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func goldenSequences(t testing.TB, m int) []Sequence {
	t.Helper()
	_, seqs := reportFromItems(t, readResults(t, "testdata/evalearn/case1_clean/results.jsonl"), m, 0)
	return seqs
}

func TestBootstrap(t *testing.T) {
	seqs := goldenSequences(t, 7)
	rep := Compute(seqs, 7, 3)
	ci := Bootstrap(seqs, rep, 400, 0.95, 7)
	contains := func(name string, lo, hi, v float64) {
		t.Helper()
		if !(lo <= v && v <= hi) || !(hi > lo) {
			t.Errorf("%s interval [%v, %v] does not strictly bracket the estimate %v", name, lo, hi, v)
		}
	}
	o := ci.Overall
	contains("accuracy", o.Accuracy.Lo, o.Accuracy.Hi, rep.Overall.Accuracy)
	contains("slope", o.Slope.Lo, o.Slope.Hi, rep.Overall.Slope)
	contains("first correct", o.FirstCorrect.Lo, o.FirstCorrect.Hi, rep.Overall.FirstCorrect)
	contains("consecutive", o.Consecutive.Lo, o.Consecutive.Hi, rep.Overall.Consecutive)
	contains("post-warmup", o.PostWarmup.Lo, o.PostWarmup.Hi, rep.Overall.PostWarmup)
	if len(o.Position) != 7 || len(ci.Types) != len(rep.Types) {
		t.Fatalf("Bootstrap gave %d position intervals and %d types, want 7 and %d", len(o.Position), len(ci.Types), len(rep.Types))
	}
	for i, tc := range ci.Types {
		if tc.Type != rep.Types[i].Type {
			t.Errorf("type interval %d is for %q, want %q", i, tc.Type, rep.Types[i].Type)
		}
		contains(tc.Type.Name+" accuracy", tc.Accuracy.Lo, tc.Accuracy.Hi, rep.Types[i].Accuracy)
	}
	// Accuracy is a mean of ~1274 Bernoulli outcomes: the 95% interval is about ±2.6 points.
	if w := o.Accuracy.Hi - o.Accuracy.Lo; w < 0.02 || w > 0.12 {
		t.Errorf("accuracy interval width = %v, want between 0.02 and 0.12", w)
	}
	again := Bootstrap(seqs, rep, 400, 0.95, 7)
	if again.Overall.Slope != ci.Overall.Slope || again.Types[2].Position[3] != ci.Types[2].Position[3] {
		t.Errorf("Bootstrap with the same seed differs: %+v vs %+v", again.Overall.Slope, ci.Overall.Slope)
	}
	other := Bootstrap(seqs, rep, 400, 0.95, 8)
	if other.Overall.Slope == ci.Overall.Slope {
		t.Errorf("Bootstrap with another seed gave the same slope interval %+v", ci.Overall.Slope)
	}
}

func TestBootstrapDegenerate(t *testing.T) {
	seqs := []Sequence{{ID: "1", Type: NamedType("A"), Y: []int{1, 0, 1}}}
	rep := Compute(seqs, 3, 1)
	ci := Bootstrap(seqs, rep, 50, 0.9, 1)
	if ci.Overall.Accuracy.Lo != ci.Overall.Accuracy.Hi {
		t.Errorf("one-sequence interval = %+v, want a point", ci.Overall.Accuracy)
	}
	wantWarns := []string{"1 sequence: the overall intervals are degenerate", "type A has 1 sequence: its intervals are degenerate"}
	if !slices.Equal(ci.Warnings, wantWarns) {
		t.Errorf("warnings = %q, want %q", ci.Warnings, wantWarns)
	}
	// A type whose name a line would hide or blur is named Go-quoted, as qa-score names it.
	seqs = append(seqs, Sequence{ID: "2", Type: NamedType(""), Y: []int{1, 1, 1}}, Sequence{ID: "3", Type: NamedType("two\nlines"), Y: []int{0, 1, 1}})
	ci = Bootstrap(seqs, Compute(seqs, 3, 1), 50, 0.9, 1)
	// Each type of one sequence: every replicate is the data, the overall intervals too.
	wantWarns = []string{"each type has 1 sequence: the overall intervals are degenerate", `type "" has 1 sequence: its intervals are degenerate`, "type A has 1 sequence: its intervals are degenerate",
		`type "two\nlines" has 1 sequence: its intervals are degenerate`}
	if !slices.Equal(ci.Warnings, wantWarns) {
		t.Errorf("warnings = %q, want %q", ci.Warnings, wantWarns)
	}
	empty := Bootstrap(nil, Compute(nil, 3, 1), 50, 0.9, 1)
	if !math.IsNaN(empty.Overall.Accuracy.Lo) {
		t.Errorf("no-sequence interval = %+v, want NaN bounds", empty.Overall.Accuracy)
	}
	var doc map[string]any
	if err := json.Unmarshal(Compute(nil, 3, 1).JSON(empty), &doc); err != nil {
		t.Fatalf("report with empty intervals is not JSON: %v", err)
	}
}

// TestReportCIKeys checks the "ci" section sits beside the untouched EvaLearn report.
func TestReportCIKeys(t *testing.T) {
	seqs := goldenSequences(t, 7)
	rep := Compute(seqs, 7, 3)
	plain, withCI := rep.JSON(nil), rep.JSON(Bootstrap(seqs, rep, 20, 0.95, 1))
	if !bytes.HasPrefix(withCI, bytes.TrimSuffix(plain, []byte("\n}\n"))) {
		t.Errorf("report with intervals does not start with the plain report")
	}
	var doc struct {
		CI struct {
			Replicates int
			Overall    map[string]json.RawMessage            `json:"overall_metrics"`
			Types      map[string]map[string]json.RawMessage `json:"type_metrics"`
		}
	}
	if err := json.Unmarshal(withCI, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"overall_accuracy", "accuracy_slope", "first_correct_position", "consecutive_correct", "post_warmup_accuracy_k3", "position_accuracy"} {
		if _, ok := doc.CI.Overall[key]; !ok {
			t.Errorf("ci.overall_metrics lacks %q", key)
		}
		if _, ok := doc.CI.Types["Logical Reasoning"][key]; !ok {
			t.Errorf("ci.type_metrics[Logical Reasoning] lacks %q", key)
		}
	}
	var text bytes.Buffer
	if err := Bootstrap(seqs, rep, 20, 0.9, 1).WriteText(&text); err != nil || !strings.Contains(text.String(), "BOOTSTRAP 90% INTERVALS") {
		t.Errorf("CI text = %q, %v; want a 90%% intervals header", text.String()[:min(80, text.Len())], err)
	}
}

func BenchmarkComputeAndBootstrap(b *testing.B) {
	seqs := goldenSequences(b, 7)
	b.ReportAllocs()
	for b.Loop() {
		rep := Compute(seqs, 7, 3)
		Bootstrap(seqs, rep, 100, 0.95, 1)
	}
	b.ReportMetric(float64(b.N*len(seqs)*101)/b.Elapsed().Seconds(), "sequences/s")
}

// BenchmarkBootstrapLarge resamples 40,000 sequences of 7 (280k records) of 6 types, where what a
// resample allocates per sequence shows in the time spent collecting it.
func BenchmarkBootstrapLarge(b *testing.B) {
	seqs := randomSequences(rand.New(rand.NewPCG(1, 2)), 40000, 6, 7)
	rep := Compute(seqs, 7, 3)
	b.ReportAllocs()
	for b.Loop() {
		Bootstrap(seqs, rep, 20, 0.95, 1)
	}
	b.ReportMetric(float64(b.N*len(seqs)*20)/b.Elapsed().Seconds(), "sequences/s")
}

// randomSequences returns n sequences of m verdicts, of up to types types drawn unevenly (the
// first type, a tenth as often as the others, may be missing from a small draw) and interleaved.
func randomSequences(rng *rand.Rand, n, types, m int) []Sequence {
	seqs := make([]Sequence, n)
	for i := range seqs {
		t := rng.IntN(10*types - 9)
		t = (t + 9) / 10
		y := make([]int, m)
		p := rng.Float64()
		for j := range y {
			if rng.Float64() < p {
				y[j] = 1
			}
		}
		seqs[i] = Sequence{ID: fmt.Sprint(i), Type: NamedType(fmt.Sprintf("T%d", t)), Y: y}
	}
	return seqs
}

// TestStrataOverall checks that strataOverall, which the overall intervals compute on every
// resample, gives Compute's overall figures to the bit over resamples laid out type by type, as
// Bootstrap lays them out: with M = 1 (whose position accuracy numpy sums pairwise from 8 types
// on), a warm-up past M, one type, and types of one sequence.
func TestStrataOverall(t *testing.T) {
	tests := []struct{ n, types, m, k int }{
		{1, 1, 3, 1}, {50, 1, 7, 3}, {200, 3, 7, 0}, {200, 6, 7, 3}, {40, 12, 7, 6},
		{300, 9, 1, 0}, {30, 20, 1, 0}, {100, 4, 3, 5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n%d_types%d_m%d_k%d", tt.n, tt.types, tt.m, tt.k), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.types)))
			seqs := randomSequences(rng, tt.n, tt.types, tt.m)
			order, byType := groupTypes(seqs)
			var strata []Sequence
			var sizes []int
			for _, typ := range order {
				strata = append(strata, byType[typ.Key]...)
				sizes = append(sizes, len(byType[typ.Key]))
			}
			buf := make([]Sequence, len(strata))
			for r := range 20 {
				start := 0
				for _, size := range sizes {
					for i := start; i < start+size; i++ {
						buf[i] = strata[start+rng.IntN(size)]
					}
					start += size
				}
				got, want := strataOverall(buf, sizes, tt.m, tt.k), Compute(buf, tt.m, tt.k).Overall
				if bits(got) != bits(want) {
					t.Fatalf("resample %d: strataOverall = %+v, Compute's overall figures %+v", r, got, want)
				}
			}
		})
	}
}

// bits writes every figure of x by its bits.
func bits(x Metrics) string {
	var b strings.Builder
	for _, v := range append([]float64{x.Accuracy, x.Slope, x.FirstCorrect, x.Consecutive, x.PostWarmup}, x.Position...) {
		fmt.Fprintf(&b, "%x ", math.Float64bits(v))
	}
	return b.String()
}

// TestStrataOverallAllocs: the overall figures of a resample allocate as much for 10 sequences of
// each type as for 1,000, where regrouping the resample by type copied every sequence.
func TestStrataOverallAllocs(t *testing.T) {
	allocs := func(perType int) float64 {
		var seqs []Sequence
		var sizes []int
		for _, typ := range []string{"A", "B", "C"} {
			for i := range perType {
				seqs = append(seqs, Sequence{ID: fmt.Sprint(i), Type: NamedType(typ), Y: []int{i % 2, 1, 0, 1, 1, 0, 1}})
			}
			sizes = append(sizes, perType)
		}
		return testing.AllocsPerRun(20, func() { strataOverall(seqs, sizes, 7, 3) })
	}
	if small, large := allocs(10), allocs(1000); large != small {
		t.Errorf("overall figures of a resample: %v allocations with 10 sequences a type, %v with 1,000", small, large)
	}
}

// TestBootstrapOverallKeepsTypes checks that the overall intervals are those of the report's
// figures over all its types: a replicate draws each type's sequences from that type, as many as
// it has, so that no type drops out of the macro averages (position accuracy, slope,
// first-correct position, longest streak) and the types keep their weights in the micro ones.
// Where every sequence of a type is the same, every replicate is the data itself, and each
// interval is the report's figure.
func TestBootstrapOverallKeepsTypes(t *testing.T) {
	same := func(typ string, n int, y ...int) []Sequence {
		var out []Sequence
		for i := range n {
			out = append(out, Sequence{ID: typ + string(rune('a'+i)), Type: NamedType(typ), Y: y})
		}
		return out
	}
	tests := []struct {
		name string
		seqs []Sequence
	}{
		{"a rare type never correct", append(same("A", 20, 1, 1, 1), same("B", 2, 0, 0, 0)...)},
		{"a type of one sequence", append(same("A", 30, 0, 1, 1), same("B", 1, 1, 0, 0)...)},
		{"interleaved types", append(append(same("B", 3, 1, 0, 1), same("A", 5, 0, 0, 1)...), same("B", 2, 1, 0, 1)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Compute(tt.seqs, 3, 1)
			ci := Bootstrap(tt.seqs, rep, 500, 0.95, 1)
			o, c := rep.Overall, ci.Overall
			figures := []struct {
				name string
				v    float64
				iv   [2]float64
			}{
				{"accuracy", o.Accuracy, [2]float64{c.Accuracy.Lo, c.Accuracy.Hi}},
				{"slope", o.Slope, [2]float64{c.Slope.Lo, c.Slope.Hi}},
				{"first correct", o.FirstCorrect, [2]float64{c.FirstCorrect.Lo, c.FirstCorrect.Hi}},
				{"consecutive", o.Consecutive, [2]float64{c.Consecutive.Lo, c.Consecutive.Hi}},
				{"post-warmup", o.PostWarmup, [2]float64{c.PostWarmup.Lo, c.PostWarmup.Hi}},
			}
			for i, iv := range c.Position {
				figures = append(figures, struct {
					name string
					v    float64
					iv   [2]float64
				}{"position " + string(rune('1'+i)), o.Position[i], [2]float64{iv.Lo, iv.Hi}})
			}
			for _, f := range figures {
				if math.Abs(f.iv[0]-f.v) > 1e-12 || math.Abs(f.iv[1]-f.v) > 1e-12 {
					t.Errorf("overall %s interval = %v, want the figure %v at both ends", f.name, f.iv, f.v)
				}
			}
		})
	}
}

// TestBootstrapTypeAlone: a type's intervals are drawn from a source of their own, seeded from
// --seed and the type, so that they are the same whatever other types the input holds (a run
// over one type, qa-load --types, gives that type's intervals of the whole run), and the overall
// intervals from one of theirs.
func TestBootstrapTypeAlone(t *testing.T) {
	seq := func(id, typ string, y ...int) Sequence { return Sequence{ID: id, Type: NamedType(typ), Y: y} }
	a := []Sequence{seq("1", "A", 1, 0, 1), seq("2", "A", 0, 0, 1), seq("3", "A", 1, 1, 1), seq("4", "A", 0, 1, 0)}
	b := []Sequence{seq("5", "B", 0, 0, 0), seq("6", "B", 1, 0, 1), seq("7", "B", 0, 1, 1)}
	all := append(append(append([]Sequence{}, b...), a...), seq("8", "C", 1, 1, 0), seq("9", "C", 0, 0, 1))
	whole := Bootstrap(all, Compute(all, 3, 1), 300, 0.9, 11)
	alone := Bootstrap(a, Compute(a, 3, 1), 300, 0.9, 11)
	var got *TypeCI
	for i := range whole.Types {
		if whole.Types[i].Type.Name == "A" {
			got = &whole.Types[i]
		}
	}
	if got == nil || len(alone.Types) != 1 {
		t.Fatalf("types: whole %d, alone %d", len(whole.Types), len(alone.Types))
	}
	if !reflect.DeepEqual(got.MetricsCI, alone.Types[0].MetricsCI) {
		t.Errorf("type A's intervals in a run with B and C = %+v, alone %+v", got.MetricsCI, alone.Types[0].MetricsCI)
	}
	if reflect.DeepEqual(got.MetricsCI, whole.Overall) {
		t.Errorf("type A's intervals are the overall ones: %+v", got.MetricsCI)
	}
	// With one type, the overall figures are the type's, and so are their intervals.
	if !reflect.DeepEqual(alone.Overall, alone.Types[0].MetricsCI) {
		t.Errorf("a run over type A alone: overall intervals %+v, type A's %+v", alone.Overall, alone.Types[0].MetricsCI)
	}
}

// TestBootstrapOverallNotByTypeName: with more than one type, the overall intervals are drawn from
// the seed's own source, so naming a type otherwise leaves them as they were (with one type they
// are its own, drawn from its source: TestBootstrapTypeAlone).
func TestBootstrapOverallNotByTypeName(t *testing.T) {
	seqs := func(first string) []Sequence {
		return []Sequence{
			{ID: "1", Type: NamedType(first), Y: []int{1, 0, 1}}, {ID: "2", Type: NamedType(first), Y: []int{0, 0, 1}},
			{ID: "3", Type: NamedType(first), Y: []int{1, 1, 1}}, {ID: "4", Type: NamedType("B"), Y: []int{0, 1, 0}},
			{ID: "5", Type: NamedType("B"), Y: []int{0, 0, 0}}, {ID: "6", Type: NamedType("B"), Y: []int{1, 0, 1}},
		}
	}
	a, z := seqs("A"), seqs("Z")
	ca, cz := Bootstrap(a, Compute(a, 3, 1), 300, 0.9, 7), Bootstrap(z, Compute(z, 3, 1), 300, 0.9, 7)
	if !reflect.DeepEqual(ca.Overall, cz.Overall) {
		t.Errorf("overall intervals with the first type named A %+v, named Z %+v", ca.Overall, cz.Overall)
	}
}
