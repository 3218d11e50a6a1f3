package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Boots as the experimental unit.
//
// Runs from one boot are not independent samples of a kernel: what a boot
// decides once (page placement, address-space layout, hash seeds, probe
// order) shifts every run of that boot alike. With a between-boot standard
// deviation equal to the within-boot one and 10 runs per boot, a test that
// pools the runs of 3 boots per side rejects a true null hypothesis about
// half of the time (TestBootLevelSimulation).
//
// CompareBoots therefore takes the boot as the unit: it summarises each
// boot by the mean of its log values and compares the per-boot means of
// the two sides with Student's two-sample t-test (pooled variance,
// boots_A + boots_B - 2 degrees of freedom). For a balanced design (the
// same number of runs in every boot) and a positive between-boot
// component this is exactly the REML fit of the linear mixed model
//
//	log y = side + boot + run,  boot ~ N(0, σ²_between),  run ~ N(0, σ²_within)
//
// with the usual containment degrees of freedom: the same estimate, the
// same standard error (the reference test checks both against statsmodels'
// MixedLM). Unlike the mixed model it needs no iterative fit, never
// produces a zero between-boot variance that would silently turn it back
// into the pooled test, and stays valid (if less efficient) when boots
// have different numbers of runs. The interval is that of the difference
// of log means, so exp of it is the interval of the ratio of geometric
// means B/A.

// BootComparison is the boot-level comparison of side B with side A.
type BootComparison struct {
	BootsA, BootsB int // boots per side
	RunsA, RunsB   int // runs per side, all boots
	// MeansA and MeansB are the per-boot means of the log values.
	MeansA, MeansB []float64

	// Ratio is exp(mean(MeansB) - mean(MeansA)): the ratio of the
	// geometric means B/A; [Lo, Hi] its two-sided interval at Confidence.
	// On the shift scale (Shift true) it is 1 + (mean(MeansB) -
	// mean(MeansA))/|mean(MeansA)|, |mean(MeansA)| taken as exact.
	Ratio, Lo, Hi float64
	Confidence    float64
	// T, DF and P are Student's two-sided t-test on the per-boot means.
	T, DF, P float64
	// Diff is mean(MeansB) - mean(MeansA) and SE its standard error,
	// on the scale of the means (log values, or values when Shift).
	Diff, SE float64
	// Shift: the means are of the values themselves, not of their
	// logarithms (CompareBootMeans, for values that are not all
	// positive); RelTo is |mean(MeansA)|, the base of the change.
	Shift bool
	RelTo float64

	// Components are the variance components of the log values, pooled
	// over both sides.
	Components VarianceComponents
}

// VarianceComponents are the one-way random-effects (ANOVA, method of
// moments) estimates of the variance of log values within a boot and
// between boots, pooled over the sides. For a balanced design with a
// positive between-boot estimate they equal the REML estimates.
type VarianceComponents struct {
	// Within is σ²_within, Between σ²_between (0 when the estimate is
	// negative: boots differ no more than their runs explain).
	Within, Between float64
	// RunsPerBoot is n0, the effective number of runs per boot (the
	// number itself when every boot has as many).
	RunsPerBoot float64
	// DFWithin, DFBetween are the degrees of freedom of the mean squares.
	DFWithin, DFBetween int
	// MSWithin and MSBetween are the mean squares.
	MSWithin, MSBetween float64
}

// Ratio returns σ²_between / σ²_within (+Inf when Within is 0 and Between
// is not, NaN when both are 0).
func (v VarianceComponents) Ratio() float64 {
	if v.Within == 0 {
		if v.Between == 0 {
			return math.NaN()
		}
		return math.Inf(1)
	}
	return v.Between / v.Within
}

// ErrOneBoot is returned by CompareBoots when a side has fewer than two
// boots: the boot-to-boot variance cannot be estimated from it.
var ErrOneBoot = errors.New("analysis: a boot-level comparison needs at least 2 boots per side")

