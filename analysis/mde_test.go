package analysis

import (
	"math"
	"testing"
)

func TestMinDetectableEffect(t *testing.T) {
	// 3+3 can never reach 0.05 with the U test.
	if m, ok := MinDetectableEffect(3, 3, 0.01, 0.05, 0.8, TestMannWhitney); ok || !math.IsNaN(m) {
		t.Errorf("3+3: %v %v, want NaN false", m, ok)
	}
	if _, ok := MinDetectableEffect(3, 3, 0.01, 0.05, 0.8, TestWelch); !ok {
		t.Errorf("Welch 3+3 should be possible")
	}
	if _, ok := MinDetectableEffect(1, 3, 0.01, 0.05, 0.8, TestWelch); ok {
		t.Errorf("Welch 1+3 should be impossible")
	}
	w, _ := MinDetectableEffect(20, 20, 0.02, 0.05, 0.8, TestWelch)
	u, _ := MinDetectableEffect(20, 20, 0.02, 0.05, 0.8, TestMannWhitney)
	checkClose(t, "U/Welch", u/w, math.Sqrt(math.Pi/3), 1e-12, 0)
	// Large n: the normal formula (1.95996 + 0.84162)·σ·sqrt(2/n).
	w, _ = MinDetectableEffect(100000, 100000, 0.02, 0.05, 0.8, TestWelch)
	checkClose(t, "large n", w, (1.959964+0.841621)*0.02*math.Sqrt(2.0/100000), 1e-5, 0)
	// Decreases with n, grows with noise.
	prev := math.Inf(1)
	for _, n := range []int{4, 5, 8, 10, 20, 50} {
		m, ok := MinDetectableEffect(n, n, 0.03, 0.05, 0.8, TestMannWhitney)
		if !ok || !(m < prev) {
			t.Errorf("n=%d: %v (previous %v)", n, m, prev)
		}
		prev = m
	}
	if _, ok := MinDetectableEffect(10, 10, math.NaN(), 0.05, 0.8, TestWelch); ok {
		t.Errorf("NaN noise accepted")
	}
	if !panics(func() { MinDetectableEffect(10, 10, 0.1, 0, 0.8, TestWelch) }) {
		t.Errorf("alpha 0 must panic")
	}
}
