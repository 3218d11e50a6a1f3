package summary

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

func TestEquivalence(t *testing.T) {
	a := ramp(20, 100, 1)
	for _, c := range []struct {
		name   string
		a, b   []float64
		margin float64
		want   string
	}{
		{"same", a, ramp(20, 100.2, 1), 0.05, VerdictEquivalent},
		{"10% slower", a, ramp(20, 110, 1), 0.05, VerdictDifferent},
		{"10% faster", a, ramp(20, 90, 1), 0.05, VerdictDifferent},
		{"at the margin", a, ramp(20, 105, 1), 0.05, VerdictNotEquivalent},
		{"no runs", nil, a, 0.05, VerdictNone},
		{"too few", []float64{1}, []float64{1}, 0.05, VerdictNone},
	} {
		v := Equivalence(c.a, c.b, c.margin)
		if v.Kind != c.want || !strings.HasPrefix(v.Text, c.want) && c.want != VerdictNone {
			t.Errorf("%s: %+v, want %s", c.name, v, c.want)
		}
		if c.want == VerdictNone && v.Text == "" {
			t.Errorf("%s: no reason given", c.name)
		}
	}
}

// TestVerifyLeavesOutZeroEvidence: an evidence metric that is 0 in every
// repetition of both sides (a collector that recorded nothing: no lock
// events) is not a row of verify's table but counted once below it; it
// was a row of zeros, "0  0  -  -  1", per metric. A metric 0 on one side
// only, and a workload metric of zeros, stay.
func TestVerifyLeavesOutZeroEvidence(t *testing.T) {
	metrics := []results.Metric{
		{Name: "time", Unit: "ns", Better: "lower"},
		{Name: "majflt", Unit: "count"},
		{Name: "k.lock.mutex.count", Unit: "count"},
		{Name: "k.lock.mutex.wait", Unit: "ns"},
		{Name: "k.switches", Unit: "count"},
		{Name: "k.cpu_migrations", Unit: "count"},
	}
	f := file("faultme", metrics, []string{"contend", "original"}, map[string][][]float64{
		"time":               {{10, 11, 12, 10, 11, 12}, {10, 11, 12, 10, 11, 12}},
		"majflt":             {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
		"k.lock.mutex.count": {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
		"k.lock.mutex.wait":  {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
		"k.switches":         {{5, 6, 7, 5, 6, 7}, {3, 4, 5, 3, 4, 5}},
		"k.cpu_migrations":   {{0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}},
	})
	var b strings.Builder
	WriteVerify(&b, f, 0.05)
	out := b.String()
	for _, gone := range []string{"k.lock.mutex.count", "k.lock.mutex.wait"} {
		if strings.Contains(out, gone) {
			t.Errorf("a row of zeros for %s:\n%s", gone, out)
		}
	}
	for _, want := range []string{"\nk.switches ", "\nk.cpu_migrations ", "\nmajflt ", "\n2 more evidence metrics are 0 in every repetition on both sides: not shown\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	// One such metric: said in the singular.
	f.Metrics = metrics[:3]
	b.Reset()
	WriteVerify(&b, f, 0.05)
	if !strings.Contains(b.String(), "\n1 more evidence metric is 0 in every repetition on both sides") {
		t.Errorf("one zero metric:\n%s", b.String())
	}
}

// TestVerifyScaleOfZeroMedian: a row whose original median is 0 (a fast
// original's user time) is scaled by contend's median: "17.60 ms  0 ms",
// not "1.760e+07 ns  0 ns".
func TestVerifyScaleOfZeroMedian(t *testing.T) {
	metrics := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "user", Unit: "ns", Better: "lower"}}
	f := file("faultme", metrics, []string{"contend", "original"}, map[string][][]float64{
		"time": {{10, 11, 12}, {10, 11, 12}},
		"user": {{17.6e6, 17.6e6, 17.6e6}, {0, 0, 0}},
	})
	var b strings.Builder
	WriteVerify(&b, f, 0.05)
	if !strings.Contains(b.String(), "17.60 ms") || strings.Contains(b.String(), "e+07") {
		t.Errorf("user row not in ms:\n%s", b.String())
	}
}

// TestVerifyZerosNoRatioBelowZero: a metric of values >= 0 with zeros
// (majflt, a kernel counter) has no ratio interval; verify printed the
// shift over the original's median as one, with bounds below 0 (a ratio
// below 0 of counts). Now it prints the interval of the difference,
// marked and explained, and the equivalence verdict on such a primary
// metric says why there is none.
func TestVerifyZerosNoRatioBelowZero(t *testing.T) {
	metrics := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "majflt", Unit: "count"}}
	f := file("faultme", metrics, []string{"contend", "original"}, map[string][][]float64{
		"time":   {{10, 11, 12, 10, 11, 12}, {10, 11, 12, 10, 11, 12}},
		"majflt": {{0, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 2, 5}},
	})
	var b strings.Builder
	WriteVerify(&b, f, 0.05)
	out := b.String()
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "majflt ") {
			row = l
		}
	}
	if !strings.Contains(row, "[-4, +0]†") || !strings.Contains(out, "†: majflt had values of 0") {
		t.Errorf("majflt row %q:\n%s", row, out)
	}
	v := Equivalence([]float64{0, 0, 0, 1, 2, 5}, []float64{0, 0, 1, 0, 0, 0}, 0.05)
	if v.Kind != VerdictNone || !strings.Contains(v.Text, "no ratio is defined at 0") {
		t.Errorf("equivalence of counts with zeros: %+v", v)
	}
}

// TestVerifyWithinRounds: verify runs its sides in rounds (AB BA ...);
// while the machine slows by half over the run, contend is 2% above the
// original within every round. The two samples' verdict cannot decide
// at ±5%, the rounds' is EQUIVALENT with its estimate, and the report says
// the verdicts differ and what may have made them. Before, only the samples' verdict was
// printed.
func TestVerifyWithinRounds(t *testing.T) {
	f := &results.File{Kind: "verify", Workload: "mutex", Primary: "real",
		Metrics: []results.Metric{{Name: "real", Unit: "ns", Better: "lower"}},
		Configs: []results.Config{{Name: "contend"}, {Name: "original"}}}
	for i := range 20 {
		orig := 1e9 * (1 + 0.5*float64(i)/19)
		val := []float64{orig * 1.02 * (1 + 0.005*float64((i*7)%5-2)/2), orig} // by config
		first := i % 2                                                         // AB, then BA
		for j, c := range []int{first, 1 - first} {
			f.Reps = append(f.Reps, results.Rep{Index: 2*i + j, Config: c, Round: i, Status: results.StatusOK,
				Metrics: results.ValuesOf(map[string]float64{"real": val[c]})})
		}
	}
	var b strings.Builder
	WriteVerify(&b, f, 0.05)
	out := strings.Join(strings.Fields(b.String()), " ") // unwrapped
	for _, want := range []string{
		"verdict on real, margin ±5%: NOT SHOWN EQUIVALENT",
		"within rounds, real in each of 20 rounds: EQUIVALENT: the 90% CI of the ratio [1.019, 1.021] (estimate 1.020) is inside [0.950, 1.050]",
		"the verdicts differ: a change of the machine between rounds widens the first interval, not the rounds'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	// A round whose original failed is left out; 4 rounds are too few.
	f.Reps = f.Reps[:10]
	f.Reps[9].Status = results.StatusFailed
	b.Reset()
	WriteVerify(&b, f, 0.05)
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), "within rounds, real in each of 4 rounds: too few rounds for a 90% interval (have 4, need 5); raise -n") {
		t.Errorf("4 complete rounds:\n%s", b.String())
	}
}