// logGroups takes logs of every value, refusing non-positive ones.
func logGroups(side string, boots [][]float64) ([][]float64, error) {
	out := make([][]float64, 0, len(boots))
	for i, b := range boots {
		if len(b) == 0 {
			return nil, fmt.Errorf("analysis: side %s boot %d has no values", side, i+1)
		}
		if err := checkSample(side, b); err != nil {
			return nil, err
		}
		l := make([]float64, len(b))
		for j, v := range b {
			if !(v > 0) {
				return nil, fmt.Errorf("analysis: side %s boot %d has a value %v: boot-level comparisons are on log values and need positive ones", side, i+1, v)
			}
			l[j] = math.Log(v)
		}
		out = append(out, l)
	}
	return out, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// components returns the variance components of each side's boots (a
// slice of groups each), pooled over the sides (a common within- and
// between-boot variance, as in the mixed model; each side keeps its own
// mean).
func components(sides [][][]float64) VarianceComponents {
	var ssw, ssb, sumN0 float64
	n, k := 0, 0
	for _, side := range sides {
		ns := 0
		sumSq := 0.0
		var all []float64
		for _, b := range side {
			m := mean(b)
			for _, x := range b {
				ssw += (x - m) * (x - m)
			}
			ns += len(b)
			sumSq += float64(len(b) * len(b))
			all = append(all, b...)
		}
		gm := mean(all)
		for _, b := range side {
			m := mean(b)
			ssb += float64(len(b)) * (m - gm) * (m - gm)
		}
		sumN0 += float64(ns) - sumSq/float64(ns)
		n += ns
		k += len(side)
	}
	v := VarianceComponents{DFWithin: n - k, DFBetween: k - len(sides)}
	if v.DFWithin > 0 {
		v.MSWithin = ssw / float64(v.DFWithin)
		v.Within = v.MSWithin
	}
	if v.DFBetween > 0 {
		v.MSBetween = ssb / float64(v.DFBetween)
		v.RunsPerBoot = sumN0 / float64(v.DFBetween)
		if v.RunsPerBoot > 0 {
			v.Between = math.Max(0, (v.MSBetween-v.MSWithin)/v.RunsPerBoot)
		}
	}
	return v
}

// CompareBootMeans compares side B with side A with the boot as the unit
// for any metric: CompareBoots (log values) when every value is positive,
// else CompareBootsShift. ok is false (and the comparison zero) when a
// side has fewer than 2 boots, a boot has no value, or, on the shift
// scale, the mean of A is 0.
func CompareBootMeans(a, b [][]float64, confidence float64) (BootComparison, error) {
	positive := true
	for _, side := range [][][]float64{a, b} {
		for _, g := range side {
			for _, v := range g {
				positive = positive && v > 0
			}
		}
	}
	if positive {
		return CompareBoots(a, b, confidence)
	}
	return CompareBootsShift(a, b, confidence)
}

// CompareBootsShift is CompareBoots on the values themselves, for values
// that are not all positive (counters that may be 0): Student's t on the
// per-boot means of the values; the change is the difference of the mean
// of the boot means over |mean of A's boot means| (taken as exact), and
// Ratio 1 plus it. The variance components are of the values over
// |mean of A| squared, so that they read as relative spreads.
func CompareBootsShift(a, b [][]float64, confidence float64) (BootComparison, error) {
	checkLevel("confidence", confidence)
	if len(a) < 2 || len(b) < 2 {
		return BootComparison{}, fmt.Errorf("%w (A has %d, B has %d)", ErrOneBoot, len(a), len(b))
	}
	for i, side := range [][][]float64{a, b} {
		for j, g := range side {
			if len(g) == 0 {
				return BootComparison{}, fmt.Errorf("analysis: side %c boot %d has no values", 'A'+i, j+1)
			}
			if err := checkSample(string(rune('A'+i)), g); err != nil {
				return BootComparison{}, err
			}
		}
	}
	r := BootComparison{BootsA: len(a), BootsB: len(b), Confidence: confidence, Shift: true}
	for _, g := range a {
		r.MeansA = append(r.MeansA, mean(g))
		r.RunsA += len(g)
	}
	for _, g := range b {
		r.MeansB = append(r.MeansB, mean(g))
		r.RunsB += len(g)
	}
	r.RelTo = math.Abs(mean(r.MeansA))
	if r.RelTo == 0 {
		return BootComparison{}, errors.New("analysis: side A's boots have a mean of 0: no relative change")
	}
	scaled := func(side [][]float64) [][]float64 {
		out := make([][]float64, len(side))
		for i, g := range side {
			out[i] = make([]float64, len(g))
			for j, v := range g {
				out[i][j] = v / r.RelTo
			}
		}
		return out
	}
	r.Components = components([][][]float64{scaled(a), scaled(b)})
	r.test(func(d float64) float64 { return 1 + d/r.RelTo })
	return r, nil
}

// test fills the t-test of the per-boot means MeansA and MeansB and the
// interval, mapped to a ratio by toRatio.
func (r *BootComparison) test(toRatio func(float64) float64) {
	ma, mb := mean(r.MeansA), mean(r.MeansB)
	ss := 0.0
	for _, m := range r.MeansA {
		ss += (m - ma) * (m - ma)
	}
	for _, m := range r.MeansB {
		ss += (m - mb) * (m - mb)
	}
	na, nb := float64(len(r.MeansA)), float64(len(r.MeansB))
	r.DF = na + nb - 2
	se := math.Sqrt(ss / r.DF * (1/na + 1/nb))
	diff := mb - ma
	r.Diff, r.SE = diff, se
	r.Ratio = toRatio(diff)
	if se == 0 {
		r.Lo, r.Hi = r.Ratio, r.Ratio
		if diff == 0 {
			r.T, r.P = 0, 1
		} else {
			r.T, r.P = math.Inf(int(math.Copysign(1, diff))), 0
		}
		return
	}
	r.T = diff / se
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.P = math.Min(1, 2*t.Survival(math.Abs(r.T)))
	q := t.Quantile((1 + r.Confidence) / 2)
	r.Lo, r.Hi = toRatio(diff-q*se), toRatio(diff+q*se)
}

// MDE returns the smallest relative increase (up) and decrease (down) of
// B against A that the boot-level t-test, two-sided at level alpha (for a
// Holm family of m: alpha/m), detects with probability power, from the
// standard error of this comparison: δ = (t_{1-α/2,df} + t_{power,df})·SE·m,
// m = NoiseInflation(df) (the standard error is an estimate), up =
// exp(δ)-1 and down = 1-exp(-δ) on log values, both δ/RelTo on the shift
// scale (TestBootMDEPower). Both are NaN when the standard error is 0 or undefined.
func (c BootComparison) MDE(alpha, power float64) (up, down float64) {
	checkLevel("alpha", alpha)
	checkLevel("power", power)
	if !(c.SE > 0) || !(c.DF > 0) || math.IsInf(c.SE, 0) {
		return math.NaN(), math.NaN()
	}
	d := welchKNu(c.DF, alpha, power) * c.SE * NoiseInflation(int(math.Round(c.DF)), alpha, power)
	if c.Shift {
		return d / c.RelTo, d / c.RelTo
	}
	return math.Expm1(d), -math.Expm1(-d)
}

// CompareBoots compares side B with side A with the boot as the
// experimental unit (see the package comment above BootComparison): a and
// b hold each side's values grouped by boot. Values must be positive; each
// side needs at least 2 boots (ErrOneBoot) and every boot a value.
func CompareBoots(a, b [][]float64, confidence float64) (BootComparison, error) {
	checkLevel("confidence", confidence)
	if len(a) < 2 || len(b) < 2 {
		return BootComparison{}, fmt.Errorf("%w (A has %d, B has %d)", ErrOneBoot, len(a), len(b))
	}
	la, err := logGroups("A", a)
	if err != nil {
		return BootComparison{}, err
	}
	lb, err := logGroups("B", b)
	if err != nil {
		return BootComparison{}, err
	}
	r := BootComparison{BootsA: len(a), BootsB: len(b), Confidence: confidence}
	for _, g := range la {
		r.MeansA = append(r.MeansA, mean(g))
		r.RunsA += len(g)
	}
	for _, g := range lb {
		r.MeansB = append(r.MeansB, mean(g))
		r.RunsB += len(g)
	}
	r.Components = components([][][]float64{la, lb})
	r.test(math.Exp)
	return r, nil
}

// MaxRunsPerBoot bounds OptimalRunsPerBoot when boots hardly differ.
const MaxRunsPerBoot = 1000

// OptimalRunsPerBoot returns the number of runs per boot that minimises
// the variance of the boot-level estimate for a given time (Kalibera and
// Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013):
//
//	r* = sqrt(costBoot/costRun · σ²_within/σ²_between)
//
// rounded to the nearest integer, at least 1 and at most MaxRunsPerBoot
// (reached when the between-boot variance is 0: more boots buy nothing the
// runs do not). Costs are in any one unit of time.
func OptimalRunsPerBoot(costBoot, costRun float64, v VarianceComponents) int {
	if !(costRun > 0) || !(costBoot >= 0) {
		return 1
	}
	if v.Between <= 0 {
		return MaxRunsPerBoot
	}
	r := math.Round(math.Sqrt(costBoot / costRun * v.Within / v.Between))
	return int(math.Max(1, math.Min(MaxRunsPerBoot, r)))
}

// MinBootsPerSide is the fewest boots per side PlanBoots recommends: with
// 2 the t quantile has 2 degrees of freedom (4.30 at 95%).
const MinBootsPerSide = 3

// A BootPlan is a recommended campaign: boots per side and runs per boot,
// with the time it takes and the half-width of the interval it is
// expected to give.
type BootPlan struct {
	BootsPerSide, RunsPerBoot int
	// Seconds is the expected time of the whole campaign, both sides.
	Seconds float64
	// HalfWidth is the expected half-width of the interval of the log
	// ratio at the confidence given, from the components: the interval
	// of the ratio is [exp(-HalfWidth), exp(HalfWidth)].
	HalfWidth float64
	// RStar is Kalibera and Jones' r* (OptimalRunsPerBoot), for reference.
	RStar int
	// Budget is the time given: Seconds fits it unless AtLeast.
	Budget float64
	// Current: the design just run is as good as any in its time (it
	// is the one recommended). AtLeast: the time fits fewer than
	// MinBootsPerSide boots of one run per side; the plan takes
	// Seconds - Budget more.
	Current, AtLeast bool
}

// BootHalfWidth is the expected half-width of the interval of the log
// ratio of a campaign of boots per side and runs per boot: the t quantile
// with 2·boots-2 degrees of freedom times the standard error
// sqrt(2·(between/boots + within/(boots·runs))).
func BootHalfWidth(boots, runs int, v VarianceComponents, confidence float64) float64 {
	if boots < 2 || runs < 1 {
		return math.Inf(1)
	}
	b, r := float64(boots), float64(runs)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 2*b - 2}.Quantile((1 + confidence) / 2)
	return q * math.Sqrt(2*(math.Max(v.Between, 0)/b+math.Max(v.Within, 0)/(b*r)))
}

