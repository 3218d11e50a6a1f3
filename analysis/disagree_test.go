package analysis

import (
	"strings"
	"testing"
)

// TestNoDisagreementOnConstantChange checks that an exact constant change
// (the median change equal to both ends of a degenerate interval, up to the
// rounding of the log scale the interval is computed on) is no
// disagreement, and that a real one still is.
func TestNoDisagreementOnConstantChange(t *testing.T) {
	rep := func(v float64, n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	for _, c := range []struct{ a, b float64 }{{4096, 6144}, {2048, 8192}, {3, 7}, {1e9, 1.1e9}, {0.1, 0.3}} {
		for _, test := range []Test{TestMannWhitney, TestWelch} {
			cmp, err := Compare(rep(c.a, 5), rep(c.b, 5), CompareOptions{Test: test})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Disagreement(); d != "" {
				t.Errorf("%v -> %v (%v): change %v, interval [%v, %v]: %q", c.a, c.b, test, cmp.Change, cmp.ChangeLo, cmp.ChangeHi, d)
			}
			for _, w := range cmp.Warnings {
				if strings.Contains(w, "differ in shape") {
					t.Errorf("%v -> %v: warning %q", c.a, c.b, w)
				}
			}
		}
	}
	// Bimodal samples whose medians part: still a disagreement.
	a := []float64{1, 1, 1, 1, 1, 1, 1, 10, 10, 10, 10, 10, 10, 10, 10}
	b := []float64{1, 1, 1, 1, 1, 1, 1, 1, 10, 10, 10, 10, 10, 10, 10}
	cmp, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Disagreement(); !strings.Contains(d, "differ in shape") {
		t.Errorf("bimodal: change %v, interval [%v, %v]: no disagreement", cmp.Change, cmp.ChangeLo, cmp.ChangeHi)
	}
}
