package ab

import (
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
