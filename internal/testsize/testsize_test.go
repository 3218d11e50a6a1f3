package testsize

import (
	"math"
	"testing"
)

// TestBinomialQuantile checks quantiles against scipy.stats.binom.ppf
// (q, n, p): the 99% quantiles of Binomial(300, 0.05) and (100, 0.05),
// the median of Binomial(10, 0.5) and its top.
func TestBinomialQuantile(t *testing.T) {
	for _, c := range []struct {
		n    int
		p, q float64
		want int
	}{{300, 0.05, 0.99, 24}, {100, 0.05, 0.99, 11}, {10, 0.5, 0.5, 5}, {10, 0.5, 1, 10}} {
		if got := BinomialQuantile(c.n, c.p, c.q); got != c.want {
			t.Errorf("BinomialQuantile(%d, %g, %g) = %d, want %d", c.n, c.p, c.q, got, c.want)
		}
	}
}

// TestPick checks both sizes and the tolerance of a rate.
func TestPick(t *testing.T) {
	t.Setenv(Env, "")
	if Full() || Pick(3, 30) != 3 {
		t.Errorf("without %s: Full %v, Pick(3, 30) = %d, want false and 3", Env, Full(), Pick(3, 30))
	}
	t.Setenv(Env, "1")
	if !Full() || Pick(3, 30) != 30 {
		t.Errorf("with %s=1: Full %v, Pick(3, 30) = %d, want true and 30", Env, Full(), Pick(3, 30))
	}
	if got := Tolerance(0.8, 1600, 2); math.Abs(got-0.02) > 1e-12 {
		t.Errorf("Tolerance(0.8, 1600, 2) = %v, want 0.02", got)
	}
}
