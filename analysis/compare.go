package analysis

import (
	"fmt"
	"math"
	"strings"
)

// A Direction tells which way a metric improves.
type Direction int

const (
	// NoDirection: changes are an increase or a decrease, neither better.
	NoDirection Direction = iota
	// LowerIsBetter: for times, latencies, costs.
	LowerIsBetter
	// HigherIsBetter: for throughputs, rates.
	HigherIsBetter
)

// String returns "none", "lower is better" or "higher is better".
func (d Direction) String() string {
	switch d {
	case NoDirection:
		return "none"
	case LowerIsBetter:
		return "lower is better"
	case HigherIsBetter:
		return "higher is better"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// A Verdict is the conclusion of a Comparison in words.
type Verdict string

// The verdicts of a Comparison.
const (
	VerdictBetter      Verdict = "better"                // significant, beyond the noise band, in the good direction
	VerdictWorse       Verdict = "worse"                 // significant, beyond the noise band, in the bad direction
	VerdictIncrease    Verdict = "increase"              // as above with NoDirection: B is larger
	VerdictDecrease    Verdict = "decrease"              // as above with NoDirection: B is smaller
	VerdictNoChange    Verdict = "no significant change" // P > Alpha
	VerdictWithinNoise Verdict = "within noise"          // P <= Alpha but |Change| < Threshold
	VerdictTooFewRuns  Verdict = "too few runs"          // the test cannot reach Alpha with these sample sizes
)

// CompareOptions configures Compare. The zero value gives the defaults.
type CompareOptions struct {
	// Test is the hypothesis test; the default is TestMannWhitney.
	Test Test
	// Better tells which way the metric improves; the default NoDirection
	// gives the verdicts "increase" and "decrease".
	Better Direction
	// Alpha is the significance level in (0, 1); 0 means 0.05.
	Alpha float64
	// Threshold is the relative noise band: a significant change with
	// |Change| < Threshold is reported as "within noise". 0.02 means 2%;
	// 0 disables the band.
	Threshold float64
	// Confidence is the coverage of the median and relative-change
	// intervals, in (0, 1); 0 means 0.95.
	Confidence float64
	// Power is the power for MDE, in (0, 1); 0 means 0.8.
	Power float64
	// Points: the values are percentages of a whole (unit "%"): the
	// change is the Hodges-Lehmann shift B-A in percentage points and
	// its interval (ChangeMethod RelPoints), not a ratio.
	Points bool
}

// A Comparison compares sample B (new) against sample A (baseline).
// Relative quantities are fractions: 0.05 means B is 5% larger than A.
type Comparison struct {
	SummaryA, SummaryB Summary

	// Test is the hypothesis test used and Method how its p-value was
	// computed: "exact" or "normal approximation" for Mann-Whitney,
	// "Welch t" for Welch.
	Test   Test
	Method string
	// P is the two-sided p-value of the test. AdjustedP is the p-value
	// the Verdict uses: equal to P, or the Holm-adjusted value after
	// AdjustHolm.
	P, AdjustedP float64
	// Sign is +1 when B tends to be larger than A, -1 when smaller, and 0
	// when neither (by the test statistic: U against N1·N2/2 for
	// Mann-Whitney, the difference of means for Welch).
	Sign int

	// Estimate is the Hodges-Lehmann estimate of the relative change of B
	// against A by ChangeMethod (see RelativeChange), and [ChangeLo,
	// ChangeHi] its interval at Confidence, by the same estimator: the
	// estimate always lies inside it. HasChangeCI is false (and the
	// bounds NaN) when the samples are too small for it. Estimate is NaN
	// when median(A) is 0 and some value is not positive.
	Estimate           float64
	ChangeLo, ChangeHi float64
	// Change is the relative change of the medians,
	// (median(B)-median(A))/|median(A)|; NaN when median(A) is 0. It is a
	// different estimator from Estimate, and may lie outside [ChangeLo,
	// ChangeHi] when the samples differ in shape (bimodal samples): see
	// Disagreement.
	Change       float64
	HasChangeCI  bool
	ChangeMethod RelMethod
	Confidence   float64
	// Shift is the Hodges-Lehmann shift B-A in the unit of the values and
	// [ShiftLo, ShiftHi] its interval (HasShiftCI), for ChangeMethod
	// RelShiftOverMedian and RelAbsShift (NaN otherwise). With
	// RelAbsShift (values >= 0, some 0) it is the only interval:
	// HasChangeCI is false.
	Shift, ShiftLo, ShiftHi float64
	HasShiftCI              bool

	// CliffsDelta is Cliff's delta of B against A, in [-1, 1], and
	// Magnitude its size in words (see DeltaMagnitude).
	CliffsDelta float64
	Magnitude   string

	// MDEUp and MDEDown are the smallest relative increase and decrease
	// the test would detect with power Power at level Alpha/FamilySize,
	// given the noise of the samples (see MinDetectableChange): planning
	// figures, positive fractions. MDE is the larger of the two. NaN when
	// the test cannot detect any change at these sizes or the noise is
	// undefined.
	MDE, MDEUp, MDEDown float64
	Power               float64
	mdeNoise            float64 // the noise of MinDetectableChange
	mdeKind             noiseKind
	mdeOK               bool
	// CanReachAlpha tells whether the test can produce a p-value at or
	// below Alpha with these sample sizes at all. After AdjustHolm it
	// also requires that the family can: it is false when even the
	// smallest Holm-adjusted p-value possible exceeds Alpha.
	CanReachAlpha bool
	// FamilySize is the number of comparisons AdjustHolm adjusted this
	// one together with (itself included); 1 before adjustment.
	FamilySize int

	// Alpha, Threshold and Better are the options the Verdict was decided
	// with.
	Alpha     float64
	Threshold float64
	Better    Direction
	// Verdict is the conclusion in words.
	Verdict Verdict

	// MannWhitney and Welch hold the details of the test that ran; the
	// other is nil.
	MannWhitney *MWResult
	Welch       *WelchResult

	// Warnings lists conditions that weaken the comparison without making
	// it wrong.
	Warnings []string
}

// Compare compares B against A: summaries of both, the relative change of
// the medians with its interval, a two-sided p-value by opt.Test, Cliff's
// delta, the minimum detectable effect and a Verdict:
//
//	"too few runs"           the test cannot reach Alpha with N1 and N2 values
//	"no significant change"  AdjustedP > Alpha
//	"within noise"           AdjustedP <= Alpha and |Estimate| < Threshold
//	"better"/"worse"         otherwise, by Sign and Better
//	"increase"/"decrease"    otherwise, when Better is NoDirection
//
// The interval of Change is always distribution-free (RelativeChange),
// also with TestWelch, whose interval of the difference of means is in
// Welch. When many comparisons are reported together, call AdjustHolm on
// them.
//
// It returns an error wrapping ErrNoData for an empty sample, an error for
// NaN or infinite values, and an error for invalid options.
func Compare(a, b []float64, opt CompareOptions) (Comparison, error) {
	if err := checkSample("A", a); err != nil {
		return Comparison{}, err
	}
	if err := checkSample("B", b); err != nil {
		return Comparison{}, err
	}
	return compareChecked(a, b, Sorted(a), Sorted(b), opt, true)
}

// CompareSorted is Compare of a and b given with their values sorted, sa
// = Sorted(a) and sb = Sorted(b), which it only reads: the same numbers,
// for a caller that sorted the samples once for other statistics too
// (comparison.Build: the outliers, HighScores). It returns the errors of
// Compare, and one for a sorted sample of another length.
func CompareSorted(a, b, sa, sb []float64, opt CompareOptions) (Comparison, error) {
	if err := checkSample("A", a); err != nil {
		return Comparison{}, err
	}
	if err := checkSample("B", b); err != nil {
		return Comparison{}, err
	}
	if len(sa) != len(a) || len(sb) != len(b) {
		return Comparison{}, fmt.Errorf("analysis: CompareSorted: %d and %d sorted values for samples of %d and %d", len(sa), len(sb), len(a), len(b))
	}
	return compareChecked(a, b, sa, sb, opt, false)
}

// CompareSortedScratch is CompareSorted for sorted samples the caller
// gives up: sa and sb serve as its scratch arrays once it has read them
// (the logarithms of the change, then of the noise, are written over
// them), which saves two arrays of the samples' length. Their contents
// are undefined after.
func CompareSortedScratch(a, b, sa, sb []float64, opt CompareOptions) (Comparison, error) {
	if err := checkSample("A", a); err != nil {
		return Comparison{}, err
	}
	if err := checkSample("B", b); err != nil {
		return Comparison{}, err
	}
	if len(sa) != len(a) || len(sb) != len(b) {
		return Comparison{}, fmt.Errorf("analysis: CompareSortedScratch: %d and %d sorted values for samples of %d and %d", len(sa), len(sb), len(a), len(b))
	}
	return compareChecked(a, b, sa, sb, opt, true)
}

// compareChecked is Compare of checked samples a and b, sorted in sa and
// sb, which it may write over once read when own is true.
func compareChecked(a, b, sa, sb []float64, opt CompareOptions, own bool) (Comparison, error) {
	if err := opt.fill(); err != nil {
		return Comparison{}, err
	}
	c := Comparison{
		Test:       opt.Test,
		Confidence: opt.Confidence,
		Power:      opt.Power,
		Alpha:      opt.Alpha,
		Threshold:  opt.Threshold,
		Better:     opt.Better,
	}
	// Each sample sorted once, for the summaries, the test, the effect
	// size and the change: the same numbers as each sorting its own copy
	// (TestCompareSameAsSortEach), several times faster for large samples.
	// Two arrays serve in turn: the scaled values of each summary, the
	// logarithms of each sample for the change, then for the noise.
	var scratch, scratchB []float64
	c.SummaryA = summarizeSorted(sa, opt.Confidence, &scratch)
	c.SummaryB = summarizeSorted(sb, opt.Confidence, &scratch)
	for _, w := range c.SummaryA.Warnings {
		c.Warnings = append(c.Warnings, "A: "+w)
	}
	for _, w := range c.SummaryB.Warnings {
		c.Warnings = append(c.Warnings, "B: "+w)
	}
	n1, n2 := len(a), len(b)

	switch opt.Test {
	case TestMannWhitney:
		mw := mannWhitneySorted(sa, sb, TwoSided, MWAuto)
		c.MannWhitney = &mw
		c.Method = mw.Method.String()
		c.P = mw.P
		c.Sign = sign(mw.U - float64(n1)*float64(n2)/2)
		c.Warnings = append(c.Warnings, mw.Warnings...)
	case TestWelch:
		c.Method = "Welch t"
		if n1 < 2 || n2 < 2 {
			c.P = 1
			c.Sign = sign(c.SummaryB.Mean - c.SummaryA.Mean)
			break
		}
		w, err := Welch(a, b, TwoSided, opt.Confidence)
		if err != nil {
			return Comparison{}, err
		}
		c.Welch = &w
		c.P = w.P
		c.Sign = sign(w.Diff)
		c.Warnings = append(c.Warnings, w.Warnings...)
	}
	c.AdjustedP = c.P
	c.FamilySize = 1

	c.CanReachAlpha = CanTestReach(opt.Test, n1, n2, opt.Alpha)
	if !c.CanReachAlpha {
		c.Warnings = append(c.Warnings, tooFewWarning(opt.Test, n1, n2, opt.Alpha))
	}

	// Cliff's delta before the change: the change may write over the
	// sorted samples.
	c.CliffsDelta = cliffsDeltaSorted(sa, sb)
	c.Magnitude = DeltaMagnitude(c.CliffsDelta)

	// The logarithms of A and B for the change, then for the noise: in
	// two arrays of their own, or in the sorted samples when owned.
	logA, logB, noiseA, noiseB := &scratch, &scratchB, &scratch, &scratchB
	if own {
		logA, logB, noiseA, noiseB = &sa, &sb, &sa, &sb
	}
	var rel RelChange
	if opt.Points {
		rel = pointsChange(a, b, opt.Confidence)
	} else {
		rel = relativeChange(a, b, sa, sb, opt.Confidence, logA, logB)
	}
	c.Change, c.Estimate, c.ChangeLo, c.ChangeHi = rel.Change, rel.Estimate, rel.Lo, rel.Hi
	c.HasChangeCI, c.ChangeMethod = rel.HasCI, rel.Method
	c.Shift, c.ShiftLo, c.ShiftHi, c.HasShiftCI = rel.Shift, rel.ShiftLo, rel.ShiftHi, rel.HasShiftCI
	c.Warnings = append(c.Warnings, rel.Warnings...)

	c.mdeNoise, c.mdeKind, c.mdeOK = noiseOf(a, b, opt.Test, sa, noiseA, noiseB)
	c.setMDE()
	if opt.Threshold > 0 && c.MDE > opt.Threshold {
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"the noise allows detecting only changes of about %.3g%% or more (threshold %.3g%%); more runs would help",
			100*c.MDE, 100*opt.Threshold))
	}
	if d := c.Disagreement(); d != "" {
		c.Warnings = append(c.Warnings, d)
	}
	c.decide()
	return c, nil
}

