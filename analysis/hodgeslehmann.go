package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
)

// An HLResult is the Hodges–Lehmann estimate of the shift of B against A
// with its distribution-free confidence interval.
type HLResult struct {
	N1, N2 int // number of values in A and in B

	// Shift is the median of the N1·N2 pairwise differences b_j - a_i, in
	// the unit of the values.
	Shift float64

	// Confidence is the requested coverage of [Lo, Hi], in (0, 1).
	Confidence float64
	// HasCI tells whether the samples are large enough for an interval at
	// Confidence; when false Lo and Hi are NaN and Warnings says why.
	HasCI bool
	// Lo and Hi are the order statistics D(k) and D(N1·N2+1-k) of the
	// sorted pairwise differences. Coverage is the coverage they achieve
	// under the Mann-Whitney null distribution (exact when N1·N2 <= 2500,
	// else its normal approximation).
	Lo, Hi   float64
	Coverage float64

	// Warnings lists conditions that weaken the result without making it
	// wrong.
	Warnings []string
}

// HodgesLehmann returns the Hodges–Lehmann estimate of the shift of B
// against A, median_{i,j}(b_j - a_i), and its confidence interval
// [D(k), D(N+1-k)], N = N1·N2, where D are the sorted differences and k
// is the largest integer with
//
//	P(U <= k-1) <= (1-confidence)/2
//
// for U the Mann-Whitney statistic under the null hypothesis. The
// interval is the set of shifts the two-sided U test does not reject; its
// coverage is 1 - 2·P(U <= k-1) >= confidence for continuous data
// (Hollander & Wolfe, Nonparametric Statistical Methods, section 4.3).
// The differences are taken of the values divided by a power of two, so
// none overflows; a shift beyond the largest float is ±Inf.
func HodgesLehmann(a, b []float64, confidence float64) (HLResult, error) {
	if err := checkSample("A", a); err != nil {
		return HLResult{}, err
	}
	if err := checkSample("B", b); err != nil {
		return HLResult{}, err
	}
	checkLevel("confidence", confidence)
	// Differences of values of opposite signs near the largest float
	// overflow: compute on the values divided by 2^k (exact), scale back.
	k := scaleExp(a, b)
	r := hodgesLehmannScaled(rescaled(a, k), rescaled(b, k), confidence)
	r.Shift, r.Lo, r.Hi = math.Ldexp(r.Shift, k), math.Ldexp(r.Lo, k), math.Ldexp(r.Hi, k)
	return r, nil
}

// hodgesLehmannScaled is HodgesLehmann on checked values in (-1, 1).
func hodgesLehmannScaled(a, b []float64, confidence float64) HLResult {
	nn := len(a) * len(b)
	// kth sets out to the k-th to (k+len(out)-1)-th smallest differences,
	// 1-based.
	var kth func(k int, out []float64)
	if nn <= hlSortLimit {
		d := pairwiseDiffs(a, b)
		kth = func(k int, out []float64) { copy(out, d[k-1:]) }
	} else {
		sa, sb := sortedOrCopy(a), sortedOrCopy(b)
		var sc kthScratch // shared by the selections
		kth = func(k int, out []float64) { sc.kthPairwiseDiffs(sa, sb, k, out) }
	}
	r := HLResult{
		N1: len(a), N2: len(b),
		Confidence: confidence,
		Lo:         math.NaN(), Hi: math.NaN(),
	}
	var mid [2]float64
	if nn%2 == 1 {
		kth(nn/2+1, mid[:1])
		r.Shift = mid[0]
	} else {
		kth(nn/2, mid[:]) // the two middle ones in one selection
		r.Shift = midpoint(mid[0], mid[1])
	}
	k, cov, ok := hlRank(len(a), len(b), confidence)
	r.Coverage = cov
	if !ok {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"%d and %d values are too few for a %g%% confidence interval of the shift", len(a), len(b), confidence*100))
		return r
	}
	r.HasCI = true
	kth(k, mid[:1])
	kth(nn+1-k, mid[1:])
	r.Lo, r.Hi = mid[0], mid[1]
	return r
}

