package analysis

import (
	"fmt"
	"math"
	"sync"
)

// An Alternative is the alternative hypothesis of a two-sample test. Tests
// in this package always speak of B relative to A.
type Alternative int

const (
	// TwoSided: B tends to differ from A.
	TwoSided Alternative = iota
	// Less: B tends to be smaller than A.
	Less
	// Greater: B tends to be larger than A.
	Greater
)

// String returns "two-sided", "less" or "greater", the names SciPy uses.
func (alt Alternative) String() string {
	switch alt {
	case TwoSided:
		return "two-sided"
	case Less:
		return "less"
	case Greater:
		return "greater"
	}
	return fmt.Sprintf("Alternative(%d)", int(alt))
}

// An MWMethod selects how the p-value of the Mann-Whitney U test is
// computed.
type MWMethod int

const (
	// MWAuto uses MWExact when there are no ties and N1·N2 <= 2500, and
	// MWNormal otherwise.
	MWAuto MWMethod = iota
	// MWExact uses the exact null distribution of U, valid without ties.
	MWExact
	// MWNormal uses the normal approximation with tie and continuity
	// corrections.
	MWNormal
)

// String returns "auto", "exact" or "normal approximation".
func (m MWMethod) String() string {
	switch m {
	case MWAuto:
		return "auto"
	case MWExact:
		return "exact"
	case MWNormal:
		return "normal approximation"
	}
	return fmt.Sprintf("MWMethod(%d)", int(m))
}

// mwExactMaxProduct bounds N1·N2 for the exact distribution under MWAuto.
const mwExactMaxProduct = 2500

// An MWResult is the outcome of a Mann-Whitney U (Wilcoxon rank-sum) test
// of B against A.
type MWResult struct {
	N1, N2 int // number of values in A and in B

	// U is the number of pairs (a_i, b_j) with b_j > a_i plus half the
	// number of pairs with b_j == a_i, in [0, N1·N2]. It is the statistic
	// scipy.stats.mannwhitneyu(b, a) reports. U = N1·N2/2 means no shift.
	U float64

	Alternative Alternative
	// Method is the method actually used: MWExact or MWNormal.
	Method MWMethod
	// Z is the standardised statistic of the normal approximation, with
	// tie and continuity corrections, for the statistic the Alternative
	// tests (for TwoSided, max(U, N1·N2-U)). NaN when Method is MWExact.
	Z float64
	// P is the p-value for Alternative, in [0, 1].
	P float64
	// Ties tells whether any values (within or across samples) are equal.
	Ties bool

	// Warnings lists conditions that weaken the result without making it
	// wrong.
	Warnings []string
}

// MannWhitney runs the Mann-Whitney U test of B against A with MWAuto.
//
// It returns an error wrapping ErrNoData when a or b is empty and an error
// for NaN or infinite values.
func MannWhitney(a, b []float64, alt Alternative) (MWResult, error) {
	return MannWhitneyMethod(a, b, alt, MWAuto)
}

// MannWhitneyMethod runs the Mann-Whitney U test of B against A with the
// given method. With ties the exact distribution does not apply, so
// MWExact falls back to MWNormal and says so in Warnings.
//
// The statistic is U = R_B - N2(N2+1)/2, with R_B the sum of the
// (mid-)ranks of B in the pooled sample. The exact p-value counts the
// C(N1+N2, N1) equally likely arrangements of the pooled sample:
//
//	two-sided: P = min(1, 2·P(U' <= min(U, N1·N2-U)))
//	greater:   P = P(U' >= U)
//	less:      P = P(U' <= U)
//
// The normal approximation uses mean μ = N1·N2/2 and variance
//
//	σ² = N1·N2/12 · ((N+1) - Σ(t³-t)/(N(N-1))),  N = N1+N2,
//
// with t the sizes of the groups of tied values, and a continuity
// correction of 1/2: for two-sided, Z = (max(U, N1·N2-U) - μ - 1/2)/σ and
// P = min(1, 2·(1-Φ(Z))), as in scipy.stats.mannwhitneyu with
// use_continuity=True.
func MannWhitneyMethod(a, b []float64, alt Alternative, method MWMethod) (MWResult, error) {
	if err := checkSample("A", a); err != nil {
		return MWResult{}, err
	}
	if err := checkSample("B", b); err != nil {
		return MWResult{}, err
	}
	if alt < TwoSided || alt > Greater {
		panic(fmt.Sprintf("analysis: unknown alternative %d", int(alt)))
	}
	return mannWhitneySorted(Sorted(a), Sorted(b), alt, method), nil
}

