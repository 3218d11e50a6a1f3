package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// SequentialMaxRuns is the largest MaxRuns a Sequential rule accepts: its
// boundaries are simulated over every look, which takes about a second at
// this size on a loaded machine.
const SequentialMaxRuns = 200

// sequentialPaths is the number of simulated null paths the boundaries of
// a Sequential rule are computed from, and sequentialSeed their fixed
// seed: the same design always gives the same boundaries.
const (
	sequentialPaths = 50000
	sequentialSeed  = 0x5e9_57a7
)

// A Spending is an alpha-spending function of a group-sequential design
// (Lan and DeMets 1983): Spent(alpha, t) is the probability of deciding a
// difference when there is none that may be used up by information time
// t = n/MaxRuns, rising from 0 to alpha at t = 1.
type Spending int

const (
	// SpendPocock is the Pocock-type function of Lan and DeMets,
	// alpha·ln(1+(e-1)·t): it spends early, so that clear differences
	// stop after few runs. It is the default.
	SpendPocock Spending = iota
	// SpendOBrienFleming is the O'Brien-Fleming-type function
	// 2-2Φ(z_{1-alpha/2}/√t): it spends almost nothing early and keeps
	// the power of the fixed design at MaxRuns.
	SpendOBrienFleming
)

// String returns "Pocock-type" or "O'Brien-Fleming-type".
func (s Spending) String() string {
	switch s {
	case SpendPocock:
		return "Pocock-type"
	case SpendOBrienFleming:
		return "O'Brien-Fleming-type"
	}
	return fmt.Sprintf("Spending(%d)", int(s))
}

// Spent returns the error that may be spent by information time t in
// [0, 1] of a design with overall false-positive rate alpha.
func (s Spending) Spent(alpha, t float64) float64 {
	switch {
	case t <= 0:
		return 0
	case t >= 1:
		return alpha
	}
	switch s {
	case SpendOBrienFleming:
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		return 2 * normalSF(z/math.Sqrt(t))
	default:
		return alpha * math.Log(1+(math.E-1)*t)
	}
}

// A Sequential is a group-sequential stopping rule for an A/B run: it
// looks at the data after every planned A/B pair from MinRuns to MaxRuns,
// and stops as soon as the two-sided Mann-Whitney test decides a
// difference, as soon as the relative change is known precisely enough
// (UntilRel), or at MaxRuns, while keeping the probability of deciding a
// difference when there is none (the false-positive rate) at or below
// Alpha over all the looks together.
//
// The error is spent over the looks by a Lan-DeMets spending function
// (Lan and DeMets 1983, Biometrika 70:659-663; the Pocock-type function of
// Kim and DeMets 1987 by default): the probability of having decided a
// difference by look n under the null hypothesis is at most
// Spending.Spent(Alpha, n/MaxRuns). The boundaries are computed for the
// test's real null distribution, not a normal approximation: with
// independent, identically distributed values of any continuous
// distribution, the ranks of the pooled values are a uniformly random
// permutation, so the joint null distribution of the Mann-Whitney
// statistics at all the looks is the same for every such distribution.
// NewSequential simulates it once, from a fixed seed, and chooses at each
// look the widest rejection region |2U - n²| >= b_n that keeps the
// simulated cumulative rate within the spending function (of Alpha less
// two Monte Carlo standard errors, so that the true rate stays below
// Alpha: 0.048 at Alpha 0.05 with 50,000 paths); the error a coarse exact
// test cannot use at one look is carried over to the next. Levels[n] is
// that region as a nominal level on the exact p-value, so a look decides
// a difference when the p-value is at most Levels[n].
//
// Every planned pair is a look, counted in the spending whatever its
// data: when a repetition failed, the look after that pair tests the runs
// that succeeded at that pair's level (Decide takes the pair number). The
// simulated boundaries assume equal sample sizes without ties; with a few
// failed runs or tied values the level of a look is still that of the
// test at that look, and the joint rate stays close to the design's.
type Sequential struct {
	// Alpha is the overall false-positive rate, in (0, 1).
	Alpha float64
	// MinRuns and MaxRuns bound the number of pairs; there is one look
	// after each pair from MinRuns to MaxRuns.
	MinRuns, MaxRuns int
	// UntilRel stops the run when the half-width of the interval of the
	// relative change at confidence Confidence is at most UntilRel (0.01
	// means ±1%). 0 disables this rule.
	UntilRel float64
	// Confidence is the confidence of that interval: 0.95, the interval
	// the comparison table shows.
	Confidence float64
	// Spending spends Alpha over the looks.
	Spending Spending
	// Levels[n] is the nominal two-sided level of the look after n
	// pairs, for n in [0, MaxRuns]: the test decides a difference when
	// its p-value is at most Levels[n]. It is 0 before MinRuns and where
	// the spent error does not reach the smallest p-value of the test.
	Levels []float64
	// Spent[n] is the simulated probability, when there is no
	// difference, of having decided one by the look after n pairs; it is
	// below Spending.Spent(Alpha, n/MaxRuns) and Spent[MaxRuns] is the
	// design's false-positive rate.
	Spent []float64
	// FirstTest is the first look with a positive level.
	FirstTest int
}

