package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A WelchResult is the outcome of Welch's unequal-variances t-test of B
// against A.
type WelchResult struct {
	N1, N2       int     // number of values in A and in B
	MeanA, MeanB float64 // sample means

	// Diff is MeanB - MeanA, in the unit of the values.
	Diff float64
	// SE is the standard error of Diff, sqrt(s_A²/N1 + s_B²/N2).
	SE float64
	// T is Diff/SE; ±Inf when SE is 0 and Diff is not.
	T float64
	// DF is the Welch–Satterthwaite degrees of freedom; NaN when SE is 0.
	DF float64

	Alternative Alternative
	// P is the p-value for Alternative, in [0, 1].
	P float64

	// Confidence is the coverage of the two-sided interval [Lo, Hi] of
	// Diff, in (0, 1).
	Confidence float64
	Lo, Hi     float64

	// Warnings lists conditions that weaken the result without making it
	// wrong.
	Warnings []string
}

// Welch runs Welch's t-test of B against A and computes a two-sided
// confidence interval of the difference of means at confidence:
//
//	T  = (mean_B - mean_A) / SE,  SE² = s_A²/N1 + s_B²/N2
//	DF = SE⁴ / ((s_A²/N1)²/(N1-1) + (s_B²/N2)²/(N2-1))
//	CI = Diff ± t_{DF, (1+confidence)/2} · SE
//
// with P from Student's t distribution with DF degrees of freedom
// (scipy.stats.ttest_ind(b, a, equal_var=False)). It computes on the
// values divided by a power of two, so that values of any magnitude, from
// subnormal to near the largest float, give the T, DF and P of rescaled
// data. Each sample needs at
// least 2 values; fewer is an error, as are empty samples (ErrNoData) and
// NaN or infinite values.
func Welch(a, b []float64, alt Alternative, confidence float64) (WelchResult, error) {
	if err := checkSample("A", a); err != nil {
		return WelchResult{}, err
	}
	if err := checkSample("B", b); err != nil {
		return WelchResult{}, err
	}
	checkLevel("confidence", confidence)
	n1, n2 := len(a), len(b)
	if n1 < 2 || n2 < 2 {
		return WelchResult{}, fmt.Errorf("analysis: Welch's t-test needs at least 2 values in each sample, have %d and %d", n1, n2)
	}
	// The test is location- and scale-invariant: it runs on the values
	// divided by 2^k (exact), so that the squared variances in DF neither
	// overflow (values from about 1e77 on) nor underflow (tiny values),
	// and the means, their difference, SE and the interval are scaled
	// back at the end.
	k := scaleExp(a, b)
	r, err := welchScaled(rescaled(a, k), rescaled(b, k), alt, confidence)
	if err != nil {
		return WelchResult{}, err
	}
	for _, x := range []*float64{&r.MeanA, &r.MeanB, &r.Diff, &r.SE, &r.Lo, &r.Hi} {
		*x = math.Ldexp(*x, k)
	}
	return r, nil
}

// welchScaled is Welch on values in (-1, 1).
func welchScaled(a, b []float64, alt Alternative, confidence float64) (WelchResult, error) {
	n1, n2 := len(a), len(b)
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	ea, eb := va/float64(n1), vb/float64(n2)
	r := WelchResult{
		N1: n1, N2: n2, MeanA: ma, MeanB: mb,
		Diff:        mb - ma,
		SE:          math.Sqrt(ea + eb),
		Alternative: alt,
		Confidence:  confidence,
	}
	if r.SE == 0 {
		r.DF = math.NaN()
		r.Lo, r.Hi = r.Diff, r.Diff
		r.Warnings = append(r.Warnings, "both samples have zero variance")
		switch {
		case r.Diff == 0:
			r.T, r.P = 0, 1
		case alt == TwoSided, alt == Greater && r.Diff > 0, alt == Less && r.Diff < 0:
			r.T, r.P = math.Inf(int(math.Copysign(1, r.Diff))), 0
		default:
			r.T, r.P = math.Inf(int(math.Copysign(1, r.Diff))), 1
		}
		return r, nil
	}
	r.T = r.Diff / r.SE
	r.DF = (ea + eb) * (ea + eb) / (ea*ea/float64(n1-1) + eb*eb/float64(n2-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	switch alt {
	case TwoSided:
		r.P = math.Min(1, 2*t.Survival(math.Abs(r.T)))
	case Greater:
		r.P = t.Survival(r.T)
	case Less:
		r.P = t.CDF(r.T)
	default:
		panic(fmt.Sprintf("analysis: unknown alternative %d", int(alt)))
	}
	q := t.Quantile((1 + confidence) / 2)
	r.Lo, r.Hi = r.Diff-q*r.SE, r.Diff+q*r.SE
	return r, nil
}