// mannWhitneySorted is MannWhitneyMethod of checked samples, sorted.
func mannWhitneySorted(a, b []float64, alt Alternative, method MWMethod) MWResult {
	n1, n2 := len(a), len(b)
	rb, tieTerm := rankSumSorted(a, b)
	res := MWResult{
		N1:          n1,
		N2:          n2,
		U:           rb - float64(n2)*float64(n2+1)/2,
		Alternative: alt,
		Ties:        tieTerm > 0,
		Z:           math.NaN(),
	}
	nn := float64(n1) * float64(n2)
	switch method {
	case MWAuto:
		if !res.Ties && n1*n2 <= mwExactMaxProduct {
			method = MWExact
		} else {
			method = MWNormal
		}
	case MWExact:
		if res.Ties {
			res.Warnings = append(res.Warnings, "ties: the exact distribution of U does not apply; used the normal approximation")
			method = MWNormal
		}
	case MWNormal:
	default:
		panic(fmt.Sprintf("analysis: unknown Mann-Whitney method %d", int(method)))
	}
	res.Method = method
	if method == MWExact {
		cdf := mwExactCDF(n1, n2)
		u := int(math.Round(res.U))
		switch alt {
		case TwoSided:
			res.P = math.Min(1, 2*cdf[min(u, n1*n2-u)])
		case Greater:
			res.P = cdf[n1*n2-u] // P(U' >= u) = P(U' <= N1·N2-u) by symmetry
		case Less:
			res.P = cdf[u]
		}
		return res
	}

	n := float64(n1 + n2)
	sigma := math.Sqrt(nn / 12 * ((n + 1) - tieTerm/(n*(n-1))))
	var u float64
	switch alt {
	case TwoSided:
		u = math.Max(res.U, nn-res.U)
	case Greater:
		u = res.U
	case Less:
		u = nn - res.U
	}
	if sigma == 0 {
		// All values are equal: no evidence of any difference.
		res.P = 1
		res.Warnings = append(res.Warnings, "all values are equal")
		return res
	}
	res.Z = (u - nn/2 - 0.5) / sigma
	res.P = normalSF(res.Z)
	if alt == TwoSided {
		res.P *= 2
	}
	res.P = math.Min(1, math.Max(0, res.P))
	if res.Ties && n1*n2 <= mwExactMaxProduct {
		res.Warnings = append(res.Warnings, "ties in small samples: p-value from the normal approximation")
	}
	return res
}

// rankSumSorted returns the sum of the (mid-)ranks of the values of b in
// the pooled sample of a and b, both sorted, and tieTerm = Σ (t³ - t) over
// the groups of t tied values, as ranks gives them: one walk through both
// rather than a sort of the pooled sample. The groups come in the same
// order, so tieTerm is the same sum; the ranks are multiples of 1/2 and
// every partial sum is below 2^53 (checked), so the rank sum is exact in
// any order.
func rankSumSorted(a, b []float64) (rb, tieTerm float64) {
	n := len(a) + len(b)
	if float64(n)*float64(n) >= 1<<52 {
		pooled := append(append(make([]float64, 0, n), a...), b...)
		r, tieTerm := ranks(pooled)
		for _, x := range r[len(a):] {
			rb += x
		}
		return rb, tieTerm
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		// The next group: every value equal to the smallest left.
		var x float64
		switch {
		case j == len(b):
			x = a[i]
		case i == len(a) || b[j] < a[i]:
			x = b[j]
		default:
			x = a[i]
		}
		i0, j0 := i, j
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		// Positions i0+j0 .. i+j-1 (0-based) share the ranks i0+j0+1 .. i+j.
		avg := float64(i0+j0+1+i+j) / 2
		rb += float64(j-j0) * avg
		if t := float64(i + j - i0 - j0); t > 1 {
			tieTerm += t*t*t - t
		}
	}
	return rb, tieTerm
}

