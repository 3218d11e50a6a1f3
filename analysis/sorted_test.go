package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat"

	"contend/internal/testsize"
)

// The functions ...SortEach are the reference implementations of the
// statistics in which each sorts its own copy of each sample (as they did
// before they shared one sort; the references of TestCompareSameAsSortEach
// and TestFastPathsSameAsSortEach): the summaries, the test, the effect
// size, the change and the outlier scores now sort each sample once and
// walk sorted samples instead of sorting again.

func summarizeSortEach(xs []float64, confidence float64) (Summary, error) {
	if len(xs) == 0 {
		return Summary{}, ErrNoData
	}
	if err := CheckFinite(xs); err != nil {
		return Summary{}, err
	}
	if !(confidence > 0 && confidence < 1) {
		panic("analysis: confidence must be in (0, 1)")
	}
	s := Sorted(xs)
	sum := Summary{
		N:          len(s),
		Median:     medianSorted(s),
		Min:        s[0],
		Max:        s[len(s)-1],
		Q1:         QuantileType7(0.25, s),
		Q3:         QuantileType7(0.75, s),
		Confidence: confidence,
	}
	// Mean and standard deviation of the values divided by 2^k: no sum or
	// square overflows (values near the largest float) or underflows
	// (tiny and subnormal values), and the coefficient of variation is
	// taken before scaling back.
	k := scaleExp(s)
	sc := rescaled(s, k)
	mean, sd := sc[0], 0.0
	if len(s) > 1 {
		mean, sd = stat.MeanStdDev(sc, nil)
	}
	sum.Mean, sum.StdDev = math.Ldexp(mean, k), math.Ldexp(sd, k)
	if mean != 0 {
		sum.CV = sd / math.Abs(mean)
	} else {
		sum.CV = math.NaN()
	}
	sum.MedianLo, sum.MedianHi, sum.Coverage, sum.HasCI = MedianCI(s, confidence)
	if !sum.HasCI {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf(
			"need at least %d samples for a %g%% confidence interval of the median (have %d)",
			MinSamplesForMedianCI(confidence), confidence*100, len(s)))
	}
	return sum, nil
}

func mannWhitneyMethodSortEach(a, b []float64, alt Alternative, method MWMethod) (MWResult, error) {
	if err := checkSample("A", a); err != nil {
		return MWResult{}, err
	}
	if err := checkSample("B", b); err != nil {
		return MWResult{}, err
	}
	if alt < TwoSided || alt > Greater {
		panic(fmt.Sprintf("analysis: unknown alternative %d", int(alt)))
	}
	n1, n2 := len(a), len(b)
	pooled := make([]float64, 0, n1+n2)
	pooled = append(append(pooled, a...), b...)
	r, tieTerm := ranks(pooled)
	var rb float64
	for _, x := range r[n1:] {
		rb += x
	}
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
		return res, nil
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
		return res, nil
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
	return res, nil
}

func cliffsDeltaSortEach(a, b []float64) (float64, error) {
	if err := checkSample("A", a); err != nil {
		return 0, err
	}
	if err := checkSample("B", b); err != nil {
		return 0, err
	}
	sa := Sorted(a)
	var gt, lt int
	for _, y := range b {
		below := sort.SearchFloat64s(sa, y) // count of a_i < y
		notAbove := sort.Search(len(sa), func(i int) bool { return sa[i] > y })
		lt += len(sa) - notAbove // a_i > y
		gt += below
	}
	return float64(gt-lt) / (float64(len(a)) * float64(len(b))), nil
}