// Disagreement says in words when the change of the medians and the
// Hodges-Lehmann estimate (or the test) tell different stories, and ""
// when they agree. They disagree when the change of the medians lies
// outside the interval of the estimate (in the other direction or not),
// when it goes the other way than a significant test, or, without an
// interval, when it goes the other way than the estimate. Opposite signs of
// two changes within the interval are noise, not a disagreement. Both are
// honest estimates of different things; they part when the samples differ
// in shape (as bimodal samples do), and a reader must then look at the
// distributions.
func (c *Comparison) Disagreement() string {
	if math.IsNaN(c.Change) || math.IsNaN(c.Estimate) {
		return ""
	}
	sm := sign(c.Change)
	moves := map[int]string{-1: "fall", 1: "rise"}
	larger := map[int]string{-1: "smaller", 1: "larger"}
	by := fmt.Sprintf("the medians %s by %.3g%%", moves[sm], 100*math.Abs(c.Change))
	if sm == 0 {
		by = "the medians are equal"
	}
	const shape = ": the samples differ in shape"
	// The interval is computed on another scale (logarithms of ratios, or
	// differences divided afterwards): an exact constant change comes back
	// off by a few ulps, which must not count as outside.
	tol := 1e-9 * math.Max(1, math.Abs(c.Change))
	outside := c.HasChangeCI && (c.Change < c.ChangeLo-tol || c.Change > c.ChangeHi+tol)
	hasCI := c.HasChangeCI
	if c.ChangeMethod.Absolute() {
		// The interval is of the shift: compare the medians' difference.
		d := c.SummaryB.Median - c.SummaryA.Median
		tol := 1e-9 * math.Max(1, math.Abs(d))
		hasCI = c.HasShiftCI
		outside = hasCI && (d < c.ShiftLo-tol || d > c.ShiftHi+tol)
	}
	switch {
	case sm != 0 && sign(c.Estimate) == -sm && (outside || !hasCI):
		return by + " while the Hodges-Lehmann estimate " + moves[-sm] + "s" + shape
	case sm != 0 && c.Sign == -sm && c.AdjustedP <= c.Alpha:
		return by + " while the " + c.Test.String() + " test finds B " + larger[-sm] + shape
	case outside:
		return by + ", outside the interval of the Hodges-Lehmann estimate" + shape
	}
	return ""
}

