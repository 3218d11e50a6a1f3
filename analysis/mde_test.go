package analysis

import (
	"fmt"
	"math"
	"testing"
)

func TestMinDetectableShift(t *testing.T) {
	// 3+3 can never reach 0.05 with the U test.
	if m, ok := MinDetectableShift(3, 3, 0.05, 0.8, TestMannWhitney); ok || !math.IsNaN(m) {
		t.Errorf("3+3: %v %v, want NaN false", m, ok)
	}
	if _, ok := MinDetectableShift(3, 3, 0.05, 0.8, TestWelch); !ok {
		t.Errorf("Welch 3+3 should be possible")
	}
	if _, ok := MinDetectableShift(1, 3, 0.05, 0.8, TestWelch); ok {
		t.Errorf("Welch 1+3 should be impossible")
	}
	// 4+4 at 0.05 can only reject complete separation (p = 0.0286), with
	// power 0.8 from some shift on; at 0.05/3 it cannot reject at all.
	if _, ok := MinDetectableShift(4, 4, 0.05, 0.8, TestMannWhitney); !ok {
		t.Errorf("4+4 at 0.05 should detect a large shift")
	}
	if _, ok := MinDetectableShift(4, 4, 0.05/3, 0.8, TestMannWhitney); ok {
		t.Errorf("4+4 at 0.0167 cannot reject")
	}
	// Large n: the normal formula (1.95996 + 0.84162)·sqrt(2/n) for
	// Welch, and Noether's for the U test, about sqrt(π/3) times larger.
	w, _ := MinDetectableShift(100000, 100000, 0.05, 0.8, TestWelch)
	checkClose(t, "large n Welch", w, (1.959964+0.841621)*math.Sqrt(2.0/100000), 1e-5, 0)
	u, _ := MinDetectableShift(100000, 100000, 0.05, 0.8, TestMannWhitney)
	checkClose(t, "large n U/Welch", u/w, math.Sqrt(math.Pi/3), 1e-3, 0)
	// Decreases with n, grows with the family (smaller alpha).
	prev := math.Inf(1)
	for _, n := range []int{4, 5, 8, 10, 20, 50, 60} {
		m, ok := MinDetectableShift(n, n, 0.05, 0.8, TestMannWhitney)
		m3, _ := MinDetectableShift(n, n, 0.05/3, 0.8, TestMannWhitney)
		if !ok || !(m < prev) || (n >= 5 && !(m3 > m)) {
			t.Errorf("n=%d: %v (previous %v, family of 3 %v)", n, m, prev, m3)
		}
		prev = m
	}
	if !panics(func() { MinDetectableShift(10, 10, 0, 0.8, TestWelch) }) {
		t.Errorf("alpha 0 must panic")
	}
}

// TestMinDetectableChangeAsymmetric checks the figures of issue 18: on the
// log scale an increase must be larger than a decrease (+14.5%/-12.7% by
// the old normal formula at n=10, sigma 0.1), and the change comes from
// the samples' log noise, inflated by NoiseInflation for 18 degrees of
// freedom (the noise is an estimate).
func TestMinDetectableChangeAsymmetric(t *testing.T) {
	a := make([]float64, 10)
	b := make([]float64, 10)
	for i := range a {
		// Logs at ±0.1: pooled SD of the logs 0.1·sqrt(10/9).
		s := 0.1
		if i%2 == 1 {
			s = -0.1
		}
		a[i] = 100 * math.Exp(s)
		b[i] = 90 * math.Exp(s)
	}
	up, down, ok := MinDetectableChange(a, b, 0.05, 0.8, TestMannWhitney)
	if !ok {
		t.Fatal("not ok")
	}
	delta, _ := MinDetectableShift(10, 10, 0.05, 0.8, TestMannWhitney)
	sd := 0.1 * math.Sqrt(10.0/9) * NoiseInflation(18, 0.05, 0.8)
	checkClose(t, "up", up, math.Expm1(delta*sd), 1e-12, 0)
	checkClose(t, "down", down, -math.Expm1(-delta*sd), 1e-12, 0)
	if !(up > down) {
		t.Errorf("up %v <= down %v", up, down)
	}
	// Values that are not all positive: an additive change, symmetric.
	a[0] = -1
	up, down, ok = MinDetectableChange(a, b, 0.05, 0.8, TestMannWhitney)
	if !ok || up != down {
		t.Errorf("not all positive: %v %v %v", up, down, ok)
	}
	// Welch: scaled noise, also asymmetric.
	a[0] = 100 * math.Exp(0.1)
	up, down, ok = MinDetectableChange(a, b, 0.05, 0.8, TestWelch)
	if !ok || !(up > down) {
		t.Errorf("Welch: %v %v %v", up, down, ok)
	}
	if _, _, ok := MinDetectableChange(a[:1], b[:1], 0.05, 0.8, TestWelch); ok {
		t.Errorf("1+1 accepted")
	}
}

