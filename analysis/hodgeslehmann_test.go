package analysis

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"contend/internal/testsize"
)

func TestHodgesLehmannEdgeCases(t *testing.T) {
	if _, err := HodgesLehmann([]float64{}, []float64{1}, 0.95); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
	if _, err := HodgesLehmann([]float64{1}, []float64{math.Inf(1)}, 0.95); err == nil {
		t.Errorf("Inf: no error")
	}
	r, err := HodgesLehmann([]float64{1}, []float64{3}, 0.95)
	if err != nil || r.Shift != 2 || r.HasCI || !math.IsNaN(r.Lo) || len(r.Warnings) == 0 {
		t.Errorf("1+1: %+v %v", r, err)
	}
	// 4+4 reaches 95%: k = 1 gives coverage 1 - 2/70.
	r, _ = HodgesLehmann([]float64{1, 2, 3, 4}, []float64{11, 12, 13, 14}, 0.95)
	if !r.HasCI || r.Lo != 7 || r.Hi != 13 || r.Shift != 10 {
		t.Errorf("4+4: %+v", r)
	}
	checkClose(t, "coverage", r.Coverage, 1-2.0/70, 1e-12, 0)
	// All equal.
	r, _ = HodgesLehmann([]float64{5, 5, 5, 5, 5}, []float64{5, 5, 5, 5, 5}, 0.95)
	if !r.HasCI || r.Lo != 0 || r.Hi != 0 || r.Shift != 0 {
		t.Errorf("all equal: %+v", r)
	}
}

// TestHodgesLehmannEquivariant checks that shifting B shifts the estimate
// and the interval, and swapping A and B negates them.
func TestHodgesLehmannEquivariant(t *testing.T) {
	a := []float64{3.1, 2.7, 3.5, 2.9, 3.3, 3.0, 2.8}
	b := []float64{3.6, 3.9, 3.4, 4.1, 3.7, 3.8}
	r, _ := HodgesLehmann(a, b, 0.9)
	bs := make([]float64, len(b))
	for i, x := range b {
		bs[i] = x + 10
	}
	s, _ := HodgesLehmann(a, bs, 0.9)
	checkClose(t, "shifted Shift", s.Shift, r.Shift+10, 1e-12, 0)
	checkClose(t, "shifted Lo", s.Lo, r.Lo+10, 1e-12, 0)
	checkClose(t, "shifted Hi", s.Hi, r.Hi+10, 1e-12, 0)
	w, _ := HodgesLehmann(b, a, 0.9)
	checkClose(t, "swapped Shift", w.Shift, -r.Shift, 1e-12, 1e-15)
	checkClose(t, "swapped Lo", w.Lo, -r.Hi, 1e-12, 1e-15)
	checkClose(t, "swapped Hi", w.Hi, -r.Lo, 1e-12, 1e-15)
}

// TestHLRankNormal checks the normal approximation used for large samples
// against the exact distribution, which mwExactCDF can compute for any size.
func TestHLRankNormal(t *testing.T) {
	for _, c := range [][2]int{{50, 60}, {40, 100}, {70, 70}} {
		n1, n2 := c[0], c[1]
		cdf := mwExactCDF(n1, n2)
		for _, conf := range []float64{0.9, 0.95, 0.99} {
			k, cov, ok := hlRank(n1, n2, conf)
			if !ok {
				t.Fatalf("%v at %v: no CI", c, conf)
			}
			half := (1 - conf) / 2
			exact := 0
			for exact < len(cdf) && cdf[exact] <= half {
				exact++
			}
			if k < exact-3 || k > exact+3 { // the normal tail is off by a few ranks at 99%
				t.Errorf("%v at %v: k = %d, exact %d", c, conf, k, exact)
			}
			if math.Abs(cov-(1-2*cdf[k-1])) > 0.002 {
				t.Errorf("%v at %v: coverage %v, exact %v", c, conf, cov, 1-2*cdf[k-1])
			}
		}
	}
}

