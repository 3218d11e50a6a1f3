package analysis

import (
	"fmt"
	"math"
)

// A Sequential is a stopping rule for an A/B run that looks at the data
// after every A/B pair, from MinRuns to MaxRuns runs per side, and stops
// as soon as a difference is decided or the relative change is known
// precisely enough, while keeping the probability of declaring a
// difference when there is none (the false-positive rate) at or below
// Alpha over all the looks together.
//
// Looking repeatedly at a test at level Alpha inflates the false-positive
// rate: with 26 looks at 5%, an A/A comparison is declared different in
// roughly a fifth of the runs. Sequential therefore splits Alpha over the
// looks (Bonferroni, the simplest alpha-spending rule): each look tests at
//
//	NominalAlpha = Alpha / (MaxRuns - FirstTest + 1),
//
// and by the union bound the probability that any look rejects a true null
// hypothesis is at most Alpha, whatever the dependence between looks and
// whatever the other reasons to stop early. Looks with fewer than
// FirstTest runs per side are not tested at all, because the exact
// Mann-Whitney test cannot reach NominalAlpha there (see
// MannWhitneyMinP); not spending alpha on them makes the rule less
// conservative. A Pocock boundary (one constant level found by simulation
// for the correlated looks) would be less conservative still, but is only
// valid for the noise it was simulated with; Bonferroni needs no such
// assumption.
//
// The test at each look is the two-sided Mann-Whitney U test (exact when
// there are no ties). With many ties in small samples its normal
// approximation can be slightly liberal.
type Sequential struct {
	// Alpha is the overall false-positive rate, in (0, 1).
	Alpha float64
	// MinRuns and MaxRuns bound the number of runs per side; there is one
	// look per pair from MinRuns to MaxRuns.
	MinRuns, MaxRuns int
	// UntilRel stops the run when the half-width of the interval of the
	// relative change at confidence 1-NominalAlpha is at most UntilRel
	// (0.01 means ±1%). 0 disables this rule.
	UntilRel float64
	// FirstTest is the smallest number of runs per side at which the test
	// can reach NominalAlpha, at least MinRuns.
	FirstTest int
	// NominalAlpha is the level of the test at each look.
	NominalAlpha float64
}

// NewSequential returns the stopping rule for an overall false-positive
// rate alpha with looks after each pair from minRuns to maxRuns runs per
// side, stopping early when the relative change is known to ±untilRel (0
// disables that). It returns an error for alpha outside (0, 1), minRuns <
// 1, maxRuns < minRuns, a negative untilRel, or when even maxRuns runs per
// side cannot reach the nominal level.
func NewSequential(alpha float64, minRuns, maxRuns int, untilRel float64) (*Sequential, error) {
	switch {
	case !(alpha > 0 && alpha < 1):
		return nil, fmt.Errorf("analysis: sequential alpha must be in (0, 1), got %v", alpha)
	case minRuns < 1:
		return nil, fmt.Errorf("analysis: sequential minimum runs must be at least 1, got %d", minRuns)
	case maxRuns < minRuns:
		return nil, fmt.Errorf("analysis: sequential maximum runs %d is below the minimum %d", maxRuns, minRuns)
	case !(untilRel >= 0) || math.IsInf(untilRel, 0):
		return nil, fmt.Errorf("analysis: sequential precision must be a finite fraction >= 0, got %v", untilRel)
	}
	s := &Sequential{Alpha: alpha, MinRuns: minRuns, MaxRuns: maxRuns, UntilRel: untilRel}
	// The first tested look n0 is the smallest n >= minRuns whose exact
	// minimum p-value reaches alpha/(maxRuns-n0+1). Later looks reach it
	// too, since the minimum p-value falls with n and the level is fixed.
	for n := minRuns; n <= maxRuns; n++ {
		level := alpha / float64(maxRuns-n+1)
		if CanReachSignificance(n, n, level) {
			s.FirstTest, s.NominalAlpha = n, level
			return s, nil
		}
	}
	return nil, fmt.Errorf("analysis: %d runs per side can never reach alpha %g in a sequential test; need at least %d",
		maxRuns, alpha, MinRunsForSignificance(alpha))
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
	// NominalAlpha is the level of the test at this look.
	NominalAlpha float64
	// N is the number of runs per side at this look, min(len(a), len(b)).
	N int
	// P is the two-sided Mann-Whitney p-value; NaN when this look is not
	// tested (N < FirstTest).
	P float64
	// Change is the relative change of the medians of B against A and
	// [Lo, Hi] its interval at confidence 1-NominalAlpha (see
	// RelativeChange). Lo and Hi are NaN when not computed: they are
	// computed when UntilRel > 0 or the rule stops, and need enough runs.
	Change, Lo, Hi float64
}

// Decide looks at the runs so far, a and b, and tells whether to stop.
// Call it once after each A/B pair; calling it several times for the same
// number of runs with different data would add looks the correction does
// not count. It returns an error wrapping ErrNoData for an empty sample
// and an error for NaN or infinite values.
func (s *Sequential) Decide(a, b []float64) (Decision, error) {
	if err := checkSample("A", a); err != nil {
		return Decision{}, err
	}
	if err := checkSample("B", b); err != nil {
		return Decision{}, err
	}
	d := Decision{
		NominalAlpha: s.NominalAlpha,
		N:            min(len(a), len(b)),
		P:            math.NaN(),
		Change:       (Median(b) - Median(a)) / math.Abs(Median(a)),
		Lo:           math.NaN(),
		Hi:           math.NaN(),
	}
	if d.N < s.MinRuns {
		d.Reason = fmt.Sprintf("need at least %d runs per side (have %d)", s.MinRuns, d.N)
		return d, nil
	}
	if d.N >= s.FirstTest {
		mw, err := MannWhitney(a, b, TwoSided)
		if err != nil {
			return Decision{}, err
		}
		d.P = mw.P
		d.Significant = mw.P <= s.NominalAlpha
	}
	reachedMax := d.N >= s.MaxRuns
	var rel RelChange
	if s.UntilRel > 0 || d.Significant || reachedMax {
		var err error
		rel, err = RelativeChange(a, b, 1-s.NominalAlpha)
		if err != nil {
			return Decision{}, err
		}
		if rel.HasCI {
			d.Lo, d.Hi = rel.Lo, rel.Hi
		}
	}
	switch {
	case d.Significant:
		d.Stop = true
		d.Reason = fmt.Sprintf("difference decided: p = %.3g <= nominal alpha %.3g", d.P, s.NominalAlpha)
	case s.UntilRel > 0 && rel.HasCI && (d.Hi-d.Lo)/2 <= s.UntilRel:
		d.Stop = true
		d.Reason = fmt.Sprintf("precise enough: relative change interval [%+.3g%%, %+.3g%%] is narrower than ±%.3g%%",
			100*d.Lo, 100*d.Hi, 100*s.UntilRel)
	case reachedMax:
		d.Stop = true
		d.Reason = fmt.Sprintf("reached the maximum of %d runs per side without deciding", s.MaxRuns)
	case d.N < s.FirstTest:
		d.Reason = fmt.Sprintf("the test cannot reach nominal alpha %.3g before %d runs per side", s.NominalAlpha, s.FirstTest)
	default:
		d.Reason = fmt.Sprintf("undecided: p = %.3g > nominal alpha %.3g", d.P, s.NominalAlpha)
	}
	return d, nil
}
