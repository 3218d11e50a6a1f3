package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ErrNoData is returned when a statistic needs at least one value.
var ErrNoData = errors.New("analysis: no values")

// Summary describes one sample: the repetitions of one configuration for one
// metric. All location fields are in the unit of the input values.
type Summary struct {
	N      int     // number of values
	Median float64 // textbook median: middle value, or mean of the two middle values
	Mean   float64
	StdDev float64 // sample standard deviation (n-1 denominator); 0 when N < 2
	CV     float64 // coefficient of variation StdDev/|Mean|; NaN when Mean is 0
	Min    float64
	Max    float64
	Q1     float64 // first quartile (linear interpolation, type 7 as in R and NumPy)
	Q3     float64 // third quartile (type 7)

	// Confidence is the requested coverage of [MedianLo, MedianHi], in [0,1].
	Confidence float64
	// HasCI tells whether the sample is large enough for a distribution-free
	// interval of the median at Confidence. When false MedianLo and MedianHi
	// are NaN and Warnings says why.
	HasCI bool
	// MedianLo and MedianHi bound the median: order statistics x(l) and x(u)
	// chosen from the Binomial(N, 1/2) distribution so that the coverage is at
	// least Confidence. Coverage is the exact coverage achieved.
	MedianLo, MedianHi float64
	Coverage           float64

	// Warnings lists conditions that weaken the summary without making it
	// wrong.
	Warnings []string
}

// CheckFinite returns an error naming the first NaN or infinite value in xs.
func CheckFinite(xs []float64) error {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("analysis: value %d is %v: only finite numbers can be summarised", i, x)
		}
	}
	return nil
}

// Sorted returns a sorted copy of xs.
func Sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sortFloats(s)
	return s
}

// Median returns the textbook median of xs: the middle value of the sorted
// values, or the mean of the two middle values when len(xs) is even. It is
// not gonum's stat.Quantile(0.5, ...), which returns a lower middle value.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := Sorted(xs)
	return medianSorted(s)
}

func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return midpoint(s[n/2-1], s[n/2])
}

// midpoint returns (x+y)/2 without overflow: when x+y overflows (both
// beyond half the largest float, of one sign) it halves each first, which
// is exact there. Elsewhere it is (x+y)/2, as before.
func midpoint(x, y float64) float64 {
	if s := x + y; !math.IsInf(s, 0) {
		return s / 2
	}
	return x/2 + y/2
}

// interpolate returns x + f·(y-x) for f in [0, 1] without overflow: when
// y-x overflows (x and y of opposite signs near the largest float) it
// weighs the two values instead.
func interpolate(x, y, f float64) float64 {
	if d := y - x; !math.IsInf(d, 0) {
		return x + f*d
	}
	return (1-f)*x + f*y
}

// scaleExp returns the binary exponent k of the largest |x| of the
// samples (largest |x| in [2^(k-1), 2^k)), 0 when every value is 0.
// Dividing by 2^k (Ldexp(x, -k)) is exact for normal values and brings
// every value into (-1, 1): sums, squares and differences of the scaled
// values cannot overflow, and subnormal samples become normal.
func scaleExp(xss ...[]float64) int {
	m := 0.0
	for _, xs := range xss {
		for _, x := range xs {
			m = math.Max(m, math.Abs(x))
		}
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return 0
	}
	_, k := math.Frexp(m)
	return k
}

// rescaled returns xs divided by 2^k.
func rescaled(xs []float64, k int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Ldexp(x, -k)
	}
	return out
}

// QuantileType7 returns the p-quantile of sorted data by linear interpolation
// between order statistics, h = (n-1)p (Hyndman and Fan type 7, the default
// of R's quantile and numpy.percentile).
func QuantileType7(p float64, sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= n-1 {
		return sorted[n-1]
	}
	return interpolate(sorted[i], sorted[i+1], h-lo)
}

