package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// An MKResult is the outcome of the Mann–Kendall test for a monotonic
// trend of values in run order (drift).
type MKResult struct {
	N int // number of values

	// S is Σ_{i<j} sign(x_j - x_i): positive when later runs tend to be
	// larger.
	S float64
	// VarS is the variance of S under the null hypothesis of no trend,
	// with the correction for ties.
	VarS float64
	// Tau is Kendall's tau-b between the values and their run order, in
	// [-1, 1].
	Tau float64
	// Z is the standardised S with continuity correction, and P its
	// two-sided p-value from the normal distribution.
	Z, P float64

	// Warnings lists conditions that weaken the result without making it
	// wrong.
	Warnings []string
}

// MannKendall tests xs, in run order, for a monotonic trend:
//
//	S    = Σ_{i<j} sign(x_j - x_i)
//	VarS = (n(n-1)(2n+5) - Σ t(t-1)(2t+5)) / 18
//	Z    = (S - sign(S)) / sqrt(VarS)
//	P    = 2·(1 - Φ(|Z|))
//	Tau  = S / sqrt(n0·(n0 - Σ t(t-1)/2)),  n0 = n(n-1)/2
//
// with t the sizes of the groups of tied values (Kendall 1975; Hipel &
// McLeod 1994). Without the continuity correction Z and P are those of
// scipy.stats.kendalltau(range(n), xs, method="asymptotic"). It returns an
// error wrapping ErrNoData for empty input and an error for NaN or
// infinite values.
func MannKendall(xs []float64) (MKResult, error) {
	if err := checkSample("X", xs); err != nil {
		return MKResult{}, err
	}
	n := len(xs)
	r := MKResult{N: n, P: 1}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			r.S += float64(sign(xs[j] - xs[i]))
		}
	}
	var tieVar, tiePairs float64
	for _, t := range tieSizes(xs) {
		tieVar += t * (t - 1) * (2*t + 5)
		tiePairs += t * (t - 1) / 2
	}
	nf := float64(n)
	r.VarS = (nf*(nf-1)*(2*nf+5) - tieVar) / 18
	n0 := nf * (nf - 1) / 2
	if r.VarS == 0 {
		r.Tau = math.NaN()
		if n < 2 {
			r.Warnings = append(r.Warnings, "a trend needs at least 2 values")
		} else {
			r.Warnings = append(r.Warnings, "all values are equal")
		}
		return r, nil
	}
	r.Tau = r.S / math.Sqrt(n0*(n0-tiePairs))
	r.Z = (r.S - float64(sign(r.S))) / math.Sqrt(r.VarS)
	r.P = math.Min(1, 2*normalSF(math.Abs(r.Z)))
	if n < 10 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the normal approximation of the Mann-Kendall test is rough for n = %d < 10", n))
	}
	return r, nil
}

// tieSizes returns the sizes of the groups of equal values in xs.
func tieSizes(xs []float64) []float64 {
	s := Sorted(xs)
	var ts []float64
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > 1 {
			ts = append(ts, float64(j-i))
		}
		i = j
	}
	return ts
}

// A SpearmanResult is Spearman's rank correlation of values with their run
// order.
type SpearmanResult struct {
	N int // number of values
	// Rho is the Pearson correlation of the mid-ranks of the values with
	// the run order 1..N, in [-1, 1]; 0 when all values are equal.
	Rho float64
	// P is the two-sided p-value of Rho = 0 from the t approximation.
	P float64

	// Warnings lists conditions that weaken the result without making it
	// wrong.
	Warnings []string
}

// Spearman returns Spearman's rank correlation of xs with run order and its
// two-sided p-value from the t approximation
//
//	T = Rho · sqrt((n-2)/(1-Rho²)),  T ~ Student's t with n-2 degrees of freedom,
//
// as scipy.stats.spearmanr(range(n), xs). With fewer than 3 values, or all
// values equal, P is 1 and Warnings says why. It returns an error wrapping
// ErrNoData for empty input and an error for NaN or infinite values.
func Spearman(xs []float64) (SpearmanResult, error) {
	if err := checkSample("X", xs); err != nil {
		return SpearmanResult{}, err
	}
	n := len(xs)
	r := SpearmanResult{N: n, P: 1}
	rk, tieTerm := ranks(xs)
	if float64(n)*float64(n)*float64(n)-float64(n) == tieTerm {
		r.Warnings = append(r.Warnings, "all values are equal")
		return r, nil
	}
	order := make([]float64, n)
	for i := range order {
		order[i] = float64(i + 1)
	}
	r.Rho = stat.Correlation(order, rk, nil)
	if n < 3 {
		r.Warnings = append(r.Warnings, "a rank correlation p-value needs at least 3 values")
		return r, nil
	}
	if math.Abs(r.Rho) >= 1 {
		r.Rho = math.Copysign(1, r.Rho)
		r.P = 0
		return r, nil
	}
	t := r.Rho * math.Sqrt(float64(n-2)/(1-r.Rho*r.Rho))
	r.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Survival(math.Abs(t)))
	return r, nil
}
