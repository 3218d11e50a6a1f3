package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// A Test names the hypothesis test of a Comparison.
type Test int

const (
	// TestMannWhitney is the Mann-Whitney U test (medians, no
	// distributional assumption). It is the default.
	TestMannWhitney Test = iota
	// TestWelch is Welch's t-test (means, assumes near-normal means).
	TestWelch
)

// String returns "Mann-Whitney U" or "Welch t".
func (t Test) String() string {
	switch t {
	case TestMannWhitney:
		return "Mann-Whitney U"
	case TestWelch:
		return "Welch t"
	}
	return fmt.Sprintf("Test(%d)", int(t))
}

// CanTestReach tells whether test with n1 and n2 values can produce a
// two-sided p-value at or below alpha at all. For TestMannWhitney this is
// CanReachSignificance; Welch's t-test needs at least 2 values per sample.
func CanTestReach(test Test, n1, n2 int, alpha float64) bool {
	if test == TestWelch {
		return n1 >= 2 && n2 >= 2
	}
	return CanReachSignificance(n1, n2, alpha)
}

// MinDetectableEffect returns the smallest relative change that test,
// two-sided at level alpha with n1 and n2 values, detects with probability
// power, given the relative noise of one value (its standard deviation
// divided by the median, e.g. a coefficient of variation):
//
//	MDE = (t_{1-alpha/2, ν} + t_{power, ν}) · noise · sqrt(1/n1 + 1/n2) / sqrt(e),
//
// with ν = n1+n2-2 and e the asymptotic relative efficiency of the test
// against the t-test under normal noise: 1 for TestWelch and 3/π ≈ 0.955
// for TestMannWhitney. This is the normal-theory sample-size formula with
// t quantiles in place of normal ones for small samples; it is a planning
// guide, not an exact power calculation.
//
// ok is false and the MDE is NaN when the test can never reach alpha with
// n1 and n2 values (too few runs to tell), or when noise is negative, NaN
// or infinite.
func MinDetectableEffect(n1, n2 int, noise, alpha, power float64, test Test) (mde float64, ok bool) {
	checkLevel("alpha", alpha)
	checkLevel("power", power)
	if !CanTestReach(test, n1, n2, alpha) || n1+n2 < 3 || !(noise >= 0) || math.IsInf(noise, 0) {
		return math.NaN(), false
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n1 + n2 - 2)}
	e := 1.0
	if test == TestMannWhitney {
		e = 3 / math.Pi
	}
	z := t.Quantile(1-alpha/2) + t.Quantile(power)
	return z * noise * math.Sqrt(1/float64(n1)+1/float64(n2)) / math.Sqrt(e), true
}