// sortedOrCopy returns xs when it is sorted and holds no -0 (sorting
// would return it as it is: the order of equal values of other floats
// cannot show), else Sorted(xs). The logarithms of sorted positive values
// (RelativeChange) come sorted.
func sortedOrCopy(xs []float64) []float64 {
	for i, x := range xs {
		if (i > 0 && x < xs[i-1]) || (x == 0 && math.Signbit(x)) {
			return Sorted(xs)
		}
	}
	return xs
}

// hlSortLimit is the largest number of pairwise differences HodgesLehmann
// sorts; above it, it selects order statistics without storing them.
const hlSortLimit = 1 << 20

// pairwiseDiffs returns the sorted differences b_j - a_i.
func pairwiseDiffs(a, b []float64) []float64 {
	d := make([]float64, 0, len(a)*len(b))
	for _, y := range b {
		for _, x := range a {
			d = append(d, y-x)
		}
	}
	sort.Float64s(d)
	return d
}

// kthPairwiseDiff returns the k-th smallest (1-based) of the differences
// b_j - a_i for sorted a and b, without storing them (kthPairwiseDiffs).
func kthPairwiseDiff(a, b []float64, k int) float64 {
	var out [1]float64
	var sc kthScratch
	sc.kthPairwiseDiffs(a, b, k, out[:])
	return out[0]
}

// kthScratch holds the arrays of kthPairwiseDiffs, for the next call on
// samples of the same sizes: each is one int32 per row, which for 100,000
// values is 400 kB of fresh memory, pages that cost more to fault in than
// the selection to fill. The bounds of the rows are indexes into a (int32:
// a sample of 2^31 values would not fit in memory).
type kthScratch struct {
	hi, lo, next []int32
	d, sample    []float64
}

// ints returns *p with length n, reallocated when too short (a buffer
// of indexes or of values used again).
func ints[T int | int32 | float64](p *[]T, n int) []T {
	if cap(*p) < n {
		*p = make([]T, n)
	}
	*p = (*p)[:n]
	return *p
}