func TestRelativeChange(t *testing.T) {
	a := []float64{100, 102, 98, 101, 99, 100.5}
	b := []float64{110, 112.2, 107.8, 111.1, 108.9, 110.55} // a·1.1
	r, err := RelativeChange(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != RelLogShift || !r.HasCI {
		t.Fatalf("%+v", r)
	}
	checkClose(t, "Change", r.Change, 0.1, 1e-12, 1e-12)
	checkClose(t, "Estimate", r.Estimate, 0.1, 1e-12, 1e-12)
	if !(r.Lo <= 0.1 && 0.1 <= r.Hi) {
		t.Errorf("interval [%v, %v] misses 0.1", r.Lo, r.Hi)
	}
	// Scale invariance: multiplying both samples by a constant changes
	// nothing.
	a2, b2 := make([]float64, len(a)), make([]float64, len(b))
	for i := range a {
		a2[i] = a[i] * 1e-6
	}
	for i := range b {
		b2[i] = b[i] * 1e-6
	}
	r2, _ := RelativeChange(a2, b2, 0.95)
	checkClose(t, "scaled Lo", r2.Lo, r.Lo, 1e-9, 1e-12)
	checkClose(t, "scaled Hi", r2.Hi, r.Hi, 1e-9, 1e-12)

	// A zero: the interval is of the shift itself, none of the ratio.
	r, _ = RelativeChange([]float64{0, 1, 2, 3, 4, 5}, []float64{2, 3, 4, 5, 6, 7}, 0.95)
	if r.Method != RelAbsShift || r.HasCI || !r.HasShiftCI || !math.IsNaN(r.Lo) || !math.IsNaN(r.Hi) {
		t.Fatalf("values >= 0, some 0: %+v", r)
	}
	checkClose(t, "zeros Estimate", r.Estimate, 2/2.5, 1e-12, 0)
	checkClose(t, "zeros Change", r.Change, 2/2.5, 1e-12, 0)
	checkClose(t, "zeros Shift", r.Shift, 2, 1e-12, 0)
	// A negative value: the shift over |median(A)|.
	r, _ = RelativeChange([]float64{-1, 1, 2, 3, 4, 5}, []float64{2, 3, 4, 5, 6, 7}, 0.95)
	if r.Method != RelShiftOverMedian || !r.HasCI || !r.HasShiftCI {
		t.Fatalf("negative: %+v", r)
	}
	checkClose(t, "fallback Estimate", r.Estimate, 2/2.5, 1e-12, 0)
	checkClose(t, "fallback Lo", r.Lo, r.ShiftLo/2.5, 1e-12, 0)
	if _, err := RelativeChange(nil, []float64{1}, 0.95); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
}

// TestKthPairwiseDiff checks the selection used for large samples against
// sorting all differences, with ties, negative values and zeros.
func TestKthPairwiseDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		a := make([]float64, 1+rng.IntN(30))
		b := make([]float64, 1+rng.IntN(30))
		for i := range a {
			a[i] = math.Round(rng.NormFloat64()*3) / 2
		}
		for i := range b {
			b[i] = rng.NormFloat64()*100 - 50
		}
		if trial%3 == 0 {
			copy(b, a)
		}
		d := pairwiseDiffs(a, b)
		sa, sb := Sorted(a), Sorted(b)
		for k := 1; k <= len(d); k++ {
			if got := kthPairwiseDiff(sa, sb, k); got != d[k-1] {
				t.Fatalf("trial %d k=%d: %v, want %v", trial, k, got, d[k-1])
			}
		}
	}
}

func TestHodgesLehmannLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := make([]float64, 1100)
	b := make([]float64, 1000)
	for i := range a {
		a[i] = 100 + rng.NormFloat64()
	}
	for i := range b {
		b[i] = 101 + rng.NormFloat64()
	}
	r, err := HodgesLehmann(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !r.HasCI || !(r.Lo < r.Shift && r.Shift < r.Hi) || math.Abs(r.Shift-1) > 0.2 || r.Hi-r.Lo > 0.3 {
		t.Errorf("%+v", r)
	}
}

