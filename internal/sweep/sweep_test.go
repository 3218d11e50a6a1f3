package sweep

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"contend/internal/results"
)

// synthetic returns a sweep file of throughputs following the USL with
// multiplicative noise, n repetitions per point.
func synthetic(label string, threads []int, lambda, sigma, kappa float64, n int, seed uint64) *results.File {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := &results.File{
		Format: results.FormatName, Version: results.FormatVersion, Kind: "sweep", Workload: "faultme",
		Label: label, Primary: "time", Start: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC),
		Metrics: []results.Metric{
			{Name: "time", Unit: "ns", Better: "lower"},
			{Name: "pages", Unit: "count"},
			{Name: ThroughputName, Unit: "pages/s", Better: "higher", Desc: "pages / time"},
		},
		Env:   map[string]string{"kernel.release": "6.1.0-test", "cpu.online": "2"},
		Sweep: &results.Sweep{Params: []string{"threads"}, Order: OrderShuffled, Seed: 1, Rounds: n, Throughput: ThroughputName},
	}
	for _, th := range threads {
		f.Configs = append(f.Configs, results.Config{Name: fmt.Sprintf("threads=%d", th), Params: []results.Param{
			{Name: "threads", Value: fmt.Sprint(th), Unit: "threads"},
			{Name: "mem", Value: "1048576", Display: "1MiB", Unit: "bytes"},
		}})
	}
	for r := range n {
		for c := range threads {
			addRep(f, rng, r, c, threads[c], lambda, sigma, kappa)
		}
	}
	return f
}

// addRep appends to f one repetition of config c in round r with a
// throughput following the USL at threads N, with 2% noise.
func addRep(f *results.File, rng *rand.Rand, r, c, threads int, lambda, sigma, kappa float64) {
	N := float64(threads)
	x := lambda * N / (1 + sigma*(N-1) + kappa*N*(N-1)) * math.Exp(0.02*rng.NormFloat64())
	pages := 65536.0
	f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: c, Round: r, Status: results.StatusOK,
		Metrics: results.ValuesOf(map[string]float64{"time": pages / x * 1e9, "pages": pages, ThroughputName: x})})
}

func TestAnalyzeAndCSV(t *testing.T) {
	f := synthetic("base", []int{1, 2, 4, 8, 16, 32}, 1e6, 0.05, 0.002, 6, 1)
	a, err := Analyze(f)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Concurrency || len(a.Points) != 6 || a.Smallest != 0 || a.Points[0].Speedup != 1 {
		t.Fatalf("analysis: concurrency=%v points=%d smallest=%d", a.Concurrency, len(a.Points), a.Smallest)
	}
	for _, p := range a.Points {
		if p.Counts[results.StatusOK] != 6 || !p.HasThroughput || !p.Throughput.HasCI {
			t.Errorf("%s: counts %v throughput %v", p.Name, p.Counts, p.HasThroughput)
		}
	}
	if a.USL == nil || a.Amdahl == nil {
		t.Fatalf("fits missing: %v", a.FitNotes)
	}
	// Loose: the fit itself is tested in analysis; this checks the wiring.
	if math.Abs(a.USL.Sigma-0.05) > 0.03 || math.Abs(a.USL.Kappa-0.002)/0.002 > 0.5 || a.FitPoints != 36 {
		t.Errorf("USL sigma %v kappa %v on %d points", a.USL.Sigma, a.USL.Kappa, a.FitPoints)
	}
	var txt bytes.Buffer
	Report(&txt, a)
	for _, want := range []string{"faultme sweep over threads", "speedup", "USL fit, 36 repetitions at 6 values of threads", "peak    N*", "Amdahl fit"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, txt.String())
		}
	}
	for _, line := range strings.Split(txt.String(), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, a); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 {
		t.Fatalf("%d CSV rows, want header + 6", len(rows))
	}
	head := strings.Join(rows[0], ",")
	for _, col := range []string{"point,threads,n,ok,throughput_unit,throughput_median", "speedup", "time_median_ns", "time_ci_lo_ns", "pages_median"} {
		if !strings.Contains(head, col) {
			t.Errorf("CSV header lacks %q: %s", col, head)
		}
	}
	if rows[1][0] != "threads=1" || rows[1][1] != "1" || rows[1][2] != "6" {
		t.Errorf("CSV row %v", rows[1])
	}
}

func TestAnalyzeNoFit(t *testing.T) {
	f := synthetic("two", []int{1, 2}, 1e6, 0.05, 0.002, 3, 2)
	a, err := Analyze(f)
	if err != nil {
		t.Fatal(err)
	}
	if a.USL != nil || a.Amdahl == nil || len(a.FitNotes) != 1 || !strings.Contains(a.FitNotes[0], "no USL fit") {
		t.Errorf("two levels: USL %v Amdahl %v notes %v", a.USL, a.Amdahl, a.FitNotes)
	}
	f.Configs[0].Params[0].Unit = "bytes" // not a thread count
	f.Configs[1].Params[0].Unit = "bytes"
	a, _ = Analyze(f)
	if a.USL != nil || a.Amdahl != nil || !strings.Contains(strings.Join(a.FitNotes, ""), "not a thread or task count") {
		t.Errorf("non-concurrency sweep fitted: %v", a.FitNotes)
	}
	f.Kind = "run"
	if _, err := Analyze(f); err == nil {
		t.Error("a run file analysed as a sweep")
	}
}