// kthPairwiseDiffs sets out, of length 1 or 2, to the k-th and following
// smallest (1-based) of the differences b_j - a_i for sorted a and b,
// without storing them: a selection in the matrix of differences (Johnson
// & Mitchell 1978, Monahan 1984). Row j, b_j - a_i, decreases with i
// (floating-point subtraction is monotone in each operand), so the
// differences on one side of a pivot are a range of each row, found for
// all rows in one O(m+n) walk. Each round draws a sample of the candidates
// left, takes two of its order statistics that bracket the ranks wanted as
// pivots (Floyd & Rivest) and keeps the candidates between them; a few
// rounds leave few enough to sort. Each result is one of the computed
// differences, of its rank exactly, a zero with the sign the bisection on
// the bit patterns of float64 used before gave it (kthPairwiseDiffBisect
// in the tests, zeroSign). Two neighbouring ranks (the middle of an even
// number of differences) cost one selection. The sample only picks the
// pivots: which differences it draws changes the work, never the result.
func (sc *kthScratch) kthPairwiseDiffs(a, b []float64, k int, out []float64) {
	n, m := len(a), len(b)
	smallest := b[0] - a[n-1]
	// out[first:last] are still to find: ranks k+first to k+last-1.
	first, last := 0, len(out)
	// Candidates of row j are a-indices [hi[j], lo[j]): before hi[j] the
	// differences are larger than every candidate, from lo[j] on smaller.
	// A pivot's walk puts the new bounds of each row in next, which then
	// takes the place of hi or lo.
	hi, lo, next := ints(&sc.hi, m), ints(&sc.lo, m), ints(&sc.next, m)
	sample := sc.sample[:0]
	defer func() { sc.hi, sc.lo, sc.next, sc.sample = hi, lo, next, sample }() // kept for the next call
	for j := range lo {
		hi[j], lo[j] = 0, int32(n)
	}
	below := 0 // differences smaller than every candidate
	left := n * m
	// Candidates are sampled again until an eighth of n+m are left
	// (one round more than at n+m for 2 x 100,000 samples, a round of
	// walks cheaper than 900 kB of candidates to gather and fault in).
	limit := max((n+m)/8, kthSortMin)
	rng := rand.New(rand.NewPCG(uint64(n), uint64(m)))
	for left > limit {
		// A stratified sample of the candidates left: one drawn from each
		// of s equal ranges of their positions (the rows in order, each
		// row's candidates in order), so that the positions come in order
		// and the rows are walked once, with no array of positions or of
		// counts per row.
		s := min(left, 1<<14)
		sample = sample[:0]
		j, before := 0, 0 // the row of a position, the candidates of the rows before it
		for i := range s {
			from, to := i*left/s, (i+1)*left/s
			t := from + rng.IntN(to-from)
			for before+int(lo[j]-hi[j]) <= t {
				before += int(lo[j] - hi[j])
				j++
			}
			sample = append(sample, b[j]-a[int(hi[j])+t-before])
		}
		sortFloats(sample)
		// A rank r is the (r-below)-th of the candidates: its place in the
		// sample is about s·(r-below)/left, give or take 3 standard
		// deviations of a binomial (more than a stratified sample strays).
		place := func(r int, side float64) int {
			f := float64(r-below) / float64(left)
			return int(float64(s)*f + side*3*math.Sqrt(float64(s)*f*(1-f)+1))
		}
		pivots := [2]float64{sample[max(0, place(k+first, -1))], sample[min(s-1, place(k+last-1, 1))]}
		for pi, p := range pivots {
			// The walk keeps one of the two bounds of each row: for the
			// lower pivot the first difference <= p (the ranks wanted
			// are most likely above it), for the upper the first < p; a
			// second walk finds the other when it is the one needed.
			keptLE := pi == 0
			nle, nlt := splitRows(a, b, p, hi, lo, next, keptLE)
			less, notMore := below+nlt, below+nle // differences < p, <= p
			r1, r2 := k+first, k+last-1           // the ranks still wanted
			var wantLE bool
			switch {
			case less < r1 && r2 <= notMore:
				for i := first; i < last; i++ {
					out[i] = zeroSign(p, smallest)
				}
				return
			case r2 <= less:
				// All smaller than p: keep the candidates below.
			case r1 > notMore:
				wantLE = true // all larger: keep those above
			case r2 <= notMore:
				// Smaller ones, then ones equal to p: those are found.
				for ; k+last-1 > less; last-- {
					out[last-1] = zeroSign(p, smallest)
				}
			default:
				// Ones equal to p, then larger ones (no difference lies
				// between two neighbouring ranks).
				for ; k+first <= notMore; first++ {
					out[first] = zeroSign(p, smallest)
				}
				wantLE = true
			}
			if wantLE != keptLE {
				splitRows(a, b, p, hi, lo, next, wantLE)
			}
			if wantLE {
				// The candidates <= p go below the others.
				lo, next = next, lo
				below, left = below+nle, left-nle
			} else {
				hi, next = next, hi
				left = nlt
			}
			if k+last-1 <= less {
				break // the second pivot is above every candidate
			}
		}
	}
	if cap(sc.d) < left {
		sc.d = make([]float64, 0, left) // at once, not by doubling
	}
	d := sc.d[:0]
	for j, y := range b {
		for i := hi[j]; i < lo[j]; i++ {
			d = append(d, y-a[i])
		}
	}
	sc.d = d
	for i := first; i < last; i++ {
		out[i] = zeroSign(selectKth(d, k+i-below-1), smallest)
	}
}

