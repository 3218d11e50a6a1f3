package comparison

import (
	"math"
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/results"
)

// profileFiles are two synthetic result files with a primary metric, one
// other evidence metric (ns) and three profile shares (%): foo moves +4.1
// points (+40%), bar -1.0 point (-50%), baz does not move.
func profileFiles() (*results.File, *results.File) {
	ms := []results.Metric{
		{Name: "time", Unit: "ns", Better: "lower"},
		{Name: "k.sys.cpu_user", Unit: "ns"},
		{Name: "k.profile.self.foo", Unit: "%"},
		{Name: "k.profile.self.bar", Unit: "%"},
		{Name: "k.profile.children.baz", Unit: "%"},
	}
	a := file("faultme", ms, []string{"a"}, map[string][][]float64{
		"time":                   {{100, 101, 102, 103, 104, 105}},
		"k.sys.cpu_user":         {{1e9, 1.1e9, 1.05e9, 0.95e9, 1.02e9, 0.98e9}},
		"k.profile.self.foo":     {{10.0, 11.0, 10.5, 9.5, 10.2, 10.8}},
		"k.profile.self.bar":     {{2.0, 2.2, 1.9, 2.1, 2.05, 1.95}},
		"k.profile.children.baz": {{30, 31, 29, 30.5, 30.2, 29.8}},
	})
	b := file("faultme", ms, []string{"b"}, map[string][][]float64{
		"time":                   {{100, 101, 102, 103, 104, 106}},
		"k.sys.cpu_user":         {{2e9, 2.1e9, 2.05e9, 1.95e9, 2.02e9, 1.98e9}},
		"k.profile.self.foo":     {{14.0, 15.1, 13.8, 14.6, 15.0, 14.2}},
		"k.profile.self.bar":     {{1.0, 1.1, 0.9, 1.05, 0.95, 1.2}},
		"k.profile.children.baz": {{30.1, 30.9, 29.5, 30.4, 30.6, 29.9}},
	})
	return a, b
}

// TestProfilePoints: the profile's shares are compared in percentage
// points (the Hodges-Lehmann shift B-A and its interval, not a ratio), as
// a Holm family of their own, largest change in points first. Reference
// values from SciPy 1.10 and statsmodels (/usr/bin/python3): the median
// of the 36 differences B-A; the interval [d(6), d(31)] (exact U
// distribution, coverage 95.9%); mannwhitneyu(method="exact") and
// multipletests(method="holm") over the three shares.
func TestProfilePoints(t *testing.T) {
	fa, fb := profileFiles()
	r, err := Build([]Side{FileSide("a.json", fa), FileSide("b.json", fb)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	rows := map[string]MetricRow{}
	for _, row := range r.Pairs[0].Rows {
		names = append(names, row.Metric.Name)
		rows[row.Metric.Name] = row
	}
	// foo moved 4.1 points, bar 1.0 (by the ratio bar's -50% is the
	// larger), baz 0.1: the profile after the other evidence.
	if got, want := strings.Join(names, " "), "time k.sys.cpu_user k.profile.self.foo k.profile.self.bar k.profile.children.baz"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	for _, c := range []struct {
		name          string
		shift, lo, hi float64
		padj          float64
	}{
		{"k.profile.self.foo", 4.1, 3.3, 4.9, 0.00649351},
		{"k.profile.self.bar", -1.0, -1.15, -0.85, 0.00649351},
		{"k.profile.children.baz", 0.1, -0.6, 0.9, 0.81818182},
	} {
		cmp := rows[c.name].Cmp
		if cmp == nil {
			t.Fatalf("%s: not compared", c.name)
		}
		if cmp.ChangeMethod != analysis.RelPoints || cmp.HasChangeCI || !cmp.HasShiftCI {
			t.Errorf("%s: method %v, ratio CI %v, shift CI %v; want points with a shift interval only", c.name, cmp.ChangeMethod, cmp.HasChangeCI, cmp.HasShiftCI)
		}
		for _, x := range []struct {
			what      string
			got, want float64
		}{{"shift", cmp.Shift, c.shift}, {"lo", cmp.ShiftLo, c.lo}, {"hi", cmp.ShiftHi, c.hi}, {"Holm p", cmp.AdjustedP, c.padj}} {
			if math.Abs(x.got-x.want) > 1e-6 {
				t.Errorf("%s: %s %v, want %v", c.name, x.what, x.got, x.want)
			}
		}
		if cmp.FamilySize != 3 {
			t.Errorf("%s: Holm over %d, want the 3 shares", c.name, cmp.FamilySize)
		}
	}
	if fs := rows["k.sys.cpu_user"].Cmp.FamilySize; fs != 1 {
		t.Errorf("k.sys.cpu_user: Holm over %d, want 1 (the profile is a family of its own)", fs)
	}
	if rows["k.sys.cpu_user"].Cmp.ChangeMethod != analysis.RelLogShift {
		t.Errorf("k.sys.cpu_user (ns): method %v, want the ratio", rows["k.sys.cpu_user"].Cmp.ChangeMethod)
	}
	if got := strings.Join(r.Families, "; "); !strings.Contains(got, "kernel evidence: Holm over 1 test; profile: Holm over 3 tests together") {
		t.Errorf("families %q", got)
	}
}
