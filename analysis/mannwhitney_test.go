package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestMannWhitneyMinP(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		alt    Alternative
		want   float64
	}{
		{3, 3, TwoSided, 0.1},
		{4, 4, TwoSided, 2.0 / 70},
		{4, 4, Greater, 1.0 / 70},
		{5, 5, TwoSided, 2.0 / 252},
		{1, 1, TwoSided, 1},
		{2, 3, TwoSided, 0.2},
		{0, 3, TwoSided, 1},
	} {
		checkClose(t, "MannWhitneyMinP", MannWhitneyMinP(c.n1, c.n2, c.alt), c.want, 1e-12, 0)
	}
	if CanReachSignificance(3, 3, 0.05) || !CanReachSignificance(4, 4, 0.05) {
		t.Errorf("CanReachSignificance: 3+3 must not and 4+4 must reach 0.05")
	}
	if !CanReachSignificance(4, 4, 2.0/70) {
		t.Errorf("CanReachSignificance(4, 4, 2/70) = false, want true (boundary)")
	}
	for alpha, want := range map[float64]int{0.05: 4, 0.01: 5, 0.1: 3, 0.001: 7} {
		if got := MinRunsForSignificance(alpha); got != want {
			t.Errorf("MinRunsForSignificance(%g) = %d, want %d", alpha, got, want)
		}
	}
}

// TestMannWhitneyExactSmall checks the exact distribution against complete
// enumeration for small sizes.
func TestMannWhitneyExactSmall(t *testing.T) {
	for n1 := 1; n1 <= 6; n1++ {
		for n2 := 1; n2 <= 6; n2++ {
			counts := make([]float64, n1*n2+1)
			total := 0.0
			// Each subset of positions 0..n1+n2-1 of size n2 holds B; U
			// counts pairs with b above a.
			for mask := 0; mask < 1<<(n1+n2); mask++ {
				if popcount(mask) != n2 {
					continue
				}
				u, as := 0, 0
				for i := 0; i < n1+n2; i++ {
					if mask&(1<<i) != 0 {
						u += as
					} else {
						as++
					}
				}
				counts[u]++
				total++
			}
			cdf := mwExactCDF(n1, n2)
			acc := 0.0
			for u := range counts {
				acc += counts[u]
				checkClose(t, "cdf", cdf[u], acc/total, 1e-14, 1e-15)
			}
		}
	}
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestMannWhitneyBasic(t *testing.T) {
	a := []float64{1, 2, 3, 4}
	b := []float64{5, 6, 7, 8}
	r, err := MannWhitney(a, b, TwoSided)
	if err != nil {
		t.Fatal(err)
	}
	if r.U != 16 || r.Method != MWExact || r.Ties || !math.IsNaN(r.Z) {
		t.Errorf("got %+v, want U=16 exact without ties", r)
	}
	checkClose(t, "P", r.P, 2.0/70, 1e-12, 0)
	r, _ = MannWhitney(b, a, TwoSided)
	checkClose(t, "P reversed", r.P, 2.0/70, 1e-12, 0)
	if r.U != 0 {
		t.Errorf("U reversed = %v, want 0", r.U)
	}
	r, _ = MannWhitney(a, b, Greater)
	checkClose(t, "P greater", r.P, 1.0/70, 1e-12, 0)
	r, _ = MannWhitney(a, b, Less)
	checkClose(t, "P less", r.P, 1, 1e-12, 0)

	// Ties switch to the normal approximation.
	r, _ = MannWhitney([]float64{1, 2, 2}, []float64{2, 3, 4}, TwoSided)
	if r.Method != MWNormal || !r.Ties {
		t.Errorf("with ties got method %v ties %v", r.Method, r.Ties)
	}
	r, _ = MannWhitneyMethod([]float64{1, 2, 2}, []float64{2, 3, 4}, TwoSided, MWExact)
	if r.Method != MWNormal || len(r.Warnings) == 0 {
		t.Errorf("forced exact with ties: method %v warnings %q", r.Method, r.Warnings)
	}
	// All equal: p = 1.
	r, _ = MannWhitney([]float64{3, 3, 3}, []float64{3, 3}, TwoSided)
	if r.P != 1 || r.U != 3 {
		t.Errorf("all equal: P = %v U = %v, want 1 and 3", r.P, r.U)
	}
}

func TestMannWhitneyBadInput(t *testing.T) {
	if _, err := MannWhitney(nil, []float64{1}, TwoSided); !errors.Is(err, ErrNoData) {
		t.Errorf("empty A: err = %v, want ErrNoData", err)
	}
	if _, err := MannWhitney([]float64{1}, []float64{}, TwoSided); !errors.Is(err, ErrNoData) {
		t.Errorf("empty B: err = %v, want ErrNoData", err)
	}
	_, err := MannWhitney([]float64{1, math.NaN()}, []float64{1}, TwoSided)
	if err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN: err = %v, want one naming NaN", err)
	}
	if _, err := MannWhitney([]float64{1}, []float64{math.Inf(-1)}, TwoSided); err == nil {
		t.Errorf("-Inf: no error")
	}
}