// selectKth returns the k-th smallest (0-based) of xs, reordering them:
// Hoare's selection, with the median of three as pivot. Equal values
// (-0 and +0 among them) are interchangeable.
func selectKth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for hi-lo > 16 {
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		p := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < p {
				i++
			}
			for p < xs[j] {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// xs[lo..j] <= p <= xs[i..hi], and xs[j+1..i-1] == p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return p
		}
	}
	slices.Sort(xs[lo : hi+1])
	return xs[k]
}

// kthSortMin is the number of candidates kthPairwiseDiff sorts at
// least, rather than sampling them again (a variable for the tests).
var kthSortMin = 1 << 12

// splitRows finds, for every row j of the differences b_j - a_i, where
// the candidates (a-indices [hi[j], lo[j])) no longer exceed p: the first
// index with b_j - a_i <= p, and the first with b_j - a_i < p. It puts
// the first of the two in bound[j] when le is true, else the second, and
// returns the numbers of candidates <= p and < p. Many rows are split in
// two halves at once, one on another goroutine (each row's walk starts
// from its own bounds, so the halves are independent).
func splitRows(a, b []float64, p float64, hi, lo, bound []int32, le bool) (nle, nlt int) {
	m := len(b)
	if m < splitParallelMin || runtime.GOMAXPROCS(0) < 2 {
		return splitRange(a, b, p, hi, lo, bound, le, 0, m)
	}
	var nle2, nlt2 int
	done := make(chan struct{})
	go func() {
		defer close(done)
		nle2, nlt2 = splitRange(a, b, p, hi, lo, bound, le, m/2, m)
	}()
	nle, nlt = splitRange(a, b, p, hi, lo, bound, le, 0, m/2)
	<-done
	return nle + nle2, nlt + nlt2
}

// splitParallelMin is the number of rows from which splitRows splits
// them in two halves at once (a variable for the tests).
var splitParallelMin = 1 << 14

// splitRange is splitRows of the rows j0 to j1-1. The first difference
// <= p (and < p) of a row is at or after that of the row before: one walk
// through a.
func splitRange(a, b []float64, p float64, hi, lo, bound []int32, le bool, j0, j1 int) (nle, nlt int) {
	i, k := 0, 0
	for j := j0; j < j1; j++ {
		y := b[j]
		end := int(lo[j])
		i = max(i, int(hi[j]))
		for i < end && y-a[i] > p {
			i++
		}
		k = max(k, i)
		for k < end && y-a[k] >= p {
			k++
		}
		if le {
			bound[j] = int32(i)
		} else {
			bound[j] = int32(k)
		}
		nle += end - i
		nlt += end - k
	}
	return nle, nlt
}

// zeroSign returns x, but for a zero x the zero the bisection returned:
// the smallest difference min when it is a zero, else -0.
func zeroSign(x, min float64) float64 {
	switch {
	case x != 0:
		return x
	case min == 0:
		return min
	}
	return math.Copysign(0, -1)
}

