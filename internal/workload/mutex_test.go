package workload

import (
	"math"
	"strings"
	"testing"

	"contend/analysis"
)

func TestBashTime(t *testing.T) {
	for ns, want := range map[float64]string{
		0:              "0m0.000s",
		24132e6:        "0m24.132s",
		78933999999:    "1m18.933s", // truncated, as bash does
		3600e9 + 1.5e9: "60m1.500s",
	} {
		if got := bashTime(ns); got != want {
			t.Errorf("bashTime(%v) = %q, want %q", ns, got, want)
		}
	}
}

// TestSysbenchPercentile checks against sysbench 1.0.20 on this machine:
// one event of 207.86 ms reported "95th percentile: 207.82".
func TestSysbenchPercentile(t *testing.T) {
	if got := sysbenchPercentile([]float64{207.86}, 95); math.Abs(got-207.82) > 0.005 {
		t.Errorf("got %.4f, want 207.82", got)
	}
	// Two events, 358.31 and 359.57 ms: sysbench printed 356.70.
	if got := sysbenchPercentile([]float64{358.31, 359.57}, 95); math.Abs(got-356.70) > 0.005 {
		t.Errorf("got %.4f, want 356.70", got)
	}
}

func TestFairness(t *testing.T) {
	f := analysis.FairnessOf([]float64{1, 2, 3, 4})
	avg, sd, lo, hi := f.Mean, f.PopStdDev, f.Min, f.Max
	if avg != 2.5 || math.Abs(sd-math.Sqrt(1.25)) > 1e-12 || lo != 1 || hi != 4 {
		t.Errorf("fairness = %v %v %v %v", avg, sd, lo, hi)
	}
	if z := analysis.FairnessOf(nil); z.Mean != 0 || z.PopStdDev != 0 || z.Min != 0 || z.Max != 0 {
		t.Errorf("fairness(nil) not zero")
	}
}

func TestOriginalSysbenchMutexLayout(t *testing.T) {
	v, err := SysbenchMutex.Resolve(map[string]string{"threads": "2"})
	if err != nil {
		t.Fatal(err)
	}
	s := Sample{
		Metrics: map[string]float64{"total_time": 359.7e6, "events": 2},
		Series:  map[string][]float64{"thread_time": {358.31e6, 359.57e6}},
	}
	got := strings.Join(SysbenchMutex.Original(v, s, nil), "\n")
	// The report block as sysbench 1.0.20 printed it for such a run.
	want := `General statistics:
    total time:                          0.3597s
    total number of events:              2

Latency (ms):
         min:                                  358.31
         avg:                                  358.94
         max:                                  359.57
         95th percentile:                      356.70
         sum:                                  717.88

Threads fairness:
    events (avg/stddev):           1.0000/0.00
    execution time (avg/stddev):   0.3589/0.00
`
	if !strings.Contains(got, want) {
		t.Errorf("report differs from sysbench's layout:\n%s\nwant:\n%s", got, want)
	}
}