// TestMDEHolmFamily checks that a comparison adjusted in a family of 3
// reports a larger MDE than alone: a single change must reach alpha/3.
func TestMDEHolmFamily(t *testing.T) {
	// NoiseInflation: 1 for no degrees of freedom, above 1 and shrinking
	// towards 1 as they grow.
	if m := NoiseInflation(0, 0.05, 0.8); m != 1 {
		t.Errorf("NoiseInflation(0) = %v, want 1", m)
	}
	prev := math.Inf(1)
	for _, df := range []int{2, 6, 10, 18, 38, 100, 1000} {
		m := NoiseInflation(df, 0.05, 0.8)
		if !(m > 1 && m < prev) {
			t.Errorf("NoiseInflation(%d) = %v (previous %v)", df, m, prev)
		}
		prev = m
	}
	if prev > 1.01 {
		t.Errorf("NoiseInflation(1000) = %v, want near 1", prev)
	}
	// Reference: SciPy, brentq over stats.chi2.expect of the same
	// integrand (alpha 0.05, power 0.8).
	for df, want := range map[int]float64{6: 1.15594630462014, 10: 1.0895426114211821, 18: 1.048331667884615} {
		checkClose(t, fmt.Sprintf("NoiseInflation(%d)", df), NoiseInflation(df, 0.05, 0.8), want, 1e-3, 0)
	}
	a := []float64{100, 103, 98, 101, 99, 102, 97, 100.5, 99.5, 101.5}
	b := []float64{101, 99, 102, 98, 103, 100, 97.5, 101.5, 99, 100.5}
	var cs []*Comparison
	for range 3 {
		c, err := Compare(a, b, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, &c)
	}
	alone := *cs[0]
	if err := AdjustHolm(cs); err != nil {
		t.Fatal(err)
	}
	want, wantDown, _ := MinDetectableChange(a, b, 0.05/3, 0.8, TestMannWhitney)
	if !(cs[0].MDEUp > alone.MDEUp) || cs[0].MDEUp != want || cs[0].MDEDown != wantDown || cs[0].MDE != math.Max(want, wantDown) {
		t.Errorf("family of 3: up %v down %v (alone %v), want %v %v", cs[0].MDEUp, cs[0].MDEDown, alone.MDEUp, want, wantDown)
	}
}

// TestMDEWelchHugeNoise checks that Welch's MDE with noise that grows with
// the change is +Inf, not NaN, when no increase reaches the power.
func TestMDEWelchHugeNoise(t *testing.T) {
	up, down, ok := changeFromNoise(8, 10, 3, noiseCV, 0.05, 0.8, TestWelch)
	if !ok || !math.IsInf(up, 1) || math.IsNaN(down) {
		t.Errorf("CV 3: up %v down %v ok %v, want +Inf and a number", up, down, ok)
	}
}
