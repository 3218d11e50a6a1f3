package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// A Test names the hypothesis test of a Comparison.
type Test int

const (
	// TestMannWhitney is the Mann-Whitney U test (medians, no
	// distributional assumption). It is the default.
	TestMannWhitney Test = iota
	// TestWelch is Welch's t-test (means, assumes near-normal means).
	TestWelch
)

// String returns "Mann-Whitney U" or "Welch t".
func (t Test) String() string {
	switch t {
	case TestMannWhitney:
		return "Mann-Whitney U"
	case TestWelch:
		return "Welch t"
	}
	return fmt.Sprintf("Test(%d)", int(t))
}

// CanTestReach tells whether test with n1 and n2 values can produce a
// two-sided p-value at or below alpha at all. For TestMannWhitney this is
// CanReachSignificance; Welch's t-test needs at least 2 values per sample.
func CanTestReach(test Test, n1, n2 int, alpha float64) bool {
	if test == TestWelch {
		return n1 >= 2 && n2 >= 2
	}
	return CanReachSignificance(n1, n2, alpha)
}

// MinDetectableShift returns the smallest shift δ of B against A, in
// units of the standard deviation of one value, that test detects in the
// right direction with probability power, two-sided at level alpha, with
// n1 and n2 values of normal noise. It is a planning figure:
//
//   - Mann-Whitney, up to the sizes where MannWhitney is exact: the power
//     of the exact test at the level it really has (its p-values are
//     coarse at small n: with 6+6 values, alpha 0.05 is in fact 0.041),
//     simulated with 4000 samples from a fixed seed and solved for δ by
//     bisection; beyond them Noether's formula (Noether 1987, JASA
//     82:645): Φ(δ/√2) - 1/2 = (z_{1-α/2} + z_power)/sqrt(12·n1·n2/(n1+n2+1));
//   - Welch: δ = (t_{1-α/2,ν} + t_power,ν)·sqrt(1/n1 + 1/n2), ν = n1+n2-2.
//
// ok is false and δ NaN when the test cannot reach alpha with n1 and n2
// values, or when no shift reaches the power (a rank test at a few runs
// may detect no shift with power 0.8, however large).
func MinDetectableShift(n1, n2 int, alpha, power float64, test Test) (delta float64, ok bool) {
	checkLevel("alpha", alpha)
	checkLevel("power", power)
	if !CanTestReach(test, n1, n2, alpha) || n1+n2 < 3 {
		return math.NaN(), false
	}
	if test == TestWelch {
		return welchK(n1, n2, alpha, power) * math.Sqrt(1/float64(n1)+1/float64(n2)), true
	}
	if n1*n2 <= mwExactMaxProduct {
		return mwShiftSimulated(n1, n2, alpha, power)
	}
	z := distuv.UnitNormal
	n := float64(n1 + n2)
	pr := 0.5 + (z.Quantile(1-alpha/2)+z.Quantile(power))/math.Sqrt(12*float64(n1)*float64(n2)/(n+1))
	if pr >= 1 {
		return math.NaN(), false
	}
	return math.Sqrt2 * z.Quantile(pr), true
}

// welchK returns t_{1-α/2,ν} + t_{power,ν}, ν = n1+n2-2.
func welchK(n1, n2 int, alpha, power float64) float64 {
	return welchKNu(float64(n1+n2-2), alpha, power)
}

func welchKNu(nu, alpha, power float64) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}
	return t.Quantile(1-alpha/2) + t.Quantile(power)
}

// welchScaledChange returns the relative change c of the mean of B (sign +1 an
// increase, -1 a decrease) that Welch's test detects with the given power
// when the coefficient of variation of both sides is v, so that B's
// standard deviation is (1+sign·c) times A's: c solves
// c = k·v·sqrt(1/n1 + r²/n2), r = 1+sign·c, k = t_{1-α/2,ν} + t_{power,ν},
// with ν the Welch-Satterthwaite degrees of freedom for the ratio r of
// the standard deviations (a few fixed-point steps).
func welchScaledChange(n1, n2 int, v, alpha, power float64, sign int) (float64, bool) {
	f1, f2 := 1/float64(n1), 1/float64(n2)
	nu := float64(n1 + n2 - 2)
	var c float64
	for range 8 {
		k := welchKNu(nu, alpha, power)
		var ok bool
		if c, ok = solveScaled(k*k*v*v, n1, n2, sign); !ok {
			return math.NaN(), false
		}
		r2 := (1 + float64(sign)*c) * (1 + float64(sign)*c)
		num := (f1 + r2*f2) * (f1 + r2*f2)
		nu = num / (f1*f1/float64(n1-1) + r2*r2*f2*f2/float64(n2-1))
	}
	return c, true
}

