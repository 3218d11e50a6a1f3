package comparison

import (
	"math"
	"testing"
	"time"

	"contend/internal/results"
)

// bootSide is a side of one file whose repetitions ran in the boots
// order, values of each in boots; the metric "pages" is 7 everywhere.
func bootSide(name string, boots map[string][]float64, order ...string) Side {
	f := &results.File{Format: results.FormatName, Version: 1, Workload: "w", Kind: "run", Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "pages", Unit: "count"}}, Configs: []results.Config{{}}}
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for _, id := range order {
		for _, v := range boots[id] {
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Status: results.StatusOK, BootID: id,
				Start:   t0.Add(time.Duration(len(f.Reps)) * time.Second),
				Metrics: results.ValuesOf(map[string]float64{"time": v, "pages": 7})})
		}
	}
	return FileSide(name, f)
}

// TestBuildCarriesRows: Build leaves in the model every number the
// renderers print, so that they only format: each row's counts and
// medians, the boot-level centres, the per-boot table, the unit of
// replication and the instability of each pair. Reference values from
// numpy (median; std(ddof=1)/mean; exp(mean of per-boot mean logs)).
func TestBuildCarriesRows(t *testing.T) {
	a := bootSide("a", map[string][]float64{"a1": {100, 101, 102}, "a2": {104, 105, 103}, "a3": {99, 100, 98}}, "a1", "a2", "a3")
	b := bootSide("b", map[string][]float64{"b1": {110, 111, 109}, "b2": {108, 107, 109}, "b3": {112, 111, 113}}, "b1", "b2", "b3")
	r, err := Build([]Side{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near := func(x, want float64) bool { return math.Abs(x-want) <= 1e-12*math.Abs(want) }
	if len(r.Pairs) != 1 || len(r.Pairs[0].Rows) != 2 {
		t.Fatalf("%d pairs", len(r.Pairs))
	}
	p := r.Pairs[0]
	for _, row := range p.Rows {
		switch row.Metric.Name {
		case "time":
			if row.NA != 9 || row.NB != 9 || row.MedianA != 101 || row.MedianB != 110 || row.Identical {
				t.Errorf("time row: n %d+%d, medians %g %g, identical %v; want 9+9, 101 110", row.NA, row.NB, row.MedianA, row.MedianB, row.Identical)
			}
		case "pages":
			if !row.Identical || row.NA != 9 || row.NB != 9 || row.MedianA != 7 || row.MedianB != 7 {
				t.Errorf("pages row: %+v, want identical 7 on 9+9", row)
			}
		}
	}
	if p.Replication != ReplicationBoots || p.ReplicationNote != "" || !r.BootUnit() {
		t.Errorf("replication %q %q, boot unit %v; want boots, no note (the boot level is the verdict)", p.Replication, p.ReplicationNote, r.BootUnit())
	}
	if in := p.Instability; in.Any() || in.CV[0] == 0 || in.CV[1] == 0 {
		t.Errorf("instability %+v: want the CVs, nothing unstable", in)
	}
	br := r.BootRowOf(p, "time")
	if br == nil || !near(br.MeanA, 101.30927012987577) || !near(br.MeanB, 109.9848453948021) {
		t.Errorf("boot row %+v: want centres 101.30927012987577 and 109.9848453948021", br)
	}
	if pg := r.BootRowOf(p, "pages"); pg == nil || !pg.Identical || pg.Value != 7 {
		t.Errorf("boot row of pages %+v: want identical, 7", pg)
	}
	want := []struct {
		side, id       string
		median, spread float64
	}{
		// In the order of their first runs: both files start at the same time.
		{"A", "a1", 101, 0.009900990099009901}, {"B", "b1", 110, 0.00909090909090909},
		{"A", "a2", 104, 0.009615384615384616}, {"B", "b2", 108, 0.009259259259259259},
		{"A", "a3", 99, 0.010101010101010102}, {"B", "b3", 112, 0.008928571428571428},
	}
	if len(r.PerBoot) != len(want) {
		t.Fatalf("%d per-boot rows, want %d", len(r.PerBoot), len(want))
	}
	for i, w := range want {
		x := r.PerBoot[i]
		if x.Side != w.side || x.Boot.ID != w.id || x.Number != i+1 || x.Median != w.median || !near(x.Spread, w.spread) || len(x.Boot.Values) != 3 {
			t.Errorf("per boot %d: %s %s #%d median %g spread %g, want %s %s #%d %g %g", i, x.Side, x.Boot.ID, x.Number, x.Median, x.Spread, w.side, w.id, i+1, w.median, w.spread)
		}
	}
	if r.MedianCIMin != 6 {
		t.Errorf("MedianCIMin %d, want 6 (1 - 2 * 0.5^6 >= 95%%)", r.MedianCIMin)
	}
}
