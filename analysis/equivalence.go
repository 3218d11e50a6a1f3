package analysis

import "math"

// EquivalenceConfidence is the coverage of the interval Equivalence
// decides by: two one-sided tests at alpha 0.05 are the 90% interval.
const EquivalenceConfidence = 0.90

// An EquivalenceVerdict is the decision of Equivalence.
type EquivalenceVerdict int

// Verdicts of Equivalence.
const (
	// NoEquivalenceVerdict: no interval of the ratio (see
	// EquivalenceResult.Why).
	NoEquivalenceVerdict EquivalenceVerdict = iota
	// Equivalent: the interval of the ratio is inside 1 ± margin.
	Equivalent
	// NotEquivalent: the interval of the ratio is wholly outside
	// 1 ± margin.
	NotEquivalent
	// NotShownEquivalent: the interval crosses the margin; more runs or a
	// wider margin may settle it.
	NotShownEquivalent
)

// Why no equivalence verdict was reached.
const (
	WhyNoData  = "no data" // a side is empty
	WhyZeros   = "zeros"   // values >= 0 with some 0: no ratio is defined at 0
	WhyTooFew  = "too few" // too few values for a 90% interval
	WhyInvalid = "invalid" // NaN or infinite values (Err says which)
)

// An EquivalenceResult is the outcome of Equivalence.
type EquivalenceResult struct {
	Verdict EquivalenceVerdict
	// Lo and Hi bound the 90% interval of the ratio B/A (1 + the
	// relative change) when Verdict is not NoEquivalenceVerdict; Ratio is
	// its Hodges–Lehmann estimate.
	Lo, Hi, Ratio float64
	// Why says why there is no verdict (one of the Why constants), Err
	// the error of WhyInvalid.
	Why string
	Err error
}

// Equivalence decides whether b is equivalent to a within ±margin (a
// fraction: 0.05 is 5%) by two one-sided tests at alpha 0.05 in their
// interval form: the 90% interval of the ratio b/a (RelativeChange: the
// Hodges–Lehmann interval of the shift of log values for positive data)
// inside [1-margin, 1+margin]. Values >= 0 with some 0 define no ratio and
// give no verdict.
func Equivalence(a, b []float64, margin float64) EquivalenceResult {
	if len(a) == 0 || len(b) == 0 {
		return EquivalenceResult{Why: WhyNoData}
	}
	rc, err := RelativeChange(a, b, EquivalenceConfidence)
	switch {
	case err != nil:
		return EquivalenceResult{Why: WhyInvalid, Err: err}
	case rc.Method == RelAbsShift:
		return EquivalenceResult{Why: WhyZeros}
	case !rc.HasCI:
		return EquivalenceResult{Why: WhyTooFew}
	}
	r := EquivalenceResult{Lo: 1 + rc.Lo, Hi: 1 + rc.Hi, Ratio: 1 + rc.Estimate, Verdict: NotShownEquivalent}
	switch {
	case rc.Lo >= -margin && rc.Hi <= margin:
		r.Verdict = Equivalent
	case rc.Lo > margin || rc.Hi < -margin:
		r.Verdict = NotEquivalent
	}
	return r
}

// PairedEquivalence decides as Equivalence does, from paired runs: d
// holds ln(b/a) of each pair (an A/B round), and the interval is the 90%
// signed-rank interval of their centre (SignedRankInterval), as a ratio
// exp(lo) to exp(hi). A change of the machine between the pairs, which
// widens Equivalence's interval, does not widen this one.
func PairedEquivalence(d []float64, margin float64) EquivalenceResult {
	if len(d) == 0 {
		return EquivalenceResult{Why: WhyNoData}
	}
	ci, err := SignedRankInterval(d, EquivalenceConfidence)
	switch {
	case err != nil:
		return EquivalenceResult{Why: WhyInvalid, Err: err}
	case !ci.HasCI:
		return EquivalenceResult{Why: WhyTooFew}
	}
	r := EquivalenceResult{Lo: math.Exp(ci.Lo), Hi: math.Exp(ci.Hi), Ratio: math.Exp(ci.Estimate), Verdict: NotShownEquivalent}
	switch {
	case r.Lo >= 1-margin && r.Hi <= 1+margin:
		r.Verdict = Equivalent
	case r.Lo > 1+margin || r.Hi < 1-margin:
		r.Verdict = NotEquivalent
	}
	return r
}

// DriftMinN is the fewest values Drift tests: with 3 the Mann–Kendall
// test cannot reach the usual levels.
const DriftMinN = 4

// Drift tests xs, values in run order, for a monotonic trend at level
// alpha (MannKendall): drifts is true when the two-sided p-value is below
// alpha, which says the machine changed during the run. Fewer than
// DriftMinN values, or values MannKendall refuses, are not tested
// (tested false).
func Drift(xs []float64, alpha float64) (mk MKResult, tested, drifts bool) {
	if len(xs) < DriftMinN {
		return MKResult{}, false, false
	}
	mk, err := MannKendall(xs)
	if err != nil {
		return MKResult{}, false, false
	}
	return mk, true, mk.P < alpha
}