// mdeSims and mdeSeed are the simulation size and fixed seed of
// mwShiftSimulated.
const (
	mdeSims = 4000
	mdeSeed = 0x3de
)

// mdeCache holds the shifts of mwShiftSimulated by sizes and levels.
var mdeCache struct {
	sync.Mutex
	m map[[4]float64]float64
}

// mwShiftSimulated returns the shift δ (in standard deviations of normal
// noise) at which the exact two-sided Mann-Whitney test with n1 and n2
// values rejects at alpha, with B above A, in a fraction power of mdeSims
// simulated samples. The same draws serve every δ, so that the simulated
// power rises with δ and the bisection is exact for them.
func mwShiftSimulated(n1, n2 int, alpha, power float64) (float64, bool) {
	key := [4]float64{float64(n1), float64(n2), alpha, power}
	mdeCache.Lock()
	defer mdeCache.Unlock()
	if d, ok := mdeCache.m[key]; ok {
		return d, !math.IsNaN(d)
	}
	// Reject "B larger" when U >= uCrit: 2·P(U' >= U) <= alpha.
	cdf := mwExactCDF(n1, n2)
	lo := -1
	for u, c := range cdf {
		if 2*c > alpha*(1+1e-12) {
			break
		}
		lo = u
	}
	uCrit := n1*n2 - lo
	rng := rand.New(rand.NewPCG(mdeSeed, uint64(n1)<<32|uint64(n2)))
	a := make([]float64, mdeSims*n1)
	b := make([]float64, mdeSims*n2)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	for s := 0; s < mdeSims; s++ {
		slices.Sort(a[s*n1 : (s+1)*n1])
		slices.Sort(b[s*n2 : (s+1)*n2])
	}
	powerAt := func(delta float64) float64 {
		hit := 0
		for s := 0; s < mdeSims; s++ {
			xs, ys := a[s*n1:(s+1)*n1], b[s*n2:(s+1)*n2]
			// U = pairs with y + delta > x, counted on sorted samples.
			u, i := 0, 0
			for _, y := range ys {
				for i < n1 && xs[i] < y+delta {
					i++
				}
				u += i
			}
			if u >= uCrit {
				hit++
			}
		}
		return float64(hit) / mdeSims
	}
	d := math.NaN()
	// The power can never exceed that of complete separation reached
	// for sure; 40 standard deviations is far beyond it.
	if powerAt(40) >= power {
		lo, hi := 0.0, 40.0
		for range 30 {
			mid := (lo + hi) / 2
			if powerAt(mid) >= power {
				hi = mid
			} else {
				lo = mid
			}
		}
		d = hi
	}
	if mdeCache.m == nil {
		mdeCache.m = make(map[[4]float64]float64)
	}
	mdeCache.m[key] = d
	return d, !math.IsNaN(d)
}

// MinDetectableChange returns the smallest relative increase (up) and
// decrease (down) of B against A that test, two-sided at level alpha,
// detects with probability power, for the samples a (baseline) and b as
// noise. For a comparison in a Holm family of m, pass alpha/m: the level
// one change among unchanged metrics must reach. Both are positive
// fractions: 0.145 and 0.127 mean +14.5% and -12.7%.
//
// The changes are multiplicative, as benchmark noise usually is: B is A
// times 1+up or 1-down.
//
//   - Mann-Whitney ranks do not change with the logarithm, so with
//     positive values the shift δ·s of the logarithms (s the pooled
//     standard deviation of the logarithms, δ from MinDetectableShift) is
//     an increase of exp(δ·s)-1 and a decrease of 1-exp(-δ·s): at s = 0.1
//     and 10+10 values an increase must be larger than a decrease.
//   - Welch compares means, and scaling B scales its standard deviation
//     too: with v the pooled coefficient of variation and k =
//     t_{1-α/2,ν} + t_{power,ν}, up solves up = k·v·sqrt(1/n1 + (1+up)²/n2)
//     and down solves down = k·v·sqrt(1/n1 + (1-down)²/n2); either is
//     +Inf when no change in its direction reaches the power (v so large
//     that B's noise grows faster than the change).
//
// With values that are not all positive (a change can then not be a
// factor) both are δ times the pooled standard deviation over |median(a)|.
// ok is false and both NaN when the test cannot detect any change with
// power at these sizes, or the noise is undefined (fewer than 3 values,
// a zero median or mean).
func MinDetectableChange(a, b []float64, alpha, power float64, test Test) (up, down float64, ok bool) {
	noise, kind, ok := noiseOf(a, b, test, nil, nil, nil)
	if !ok {
		return math.NaN(), math.NaN(), false
	}
	noise *= NoiseInflation(len(a)+len(b)-2, alpha, power)
	return changeFromNoise(len(a), len(b), noise, kind, alpha, power, test)
}