// NewSequential returns the stopping rule for an overall false-positive
// rate alpha with looks after each pair from minRuns to maxRuns, with
// Pocock-type spending, stopping early also when the relative change is
// known to ±untilRel (0 disables that). See NewSequentialSpending.
func NewSequential(alpha float64, minRuns, maxRuns int, untilRel float64) (*Sequential, error) {
	return NewSequentialSpending(alpha, minRuns, maxRuns, untilRel, SpendPocock)
}

// NewSequentialSpending returns the stopping rule of NewSequential with the
// spending function spend. It returns an error for alpha outside (0, 1),
// minRuns < 1, maxRuns < minRuns or above SequentialMaxRuns, a negative
// untilRel, or when no look can ever decide a difference.
func NewSequentialSpending(alpha float64, minRuns, maxRuns int, untilRel float64, spend Spending) (*Sequential, error) {
	switch {
	case !(alpha > 0 && alpha < 1):
		return nil, fmt.Errorf("analysis: sequential alpha must be in (0, 1), got %v", alpha)
	case minRuns < 1:
		return nil, fmt.Errorf("analysis: sequential minimum runs must be at least 1, got %d", minRuns)
	case maxRuns < minRuns:
		return nil, fmt.Errorf("analysis: sequential maximum runs %d is below the minimum %d", maxRuns, minRuns)
	case maxRuns > SequentialMaxRuns:
		return nil, fmt.Errorf("analysis: sequential maximum runs %d is above %d", maxRuns, SequentialMaxRuns)
	case !(untilRel >= 0) || math.IsInf(untilRel, 0):
		return nil, fmt.Errorf("analysis: sequential precision must be a finite fraction >= 0, got %v", untilRel)
	case spend != SpendPocock && spend != SpendOBrienFleming:
		return nil, fmt.Errorf("analysis: unknown spending function %d", int(spend))
	}
	s := &Sequential{Alpha: alpha, MinRuns: minRuns, MaxRuns: maxRuns, UntilRel: untilRel, Confidence: 0.95, Spending: spend}
	s.Levels, s.Spent = sequentialBounds(alpha, minRuns, maxRuns, spend)
	for n := minRuns; n <= maxRuns; n++ {
		if s.Levels[n] > 0 {
			s.FirstTest = n
			return s, nil
		}
	}
	return nil, fmt.Errorf("analysis: %d runs per side can never decide a difference at alpha %s in a sequential test; need at least %d",
		maxRuns, FormatAlpha(alpha), MinRunsForSignificance(alpha))
}

// seqCache holds the boundaries by design: they are simulated once.
var seqCache struct {
	sync.Mutex
	m map[seqKey][2][]float64
}

type seqKey struct {
	alpha            float64
	minRuns, maxRuns int
	spend            Spending
}

