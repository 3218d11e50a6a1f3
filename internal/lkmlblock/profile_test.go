package lkmlblock

import (
	"math"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// TestLKMLProfileRows: a profile share of --format lkml is named as the
// robot names it (perf-profile.self.cycles-pp.SYMBOL, the .isra.N suffix
// stripped; cpu-clock where the profile sampled it), is a percent row,
// and its footer change is the shift in points (4.1, the median of the
// 36 differences; interval [3.3, 4.9], as internal/comparison's
// TestProfilePoints), not the ratio (+40%).
func TestLKMLProfileRows(t *testing.T) {
	for _, c := range []struct{ event, want string }{
		{"cycles", "perf-profile.self.cycles-pp.foo"},
		{"cpu-clock", "perf-profile.self.cpu-clock.foo"},
	} {
		ms := []results.Metric{
			{Name: "real", Unit: "ns", Better: "lower"},
			{Name: "k.profile.self.foo.isra.0", Unit: "%", Desc: "share of the " + c.event + " samples of the child's tasks taken in the symbol itself (perf record, self): foo.isra.0"},
		}
		f := &results.File{Format: results.FormatName, Version: 1, Workload: "faultme", Metrics: ms, Primary: "real",
			Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
		vals := [][]float64{{10.0, 11.0, 10.5, 9.5, 10.2, 10.8}, {14.0, 15.1, 13.8, 14.6, 15.0, 14.2}}
		for ci, xs := range vals {
			for i, x := range xs {
				f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: ci, Status: results.StatusOK,
					Metrics: results.ValuesOf(map[string]float64{"real": float64(100 + i), ms[1].Name: x})})
			}
		}
		sides := []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}
		r, err := comparison.Build(sides, comparison.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Build(sides, r, true)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, row := range b.Rows {
			if row.Stat != c.want {
				continue
			}
			found = true
			if !row.Percent || math.Abs(row.HL-4.1) > 1e-9 || math.Abs(row.HLLo-3.3) > 1e-9 || math.Abs(row.HLHi-4.9) > 1e-9 || !row.HasCI {
				t.Errorf("%s: percent %v, HL %v [%v, %v] (CI %v), want the shift 4.1 [3.3, 4.9] points", c.want, row.Percent, row.HL, row.HLLo, row.HLHi, row.HasCI)
			}
		}
		if !found {
			t.Errorf("%s: no row named %s in %+v", c.event, c.want, b.Rows)
		}
	}
}