// MedianCI returns the distribution-free confidence interval of the median of
// sorted data: the order statistics x(l) and x(n+1-l) (1-based) with the
// largest l such that P(l <= B < n+1-l) >= confidence, B ~ Binomial(n, 1/2).
// ok is false when even [min, max] does not reach the confidence, which
// needs n >= 6 at 95%. coverage is the exact coverage of the interval.
func MedianCI(sorted []float64, confidence float64) (lo, hi, coverage float64, ok bool) {
	n := len(sorted)
	if n == 0 {
		return math.NaN(), math.NaN(), 0, false
	}
	b := distuv.Binomial{N: float64(n), P: 0.5}
	// The interval [x(l), x(n+1-l)] covers the median with probability
	// P(l <= B <= n-l) = 1 - 2*P(B <= l-1): the largest l whose coverage
	// reaches confidence, scanning up from the first. The scan starts at
	// the last l whose 2*P(B <= l-1) is under a tenth of 1-confidence,
	// found by bisection: below it every coverage is far above
	// confidence (the CDF rises with l; its rounding is far below a
	// tenth), so the scan would go on over them. For 100,000 values that
	// is 30 evaluations and a scan of about 150, not 49,700 (each a
	// regularized incomplete beta function).
	best := 0
	bestCov := 0.0
	start := 1
	for lo, hi := 1, n/2; lo <= hi; {
		l := lo + (hi-lo)/2
		if 2*b.CDF(float64(l-1)) < (1-confidence)/10 {
			start, lo = l, l+1
		} else {
			hi = l - 1
		}
	}
	if start > 1 {
		best, bestCov = start-1, 1-2*b.CDF(float64(start-2))
	}
	for l := start; l <= n/2; l++ {
		cov := 1 - 2*b.CDF(float64(l-1))
		if cov >= confidence {
			best, bestCov = l, cov
		} else {
			break
		}
	}
	if best == 0 {
		return math.NaN(), math.NaN(), 1 - 2*b.CDF(0), false
	}
	return sorted[best-1], sorted[n-best], bestCov, true
}

// Summarize computes the Summary of xs with a median interval at confidence
// (for example 0.95). It returns ErrNoData for an empty sample and an error
// for NaN or infinite values.
func Summarize(xs []float64, confidence float64) (Summary, error) {
	if len(xs) == 0 {
		return Summary{}, ErrNoData
	}
	if err := CheckFinite(xs); err != nil {
		return Summary{}, err
	}
	if !(confidence > 0 && confidence < 1) {
		panic("analysis: confidence must be in (0, 1)")
	}
	return summarizeSorted(Sorted(xs), confidence, nil), nil
}

// summarizeSorted is Summarize of checked values, sorted (s, which it
// does not keep or change). scratch, when not nil, is a buffer it may use
// and grow (Compare summarizes both sides with one).
func summarizeSorted(s []float64, confidence float64, scratch *[]float64) Summary {
	sum := Summary{
		N:          len(s),
		Median:     medianSorted(s),
		Min:        s[0],
		Max:        s[len(s)-1],
		Q1:         QuantileType7(0.25, s),
		Q3:         QuantileType7(0.75, s),
		Confidence: confidence,
	}
	// Mean and standard deviation of the values divided by 2^k: no sum or
	// square overflows (values near the largest float) or underflows
	// (tiny and subnormal values), and the coefficient of variation is
	// taken before scaling back.
	k := scaleExp(s)
	var mean, sd float64 // of the values divided by 2^k
	if s[0] >= 0x1p-200 && s[len(s)-1] <= 0x1p200 {
		// Positive values of moderate size (times, counts): no sum,
		// difference or square of them, or of them divided by 2^k,
		// overflows or is subnormal, so each step rounds alike on both
		// scales and the values give the same numbers, without their
		// scaled copy (TestCompareSameAsSortEach).
		m, d := s[0], 0.0
		if len(s) > 1 {
			m, d = stat.MeanStdDev(s, nil)
		}
		mean, sd = math.Ldexp(m, -k), math.Ldexp(d, -k)
	} else {
		if scratch == nil {
			scratch = new([]float64)
		}
		sc := ints(scratch, len(s))
		for i, x := range s {
			sc[i] = math.Ldexp(x, -k)
		}
		mean, sd = sc[0], 0.0
		if len(s) > 1 {
			mean, sd = stat.MeanStdDev(sc, nil)
		}
	}
	sum.Mean, sum.StdDev = math.Ldexp(mean, k), math.Ldexp(sd, k)
	if mean != 0 {
		sum.CV = sd / math.Abs(mean)
	} else {
		sum.CV = math.NaN()
	}
	sum.MedianLo, sum.MedianHi, sum.Coverage, sum.HasCI = MedianCI(s, confidence)
	if !sum.HasCI {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf(
			"need at least %d samples for a %g%% confidence interval of the median (have %d)",
			MinSamplesForMedianCI(confidence), confidence*100, len(s)))
	}
	return sum
}

// MinSamplesForMedianCI returns the smallest n for which MedianCI reaches
// confidence.
func MinSamplesForMedianCI(confidence float64) int {
	for n := 1; n < 1000; n++ {
		// [min, max] covers with 1 - 2 * 0.5^n.
		if 1-2*math.Pow(0.5, float64(n)) >= confidence {
			return n
		}
	}
	return 1000
}