// sequentialBounds returns the levels and the spent error of each look
// (see Sequential), simulating sequentialPaths null paths of maxRuns pairs.
// The results are shared and must not be modified.
func sequentialBounds(alpha float64, minRuns, maxRuns int, spend Spending) (levels, spent []float64) {
	key := seqKey{alpha, minRuns, maxRuns, spend}
	seqCache.Lock()
	defer seqCache.Unlock()
	if r, ok := seqCache.m[key]; ok {
		return r[0], r[1]
	}
	looks := maxRuns - minRuns + 1
	paths := sequentialPaths
	// stat[p*looks+k] = |2U - n²| at the look after n = minRuns+k pairs
	// of path p; n² <= 40000 fits 16 bits.
	stat := make([]uint16, paths*looks)
	rng := rand.New(rand.NewPCG(sequentialSeed, uint64(maxRuns)))
	m := 2 * maxRuns
	perm := make([]int, m)
	bitA := make([]int32, m+1) // Fenwick trees of the ranks of A and B
	bitB := make([]int32, m+1)
	for p := 0; p < paths; p++ {
		// The ranks of 2·maxRuns exchangeable values, in the order
		// A1 B1 A2 B2 ...: a uniformly random permutation.
		for i := range perm {
			perm[i] = i
		}
		for i := m - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
		clear(bitA)
		clear(bitB)
		u := 0 // pairs with b > a
		for n := 1; n <= maxRuns; n++ {
			ra, rb := perm[2*n-2], perm[2*n-1]
			// New A: the B values above it; new B: the A values below
			// it (the new A included).
			u += (n - 1) - bitCount(bitB, ra)
			bitAdd(bitA, ra)
			u += bitCount(bitA, rb)
			bitAdd(bitB, rb)
			if n >= minRuns {
				d := 2*u - n*n
				if d < 0 {
					d = -d
				}
				stat[p*looks+n-minRuns] = uint16(d)
			}
		}
	}
	levels = make([]float64, maxRuns+1)
	spent = make([]float64, maxRuns+1)
	alive := make([]bool, paths)
	for p := range alive {
		alive[p] = true
	}
	// The paths estimate the rates with a standard error of about
	// sqrt(alpha(1-alpha)/paths) (0.001 at alpha 0.05); spending two
	// standard errors less than alpha keeps the true rate below alpha.
	budget := alpha - 2*math.Sqrt(alpha*(1-alpha)/float64(paths))
	stopped := 0
	for n := minRuns; n <= maxRuns; n++ {
		k := n - minRuns
		hist := make([]int, n*n+1)
		for p := 0; p < paths; p++ {
			if alive[p] {
				hist[stat[p*looks+k]]++
			}
		}
		allowed := int(math.Floor(spend.Spent(budget, float64(n)/float64(maxRuns))*float64(paths) + 1e-9))
		// The widest region |2U - n²| >= bound within the budget; a
		// bound of the wrong parity is the next one up.
		bound, cum := -1, 0
		for d := n * n; d > 0; d-- {
			cum += hist[d]
			if stopped+cum > allowed {
				break
			}
			bound = d
		}
		if bound > 0 {
			levels[n] = mwTailEqual(n, bound)
			for p := 0; p < paths; p++ {
				if alive[p] && int(stat[p*looks+k]) >= bound {
					alive[p] = false
					stopped++
				}
			}
		}
		spent[n] = float64(stopped) / float64(paths)
	}
	if seqCache.m == nil {
		seqCache.m = make(map[seqKey][2][]float64)
	}
	seqCache.m[key] = [2][]float64{levels, spent}
	return levels, spent
}

func bitAdd(t []int32, i int) {
	for i++; i < len(t); i += i & -i {
		t[i]++
	}
}

// bitCount returns the number of ranks below i in t.
func bitCount(t []int32, i int) int {
	s := 0
	for ; i > 0; i -= i & -i {
		s += int(t[i])
	}
	return s
}

// mwTailEqual returns the two-sided p-value of the Mann-Whitney test with
// n values per side, no ties, at |2U - n²| = d: P(|2U' - n²| >= d) under
// the null hypothesis, computed as MannWhitney would (exact up to
// mwExactMaxProduct, else the normal approximation with continuity
// correction).
func mwTailEqual(n, d int) float64 {
	nn := n * n
	if nn <= mwExactMaxProduct {
		cdf := mwExactCDF(n, n)
		lo := (nn - d) / 2 // the largest U with 2U <= n² - d
		return math.Min(1, 2*cdf[lo])
	}
	sigma := math.Sqrt(float64(nn) / 12 * float64(2*n+1))
	z := (float64(d)/2 - 0.5) / sigma
	return math.Min(1, 2*normalSF(z))
}

// A Decision is the outcome of one look of a Sequential rule.
type Decision struct {
	// Stop tells whether to stop running; Reason says why, or why not.
	Stop   bool
	Reason string
	// Significant tells whether a difference is decided: P <=
	// NominalAlpha. Report the final comparison at this level, not at
	// the overall alpha.
	Significant bool
	// NominalAlpha is the level of the test at this look (Levels[N]);
	// 0 when this look cannot decide a difference.
	NominalAlpha float64
	// N is the look: the number of pairs run, failed runs included. NA
	// and NB are the numbers of values of A and B.
	N, NA, NB int
	// P is the two-sided Mann-Whitney p-value; NaN when this look is not
	// tested.
	P float64
	// Change is the relative change of the medians of B against A and
	// [Lo, Hi] its interval at Confidence (see RelativeChange). Lo and Hi
	// are NaN when not computed: they are computed when UntilRel > 0 or
	// the rule stops, and need enough runs.
	Change, Lo, Hi float64
}

