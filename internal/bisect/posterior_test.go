package bisect

import (
	"math"
	"testing"

	"contend/analysis"
)

// TestSplitLikelihoodIsMarginal: the posterior's split likelihood differs
// from analysis.NormalMarginalPooled by the same constant for every split
// of the same values.
func TestSplitLikelihoodIsMarginal(t *testing.T) {
	xs := []float64{3, 5, 4.5, 6, 2, 7.5, 8, 9.1, 8.7, 10}
	var diff float64
	for k := 2; k <= len(xs)-2; k++ {
		a, b := analysis.MomentsOf(xs[:k]), analysis.MomentsOf(xs[k:])
		d := analysis.NormalMarginalPooled(a, b) - splitLikelihood(a, b)
		if k > 2 && math.Abs(d-diff) > 1e-9 {
			t.Fatalf("split at %d: difference %v, at 2: %v", k, d, diff)
		}
		diff = d
	}
}

// TestPosteriorShape: with the ends and probes showing a step between
// commits 5 and 6 of 10, the posterior is highest at 6, sums to one, and
// the next probe is where its CDF crosses 1/2; a skipped commit joins
// the group of the commit after it.
func TestPosteriorShape(t *testing.T) {
	m := newModel(10, nil)
	m.ends[0] = analysis.MomentsOf([]float64{10, 11, 9, 10.5, 9.5})
	m.ends[1] = analysis.MomentsOf([]float64{20, 21, 19, 20.5, 19.5})
	m.batches = []batch{
		{5, analysis.MomentsOf([]float64{10.2, 9.8, 10.1})},
		{6, analysis.MomentsOf([]float64{20.2, 19.8, 20.1})},
	}
	p := m.posterior()
	sum := 0.0
	for _, x := range p {
		sum += x
	}
	if math.Abs(sum-1) > 1e-12 || p[0] != 0 {
		t.Fatalf("posterior sums to %v, p[0] = %v", sum, p[0])
	}
	if g := top(m.groups(p), 1)[0]; g.last != 6 || g.p < 0.99 {
		t.Fatalf("top = %+v, want commit 6 with p >= 0.99", g)
	}
	m.skipped[6] = "build failed"
	m.batches = m.batches[:1]
	p = m.posterior()
	gs := m.groups(p)
	for _, g := range gs {
		if g.last == 6 {
			t.Fatal("a skipped commit is its own candidate")
		}
		if g.last == 7 && (len(g.skipped) != 1 || g.skipped[0] != 6 || math.Abs(g.p-(p[6]+p[7])) > 1e-12) {
			t.Fatalf("group of 7 = %+v", g)
		}
	}
	if i := m.next(p); i == 6 || i < 1 || i > 9 {
		t.Fatalf("next = %d", i)
	}
}

// MomentsOfForTest is analysis.MomentsOf of xs.
func MomentsOfForTest(xs ...float64) analysis.Moments { return analysis.MomentsOf(xs) }