// kthPairwiseDiffBisect is the kthPairwiseDiff that contend used before
// the selection (kept as the reference): it bisects over the totally
// ordered bit patterns of float64 for the smallest x with
// #{b_j - a_i <= x} >= k, in O((m+n)·64) time.
func kthPairwiseDiffBisect(a, b []float64, k int) float64 {
	count := func(x float64) int {
		c, i := 0, 0
		for _, y := range b {
			for i < len(a) && y-a[i] > x {
				i++
			}
			c += len(a) - i
		}
		return c
	}
	lo, hi := orderedKey(b[0]-a[len(a)-1]), orderedKey(b[len(b)-1]-a[0])
	for lo < hi {
		mid := lo + (hi-lo)/2
		if count(fromOrderedKey(mid)) >= k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return fromOrderedKey(lo)
}

// TestKthPairwiseDiffSameAsBisect checks that the selection returns,
// bit for bit, what the bisection did, on random data with ties, zeros
// (-0 included), negative values and equal samples, for every rank of
// small samples (sampled down to a few candidates) and for ranks near the
// median and the interval bounds of large ones.
func TestKthPairwiseDiffSameAsBisect(t *testing.T) {
	defer func(old int) { kthSortMin = old }(kthSortMin)
	rng := rand.New(rand.NewPCG(7, 8))
	gen := func(n, kind int) []float64 {
		x := make([]float64, n)
		for i := range x {
			switch kind {
			case 0: // continuous
				x[i] = rng.NormFloat64()
			case 1: // heavy ties
				x[i] = float64(rng.IntN(4)) / 8
			case 2: // all equal
				x[i] = 0.25
			case 3: // zeros of both signs, ties, negatives
				x[i] = []float64{0, math.Copysign(0, -1), -0.5, 0.5, 1e-300}[rng.IntN(5)]
			case 4: // log-like values of timings
				x[i] = logPositive(1e6+float64(rng.IntN(50000))) / 64
			}
		}
		return Sorted(x)
	}
	check := func(a, b []float64, k int) {
		t.Helper()
		got, want := kthPairwiseDiff(a, b, k), kthPairwiseDiffBisect(a, b, k)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("n=%d m=%d k=%d: %v (%#x), bisection %v (%#x)", len(a), len(b), k, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	for trial := range testsize.Pick(40, 80) {
		kthSortMin = 1 // sample down to n+m candidates
		a, b := gen(1+rng.IntN(30), rng.IntN(5)), gen(1+rng.IntN(30), rng.IntN(5))
		if trial%7 == 0 {
			b = slices.Clone(a)
		}
		for k := 1; k <= len(a)*len(b); k++ {
			check(a, b, k)
		}
	}
	kthSortMin = 1 << 12
	for trial := range testsize.Pick(5, 12) { // every kind of sample at both sizes
		a, b := gen(500+rng.IntN(3000), trial%5), gen(500+rng.IntN(3000), (trial+1)%5)
		nn := len(a) * len(b)
		for _, k := range []int{1, nn / 2, nn/2 + 1, nn / 40, nn - nn/40, 1 + rng.IntN(nn), nn} {
			check(a, b, max(k, 1))
		}
	}
}

// BenchmarkKthPairwiseDiff: the median of the differences of two samples
// of 100,000 timings (logs), by the selection and by the bisection used
// before.
func BenchmarkKthPairwiseDiff(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := make([]float64, 100000), make([]float64, 100000)
	for i := range x {
		x[i] = logPositive(1e6 + float64(rng.IntN(50000)))
		y[i] = logPositive(1.01e6 + float64(rng.IntN(50000)))
	}
	x, y = Sorted(x), Sorted(y)
	k := len(x) * len(y) / 2
	for name, f := range map[string]func([]float64, []float64, int) float64{"select": kthPairwiseDiff, "bisect": kthPairwiseDiffBisect} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				f(x, y, k)
			}
		})
	}
}

// TestSelectKth checks the selection against sorting, with many ties.
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 300 {
		xs := make([]float64, 1+rng.IntN(300))
		for i := range xs {
			if trial%2 == 0 {
				xs[i] = float64(rng.IntN(5))
			} else {
				xs[i] = rng.NormFloat64()
			}
		}
		sorted := Sorted(xs)
		k := rng.IntN(len(xs))
		if got := selectKth(slices.Clone(xs), k); got != sorted[k] {
			t.Fatalf("trial %d: %d-th of %v: %v, want %v", trial, k, xs, got, sorted[k])
		}
	}
}