// mwCache holds the exact null CDFs of U by sample sizes.
var mwCache struct {
	sync.Mutex
	cdf map[[2]int][]float64
}

// mwExactCDF returns cdf with cdf[u] = P(U <= u) for u in [0, n1·n2] under
// the null hypothesis. The result is shared and must not be modified.
//
// The number of arrangements f(u; i, j) of i values of one sample and j of
// the other with statistic u follows from where the largest pooled value
// comes from:
//
//	f(u; i, j) = f(u-j; i-1, j) + f(u; i, j-1),  f(0; i, 0) = f(0; 0, j) = 1.
//
// Only additions of positive numbers are involved, so the counts keep
// full relative precision; the CDF is accumulated from the lower tail.
func mwExactCDF(n1, n2 int) []float64 {
	if n1 > n2 {
		n1, n2 = n2, n1 // the distribution is symmetric in the sizes
	}
	key := [2]int{n1, n2}
	mwCache.Lock()
	defer mwCache.Unlock()
	if c, ok := mwCache.cdf[key]; ok {
		return c
	}
	// row[j] holds f(·; i, j) for the current i, j <= n1 (the smaller size).
	row := make([][]float64, n1+1)
	for j := range row {
		row[j] = []float64{1} // i = 0
	}
	for i := 1; i <= n2; i++ {
		next := make([][]float64, n1+1)
		next[0] = []float64{1}
		for j := 1; j <= n1; j++ {
			f := make([]float64, i*j+1)
			prev := row[j] // f(·; i-1, j), length (i-1)j+1
			for u, c := range prev {
				f[u+j] += c
			}
			left := next[j-1] // f(·; i, j-1), length i(j-1)+1
			for u, c := range left {
				f[u] += c
			}
			next[j] = f
		}
		row = next
	}
	f := row[n1]
	var total float64
	for _, c := range f {
		total += c
	}
	cdf := make([]float64, len(f))
	var acc float64
	for u, c := range f {
		acc += c
		cdf[u] = math.Min(1, acc/total)
	}
	if mwCache.cdf == nil {
		mwCache.cdf = make(map[[2]int][]float64)
	}
	mwCache.cdf[key] = cdf
	return cdf
}

// MannWhitneyMinP returns the smallest p-value the exact Mann-Whitney test
// can produce with n1 and n2 values, reached when the samples do not
// overlap:
//
//	two-sided: min(1, 2/C(n1+n2, n1))
//	one-sided: 1/C(n1+n2, n1)
//
// For example 3+3 values give 0.1 two-sided and 4+4 give 0.0286. Ties
// can only raise the smallest exact p-value. It returns 1 when n1 or n2
// is not positive.
func MannWhitneyMinP(n1, n2 int, alt Alternative) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	p := math.Exp(-lchoose(n1+n2, n1))
	if alt == TwoSided {
		p *= 2
	}
	return math.Min(1, p)
}

// CanReachSignificance tells whether the two-sided Mann-Whitney test with
// n1 and n2 values can produce a p-value at or below alpha at all. When it
// cannot, no data can show a difference: there are too few runs to tell.
func CanReachSignificance(n1, n2 int, alpha float64) bool {
	// A tiny relative slack absorbs rounding of the binomial coefficient,
	// so that for example 2/C(8,4) is recognised as reaching 2/70.
	return MannWhitneyMinP(n1, n2, TwoSided) <= alpha*(1+1e-12)
}

// MinRunsForSignificance returns the smallest n such that the two-sided
// Mann-Whitney test with n values on each side can reach alpha, for
// example 4 at alpha = 0.05 and 5 at alpha = 0.01.
func MinRunsForSignificance(alpha float64) int {
	checkLevel("alpha", alpha)
	n := 1
	for !CanReachSignificance(n, n, alpha) {
		n++
	}
	return n
}
