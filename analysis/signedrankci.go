package analysis

import "math"

// A SignedRankCI is the one-sample Hodges–Lehmann estimate of the centre
// of paired differences with the confidence interval that the Wilcoxon
// signed-rank test inverts.
type SignedRankCI struct {
	// N is the number of differences, zeros included.
	N int
	// Estimate is the median of the N(N+1)/2 Walsh averages
	// (d_i+d_j)/2, i <= j.
	Estimate float64
	// Confidence is the requested coverage of [Lo, Hi], in (0, 1).
	Confidence float64
	// HasCI tells whether N is large enough for an interval at
	// Confidence (5 differences at 90%, 6 at 95%); when false Lo and Hi
	// are NaN.
	HasCI bool
	// Lo and Hi are the k-th smallest and the k-th largest Walsh
	// averages; Coverage is what they achieve under the signed-rank null
	// distribution (exact up to 50 differences, else its normal
	// approximation), at least Confidence for continuous data: tied or
	// zero differences make it approximate.
	Lo, Hi   float64
	Coverage float64
}

// SignedRankInterval returns the Hodges–Lehmann estimate of the centre
// of the differences d and its distribution-free confidence interval
// [W(k), W(M+1-k)], where W are the M = n(n+1)/2 sorted Walsh averages
// and k is the largest integer with
//
//	P(W+ <= k-1) <= (1-confidence)/2
//
// for W+ the signed-rank statistic under the null hypothesis: the
// centres the two-sided signed-rank test at 1-confidence does not reject
// (Hollander & Wolfe, Nonparametric Statistical Methods, section 3.3; R's
// wilcox.test with conf.int). For paired runs (an A/B round: the same
// machine a moment apart) it is the interval a drift between the rounds
// does not widen. It returns an error wrapping ErrNoData for no
// differences and an error for NaN or infinite ones; it panics on a
// confidence outside (0, 1).
func SignedRankInterval(d []float64, confidence float64) (SignedRankCI, error) {
	if err := checkSample("differences", d); err != nil {
		return SignedRankCI{}, err
	}
	checkLevel("confidence", confidence)
	s := Sorted(d)
	n := len(s)
	m := n * (n + 1) / 2
	r := SignedRankCI{N: n, Estimate: walshMedian(s), Confidence: confidence, Lo: math.NaN(), Hi: math.NaN()}
	k, coverage, ok := signedRankRank(n, confidence)
	if !ok {
		r.Coverage = coverage
		return r, nil
	}
	r.HasCI, r.Coverage = true, coverage
	r.Lo, r.Hi = kthWalsh(s, k), kthWalsh(s, m+1-k)
	return r, nil
}

// signedRankRank returns the rank k of the lower bound among the
// n(n+1)/2 Walsh averages, the coverage 1 - 2·P(W+ <= k-1), and whether
// k >= 1 reaches confidence.
func signedRankRank(n int, confidence float64) (k int, coverage float64, ok bool) {
	m := n * (n + 1) / 2
	half := (1 - confidence) / 2
	var cdf func(w int) float64
	if n <= signedRankExactMax {
		c := signedRankCounts(n)
		total := math.Exp2(float64(n))
		cum := make([]float64, len(c))
		sum := 0.0
		for w, x := range c {
			sum += x
			cum[w] = sum / total
		}
		cdf = func(w int) float64 { return cum[w] }
	} else {
		mean := float64(m) / 2
		sd := math.Sqrt(float64(n) * float64(n+1) * float64(2*n+1) / 24)
		cdf = func(w int) float64 { return 1 - normalSF((float64(w)+0.5-mean)/sd) }
	}
	if cdf(0) > half*(1+1e-12) {
		return 0, 1 - 2*cdf(0), false
	}
	// cdf is increasing: the largest k with cdf(k-1) <= half.
	lo, hi := 1, (m+1)/2
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if cdf(mid-1) <= half*(1+1e-12) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, 1 - 2*cdf(lo-1), true
}

// kthWalsh returns the k-th smallest (1-based) of the Walsh averages
// s_i/2 + s_j/2, i <= j, of the sorted s, without forming them: a
// bisection over the float64 order, counting the averages at or below a
// value in one pass (they grow with j for a fixed i), so it is exact and
// costs 64 passes of n.
func kthWalsh(s []float64, k int) float64 {
	lo, hi := orderedKey(s[0]), orderedKey(s[len(s)-1])
	for lo < hi {
		mid := lo + (hi-lo)/2
		if walshAtOrBelow(s, fromOrderedKey(mid)) >= k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return fromOrderedKey(lo)
}

// walshAtOrBelow counts the Walsh averages s_i/2 + s_j/2, i <= j, of the
// sorted s that are at most x.
func walshAtOrBelow(s []float64, x float64) int {
	count := 0
	j := len(s) - 1
	for i := range s {
		for j >= i && s[i]/2+s[j]/2 > x {
			j--
		}
		if j < i {
			break
		}
		count += j - i + 1
	}
	return count
}
