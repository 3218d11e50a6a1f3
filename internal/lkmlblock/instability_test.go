package lkmlblock

import (
	"bytes"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestABBlockSaysUnstable checks that the robot's block of an A/B run
// whose side A varies by 46% (stdev over mean; numpy:
// x.std(ddof=1)/x.mean() = 0.4623) at a load of 3.5 on 2 CPUs says so,
// not only the text report's warning at the bottom.
func TestABBlockSaysUnstable(t *testing.T) {
	f := &results.File{Format: results.FormatName, Version: 1, Workload: "mutex", Kind: "ab", Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}},
		Configs: []results.Config{{Name: "a"}, {Name: "b"}}, Env: map[string]string{"cpu.online": "2"}}
	a := []float64{5e9, 10e9, 15e9, 5.5e9, 10.5e9, 16e9, 4.5e9, 9.5e9}
	b := []float64{20e9, 20.1e9, 19.9e9, 20.05e9, 19.95e9, 20.02e9, 20.01e9, 19.98e9}
	for i := range a {
		for c, v := range []float64{a[i], b[i]} {
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: c, Round: i, Status: results.StatusOK,
				LoadAvg: 1 + 0.5*float64(i)/2, Metrics: results.ValuesOf(map[string]float64{"time": v})})
		}
	}
	var out bytes.Buffer
	if err := WriteAB(&out, f, 0.05); err != nil {
		t.Fatal(err)
	}
	want := "the headline is unstable: CV 46% on A, load 2.8 on 2 CPUs; check with an A/A, ab --aa"
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), want) {
		t.Errorf("the block does not say %q:\n%s", want, out.String())
	}
}
