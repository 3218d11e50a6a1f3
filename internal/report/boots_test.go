package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/results"
)

// bootFile is a result file whose repetitions ran in the given boots, one
// value list per boot.
func bootFile(boots map[string][]float64, order ...string) *results.File {
	f := &results.File{Format: results.FormatName, Version: 1, Workload: "w", Kind: "run", Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}}}
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for _, id := range order {
		for _, v := range boots[id] {
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Status: results.StatusOK, BootID: id,
				Start: t0.Add(time.Duration(len(f.Reps)) * time.Second), Metrics: results.ValuesOf(map[string]float64{"time": v})})
		}
	}
	return f
}

func TestBootLevelOneBoot(t *testing.T) {
	a := bootFile(map[string][]float64{"x": {10, 11, 12, 13, 14}}, "x")
	b := bootFile(map[string][]float64{"x": {12, 13, 14, 15, 16}}, "x")
	var out bytes.Buffer
	if err := Compare(&out, []comparison.Side{comparison.FileSide("a", a), comparison.FileSide("b", b)}, comparison.Options{}, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), "A and B ran within one boot: the p-value covers this boot, not boot-to-boot variance") {
		t.Errorf("no one-boot line:\n%s", out.String())
	}
	// Without boot ids (older files), nothing is said.
	for i := range a.Reps {
		a.Reps[i].BootID = ""
	}
	out.Reset()
	Compare(&out, []comparison.Side{comparison.FileSide("a", a), comparison.FileSide("b", b)}, comparison.Options{}, "text")
	if strings.Contains(out.String(), "Boot") {
		t.Errorf("boot lines without boot ids:\n%s", out.String())
	}
}

