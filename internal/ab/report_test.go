package ab

import (
	"math"
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/report"
	"contend/internal/results"
)

// TestWriteReport: the report names each side with its settings, the
// order with its seed, compares B against A and, after an adaptive run,
// says why it stopped.
func TestWriteReport(t *testing.T) {
	f := &results.File{Kind: "ab", Workload: "w", Primary: "time", Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}},
		Configs: []results.Config{{Name: "a", Env: map[string]string{"prepare": "echo a"}}, {Name: "b", Env: map[string]string{"evidence": "none"}}}}
	for i := 0; i < 12; i++ {
		v := 100.0 + float64(i%6)
		if i%2 == 1 {
			v += 50
		}
		f.Reps = append(f.Reps, results.Rep{Index: i, Config: i % 2, Round: i / 2, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": v})})
	}
	var b strings.Builder
	seq, err := Sequential(0.05, 3, 6, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	d := &analysis.Decision{N: 6, NA: 6, NB: 6, Stop: true, NominalAlpha: seq.Levels[6], Reason: "reached the maximum of 6 pairs"}
	WriteReport(&b, f, Report{Order: OrderRandom, Seed: 3, Alpha: 0.05, Rule: seq, Decision: d})
	out := b.String()
	for _, want := range []string{"side A: ", "prepare 'echo a'", "side B: ", "evidence none", "order: random (seed 3)\n\n", "time", "adaptive stop: reached the maximum of 6 pairs"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	WriteReport(&b, f, Report{Order: OrderAB, Alpha: 0.05})
	if out := b.String(); strings.Contains(out, "seed") || strings.Contains(out, "adaptive stop") {
		t.Errorf("fixed ab run:\n%s", out)
	}
}

// TestWriteReportSaysFileWarningsOnce: the file's warnings are the run's,
// both sides': the report prints each once, as the file says it, at every
// detail, or not at all when the run printed them already (on stderr, as
// it started). They were printed again under side A's name ("warning: a:
// 8 threads on 2 online CPUs" when side A had 2 threads).
func TestWriteReportSaysFileWarningsOnce(t *testing.T) {
	a := []float64{100, 101, 102, 103, 104, 105}
	f := abFileOf(a, a)
	f.Warnings = []string{"load average 3.10 on 2 CPUs: other work is running", "side B: 8 threads on 2 online CPUs: the run is oversubscribed"}
	for _, d := range []report.Detail{report.Brief, report.BriefAll, report.Full} {
		for _, shown := range []bool{false, true} {
			var b strings.Builder
			WriteReport(&b, f, Report{Order: OrderAB, Alpha: 0.05, Detail: d, WarningsShown: shown})
			out := b.String()
			for _, x := range f.Warnings {
				want := 1
				if shown {
					want = 0
				}
				if n := strings.Count(out, x); n != want || strings.Contains(out, "a: "+x) {
					t.Errorf("detail %d, shown %v: %q %d times (want %d), or under a:\n%s", d, shown, x, n, want, out)
				}
			}
		}
	}
}

// pairsFileOf is an A/B file of pairs (a[i], b[i]) in round i, A first.
func pairsFileOf(a, b []float64) *results.File {
	f := &results.File{Kind: "ab", Workload: "w", Primary: "time", Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}},
		Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
	for i := range a {
		f.Reps = append(f.Reps, results.Rep{Index: 2 * i, Config: 0, Round: i, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": a[i]})},
			results.Rep{Index: 2*i + 1, Config: 1, Round: i, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": b[i]})})
	}
	return f
}

// TestReportPairs checks the A/B report's test within pairs (issue 38):
// the differences of each round (a failed side and warm-ups left out),
// the signed-rank p-value of them, what the order lets it claim, and the
// warning when it and the headline's U test disagree: here every pair
// is +1 ns slower on B while the sides spread over 90 ns, so the U test
// sees nothing (SciPy: p 0.73 without the round whose B failed) and the
// pairs see all ten (exact p 2/1024, scipy.stats.wilcoxon 0.001953125).
func TestReportPairs(t *testing.T) {
	a := []float64{100, 110, 120, 130, 140, 150, 160, 170, 180, 190}
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[i] + 1
	}
	f := pairsFileOf(a, b)
	f.Reps = append(f.Reps, results.Rep{Index: 20, Config: 0, Round: 10, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": 1})},
		results.Rep{Index: 21, Config: 1, Round: 10, Status: results.StatusFailed},
		results.Rep{Index: 22, Config: 0, Round: 0, Warmup: true, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": 1})})
	d, rel := f.PairDiffs("time")
	if len(d) != 10 || !rel {
		t.Fatalf("PairDiffs: %d differences (rel %v), want the 10 complete rounds", len(d), rel)
	}
	for i, x := range d {
		if want := math.Log(b[i] / a[i]); math.Abs(x-want) > 1e-15 {
			t.Errorf("difference %d: %g, want ln(b/a) %g", i, x, want)
		}
	}
	var out strings.Builder
	WriteReport(&out, f, Report{Order: OrderAB, Alpha: 0.05})
	s := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"within pairs: time: B against A in each of 10 pairs, HL +0.7%, p=0.002 (Wilcoxon signed-rank); with --order random it would hold",
		"and the pairs (p=0.002) disagree at alpha 0.05: the machine may have changed in step with the order of the sides",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	WriteReport(&out, f, Report{Order: OrderRandom, Seed: 1, Alpha: 0.05})
	if s := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(s, "the sides' order was drawn in each pair, so this p-value holds whatever the machine did between pairs") {
		t.Errorf("order random:\n%s", out.String())
	}
	// Values <= 0: differences b - a.
	if d, rel := pairsFileOf([]float64{0, 1}, []float64{2, 4}).PairDiffs("time"); rel || len(d) != 2 || d[0] != 2 || d[1] != 3 {
		t.Errorf("PairDiffs with a 0: %v (rel %v), want [2 3]", d, rel)
	}
}