func relativeChangeSortEach(a, b []float64, confidence float64) (RelChange, error) {
	if err := checkSample("A", a); err != nil {
		return RelChange{}, err
	}
	if err := checkSample("B", b); err != nil {
		return RelChange{}, err
	}
	checkLevel("confidence", confidence)
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
		a, b = Sorted(a), Sorted(b)
		sa, sb = rescaled(a, k), rescaled(b, k)
		ma, mb = medianSorted(sa), medianSorted(sb)
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
		hl := hodgesLehmannScaledSortEach(logs(a), logs(b), confidence)
		r.Estimate = math.Expm1(hl.Shift)
		r.HasCI, r.Coverage, r.Warnings = hl.HasCI, hl.Coverage, hl.Warnings
		if hl.HasCI {
			r.Lo, r.Hi = math.Expm1(hl.Lo), math.Expm1(hl.Hi)
		}
		return r, nil
	}
	r.Method = RelShiftOverMedian
	if allNonNegative(a) && allNonNegative(b) {
		r.Method = RelAbsShift
	}
	hl := hodgesLehmannScaledSortEach(sa, sb, confidence)
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
		return r, nil
	}
	r.Estimate = hl.Shift / math.Abs(ma)
	if r.Method == RelAbsShift {
		return r, nil
	}
	r.Warnings = append(r.Warnings, "some values are negative: interval of the relative change treats median(A) as exact")
	if hl.HasCI {
		r.HasCI = true
		r.Lo, r.Hi = hl.Lo/math.Abs(ma), hl.Hi/math.Abs(ma)
	}
	return r, nil
}

func hodgesLehmannScaledSortEach(a, b []float64, confidence float64) HLResult {
	nn := len(a) * len(b)
	var kth func(k int) float64 // k-th smallest difference, 1-based
	if nn <= hlSortLimit {
		d := pairwiseDiffs(a, b)
		kth = func(k int) float64 { return d[k-1] }
	} else {
		sa, sb := Sorted(a), Sorted(b)
		kth = func(k int) float64 { return kthPairwiseDiff(sa, sb, k) }
	}
	r := HLResult{
		N1: len(a), N2: len(b),
		Confidence: confidence,
		Lo:         math.NaN(), Hi: math.NaN(),
	}
	if nn%2 == 1 {
		r.Shift = kth(nn/2 + 1)
	} else {
		r.Shift = midpoint(kth(nn/2), kth(nn/2+1))
	}
	k, cov, ok := hlRank(len(a), len(b), confidence)
	r.Coverage = cov
	if !ok {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"%d and %d values are too few for a %g%% confidence interval of the shift", len(a), len(b), confidence*100))
		return r
	}
	r.HasCI = true
	r.Lo, r.Hi = kth(k), kth(nn+1-k)
	return r
}

func modifiedZScoresSortEach(xs []float64) ([]float64, error) {
	if err := checkSample("X", xs); err != nil {
		return nil, err
	}
	// The scores do not depend on the unit: compute them on the values
	// divided by 2^k, where no deviation overflows or underflows.
	xs = rescaled(xs, scaleExp(xs))
	med := Median(xs)
	dev := make([]float64, len(xs))
	var sum float64
	for i, x := range xs {
		dev[i] = math.Abs(x - med)
		sum += dev[i]
	}
	mad := Median(dev)
	scale := mad / 0.6745
	if mad == 0 {
		// 1.253314 = sqrt(π/2) turns the mean absolute deviation of a
		// normal sample into its standard deviation.
		scale = 1.253314 * sum / float64(len(xs))
	}
	z := make([]float64, len(xs))
	if scale == 0 {
		return z, nil
	}
	for i, x := range xs {
		z[i] = (x - med) / scale
	}
	return z, nil
}