// fill sets the defaults of opt and checks it.
func (opt *CompareOptions) fill() error {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if opt.Confidence == 0 {
		opt.Confidence = 0.95
	}
	if opt.Power == 0 {
		opt.Power = 0.8
	}
	for _, l := range []struct {
		name string
		v    float64
	}{{"Alpha", opt.Alpha}, {"Confidence", opt.Confidence}, {"Power", opt.Power}} {
		if !(l.v > 0 && l.v < 1) {
			return fmt.Errorf("analysis: CompareOptions.%s must be in (0, 1), got %v", l.name, l.v)
		}
	}
	if !(opt.Threshold >= 0) || math.IsInf(opt.Threshold, 0) {
		return fmt.Errorf("analysis: CompareOptions.Threshold must be a finite fraction >= 0, got %v", opt.Threshold)
	}
	if opt.Test != TestMannWhitney && opt.Test != TestWelch {
		return fmt.Errorf("analysis: CompareOptions.Test: unknown test %d", int(opt.Test))
	}
	if opt.Better < NoDirection || opt.Better > HigherIsBetter {
		return fmt.Errorf("analysis: CompareOptions.Better: unknown direction %d", int(opt.Better))
	}
	return nil
}

func tooFewWarning(test Test, n1, n2 int, alpha float64) string {
	if test == TestWelch {
		return fmt.Sprintf("too few runs: Welch's t-test needs at least 2 runs per side (have %d and %d)", n1, n2)
	}
	return fmt.Sprintf("too few runs: with %d and %d runs the smallest possible p-value is %.3g > alpha %s; need at least %d runs per side",
		n1, n2, MannWhitneyMinP(n1, n2, TwoSided), FormatAlpha(alpha), MinRunsForSignificance(alpha))
}