// NoiseInflation returns the factor m by which a standard deviation
// estimated with df degrees of freedom is multiplied before it is turned
// into a minimum detectable change, so that the power at the printed
// figure is the power asked for on average over the samples it is printed
// from. The estimate s is itself noisy (s/σ is distributed as
// sqrt(χ²_df/df)), and the power is concave in the change near 80%: at
// s itself the power averages less (74-78% at 6-20 runs a side, measured
// in TestMDEPowerPrinted). With the power of a two-sided test at a shift
// d written Φ(d·K/d₀ - z_{1-α/2}), K = z_{1-α/2} + z_power and d₀ the
// shift of that power, m solves
//
//	E[Φ(m·K·sqrt(X/df) - z_{1-α/2})] = power,  X ~ χ²_df,
//
// by bisection over 256 quantiles of X. m is 1 for df <= 0 or +Inf.
func NoiseInflation(df int, alpha, power float64) float64 {
	if df <= 0 {
		return 1
	}
	key := [3]float64{float64(df), alpha, power}
	inflationCache.Lock()
	defer inflationCache.Unlock()
	if m, ok := inflationCache.m[key]; ok {
		return m
	}
	z := distuv.UnitNormal
	za := z.Quantile(1 - alpha/2)
	k := za + z.Quantile(power)
	const q = 256
	chi := distuv.ChiSquared{K: float64(df)}
	roots := make([]float64, q)
	for i := range roots {
		roots[i] = math.Sqrt(chi.Quantile((float64(i)+0.5)/q) / float64(df))
	}
	avg := func(m float64) float64 {
		s := 0.0
		for _, r := range roots {
			s += z.CDF(m*k*r - za)
		}
		return s / q
	}
	lo, hi := 1.0, 4.0
	if avg(lo) >= power {
		hi = lo
	}
	for range 50 {
		mid := (lo + hi) / 2
		if avg(mid) >= power {
			hi = mid
		} else {
			lo = mid
		}
	}
	if inflationCache.m == nil {
		inflationCache.m = map[[3]float64]float64{}
	}
	inflationCache.m[key] = hi
	return hi
}

// inflationCache holds NoiseInflation by degrees of freedom and levels.
var inflationCache struct {
	sync.Mutex
	m map[[3]float64]float64
}

// noiseOf returns the noise of a and b that MinDetectableChange uses for
// test, and its kind; ok is false when it is undefined. sortedA is
// Sorted(a), or nil; bufA and bufB, when not nil, are arrays it may use
// and grow (pooledSDInto).
func noiseOf(a, b []float64, test Test, sortedA []float64, bufA, bufB *[]float64) (noise float64, kind noiseKind, ok bool) {
	n1, n2 := len(a), len(b)
	if n1+n2 < 3 || n1 == 0 || n2 == 0 {
		return math.NaN(), 0, false
	}
	positive := true
	for _, xs := range [][]float64{a, b} {
		for _, x := range xs {
			positive = positive && x > 0
		}
	}
	switch {
	case positive && test == TestMannWhitney:
		return pooledSDInto(a, b, math.Log, bufA, bufB), noiseLog, true
	case positive && test == TestWelch:
		return pooledSD(a, b, nil) / scaledMean(a), noiseCV, true
	}
	if sortedA == nil {
		sortedA = Sorted(a)
	}
	m := math.Abs(medianSorted(sortedA))
	if m == 0 {
		return math.NaN(), 0, false
	}
	return pooledSD(a, b, nil) / m, noiseRelative, true
}