// Decide takes the look after pair number pairs (counting failed
// repetitions) with the values a and b so far, and tells whether to stop.
// Call it once after each pair, also after the last one; a side may have
// fewer values than pairs when repetitions failed. It returns an error
// for pairs outside [1, MaxRuns] and for NaN or infinite values.
func (s *Sequential) Decide(pairs int, a, b []float64) (Decision, error) {
	if pairs < 1 || pairs > s.MaxRuns {
		return Decision{}, fmt.Errorf("analysis: sequential look after pair %d is outside 1..%d", pairs, s.MaxRuns)
	}
	for _, x := range [][]float64{a, b} {
		if len(x) > pairs {
			return Decision{}, fmt.Errorf("analysis: sequential look after pair %d has %d values on one side", pairs, len(x))
		}
		if len(x) > 0 {
			if err := checkSample("A or B", x); err != nil {
				return Decision{}, err
			}
		}
	}
	d := Decision{
		NominalAlpha: s.Levels[pairs],
		N:            pairs,
		NA:           len(a),
		NB:           len(b),
		P:            math.NaN(),
		Change:       math.NaN(),
		Lo:           math.NaN(),
		Hi:           math.NaN(),
	}
	reachedMax := pairs >= s.MaxRuns
	if len(a) == 0 || len(b) == 0 {
		d.Stop = reachedMax
		d.Reason = "no successful run on one side"
		if reachedMax {
			d.Reason = fmt.Sprintf("reached the maximum of %d runs per side with no successful run on one side", s.MaxRuns)
		}
		return d, nil
	}
	d.Change = (Median(b) - Median(a)) / math.Abs(Median(a))
	if pairs < s.MinRuns {
		d.Reason = fmt.Sprintf("need at least %d runs per side (have %d)", s.MinRuns, pairs)
		return d, nil
	}
	if d.NominalAlpha > 0 {
		mw, err := MannWhitney(a, b, TwoSided)
		if err != nil {
			return Decision{}, err
		}
		d.P = mw.P
		d.Significant = mw.P <= d.NominalAlpha*(1+1e-9)
	}
	var rel RelChange
	if s.UntilRel > 0 || d.Significant || reachedMax {
		var err error
		if rel, err = RelativeChange(a, b, s.Confidence); err != nil {
			return Decision{}, err
		}
		if rel.HasCI {
			d.Lo, d.Hi = rel.Lo, rel.Hi
		}
	}
	switch {
	case d.Significant:
		d.Stop = true
		d.Reason = fmt.Sprintf("difference decided: p = %s <= %s, the level of this look", FormatAlpha(d.P), FormatAlpha(d.NominalAlpha))
	case s.UntilRel > 0 && rel.HasCI && (d.Hi-d.Lo)/2 <= s.UntilRel:
		d.Stop = true
		d.Reason = fmt.Sprintf("precise enough: the %.0f%% interval of the change [%+.3g%%, %+.3g%%] has half-width %.3g%%, at most %.3g%%",
			100*s.Confidence, 100*d.Lo, 100*d.Hi, 100*(d.Hi-d.Lo)/2, 100*s.UntilRel)
	case reachedMax:
		d.Stop = true
		d.Reason = fmt.Sprintf("reached the maximum of %d runs per side without deciding", s.MaxRuns)
		if !math.IsNaN(d.P) {
			d.Reason += fmt.Sprintf(": p = %s > %s, the level of this look", FormatAlpha(d.P), FormatAlpha(d.NominalAlpha))
		}
	case d.NominalAlpha == 0:
		d.Reason = fmt.Sprintf("the test cannot decide a difference before %d runs per side", s.nextTest(pairs))
	default:
		d.Reason = fmt.Sprintf("undecided: p = %s > %s, the level of this look", FormatAlpha(d.P), FormatAlpha(d.NominalAlpha))
	}
	return d, nil
}

// nextTest returns the first look after pairs with a positive level, or
// MaxRuns.
func (s *Sequential) nextTest(pairs int) int {
	for n := pairs + 1; n <= s.MaxRuns; n++ {
		if s.Levels[n] > 0 {
			return n
		}
	}
	return s.MaxRuns
}

// Describe says in one line how the rule decides, for reports: the
// spending function, alpha and the looks.
func (s *Sequential) Describe() string {
	return fmt.Sprintf("group-sequential Mann-Whitney test, %s alpha spending of %s over looks after %d..%d pairs",
		s.Spending, FormatAlpha(s.Alpha), s.MinRuns, s.MaxRuns)
}

// FormatAlpha formats a significance level or p-value for people: three
// significant digits, without exponent down to 0.0001 ("0.05",
// "0.00208"), as 1.2e-05 below.
func FormatAlpha(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case x == 0:
		return "0"
	case math.Abs(x) >= 1e-4:
		return fmt.Sprintf("%.3g", x)
	}
	return fmt.Sprintf("%.2g", x)
}