func TestCompareCurves(t *testing.T) {
	threads := []int{1, 2, 4, 8, 16}
	a := synthetic("before", threads, 1e6, 0.05, 0.002, 8, 3)
	// B: 30% faster everywhere, and with more contention.
	b := synthetic("after", threads, 1.3e6, 0.10, 0.002, 8, 4)
	cc, err := CompareCurveData(a, b, CurveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Metric.Name != ThroughputName || len(cc.Points) != 5 || !cc.Holm || cc.PointsUsed != 5 {
		t.Fatalf("metric %q points %d holm %v", cc.Metric.Name, len(cc.Points), cc.Holm)
	}
	c1 := cc.Points[0].Comparison
	if c1.AdjustedP < c1.P || math.Abs(c1.Change-0.3) > 0.05 || string(c1.Verdict) != "better" {
		t.Errorf("threads=1: P %v adjusted %v change %v verdict %v", c1.P, c1.AdjustedP, c1.Change, c1.Verdict)
	}
	if len(cc.USLShift) != 5 || cc.USLShift[1].Name != "sigma" || cc.USLShift[1].Diff <= 0 || cc.USLShift[0].Diff <= 0 {
		t.Errorf("USL shift %+v", cc.USLShift)
	}
	var buf bytes.Buffer
	if err := CompareCurves(&buf, a, b, CurveOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"faultme curve, B against A: throughput (pages/s)", "A: before, kernel 6.1.0-test", "threads=16", "Holm-adjusted over 5 points", "USL fit shift", "sigma", "peak N*"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Points missing on one side are named, the others still compared.
	c := synthetic("fewer", []int{1, 2, 4}, 1e6, 0.05, 0.002, 4, 5)
	cc, err = CompareCurveData(a, c, CurveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cc.Points) != 3 || strings.Join(cc.OnlyA, ",") != "threads=8,threads=16" || cc.USLShift == nil {
		t.Errorf("points %d onlyA %v shift %v", len(cc.Points), cc.OnlyA, cc.USLShift != nil)
	}
	c.Workload = "osim"
	if _, err := CompareCurveData(a, c, CurveOptions{}); err == nil {
		t.Error("compared curves of two workloads")
	}
}

// TestReportFlat checks the words for an exactly flat curve: no peak and
// no limit "towards lambda/sigma", but "flat".
func TestReportFlat(t *testing.T) {
	f := synthetic("flat", []int{1, 2, 4, 8}, 1e6, 1, 0, 3, 3)
	for i := range f.Reps {
		f.Reps[i].Metrics.Set(ThroughputName, 1e6)
		f.Reps[i].Metrics.Set("time", 65536/1e6*1e9)
	}
	a, err := Analyze(f)
	if err != nil {
		t.Fatal(err)
	}
	var txt bytes.Buffer
	Report(&txt, a)
	out := txt.String()
	for _, want := range []string{"peak    none: flat at", "limit   none: flat at", "warning: flat: throughput stays at"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"rises", "for ever", "> 1", "N* ="} {
		if strings.Contains(out, bad) {
			t.Errorf("report of a flat curve says %q:\n%s", bad, out)
		}
	}
}

// TestCompareCurvesPoorFits: two sweeps whose throughput is noise around a
// flat line have poor USL fits (R^2 near 0); their comparison gave "peak
// N* +265%" without a word on the fits. It now carries each fit's R^2 and
// says that both are poor.
func TestCompareCurvesPoorFits(t *testing.T) {
	threads := []int{1, 2, 3, 4, 5, 6, 8}
	noisy := func(label string, seed uint64) *results.File {
		f := synthetic(label, threads, 1e6, 0.05, 0.002, 6, seed)
		rng := rand.New(rand.NewPCG(seed, 9))
		for i := range f.Reps {
			x := 4e6 * math.Exp(0.4*rng.NormFloat64()) // no curve: noise
			f.Reps[i].Metrics = results.ValuesOf(map[string]float64{"time": 65536 / x * 1e9, "pages": 65536, ThroughputName: x})
		}
		return f
	}
	a, b := noisy("before", 3), noisy("after", 4)
	cc, err := CompareCurveData(a, b, CurveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cc.USLShift == nil {
		t.Fatalf("no USL fits to compare (notes %v)", cc.Notes)
	}
	if !cc.PoorFit || cc.FitR2A >= 0.9 || cc.FitR2B >= 0.9 {
		t.Errorf("poor fits not flagged: R^2 %.3f and %.3f, poor %v", cc.FitR2A, cc.FitR2B, cc.PoorFit)
	}
	var buf bytes.Buffer
	if err := CompareCurves(&buf, a, b, CurveOptions{}); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(buf.String()), " ")
	for _, want := range []string{"fit R^2", fmt.Sprintf("warning: both fits are poor (R^2 %.2f and %.2f, below 0.9)", cc.FitR2A, cc.FitR2B), "the USL describes neither curve, so the shift of its parameters and peak says little"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Good fits: R^2 shown, no warning.
	good := synthetic("good", threads, 1e6, 0.05, 0.002, 6, 5)
	buf.Reset()
	if err := CompareCurves(&buf, good, synthetic("good2", threads, 1.2e6, 0.05, 0.002, 6, 6), CurveOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "fit R^2") || strings.Contains(out, "poor") {
		t.Errorf("good fits:\n%s", out)
	}
}