// setMDE sets MDEUp, MDEDown and MDE (the larger of the two) of c for its
// test, sizes and power at the level Alpha/FamilySize, from the noise that
// Compare recorded: a single change in a Holm family of m must reach
// Alpha/m.
func (c *Comparison) setMDE() {
	c.MDE, c.MDEUp, c.MDEDown = math.NaN(), math.NaN(), math.NaN()
	if !c.mdeOK {
		return
	}
	level := c.Alpha / float64(max(c.FamilySize, 1))
	noise := c.mdeNoise * NoiseInflation(c.SummaryA.N+c.SummaryB.N-2, level, c.Power)
	up, down, ok := changeFromNoise(c.SummaryA.N, c.SummaryB.N, noise, c.mdeKind, level, c.Power, c.Test)
	if ok {
		c.MDE, c.MDEUp, c.MDEDown = math.Max(up, down), up, down
	}
}

// A noiseKind says what the noise passed to changeFromNoise is.
type noiseKind int

const (
	noiseLog      noiseKind = iota // standard deviation of the logarithms
	noiseCV                        // coefficient of variation, scaling with the mean
	noiseRelative                  // standard deviation over |median|, additive
)

// changeFromNoise returns the up and down changes of MinDetectableChange
// for the noise of the given kind.
func changeFromNoise(n1, n2 int, noise float64, kind noiseKind, alpha, power float64, test Test) (up, down float64, ok bool) {
	nan := math.NaN()
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nan, nan, false
	}
	delta, ok := MinDetectableShift(n1, n2, alpha, power, test)
	if !ok {
		return nan, nan, false
	}
	switch {
	case kind == noiseLog:
		return math.Expm1(delta * noise), -math.Expm1(-delta * noise), true
	case kind == noiseCV && test == TestWelch:
		// With noise that grows with the change, a change too large to
		// matter may still stay hidden: +Inf says no change of that
		// direction reaches the power.
		up, okU := welchScaledChange(n1, n2, noise, alpha, power, +1)
		down, okD := welchScaledChange(n1, n2, noise, alpha, power, -1)
		if !okU {
			up = math.Inf(1)
		}
		if !okD {
			down = math.Inf(1)
		}
		return up, down, true
	}
	return delta * noise, delta * noise, true
}

// solveScaled returns the positive root c of c² = K·(1/n1 + (1+sign·c)²/n2),
// the relative change of the mean of B, whose standard deviation scales
// with it, that the t statistic detects; ok is false when there is none
// (the noise is too large for the sizes), or, for a decrease, when the
// root is not below 1.
func solveScaled(k2 float64, n1, n2, sign int) (float64, bool) {
	f1, f2 := 1/float64(n1), 1/float64(n2)
	qa := 1 - k2*f2
	qb := -2 * float64(sign) * k2 * f2
	qc := -k2 * (f1 + f2)
	disc := qb*qb - 4*qa*qc
	if qa <= 0 || disc < 0 {
		return math.NaN(), false
	}
	c := (-qb + math.Sqrt(disc)) / (2 * qa)
	if sign < 0 && c >= 1 {
		return math.NaN(), false
	}
	return c, true
}

// pooledSD returns the pooled standard deviation of a and b (of f of the
// values when f is not nil), computed on values divided by the largest
// magnitude so that no square overflows.
func pooledSD(a, b []float64, f func(float64) float64) float64 {
	return pooledSDInto(a, b, f, nil, nil)
}

// pooledSDInto is pooledSD with the values f gives put in *bufA and *bufB
// (grown when short; nil: new arrays).
func pooledSDInto(a, b []float64, f func(float64) float64, bufA, bufB *[]float64) float64 {
	var sides [2][]float64
	top := 0.0
	for k, xs := range [][]float64{a, b} {
		ys := xs
		if f != nil {
			buf := [2]*[]float64{bufA, bufB}[k]
			if buf == nil {
				buf = new([]float64)
			}
			ys = ints(buf, len(xs))
			for i, x := range xs {
				ys[i] = f(x)
			}
		}
		sides[k] = ys
		for _, y := range ys {
			top = math.Max(top, math.Abs(y))
		}
	}
	if top == 0 || math.IsInf(top, 0) || math.IsNaN(top) {
		return top
	}
	ss := 0.0
	for _, ys := range sides {
		if len(ys) < 2 {
			continue
		}
		m := scaledMean(ys) / top
		for _, y := range ys {
			d := y/top - m
			ss += d * d
		}
	}
	return top * math.Sqrt(ss/float64(len(a)+len(b)-2))
}

// scaledMean returns the mean of xs, summed as fractions of the largest
// magnitude so that the sum does not overflow.
func scaledMean(xs []float64) float64 {
	top := 0.0
	for _, x := range xs {
		top = math.Max(top, math.Abs(x))
	}
	if top == 0 || math.IsInf(top, 0) {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x / top
	}
	return top * (s / float64(len(xs)))
}
