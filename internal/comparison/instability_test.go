package comparison

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"contend/internal/results"
)

// TestInstabilityFromColumns checks Instability on a file read as
// columns (compare reads so): the CV of each side's headline metric
// against numpy's (x.std(ddof=1)/x.mean()), the highest load of a
// measured repetition (a warm-up's higher load left out) against the
// online CPUs.
func TestInstabilityFromColumns(t *testing.T) {
	f := &results.File{Format: results.FormatName, Version: 1, Workload: "w", Kind: "ab", Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}},
		Configs: []results.Config{{Name: "a"}, {Name: "b"}}, Env: map[string]string{"cpu.online": "4"}}
	a := []float64{10, 12, 14, 16}
	b := []float64{10, 10.1, 10.2, 10.3}
	f.Reps = append(f.Reps, results.Rep{Index: 0, Config: 0, Warmup: true, Status: results.StatusOK, LoadAvg: 9, Metrics: results.ValuesOf(map[string]float64{"time": 1})})
	for i := range a {
		for c, v := range []float64{a[i], b[i]} {
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: c, Round: i, Status: results.StatusOK,
				LoadAvg: 3 + float64(i)/2, Metrics: results.ValuesOf(map[string]float64{"time": v})})
		}
	}
	data, err := results.MarshalLines(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ab.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := results.Read(path, results.AsColumns)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]Side{FileSide("a", g, 0), FileSide("b", g, 1)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := r.Pairs[0].Instability
	// numpy: [10,12,14,16] -> 0.19861453057473932; [10,10.1,10.2,10.3] -> 0.012719157130402049
	if math.Abs(in.CV[0]-0.19861453057473932) > 1e-12 || math.Abs(in.CV[1]-0.012719157130402049) > 1e-12 || !in.Unstable[0] || in.Unstable[1] {
		t.Errorf("CV %v unstable %v", in.CV, in.Unstable)
	}
	if in.Load != 4.5 || in.CPUs != 4 || !in.Loaded || !in.Any() {
		t.Errorf("load %g on %d CPUs (loaded %v), want 4.5 on 4, loaded", in.Load, in.CPUs, in.Loaded)
	}
}