func TestBootLevelSeveralBoots(t *testing.T) {
	av := map[string][]float64{"a1": {100, 101, 102}, "a2": {104, 105, 103}, "a3": {99, 100, 98}}
	bv := map[string][]float64{"b1": {110, 111, 109}, "b2": {108, 107, 109}, "b3": {112, 111, 113}}
	a, b := bootFile(av, "a1", "a2", "a3"), bootFile(bv, "b1", "b2", "b3")
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", a), comparison.FileSide("b", b)}, comparison.Options{BootCost: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Boots) != 1 || r.Boots[0].Cmp == nil {
		t.Fatalf("boot level: %+v", r.Boots)
	}
	want, _ := analysis.CompareBoots([][]float64{av["a1"], av["a2"], av["a3"]}, [][]float64{bv["b1"], bv["b2"], bv["b3"]}, comparison.Confidence)
	got := r.Boots[0]
	if math.Abs(got.Cmp.P-want.P) > 1e-12 || got.Cmp.Ratio != want.Ratio {
		t.Errorf("boot level P %v ratio %v, want %v %v", got.Cmp.P, got.Cmp.Ratio, want.P, want.Ratio)
	}
	if got.CostRun != 1 || got.CostBoot != 90 || got.CostBootMeasured || got.CostBootSource != "given" {
		t.Errorf("costs: run %v boot %v measured %v source %q", got.CostRun, got.CostBoot, got.CostBootMeasured, got.CostBootSource)
	}
	// The plan is never wider than the design just run (3 boots x 3 runs
	// per side, 6·90+18 s), and has at least 3 boots per side.
	if cur := analysis.BootHalfWidth(3, 3, want.Components, comparison.Confidence); got.Plan.HalfWidth > cur || got.Plan.BootsPerSide < 3 {
		t.Errorf("plan %+v, wider than the current 3x3 (%v)", got.Plan, cur)
	}
	if p := analysis.PlanBoots(90, 1, want.Components, 6*90+18, comparison.Confidence, 3, 3); p != got.Plan {
		t.Errorf("plan %+v, want %+v", got.Plan, p)
	}
	var js bytes.Buffer
	if err := Write(&js, r, "json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"boot_level"`, `"next_runs_per_boot"`, `"unit_of_analysis": "boot"`, `"per_boot": [`,
		`"verdict": "slower"`, `"pooled": {`, `"method": "Student t on per-boot means"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("json lacks %s:\n%s", want, js.String())
		}
	}
	// Markdown and CSV carry the boot level too (they dropped it).
	var md, cs bytes.Buffer
	Write(&md, r, "markdown")
	Write(&cs, r, "csv")
	if !strings.Contains(md.String(), "boot level +8.6% [+3.3%, +14.0%], p=0.0098") || !strings.Contains(md.String(), "| time | 101.3 ns | 110.0 ns | +8.6% [+3.3%, +14.0%] | 0.0098 | slower |") {
		t.Errorf("markdown lacks the boot level:\n%s", md.String())
	}
	if lines := strings.Split(cs.String(), "\n"); !strings.HasSuffix(lines[0], ",unit_of_analysis,boots_a,boots_b,pooled_change,pooled_change_lo,pooled_change_hi,pooled_p,pooled_p_adjusted,pooled_verdict,replication") ||
		!strings.Contains(lines[1], ",Student t on per-boot means,") || !strings.Contains(lines[1], ",slower,") || !strings.Contains(lines[1], ",boot,3,3,") {
		t.Errorf("csv lacks the boot level:\n%s", cs.String())
	}
	var out bytes.Buffer
	Write(&out, r, "text")
	text := strings.Join(strings.Fields(out.String()), " ")
	for _, s := range []string{"Boot level (the boot as the unit: 3+3 boots, 9+9 runs", "w time: 101.3 ns -> 110.0 ns, boot level +8.6% [+3.3%, +14.0%], p=0.0098 (t on 3+3 boots, 9+9 runs): slower",
		"Per boot (time;", "Runs pooled (a description: it treats the runs as independent", "a boot 1m30s (given)", "expected interval [-"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, out.String())
		}
	}
	for _, c := range []struct {
		opt  comparison.Options
		want string
	}{
		{comparison.Options{BootCost: 90 * time.Second, BootCostMeasured: true}, "a boot 1m30s (measured)"},
		{comparison.Options{}, "a boot 2m0s (assumed; --boot-cost)"},
	} {
		r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", a), comparison.FileSide("b", b)}, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		out.Reset()
		Write(&out, r, "text")
		if text := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(text, c.want) {
			t.Errorf("%+v: text lacks %q:\n%s", c.opt, c.want, out.String())
		}
	}
}

// TestBootUnitCountsAndSides: a headline metric with zeros (a count) is
// compared by boot on the means of its values, and three sides with
// boots get one boot-level headline per pair, Holm over the two.
func TestBootUnitCountsAndSides(t *testing.T) {
	mk := func(shift float64, ids ...string) *results.File {
		m := map[string][]float64{}
		for i, id := range ids {
			m[id] = []float64{0 + shift, 2 + shift + float64(i%2), 1 + shift, 3 + shift}
		}
		f := bootFile(m, ids...)
		f.Metrics[0] = results.Metric{Name: "time", Unit: "count", Better: "lower"}
		return f
	}
	a, b, c := mk(0, "a1", "a2", "a3"), mk(0.5, "b1", "b2", "b3"), mk(0, "c1", "c2")
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", a), comparison.FileSide("b", b), comparison.FileSide("c", c)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.BootUnit() {
		t.Fatalf("not boot unit: %+v", r.Boots)
	}
	for _, bl := range r.Boots {
		row := bl.Rows[0]
		if row.Cmp == nil || !row.Cmp.Shift || row.FamilySize != 2 {
			t.Errorf("pair %d-%d: row %+v", bl.A, bl.B, row)
		}
	}
	var out bytes.Buffer
	if err := Write(&out, r, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Boot level, B vs A (the boot as the unit: 3+3 boots") || !strings.Contains(out.String(), "Boot level, C vs A (the boot as the unit: 3+2 boots") {
		t.Errorf("boot-level tables not named by pair:\n%s", out.String())
	}
	if n := strings.Count(out.String(), ", boot level "); n != 2 {
		t.Errorf("%d boot-level headlines, want 2:\n%s", n, out.String())
	}
	for _, f := range []string{"markdown", "csv", "json"} {
		out.Reset()
		if err := Write(&out, r, f); err != nil || !strings.Contains(out.String(), "boot") {
			t.Errorf("%s: %v\n%s", f, err, out.String())
		}
	}
}

// TestBootMDEPhraseAbsurd: with 2+2 boots and a noise of tens of percent,
// the boot level's 80%-power change is a factor, not "+172469% or -100%"
// (the end-to-end campaign printed that).
func TestBootMDEPhraseAbsurd(t *testing.T) {
	for _, c := range []struct {
		up, down float64
		want     string
	}{
		{0.041, 0.039, "80% power to detect +4.1% or -3.9%"},
		{1724.69, 0.99942, "too few boots for this noise: 80% power only against a factor of 1.73e+03 or more either way"},
		{1.0, 0.5, "too few boots for this noise: 80% power only against a factor of 2 or more either way"},
	} {
		if got := bootMDEPhrase(&comparison.BootRow{MDEUp: c.up, MDEDown: c.down}); got != c.want {
			t.Errorf("MDE +%v/-%v: %q, want %q", c.up, c.down, got, c.want)
		}
	}
}