// orderedKey maps float64 values (not NaN) to uint64 keys in the same
// order.
func orderedKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// fromOrderedKey inverts orderedKey.
func fromOrderedKey(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// hlRank returns the rank k of the lower confidence bound among the n1·n2
// sorted pairwise differences, the coverage 1 - 2·P(U <= k-1), and whether
// k >= 1 reaches confidence.
func hlRank(n1, n2 int, confidence float64) (k int, coverage float64, ok bool) {
	nn := n1 * n2
	half := (1 - confidence) / 2
	if nn <= mwExactMaxProduct {
		cdf := mwExactCDF(n1, n2)
		// cdf is increasing; find the largest k with cdf[k-1] <= half.
		k = sort.Search(len(cdf), func(i int) bool { return cdf[i] > half*(1+1e-12) })
		if k == 0 {
			return 0, 1 - 2*cdf[0], false
		}
		k = min(k, (nn+1)/2)
		return k, 1 - 2*cdf[k-1], true
	}
	// Normal approximation with continuity correction:
	// P(U <= k-1) ≈ Φ((k - 1/2 - N/2)/σ), σ² = n1·n2·(n1+n2+1)/12.
	sigma := math.Sqrt(float64(nn) * float64(n1+n2+1) / 12)
	cdf := func(u int) float64 { return normalSF((float64(nn)/2 - float64(u) - 0.5) / sigma) }
	z := -math.Sqrt2 * math.Erfinv(1-2*half) // Φ⁻¹(half)
	k = int(math.Floor(float64(nn)/2+z*sigma+0.5)) + 1
	for k > 1 && cdf(k-1) > half {
		k--
	}
	for k < (nn+1)/2 && cdf(k) <= half {
		k++
	}
	if k < 1 || cdf(k-1) > half {
		return 0, 1 - 2*cdf(0), false
	}
	return k, 1 - 2*cdf(k-1), true
}

// A RelMethod tells how RelativeChange computed its interval.
type RelMethod int

const (
	// RelLogShift: Hodges–Lehmann on log values; the interval of the shift
	// of logs [lo, hi] becomes [exp(lo)-1, exp(hi)-1]. Used when all values
	// are positive.
	RelLogShift RelMethod = iota
	// RelShiftOverMedian: Hodges–Lehmann on the values; the interval of
	// the shift is divided by |median(A)|. Used when some value is
	// negative: a quantity that can be negative can fall by more than
	// 100%.
	RelShiftOverMedian
	// RelAbsShift: Hodges–Lehmann on the values, the interval that of the
	// shift B-A in the unit of the values (Shift, ShiftLo, ShiftHi); there
	// is no interval of the relative change (Lo, Hi NaN, HasCI false),
	// and Estimate is Shift/|median(A)|. Used when every value is >= 0
	// and some is 0: no ratio is defined at 0, and the shift's interval
	// divided by median(A) could fall below -100%, which a non-negative
	// quantity cannot.
	RelAbsShift
	// RelPoints: Hodges–Lehmann on the values, which are percentages of
	// a whole (a profile's share of the samples in a symbol): the change
	// is the shift B-A in percentage points (Shift, ShiftLo, ShiftHi),
	// as for RelAbsShift; there is no interval of a ratio, and Estimate
	// is Shift/|median(A)| (for the noise band). Chosen by
	// CompareOptions.Points: a share going from 0.5% to 1% has doubled
	// and moved by half a point, and the point is what a reader of a
	// profile compares.
	RelPoints
)

// Absolute tells whether m gives the change as the shift B-A in the
// unit of the values (RelAbsShift, RelPoints) rather than as a ratio.
func (m RelMethod) Absolute() bool { return m == RelAbsShift || m == RelPoints }

// String describes the method in words.
func (m RelMethod) String() string {
	switch m {
	case RelLogShift:
		return "Hodges-Lehmann on log values"
	case RelShiftOverMedian:
		return "Hodges-Lehmann shift / |median(A)|"
	case RelAbsShift:
		return "Hodges-Lehmann shift B-A (values >= 0, some 0)"
	case RelPoints:
		return "Hodges-Lehmann shift B-A in percentage points"
	}
	return fmt.Sprintf("RelMethod(%d)", int(m))
}

// A RelChange is the relative change of B against A with a confidence
// interval. Relative changes are fractions: 0.05 means B is 5% larger.
type RelChange struct {
	// Change is the relative change of the medians,
	// (median(B) - median(A))/|median(A)|, which is median(B)/median(A) - 1
	// for positive data. NaN when median(A) is 0.
	Change float64
	// Estimate is the Hodges–Lehmann point estimate matching the interval:
	// exp(shift of logs)-1 for RelLogShift, shift/|median(A)| otherwise.
	// For values >= 0 it is >= -1.
	Estimate float64

	// Shift is the Hodges–Lehmann shift B-A of the values, in their unit,
	// and [ShiftLo, ShiftHi] its interval (HasShiftCI): computed for
	// RelShiftOverMedian and RelAbsShift, NaN for RelLogShift.
	Shift, ShiftLo, ShiftHi float64
	HasShiftCI              bool

	// Method tells how the interval was computed.
	Method RelMethod
	// Confidence is the requested coverage of [Lo, Hi]; HasCI, Coverage
	// as in HLResult. Lo and Hi are NaN when HasCI is false.
	Confidence float64
	HasCI      bool
	Lo, Hi     float64
	Coverage   float64

	// Warnings lists conditions that weaken the result without making it
	// wrong.
	Warnings []string
}

// RelativeChange returns the relative change of the median of B against
// the median of A with a distribution-free confidence interval.
//
// For positive data (the usual case for times and rates) the interval is
// the Hodges–Lehmann interval of the shift of log values, transformed back
// as a ratio: if B = A·(1+r) in distribution then log B = log A + log(1+r),
// a pure shift, so the interval [lo, hi] of that shift gives the exact
// distribution-free interval [exp(lo)-1, exp(hi)-1] of r. When some value
// is zero or negative the interval falls back to the Hodges–Lehmann
// interval of the shift divided by |median(A)|, which treats median(A) as
// known (Method RelShiftOverMedian), when some value is negative; when
// every value is >= 0 and some is 0, the interval is that of the shift
// B-A itself, in the unit of the values (Method RelAbsShift: Lo and Hi
// NaN), since divided by median(A) it could fall below -100%. All work for values of any
// magnitude: logarithms of subnormal values are exact (logPositive), and
// the fallback computes on the values divided by a power of two.
//
// Estimate and [Lo, Hi] are one estimator; Change (of the medians) is
// another, reported for reference, and may lie outside [Lo, Hi].
func RelativeChange(a, b []float64, confidence float64) (RelChange, error) {
	if err := checkSample("A", a); err != nil {
		return RelChange{}, err
	}
	if err := checkSample("B", b); err != nil {
		return RelChange{}, err
	}
	checkLevel("confidence", confidence)
	return relativeChange(a, b, nil, nil, confidence, nil, nil), nil
}

// relativeChange is RelativeChange of checked samples a and b; sortedA and
// sortedB are them sorted, or nil. bufA and bufB, when not nil, are
// arrays it may use and grow for the logarithms of A and B.
func relativeChange(a, b, sortedA, sortedB []float64, confidence float64, bufA, bufB *[]float64) RelChange {
	// Relative quantities do not depend on the unit: compute them on the
	// values divided by 2^k (exact), where no difference overflows.
	k := scaleExp(a, b)
	var sa, sb []float64
	var ma, mb float64
	positive := allPositive(a) && allPositive(b)
	if positive {
		// Sorted once, for the medians and the logarithms (the same
		// values: scaling and logarithms keep the order, and there is no
		// zero whose sign could depend on it).
		if sortedA == nil {
			sortedA, sortedB = Sorted(a), Sorted(b)
		}
		a, b = sortedA, sortedB
		ma, mb = rescaledMedian(a, k), rescaledMedian(b, k)
	} else {
		sa, sb = rescaled(a, k), rescaled(b, k)
		ma, mb = Median(sa), Median(sb)
	}
	r := RelChange{Confidence: confidence, Lo: math.NaN(), Hi: math.NaN(), Change: math.NaN(), Estimate: math.NaN(),
		Shift: math.NaN(), ShiftLo: math.NaN(), ShiftHi: math.NaN()}
	if ma != 0 {
		r.Change = (mb - ma) / math.Abs(ma)
	}
	if positive {
		r.Method = RelLogShift
		hl := hodgesLehmannScaled(logsInto(bufA, a), logsInto(bufB, b), confidence)
		r.Estimate = math.Expm1(hl.Shift)
		r.HasCI, r.Coverage, r.Warnings = hl.HasCI, hl.Coverage, hl.Warnings
		if hl.HasCI {
			r.Lo, r.Hi = math.Expm1(hl.Lo), math.Expm1(hl.Hi)
		}
		return r
	}
	r.Method = RelShiftOverMedian
	if allNonNegative(a) && allNonNegative(b) {
		r.Method = RelAbsShift
	}
	hl := hodgesLehmannScaled(sa, sb, confidence)
	r.Coverage, r.Warnings = hl.Coverage, hl.Warnings
	r.Shift, r.HasShiftCI = math.Ldexp(hl.Shift, k), hl.HasCI
	if hl.HasCI {
		r.ShiftLo, r.ShiftHi = math.Ldexp(hl.Lo, k), math.Ldexp(hl.Hi, k)
	}
	if r.Method == RelAbsShift {
		r.Warnings = append(r.Warnings, "some values are 0: the interval is of the shift B-A in the metric's unit, not of a ratio")
	}
	if ma == 0 {
		r.Warnings = append(r.Warnings, "median of A is 0: relative change undefined")
		return r
	}
	r.Estimate = hl.Shift / math.Abs(ma)
	if r.Method == RelAbsShift {
		return r
	}
	r.Warnings = append(r.Warnings, "some values are negative: interval of the relative change treats median(A) as exact")
	if hl.HasCI {
		r.HasCI = true
		r.Lo, r.Hi = hl.Lo/math.Abs(ma), hl.Hi/math.Abs(ma)
	}
	return r
}

// pointsChange is the change of B against A in the unit of the values
// (Method RelPoints): the Hodges–Lehmann shift B-A and its interval,
// Change and Estimate relative to |median(A)| as elsewhere (NaN when it
// is 0).
func pointsChange(a, b []float64, confidence float64) RelChange {
	k := scaleExp(a, b)
	sa, sb := rescaled(a, k), rescaled(b, k)
	ma, mb := Median(sa), Median(sb)
	r := RelChange{Confidence: confidence, Lo: math.NaN(), Hi: math.NaN(), Change: math.NaN(), Estimate: math.NaN(),
		Shift: math.NaN(), ShiftLo: math.NaN(), ShiftHi: math.NaN(), Method: RelPoints}
	hl := hodgesLehmannScaled(sa, sb, confidence)
	r.Coverage, r.Warnings = hl.Coverage, hl.Warnings
	r.Shift, r.HasShiftCI = math.Ldexp(hl.Shift, k), hl.HasCI
	if hl.HasCI {
		r.ShiftLo, r.ShiftHi = math.Ldexp(hl.Lo, k), math.Ldexp(hl.Hi, k)
	}
	if ma != 0 {
		r.Change = (mb - ma) / math.Abs(ma)
		r.Estimate = hl.Shift / math.Abs(ma)
	}
	return r
}

func allNonNegative(xs []float64) bool {
	for _, x := range xs {
		if !(x >= 0) {
			return false
		}
	}
	return true
}

// rescaledMedian returns medianSorted(rescaled(s, k)) of sorted s without
// the copy.
func rescaledMedian(s []float64, k int) float64 {
	n := len(s)
	if n%2 == 1 {
		return math.Ldexp(s[n/2], -k)
	}
	return midpoint(math.Ldexp(s[n/2-1], -k), math.Ldexp(s[n/2], -k))
}

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return true
}

// logs returns the natural logarithms of the positive values xs (see
// logPositive).
func logs(xs []float64) []float64 { return logsInto(nil, xs) }

// logsInto is logs into *buf (grown when short; nil: a new array).
func logsInto(buf *[]float64, xs []float64) []float64 {
	if buf == nil {
		buf = new([]float64)
	}
	l := ints(buf, len(xs))
	for i, x := range xs {
		l[i] = logPositive(x)
	}
	return l
}

// logPositive returns ln x for x > 0, subnormal x included: Go's math.Log
// is wrong for subnormal arguments on amd64 (golang/go#56600; it returns
// about -709.09 for every one of them), so those are scaled by 2^54 into
// the normal range first and the logarithm corrected by 54·ln 2.
func logPositive(x float64) float64 {
	if x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}