// decide sets c.Verdict from AdjustedP, Alpha, Threshold, Change, Sign and
// Better.
func (c *Comparison) decide() {
	switch {
	case !c.CanReachAlpha:
		c.Verdict = VerdictTooFewRuns
	case !(c.AdjustedP <= c.Alpha) || c.Sign == 0:
		c.Verdict = VerdictNoChange
	case math.Abs(c.noiseChange()) < c.Threshold:
		c.Verdict = VerdictWithinNoise
	default:
		c.Verdict = directionVerdict(c.Sign > 0, c.Better)
	}
}

// noiseChange is the change compared with the noise band: the printed
// Hodges-Lehmann estimate, or the change of the medians when there is
// none.
func (c *Comparison) noiseChange() float64 {
	if math.IsNaN(c.Estimate) {
		return c.Change
	}
	return c.Estimate
}

// directionVerdict names a significant change beyond the noise band.
func directionVerdict(up bool, better Direction) Verdict {
	switch {
	case better == LowerIsBetter && up, better == HigherIsBetter && !up:
		return VerdictWorse
	case better == LowerIsBetter, better == HigherIsBetter:
		return VerdictBetter
	case up:
		return VerdictIncrease
	}
	return VerdictDecrease
}

// Significant tells whether the Verdict rests on a significant difference:
// better, worse, increase, decrease or within noise.
func (c *Comparison) Significant() bool {
	return c.CanReachAlpha && c.AdjustedP <= c.Alpha && c.Sign != 0
}

