package ab

import (
	"strings"
	"testing"

	"contend/internal/results"
)

// ramp returns n values around center, spread by ±spread, in shuffled
// (not monotonic) order.
func ramp(n int, center, spread float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		j := (i * 7) % n
		xs[i] = center + spread*(2*float64(j)/float64(n-1)-1)
	}
	return xs
}

func TestDriftWarnings(t *testing.T) {
	f := &results.File{Primary: "time", Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
	flat := ramp(12, 100, 1)
	for i := 0; i < 12; i++ {
		f.Reps = append(f.Reps,
			results.Rep{Config: 0, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": flat[i]})},
			results.Rep{Config: 1, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": 100 + float64(i)})})
	}
	d := driftWarnings(f, 0.05)
	if len(d) != 1 || !strings.HasPrefix(d[0], "side B drifts over run order (time, Mann-Kendall tau 1.00") {
		t.Errorf("Drift = %q, want side B only, tau 1", d)
	}
	if d := driftWarnings(&results.File{Primary: "time", Configs: f.Configs, Reps: f.Reps[:6]}, 0.05); len(d) != 0 {
		t.Errorf("Drift with 3 repetitions per side = %q, want none (needs 4)", d)
	}
}
