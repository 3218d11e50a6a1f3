package comparison

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"contend/analysis"
	"contend/internal/results"
	"contend/internal/testsize"
)

// TestBuildSortedOnce: Build, which sorts each side's values once per
// metric for the comparisons and the outliers, gives every comparison
// that analysis.Compare gives on the side's values, bit for bit, and the
// outliers the code before found side by side (sideOutliersBefore), on
// random comparisons of two and three sides, pooled or not, with
// identical metrics, ties, zeros and far values.
func TestBuildSortedOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	ms := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "faults", Unit: "count"},
		{Name: "fixed", Unit: "count"}, {Name: "share", Unit: "%"}}
	sample := func(n int) map[string][][]float64 {
		vals := map[string][][]float64{}
		for c := range 2 {
			for range n {
				x := 100 + rng.NormFloat64()
				switch rng.IntN(8) {
				case 0:
					x *= 1 + 3*rng.Float64() // far
				case 1:
					x = 0
				}
				vals["time"] = append(vals["time"], nil)[:c+1]
				vals["time"][c] = append(vals["time"][c], x)
				vals["faults"] = append(vals["faults"], nil)[:c+1]
				vals["faults"][c] = append(vals["faults"][c], 65542+float64(rng.IntN(2)*rng.IntN(20)))
				vals["fixed"] = append(vals["fixed"], nil)[:c+1]
				vals["fixed"][c] = append(vals["fixed"][c], 4096)
				vals["share"] = append(vals["share"], nil)[:c+1]
				vals["share"][c] = append(vals["share"][c], float64(rng.IntN(50))/10)
			}
		}
		return vals
	}
	for trial := range testsize.Pick(51, 150) {
		n := 3 + rng.IntN(30)
		if trial%50 == 0 {
			n = 1500 + rng.IntN(500) // beyond the sorted differences of the Hodges-Lehmann interval
		}
		f := file("x", ms, []string{"a", "b"}, sample(n))
		g := file("x", ms, []string{"a", "b"}, sample(n+rng.IntN(5)))
		sides := []Side{FileSide("f:a", f, 0), FileSide("f:b", f, 1)}
		switch trial % 3 {
		case 1:
			sides = append(sides, FileSide("g:b", g, 1))
		case 2:
			sides = []Side{{Name: "a", Parts: []Part{{Name: "f:a", File: f, Configs: []int{0}}, {Name: "g:a", File: g, Configs: []int{0}}}},
				{Name: "b", Parts: []Part{{Name: "f:b", File: f, Configs: []int{1}}, {Name: "g:b", File: g, Configs: []int{1}}}}}
		}
		opt := Options{Test: analysis.Test(rng.IntN(2)), OneFamily: rng.IntN(2) == 0}
		r, err := Build(sides, opt)
		if err != nil {
			t.Fatal(err)
		}
		var want []Outlier
		for si := range r.Sides {
			want = append(want, sideOutliersBefore(&r.Sides[si], si, r.Metrics)...)
		}
		if !reflect.DeepEqual(r.Outliers, want) {
			t.Fatalf("trial %d: outliers %+v, before %+v", trial, r.Outliers, want)
		}
		if len(r.Pairs) != len(r.Sides)-1 {
			t.Fatalf("trial %d: %d pairs of %d sides", trial, len(r.Pairs), len(r.Sides))
		}
		for _, p := range r.Pairs {
			if len(p.Rows) != len(r.Metrics) {
				t.Fatalf("trial %d: %d rows of %d metrics", trial, len(p.Rows), len(r.Metrics))
			}
			for _, row := range p.Rows {
				xa, xb := r.Sides[p.A].Values(row.Metric.Name), r.Sides[p.B].Values(row.Metric.Name)
				if row.Identical != allEqual(xa, xb) || (row.Cmp == nil) != row.Identical {
					t.Fatalf("trial %d %s: identical %v, comparison %v", trial, row.Metric.Name, row.Identical, row.Cmp)
				}
				if row.Identical {
					continue
				}
				o := r.Options.Analysis()
				o.Better, o.Points = row.Direction, row.Metric.Unit == "%"
				c, err := analysis.Compare(xa, xb, o)
				if err != nil {
					t.Fatal(err)
				}
				// The Holm adjustment Build made, made again.
				got := *row.Cmp
				c.AdjustedP, c.FamilySize, c.CanReachAlpha, c.Verdict = got.AdjustedP, got.FamilySize, got.CanReachAlpha, got.Verdict
				c.MDE, c.MDEUp, c.MDEDown, c.Warnings = got.MDE, got.MDEUp, got.MDEDown, got.Warnings
				if g, w := exactly(got), exactly(c); g != w {
					t.Fatalf("trial %d %s: Build %s\nCompare %s", trial, row.Metric.Name, g, w)
				}
			}
		}
	}
}

// exactly prints every field of c, the tests' results too, each float
// as it round-trips (-0 and NaN included).
func exactly(c analysis.Comparison) string {
	mw, w := c.MannWhitney, c.Welch
	c.MannWhitney, c.Welch = nil, nil
	return fmt.Sprintf("%#v %#v %#v", c, mw, w)
}

// TestBuildMemoryPerSample bounds what Build allocates for two sides of
// 100,000 samples of one metric (bytes counted by the runtime, not
// timed): each side's values sorted once and the Hodges-Lehmann
// selection's row bounds, about 15 bytes a sample; it was 50 when
// Compare and the outliers each sorted their own copies and the
// logarithms had arrays of their own.
func TestBuildMemoryPerSample(t *testing.T) {
	const n = 100000
	rng := rand.New(rand.NewPCG(83, 84))
	vals := [][]float64{make([]float64, n), make([]float64, n)}
	for c := range vals {
		for i := range vals[c] {
			vals[c][i] = float64(1000000 + 10000*c + rng.IntN(50000))
		}
	}
	ms := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}
	// Two files of one configuration, read as compare reads them: into
	// columns (results.AsColumns).
	var sides []Side
	for c, name := range []string{"a", "b"} {
		b, err := results.MarshalLines(file("x", ms, []string{name}, map[string][][]float64{"time": {vals[c]}}))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), name+".jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := results.Read(path, results.WithoutOutputs, results.AsColumns)
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, FileSide(name, f))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := Build(sides, Options{})
	runtime.ReadMemStats(&after)
	if err != nil || len(r.Pairs) != 1 || r.Pairs[0].Rows[0].Cmp == nil {
		t.Fatalf("Build: %v", err)
	}
	perSample := float64(after.TotalAlloc-before.TotalAlloc) / (2 * n)
	t.Logf("Build allocates %.1f bytes a sample", perSample)
	if perSample > 24 {
		t.Errorf("Build of 2 x %d samples allocates %.1f bytes a sample, want at most 24", n, perSample)
	}
}