// MaxBootsPerSide bounds the boots per side PlanBoots considers (as
// 'contend campaign init --boots' does).
const MaxBootsPerSide = 100

// PlanBoots recommends the next campaign in the time budget (seconds, both
// sides; costs in seconds): of the designs of b boots per side
// (MinBootsPerSide to MaxBootsPerSide) with as many runs per boot as fit
// the budget with them (floor((budget/(2b) - costBoot)/costRun), at most
// MaxRunsPerBoot), the one of the narrowest expected interval
// (BootHalfWidth). Every such plan fits the budget: Seconds <= budget.
// The current design (curBoots per side x curRuns, 0 when unknown) is
// kept when no other is narrower. When the budget does not fit
// MinBootsPerSide boots of one run each, the plan is MinBootsPerSide
// boots with the runs that fit (at least 1) and AtLeast: its Seconds
// exceed the budget, by Seconds - Budget.
func PlanBoots(costBoot, costRun float64, v VarianceComponents, budget, confidence float64, curBoots, curRuns int) BootPlan {
	costBoot, costRun = math.Max(costBoot, 0), math.Max(costRun, 1e-9)
	plan := func(b, r int) BootPlan {
		return BootPlan{BootsPerSide: b, RunsPerBoot: r, Seconds: 2 * float64(b) * (costBoot + float64(r)*costRun),
			HalfWidth: BootHalfWidth(b, r, v, confidence), RStar: OptimalRunsPerBoot(costBoot, costRun, v), Budget: budget}
	}
	best := BootPlan{HalfWidth: math.Inf(1)}
	for b := MinBootsPerSide; b <= MaxBootsPerSide; b++ {
		// A little slack so that a design that fits exactly is not lost
		// to rounding.
		r := int(math.Floor((budget/(2*float64(b))-costBoot)/costRun + 1e-9))
		if r < 1 {
			break // more boots fit no run
		}
		if p := plan(b, min(r, MaxRunsPerBoot)); p.HalfWidth < best.HalfWidth {
			best = p
		}
	}
	if math.IsInf(best.HalfWidth, 1) {
		r := int(math.Floor((budget/(2*MinBootsPerSide) - costBoot) / costRun))
		best = plan(MinBootsPerSide, max(1, min(r, MaxRunsPerBoot)))
		best.AtLeast = true
	}
	if curBoots >= 2 && curRuns >= 1 {
		if cur := plan(curBoots, curRuns); cur.HalfWidth <= best.HalfWidth {
			cur.Seconds, cur.Current = budget, true
			return cur
		}
	}
	return best
}
