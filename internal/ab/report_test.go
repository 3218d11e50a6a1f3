package ab

import (
	"strings"
	"testing"

	"contend/analysis"
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