// TestRelativeChangeSortedOnce checks RelativeChange, which sorts
// positive samples once, against the computation in the order given
// (medians of the rescaled values, Hodges-Lehmann on their logarithms),
// bit for bit, on samples with ties and of extreme magnitudes.
func TestRelativeChangeSortedOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := range testsize.Pick(80, 200) {
		scale := []float64{1, 1e300, 1e-310, 3}[trial%4]
		gen := func(n int) []float64 {
			x := make([]float64, n)
			for i := range x {
				x[i] = scale * (1 + float64(rng.IntN(1+trial%50)))
			}
			return x
		}
		a, b := gen(2+rng.IntN(60)), gen(2+rng.IntN(60))
		if trial%9 == 0 {
			a, b = gen(1200), gen(1000) // selection, not sorting
		}
		got, err := RelativeChange(a, b, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		k := scaleExp(a, b)
		ma, mb := Median(rescaled(a, k)), Median(rescaled(b, k))
		hl := hodgesLehmannScaled(logs(a), logs(b), 0.95)
		want := []float64{(mb - ma) / math.Abs(ma), math.Expm1(hl.Shift), math.Expm1(hl.Lo), math.Expm1(hl.Hi)}
		for i, g := range []float64{got.Change, got.Estimate, got.Lo, got.Hi} {
			if math.Float64bits(g) != math.Float64bits(want[i]) && !(math.IsNaN(g) && math.IsNaN(want[i])) {
				t.Fatalf("trial %d: value %d is %v, want %v", trial, i, g, want[i])
			}
		}
	}
}

// TestRelativeChangeNonNegativeNeverBelowMinus100: for random samples of
// values >= 0 with zeros (counters that are mostly 0, as kernel evidence
// is), the relative change is never below -100% and no interval of a
// ratio is given, only that of the shift, which lies within the range of
// the differences b - a; positive samples keep the ratio interval, whose
// bounds are above -100% too. The old fallback (shift over |median(A)|)
// gave intervals down to -800% ([0 0 0 1 2 5] against [0 0 1 0 0 0]).
func TestRelativeChangeNonNegativeNeverBelowMinus100(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	draw := func(n int, pzero, scale float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			if rng.Float64() >= pzero {
				xs[i] = math.Round(rng.ExpFloat64() * scale)
			}
		}
		return xs
	}
	withZero := 0
	for trial := range 3000 {
		n1, n2 := 2+rng.IntN(30), 2+rng.IntN(30)
		a, b := draw(n1, rng.Float64(), 1+rng.Float64()*20), draw(n2, rng.Float64(), 1+rng.Float64()*20)
		for _, conf := range []float64{0.9, 0.95} {
			r, err := RelativeChange(a, b, conf)
			if err != nil {
				t.Fatal(err)
			}
			if r.Estimate < -1 || r.HasCI && r.Lo < -1 || r.Hi < -1 {
				t.Fatalf("trial %d: %v against %v: estimate %v [%v, %v] (%v)", trial, a, b, r.Estimate, r.Lo, r.Hi, r.Method)
			}
			if !allPositive(a) || !allPositive(b) {
				withZero++
				if r.Method != RelAbsShift || r.HasCI {
					t.Fatalf("trial %d: zeros, method %v, ratio interval %v", trial, r.Method, r.HasCI)
				}
				lo, hi := Sorted(b)[0]-Sorted(a)[len(a)-1], Sorted(b)[len(b)-1]-Sorted(a)[0]
				if r.HasShiftCI && (r.ShiftLo < lo || r.ShiftHi > hi || r.ShiftLo > r.Shift || r.Shift > r.ShiftHi) {
					t.Fatalf("trial %d: shift %v [%v, %v] outside the differences [%v, %v]", trial, r.Shift, r.ShiftLo, r.ShiftHi, lo, hi)
				}
			}
		}
	}
	if withZero < 1000 {
		t.Errorf("only %d comparisons with zeros", withZero)
	}
}
