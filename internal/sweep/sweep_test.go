package sweep

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"contend/internal/results"
	"contend/internal/workload"
)

var (
	threadsP = workload.Param{Name: "threads", Kind: workload.Int, Min: 1, Max: 1 << 22, Unit: "threads"}
	memP     = workload.Param{Name: "mem", Kind: workload.Size, Min: 1, Max: 1 << 40, Unit: "bytes"}
	durP     = workload.Param{Name: "duration", Kind: workload.Duration, Min: int64(time.Millisecond), Max: int64(time.Hour)}
	thpP     = workload.Param{Name: "thp", Kind: workload.Enum, Choices: []string{"leave", "never", "huge"}}
)

func TestParseListGood(t *testing.T) {
	cases := []struct {
		p    workload.Param
		in   string
		want string
	}{
		{threadsP, "1,2,4,8", "1 2 4 8"},
		{threadsP, "4", "4"},
		{threadsP, " 8 , 1 ", "8 1"},
		{threadsP, "1..64x2", "1 2 4 8 16 32 64"},
		{threadsP, "1..100x2", "1 2 4 8 16 32 64"},
		{threadsP, "3..30x3", "3 9 27"},
		{threadsP, "1..10x1.5", "1 2 3 5 8"}, // 1, 1.5, 2.25, 3.4, 5.1, 7.6: rounded, repeats dropped
		{threadsP, "10..100+10", "10 20 30 40 50 60 70 80 90 100"},
		{threadsP, "10..95+10", "10 20 30 40 50 60 70 80 90"},
		{threadsP, "5..5+1", "5"},
		{threadsP, "1,2..8+2,16", "1 2 4 6 8 16"},
		{memP, "1MiB..8MiBx2", "1048576 2097152 4194304 8388608"},
		{memP, "1MiB..3MiB+1MiB", "1048576 2097152 3145728"},
		{durP, "100ms..300ms+100ms", "100000000 200000000 300000000"},
		{durP, "1..3+1", "1000000000 2000000000 3000000000"},
		{thpP, "never,huge", "never huge"},
	}
	for _, c := range cases {
		got, err := ParseList(c.p, c.in)
		if err != nil {
			t.Errorf("%s %q: %v", c.p.Name, c.in, err)
			continue
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%s %q = %s, want %s", c.p.Name, c.in, s, c.want)
		}
	}
}

func TestParseListBad(t *testing.T) {
	cases := []struct {
		p    workload.Param
		in   string
		want string
	}{
		{threadsP, "", "empty list"},
		{threadsP, "1,,2", "empty item"},
		{threadsP, "0,1", "0 is out of range"},
		{threadsP, "1,2,2", "2 is given twice"},
		{threadsP, "1..8x2,4", "4 is given twice"},
		{threadsP, "1..8", "needs a step"},
		{threadsP, "8..1x2", "is reversed"}, {threadsP, "8..1", "is reversed: a range goes up, such as 1..8+1"},
		{threadsP, "1..8x1", "not a number above 1"},
		{threadsP, "1..8xq", "not a number above 1"},
		{threadsP, "1..8+0", "not a positive integer"},
		{threadsP, "1..8+-1", "not a positive integer"},
		{threadsP, "1..1000+1", "more than 256 values"},
		{threadsP, "1..2000x1.001", "more than 256 values"},
		{threadsP, "0..8+2", "0 is out of range"},
		{threadsP, "1..5000000x2", "out of range"},
		{threadsP, "a,b", `"a" is not an integer`},
		{memP, "1MiB..2TiBx2", "out of range"},
		{memP, "1MiB..4MiB+ten", "not a positive size"},
		{thpP, "never..huge+1", "a range needs a numeric parameter"},
		{thpP, "never,sometimes", "not a choice"},
	}
	for _, c := range cases {
		_, err := ParseList(c.p, c.in)
		if err == nil {
			t.Errorf("%s %q: no error", c.p.Name, c.in)
			continue
		}
		var ue *workload.UsageError
		if !asUsage(err, &ue) {
			t.Errorf("%s %q: %v is not a usage error", c.p.Name, c.in, err)
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--"+c.p.Name) {
			t.Errorf("%s %q: error %q lacks %q or the flag name", c.p.Name, c.in, err, c.want)
		}
	}
}

func asUsage(err error, ue **workload.UsageError) bool {
	u, ok := err.(*workload.UsageError)
	*ue = u
	return ok
}

func TestPlanRounds(t *testing.T) {
	const points, rounds, warmup = 5, 4, 1
	slots := Plan(points, rounds, warmup, OrderShuffled, 42)
	if len(slots) != points*(rounds+warmup) {
		t.Fatalf("%d slots, want %d", len(slots), points*(rounds+warmup))
	}
	var orders [][]int
	for r := -warmup; r < rounds; r++ {
		// Every round is one contiguous block holding every point once.
		block := slots[(r+warmup)*points : (r+warmup+1)*points]
		var cs []int
		for _, s := range block {
			if s.Round != r || s.Warmup != (r < 0) {
				t.Fatalf("round %d holds slot %+v", r, s)
			}
			cs = append(cs, s.Config)
		}
		orders = append(orders, slices.Clone(cs))
		slices.Sort(cs)
		if !slices.Equal(cs, []int{0, 1, 2, 3, 4}) {
			t.Fatalf("round %d runs %v, not every point once", r, cs)
		}
	}
	distinct := map[string]bool{}
	for _, o := range orders {
		distinct[fmt.Sprint(o)] = true
	}
	if len(distinct) < 2 {
		t.Errorf("shuffled rounds all have the same order %v", orders[0])
	}
	if again := Plan(points, rounds, warmup, OrderShuffled, 42); !slices.Equal(again, slots) {
		t.Error("the same seed gave another plan")
	}
	if other := Plan(points, rounds, warmup, OrderShuffled, 43); slices.Equal(other, slots) {
		t.Error("another seed gave the same plan")
	}
	fixed := Plan(3, 2, 0, OrderFixed, 99)
	var got []int
	for _, s := range fixed {
		got = append(got, s.Config)
	}
	if !slices.Equal(got, []int{0, 1, 2, 0, 1, 2}) {
		t.Errorf("fixed order %v", got)
	}
}

func TestPoints(t *testing.T) {
	base := workload.Values{"threads": "1", "mem": "4096"}
	pts := Points(base, []Axis{{memP, []string{"1048576", "2097152"}}, {threadsP, []string{"1", "2"}}})
	var names []string
	for _, p := range pts {
		names = append(names, p.Name)
	}
	want := "mem=1MiB threads=1|mem=1MiB threads=2|mem=2MiB threads=1|mem=2MiB threads=2"
	if strings.Join(names, "|") != want {
		t.Errorf("points %v", names)
	}
	if pts[3].Values["mem"] != "2097152" || pts[3].Values["threads"] != "2" || base["threads"] != "1" {
		t.Errorf("values %v, base %v", pts[3].Values, base)
	}
}

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
	for _, s := range Plan(len(threads), n, 0, OrderShuffled, int64(seed)) {
		N := float64(threads[s.Config])
		x := lambda * N / (1 + sigma*(N-1) + kappa*N*(N-1)) * math.Exp(0.02*rng.NormFloat64())
		pages := 65536.0
		f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: s.Config, Round: s.Round, Status: results.StatusOK,
			Metrics: map[string]float64{"time": pages / x * 1e9, "pages": pages, ThroughputName: x}})
	}
	return f
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
		f.Reps[i].Metrics[ThroughputName] = 1e6
		f.Reps[i].Metrics["time"] = 65536 / 1e6 * 1e9
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