// AdjustHolm corrects the comparisons cs, tested together, for multiple
// testing: it sets each AdjustedP to the Holm–Bonferroni adjustment of all
// the P values (see Holm) and recomputes each Verdict from it. Nil entries
// are skipped. Every comparison counts as a hypothesis, including those
// with too few runs.
//
// Every Holm-adjusted p-value is at least m·min(p_min), with m the number
// of comparisons and p_min the smallest p-value each test can produce with
// its sample sizes (2/C(N1+N2, N1) for the exact Mann-Whitney test). When
// that floor exceeds Alpha no comparison of the family can be significant,
// so each gets the verdict "too few runs" (CanReachAlpha false, with a
// warning) rather than "no significant change".
func AdjustHolm(cs []*Comparison) error {
	var ps []float64
	var live []*Comparison
	for _, c := range cs {
		if c != nil {
			ps = append(ps, c.P)
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return nil
	}
	adj, err := Holm(ps)
	if err != nil {
		return err
	}
	floor := 1.0
	for _, c := range live {
		floor = math.Min(floor, minAchievableP(c))
	}
	floor = math.Min(1, floor*float64(len(live)))
	for i, c := range live {
		c.AdjustedP = adj[i]
		c.FamilySize = len(live)
		c.setMDE()
		var ws []string
		for _, w := range c.Warnings {
			if !strings.HasPrefix(w, familyWarning) {
				ws = append(ws, w)
			}
		}
		c.Warnings = ws
		n1, n2 := c.SummaryA.N, c.SummaryB.N
		c.CanReachAlpha = CanTestReach(c.Test, n1, n2, c.Alpha)
		if c.CanReachAlpha && floor > c.Alpha*(1+1e-12) {
			c.CanReachAlpha = false
			c.Warnings = append(c.Warnings, fmt.Sprintf(
				"%s: with %d comparisons adjusted together the smallest possible adjusted p-value is %.3g > alpha %s",
				familyWarning, len(live), floor, FormatAlpha(c.Alpha)))
		}
		c.decide()
	}
	return nil
}

// familyWarning starts the warning AdjustHolm adds when the family cannot
// reach Alpha.
const familyWarning = "too few runs for the number of comparisons"

// minAchievableP returns the smallest two-sided p-value the test of c can
// produce with its sample sizes.
func minAchievableP(c *Comparison) float64 {
	n1, n2 := c.SummaryA.N, c.SummaryB.N
	if c.Test == TestWelch {
		if n1 >= 2 && n2 >= 2 {
			return 0
		}
		return 1
	}
	return MannWhitneyMinP(n1, n2, TwoSided)
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
