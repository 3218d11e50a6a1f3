package analysis

import "math"

// UnstableCV is the dispersion above which a sample is called unstable:
// its standard deviation above 10% of its mean, pyperf's threshold for
// its "benchmark unstable" warning. contend's end-of-run warning and the
// headline's note use it.
const UnstableCV = 0.10

// CV is the coefficient of variation of xs: the sample standard deviation
// (n-1) over the absolute mean; NaN with fewer than 2 values, a mean of
// 0 or a value not finite.
func CV(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	// Scaled by the largest |x|, so that values near the largest float
	// do not overflow the sums.
	m := 0.0
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return math.NaN()
	}
	mean := 0.0
	for _, x := range xs {
		mean += x / m
	}
	mean /= float64(len(xs))
	if mean == 0 {
		return math.NaN()
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x/m - mean) * (x/m - mean)
	}
	return math.Sqrt(ss/float64(len(xs)-1)) / math.Abs(mean)
}
