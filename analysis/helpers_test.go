package analysis

import (
	"math"
	"testing"
)

// near reports whether got and want agree within the relative tolerance
// rel or the absolute tolerance abs (NaN matches NaN).
func near(got, want, rel, abs float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	d := math.Abs(got - want)
	return d <= abs || d <= rel*math.Abs(want)
}

func checkClose(t *testing.T, name string, got, want, rel, abs float64) {
	t.Helper()
	if !near(got, want, rel, abs) {
		t.Errorf("%s = %.17g, want %.17g (rel %g, abs %g)", name, got, want, rel, abs)
	}
}

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() {
		if recover() != nil {
			p = true
		}
	}()
	f()
	return false
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
