package analysis

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// signedRankExactMax is the largest number of non-zero differences for
// which SignedRank computes the exact distribution (SciPy's bound too).
const signedRankExactMax = 50

// A SignedRankResult is the outcome of a Wilcoxon signed-rank test of
// paired differences against 0.
type SignedRankResult struct {
	// N is the number of non-zero differences (zeros are dropped, as
	// Wilcoxon did: SciPy's zero_method "wilcox"), Zeros how many were.
	N, Zeros int
	// WPlus is the sum of the (mid-)ranks of |d| of the positive
	// differences, the statistic SciPy reports as r_plus.
	WPlus float64
	// Exact: the p-value counts the 2^N equally likely signs (N <= 50
	// and no ties among |d|); else it is the normal approximation with
	// the tie correction and no continuity correction (SciPy's default).
	Exact bool
	// P is the two-sided p-value, Sign +1 when the differences tend to
	// be positive (WPlus above N(N+1)/4), -1 below, 0 at.
	P    float64
	Sign int
	// Estimate is the Hodges-Lehmann estimate of the differences'
	// centre: the median of the Walsh averages (d_i+d_j)/2, i <= j, zeros
	// included.
	Estimate float64
}

// SignedRank runs the two-sided Wilcoxon signed-rank test of the
// differences d (B - A within each block: an A/B pair, an ABBA round)
// against a centre of 0. Under random assignment of the sides within
// each block, with no effect each difference's sign is a fair coin
// whatever the machine did between the blocks: the exact p-value is
// then a randomization test (Fisher), valid under any drift or burst
// that does not follow the assignment.
//
// It returns an error wrapping ErrNoData when d is empty or all zeros,
// and an error for NaN or infinite values.
func SignedRank(d []float64) (SignedRankResult, error) {
	if err := checkSample("differences", d); err != nil {
		return SignedRankResult{}, err
	}
	var r SignedRankResult
	var abs []float64
	var pos []bool
	for _, x := range d {
		if x == 0 {
			r.Zeros++
			continue
		}
		abs = append(abs, math.Abs(x))
		pos = append(pos, x > 0)
	}
	r.N = len(abs)
	r.Estimate = walshMedian(d)
	if r.N == 0 {
		return r, fmt.Errorf("%w: every difference is 0", ErrNoData)
	}
	idx := make([]int, r.N)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return abs[idx[i]] < abs[idx[j]] })
	ranks := make([]float64, r.N)
	ties, tieSum := false, 0.0
	for i := 0; i < r.N; {
		j := i
		for j+1 < r.N && abs[idx[j+1]] == abs[idx[i]] {
			j++
		}
		if t := float64(j - i + 1); t > 1 {
			ties = true
			tieSum += t*t*t - t
		}
		for k := i; k <= j; k++ {
			ranks[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	for i, p := range pos {
		if p {
			r.WPlus += ranks[i]
		}
	}
	n := float64(r.N)
	mean := n * (n + 1) / 4
	switch {
	case r.WPlus > mean:
		r.Sign = 1
	case r.WPlus < mean:
		r.Sign = -1
	}
	t := math.Min(r.WPlus, n*(n+1)/2-r.WPlus)
	if r.N <= signedRankExactMax && !ties {
		r.Exact = true
		r.P = math.Min(1, 2*signedRankCDF(r.N, int(math.Round(t))))
		return r, nil
	}
	sd := math.Sqrt(n*(n+1)*(2*n+1)/24 - tieSum/48)
	if sd == 0 {
		r.P = 1
		return r, nil
	}
	r.P = math.Min(1, 2*distuv.UnitNormal.CDF((t-mean)/sd))
	return r, nil
}

// signedRankCDF is P(W+ <= w) for n differences with ranks 1..n and
// random signs: the number of subsets of 1..n summing to w or less over
// 2^n.
func signedRankCDF(n, w int) float64 {
	c := signedRankCounts(n)
	sum := 0.0
	for s := 0; s <= w && s < len(c); s++ {
		sum += c[s]
	}
	return sum / math.Exp2(float64(n))
}

// signedRankCounts returns, for each sum s from 0 to n(n+1)/2, the
// number of subsets of the ranks 1..n that sum to s.
func signedRankCounts(n int) []float64 {
	max := n * (n + 1) / 2
	c := make([]float64, max+1)
	c[0] = 1
	for k := 1; k <= n; k++ {
		for s := max; s >= k; s-- {
			c[s] += c[s-k]
		}
	}
	return c
}

// walshMedian is the median of the Walsh averages (d_i+d_j)/2, i <= j:
// the one-sample Hodges-Lehmann estimate; NaN for no values. It selects
// the middle averages (kthWalsh) rather than forming all n(n+1)/2 of
// them, which at 100,000 rounds would be 40 GB.
func walshMedian(d []float64) float64 {
	if len(d) == 0 {
		return math.NaN()
	}
	s := Sorted(d)
	m := len(s) * (len(s) + 1) / 2
	if m%2 == 1 {
		return kthWalsh(s, (m+1)/2)
	}
	return midpoint(kthWalsh(s, m/2), kthWalsh(s, m/2+1))
}
