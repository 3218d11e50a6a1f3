package workload

import (
	"math"
	"strings"
	"testing"

	"contend/analysis"
	"contend/bind"
)

func TestOsimOriginalArithmetic(t *testing.T) {
	// Mike Galbraith's first run (seed mail 002): 12.296215 s for
	// 1000192 loops printed as 12.293 usec per loop (truncated).
	v, err := Osim.Resolve(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	s := Sample{Metrics: map[string]float64{"time": 12296215999, "loops": 1000192, "loops_per_task": 3907}}
	want := []string{
		"osim <sems> <tasks> <loops> <busy-in> <busy-out>",
		"osim: using a semaphore array with 64 semaphores.",
		"osim: using 256 tasks.",
		"osim: each thread loops 3907 times",
		"osim: each thread busyloops 0 loops outside and 0 loops inside.",
		"total execution time: 12.296215 seconds for 1000192 loops",
		"per loop execution time: 12.293 usec",
	}
	if got := Osim.Original(v, s, nil); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := osimPerLoopOrig(12296215999, 1000192); got != 12293 {
		t.Errorf("per_loop_orig %d, want 12293", got)
	}
	// Leading zeros of the millisecond and microsecond groups.
	v2 := v.Clone()
	v2["busy-in"], v2["busy-out"] = "7", "9"
	got := Osim.Original(v2, Sample{Metrics: map[string]float64{"time": 1002003000, "loops": 1000, "loops_per_task": 4}}, nil)
	if got[4] != "osim: each thread busyloops 9 loops outside and 7 loops inside." ||
		got[5] != "total execution time: 1.002003 seconds for 1000 loops" || got[6] != "per loop execution time: 1002.003 usec" {
		t.Errorf("got %q", got[4:])
	}
}

func TestOsimTimeoutGrowsWithLoops(t *testing.T) {
	v, _ := Osim.Resolve(map[string]string{})
	small, _ := Osim.Resolve(map[string]string{"loops": "1000", "tasks": "4"})
	if Osim.Timeout(v) <= Osim.Timeout(small) || Osim.Timeout(small) < 60e9 {
		t.Errorf("timeouts %v (defaults) and %v (small)", Osim.Timeout(v), Osim.Timeout(small))
	}
}

func TestSemopMultiOriginalArithmetic(t *testing.T) {
	// Mike Galbraith's second run: 33344598 operations in 30 s printed
	// as ops/sec 1111486 (truncated, not rounded).
	if got := nominalRate(33344598, 30e9); got != 1111486 {
		t.Errorf("nominal rate %d, want 1111486", got)
	}
	if got := nominalRate(1001, 500e6); got != 2002 {
		t.Errorf("nominal rate over 0.5 s %d, want 2002", got)
	}
	v, err := SemopMulti.Resolve(map[string]string{"threads": "256", "sems": "64"})
	if err != nil {
		t.Fatal(err)
	}
	got := SemopMulti.Original(v, Sample{Metrics: map[string]float64{"ops": 33344598, "ops_per_sec": 1111486, "cpus": 64}}, nil)
	want := "cpus 64, threads: 256, semaphores: 64, test duration: 30 secs\ntotal operations: 33344598, ops/sec 1111486"
	if strings.Join(got, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	v["duration"] = "1500000000"
	if got := SemopMulti.Original(v, Sample{Metrics: map[string]float64{"cpus": 2}}, nil); !strings.HasSuffix(got[0], "test duration: 1.5 secs") {
		t.Errorf("sub-second duration printed as %q", got[0])
	}
}

func TestSemopMultiDefaults(t *testing.T) {
	v, err := SemopMulti.Resolve(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	cpus := int64(onlineCPUs())
	p, err := Decode[bind.SemopMultiParams](v)
	if err != nil {
		t.Fatal(err)
	}
	if int64(p.Threads) != cpus || int64(p.Sems) != max(cpus/4, 1) || p.DurationNs != 30e9 || p.Pin.True() {
		t.Errorf("defaults %v on %d CPUs", v, cpus)
	}
}

func TestSemopFairness(t *testing.T) {
	for _, c := range []struct {
		xs          []float64
		jain, minMx float64
	}{
		{[]float64{10, 10, 10}, 1, 1},
		{[]float64{10, 0}, 0.5, 0},
		{[]float64{1, 3}, 16.0 / 20, 1.0 / 3},
		{nil, 0, 0},
		{[]float64{0, 0}, 0, 0},
	} {
		f := analysis.FairnessOf(c.xs)
		j, m := f.Jain, f.MinMax
		if math.Abs(j-c.jain) > 1e-12 || math.Abs(m-c.minMx) > 1e-12 {
			t.Errorf("fairness(%v) = %v, %v; want %v, %v", c.xs, j, m, c.jain, c.minMx)
		}
	}
}