func compareSortEach(a, b []float64, opt CompareOptions) (Comparison, error) {
	if err := checkSample("A", a); err != nil {
		return Comparison{}, err
	}
	if err := checkSample("B", b); err != nil {
		return Comparison{}, err
	}
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
	var err error
	if c.SummaryA, err = summarizeSortEach(a, opt.Confidence); err != nil {
		return Comparison{}, err
	}
	if c.SummaryB, err = summarizeSortEach(b, opt.Confidence); err != nil {
		return Comparison{}, err
	}
	for _, w := range c.SummaryA.Warnings {
		c.Warnings = append(c.Warnings, "A: "+w)
	}
	for _, w := range c.SummaryB.Warnings {
		c.Warnings = append(c.Warnings, "B: "+w)
	}
	n1, n2 := len(a), len(b)

	switch opt.Test {
	case TestMannWhitney:
		mw, err := mannWhitneyMethodSortEach(a, b, TwoSided, MWAuto)
		if err != nil {
			return Comparison{}, err
		}
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

	rel, err := relativeChangeSortEach(a, b, opt.Confidence)
	if err != nil {
		return Comparison{}, err
	}
	c.Change, c.Estimate, c.ChangeLo, c.ChangeHi = rel.Change, rel.Estimate, rel.Lo, rel.Hi
	c.HasChangeCI, c.ChangeMethod = rel.HasCI, rel.Method
	c.Shift, c.ShiftLo, c.ShiftHi, c.HasShiftCI = rel.Shift, rel.ShiftLo, rel.ShiftHi, rel.HasShiftCI
	c.Warnings = append(c.Warnings, rel.Warnings...)

	if c.CliffsDelta, err = cliffsDeltaSortEach(a, b); err != nil {
		return Comparison{}, err
	}
	c.Magnitude = DeltaMagnitude(c.CliffsDelta)

	c.mdeNoise, c.mdeKind, c.mdeOK = noiseOf(a, b, opt.Test, nil, nil, nil)
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

func hodgesLehmannSortEach(a, b []float64, confidence float64) HLResult {
	k := scaleExp(a, b)
	r := hodgesLehmannScaledSortEach(rescaled(a, k), rescaled(b, k), confidence)
	r.Shift, r.Lo, r.Hi = math.Ldexp(r.Shift, k), math.Ldexp(r.Lo, k), math.Ldexp(r.Hi, k)
	return r
}

// sameBits says where x and y differ, "" when they are the same, floats
// compared bit for bit (-0 is not 0, NaN is NaN), pointers by what they
// point to, unexported fields included.
func sameBits(x, y reflect.Value, path string) string {
	if x.Kind() != y.Kind() {
		return path + ": kinds differ"
	}
	switch x.Kind() {
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(x.Float()) != math.Float64bits(y.Float()) {
			return fmt.Sprintf("%s: %v (%#x) != %v (%#x)", path, x.Float(), math.Float64bits(x.Float()), y.Float(), math.Float64bits(y.Float()))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if x.Int() != y.Int() {
			return fmt.Sprintf("%s: %d != %d", path, x.Int(), y.Int())
		}
	case reflect.Bool:
		if x.Bool() != y.Bool() {
			return fmt.Sprintf("%s: %v != %v", path, x.Bool(), y.Bool())
		}
	case reflect.String:
		if x.String() != y.String() {
			return fmt.Sprintf("%s: %q != %q", path, x.String(), y.String())
		}
	case reflect.Pointer, reflect.Interface:
		if x.IsNil() || y.IsNil() {
			if x.IsNil() != y.IsNil() {
				return path + ": nil and not nil"
			}
			return ""
		}
		return sameBits(x.Elem(), y.Elem(), path)
	case reflect.Slice, reflect.Array:
		if x.Kind() == reflect.Slice && x.IsNil() != y.IsNil() {
			return path + ": nil and empty slices"
		}
		if x.Len() != y.Len() {
			return fmt.Sprintf("%s: lengths %d and %d", path, x.Len(), y.Len())
		}
		for i := range x.Len() {
			if d := sameBits(x.Index(i), y.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case reflect.Struct:
		for i := range x.NumField() {
			if d := sameBits(x.Field(i), y.Field(i), path+"."+x.Type().Field(i).Name); d != "" {
				return d
			}
		}
	default:
		panic("sameBits: kind " + x.Kind().String())
	}
	return ""
}

// checkSame fails t when got and want (with their errors) differ in any
// bit.
func checkSame(t *testing.T, what string, got, want any, gerr, werr error) {
	t.Helper()
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("%s: error %v, before %v", what, gerr, werr)
	}
	if d := sameBits(reflect.ValueOf(got), reflect.ValueOf(want), "result"); d != "" {
		t.Fatalf("%s: %s", what, d)
	}
}

// sortedTestSample returns a random sample of kind k: continuous positive
// values; positive integers with many ties; integers around 0 with ties
// and zeros of both signs; values spanning the float range, subnormals
// included; one value repeated.
func sortedTestSample(rng *rand.Rand, n, kind int, shift float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		switch kind {
		case 0:
			xs[i] = (1 + shift) * math.Exp(rng.NormFloat64()*0.2)
		case 1:
			xs[i] = float64(1000 + rng.IntN(20) + int(shift*100))
		case 2:
			xs[i] = float64(rng.IntN(7) - 3 + int(shift*3))
			if xs[i] == 0 && rng.IntN(2) == 0 {
				xs[i] = math.Copysign(0, -1)
			}
		case 3:
			xs[i] = math.Ldexp(1+rng.Float64(), rng.IntN(2098)-1074) * float64(1-2*rng.IntN(2))
			if rng.IntN(3) > 0 {
				xs[i] = math.Abs(xs[i])
			}
		case 4:
			xs[i] = 42 + shift
		}
	}
	return xs
}

// TestCompareSameAsSortEach checks that Compare, which sorts each sample
// once and walks the sorted samples, gives every number, bit for bit, as
// it did when each statistic sorted its own copy (compareSortEach): random
// samples of every kind, with ties, zeros of both signs, negative,
// subnormal and huge values, small and large (beyond hlSortLimit
// differences, where the interval is selected rather than sorted).
func TestCompareSameAsSortEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	sizes := [][2]int{{1, 1}, {2, 3}, {3, 3}, {5, 4}, {8, 9}, {20, 30}, {50, 50}, {49, 51}, {200, 150}}
	for trial := range testsize.Pick(200, 600) {
		sz := sizes[rng.IntN(len(sizes))]
		if trial%100 == 0 {
			sz = [2]int{1100, 1000 + rng.IntN(3)}
		}
		ka, kb := rng.IntN(5), rng.IntN(5)
		if rng.IntN(2) == 0 {
			kb = ka
		}
		a := sortedTestSample(rng, sz[0], ka, 0)
		b := sortedTestSample(rng, sz[1], kb, []float64{0, 0.01, 0.3}[rng.IntN(3)])
		opt := CompareOptions{Test: Test(rng.IntN(2)), Better: Direction(rng.IntN(3)), Threshold: []float64{0, 0.02}[rng.IntN(2)]}
		got, gerr := Compare(a, b, opt)
		want, werr := compareSortEach(a, b, opt)
		what := fmt.Sprintf("trial %d Compare(%d values of kind %d, %d of kind %d, %+v)", trial, len(a), ka, len(b), kb, opt)
		checkSame(t, what, got, want, gerr, werr)
		if len(a) > 0 && len(b) > 0 {
			sa, sb := Sorted(a), Sorted(b)
			ca, cb := slices.Clone(sa), slices.Clone(sb)
			got, gerr := CompareSorted(a, b, sa, sb, opt)
			checkSame(t, what+" CompareSorted", got, want, gerr, werr)
			if !slices.Equal(sa, ca) || !slices.Equal(sb, cb) {
				t.Fatalf("%s: CompareSorted changed the sorted samples", what)
			}
			got, gerr = CompareSortedScratch(a, b, sa, sb, opt)
			checkSame(t, what+" CompareSortedScratch", got, want, gerr, werr)
		}
	}
	if _, err := CompareSorted([]float64{1, 2}, []float64{3}, []float64{1}, []float64{3}, CompareOptions{}); err == nil {
		t.Errorf("CompareSorted with a sorted sample of another length: no error")
	}
	if _, err := CompareSortedScratch([]float64{1, 2}, []float64{3}, []float64{1, 2}, nil, CompareOptions{}); err == nil {
		t.Errorf("CompareSortedScratch with a sorted sample of another length: no error")
	}
}

// TestFastPathsSameAsSortEach checks the statistics that now walk sorted
// samples (Summarize, MannWhitneyMethod, CliffsDelta, RelativeChange,
// HodgesLehmann, ModifiedZScores) against their versions from before,
// bit for bit, on the samples of TestCompareSameAsSortEach.
func TestFastPathsSameAsSortEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for trial := range testsize.Pick(160, 400) {
		n1, n2 := 1+rng.IntN(60), 1+rng.IntN(60)
		if trial%80 == 0 {
			n1, n2 = 1030, 1025
		}
		ka, kb := rng.IntN(5), rng.IntN(5)
		a, b := sortedTestSample(rng, n1, ka, 0), sortedTestSample(rng, n2, kb, 0.01)
		what := fmt.Sprintf("trial %d (%d values of kind %d, %d of kind %d)", trial, n1, ka, n2, kb)
		s, err := Summarize(a, 0.95)
		s0, err0 := summarizeSortEach(a, 0.95)
		checkSame(t, what+" Summarize", s, s0, err, err0)
		for alt := TwoSided; alt <= Greater; alt++ {
			for m := MWAuto; m <= MWNormal; m++ {
				if m == MWExact && n1*n2 > mwExactMaxProduct {
					continue // slow, and the same code as before
				}
				r, err := MannWhitneyMethod(a, b, alt, m)
				r0, err0 := mannWhitneyMethodSortEach(a, b, alt, m)
				checkSame(t, fmt.Sprintf("%s MannWhitneyMethod(%v, %v)", what, alt, m), r, r0, err, err0)
			}
		}
		d, err := CliffsDelta(a, b)
		d0, err0 := cliffsDeltaSortEach(a, b)
		checkSame(t, what+" CliffsDelta", d, d0, err, err0)
		rc, err := RelativeChange(a, b, 0.9)
		rc0, err0 := relativeChangeSortEach(a, b, 0.9)
		checkSame(t, what+" RelativeChange", rc, rc0, err, err0)
		hl, err := HodgesLehmann(a, b, 0.95)
		checkSame(t, what+" HodgesLehmann", hl, hodgesLehmannSortEach(a, b, 0.95), err, nil)
		z, err := ModifiedZScores(a)
		z0, err0 := modifiedZScoresSortEach(a)
		checkSame(t, what+" ModifiedZScores", z, z0, err, err0)
	}
}

// TestKthPairwiseDiffsPairs checks the selection of two neighbouring
// ranks at once (the middle of an even number of differences) against
// the bisection, bit for bit, for every rank of small samples sampled
// down to a few candidates and near the middle of large ones, with ties
// and zeros of both signs.
func TestKthPairwiseDiffsPairs(t *testing.T) {
	defer func(old, par int) { kthSortMin, splitParallelMin = old, par }(kthSortMin, splitParallelMin)
	rng := rand.New(rand.NewPCG(25, 26))
	gen := func(n int) []float64 {
		x := make([]float64, n)
		kind := rng.IntN(3)
		for i := range x {
			switch kind {
			case 0:
				x[i] = rng.NormFloat64()
			case 1:
				x[i] = float64(rng.IntN(4)) / 8
			case 2:
				x[i] = []float64{0, math.Copysign(0, -1), -0.5, 0.5}[rng.IntN(4)]
			}
		}
		return Sorted(x)
	}
	var sc kthScratch // reused across sizes, as hodgesLehmannScaled does
	check := func(a, b []float64, k int) {
		t.Helper()
		var got [2]float64
		sc.kthPairwiseDiffs(a, b, k, got[:])
		for i, g := range got {
			if want := kthPairwiseDiffBisect(a, b, k+i); math.Float64bits(g) != math.Float64bits(want) {
				t.Fatalf("n=%d m=%d ranks %d, %d: %v is rank %d, bisection %v", len(a), len(b), k, k+1, g, k+i, want)
			}
		}
	}
	for trial := range 60 {
		kthSortMin = 1
		splitParallelMin = []int{1 << 14, 1, 2, 7}[trial%4] // rows split in halves (splitRows), odd and even counts
		a, b := gen(1+rng.IntN(25)), gen(1+rng.IntN(25))
		for k := 1; k < len(a)*len(b); k++ {
			check(a, b, k)
		}
	}
	kthSortMin = 1 << 12
	for trial := range 6 {
		splitParallelMin = []int{1 << 14, 1}[trial%2]
		a, b := gen(1000+rng.IntN(2000)), gen(1000+rng.IntN(2000))
		nn := len(a) * len(b)
		for _, k := range []int{1, nn/2 - 1, nn / 2, nn / 3, nn - 1} {
			check(a, b, k)
		}
	}
}
