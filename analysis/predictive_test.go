package analysis

import (
	"math"
	"testing"
)

// TestNormalPredictiveReference checks NormalPredictive against SciPy:
// the predictive of three new values is the multivariate t with m-1
// degrees of freedom, location the reference mean and shape
// s²(I + J/m); of one value the t with scale s·sqrt(1+1/m).
//
//	/usr/bin/python3: scipy.stats.multivariate_t(loc=ybar, shape=s2*(I+J/m), df=m-1).logpdf(x)
func TestNormalPredictiveReference(t *testing.T) {
	y := []float64{10.0, 11.5, 9.2, 10.8, 10.1, 12.0, 9.7}
	ref := MomentsOf(y)
	cases := []struct {
		x    []float64
		want float64
	}{
		{[]float64{11.0, 12.5, 10.9}, -4.975426541073393},
		{[]float64{11.0}, -1.1714359174477866},
	}
	for _, c := range cases {
		got := NormalPredictive(MomentsOf(c.x), ref)
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("NormalPredictive(%v) = %.12g, want %.12g (SciPy)", c.x, got, c.want)
		}
	}
	if !math.IsNaN(NormalPredictive(MomentsOf([]float64{1}), MomentsOf([]float64{2, 2}))) {
		t.Error("a reference without spread must give NaN")
	}
}

// TestMomentsMergeRemove checks that merging and removing samples gives
// the moments of the values themselves.
func TestMomentsMergeRemove(t *testing.T) {
	a := []float64{1, 4, 2, 8, 5}
	b := []float64{7, 1.5, 3}
	all := MomentsOf(append(append([]float64{}, a...), b...))
	m := MomentsOf(a).Merge(MomentsOf(b))
	if m.N != all.N || math.Abs(m.Mean-all.Mean) > 1e-12 || math.Abs(m.M2-all.M2) > 1e-9 {
		t.Errorf("Merge = %+v, want %+v", m, all)
	}
	r := all.Remove(MomentsOf(b))
	want := MomentsOf(a)
	if r.N != want.N || math.Abs(r.Mean-want.Mean) > 1e-12 || math.Abs(r.M2-want.M2) > 1e-9 {
		t.Errorf("Remove = %+v, want %+v", r, want)
	}
	if sd := MomentsOf(a).SD(); math.Abs(sd-2.7386127875258306) > 1e-12 {
		t.Errorf("SD = %v", sd)
	}
}

// TestNormalMarginalPooledReference: adding one value x to sample b
// changes the pooled marginal by the log of its predictive density, the
// t with n-2 degrees of freedom, location mean(b) and scale
// s_p·sqrt(1+1/n_b), s_p² = (M2_a+M2_b)/(n-2):
//
//	/usr/bin/python3: scipy.stats.t(df=n-2, loc=b.mean(), scale=sp*sqrt(1+1/nb)).logpdf(x)
func TestNormalMarginalPooledReference(t *testing.T) {
	a := MomentsOf([]float64{10.0, 11.5, 9.2, 10.8})
	b := []float64{20.1, 19.0, 21.3}
	x := 20.5
	got := NormalMarginalPooled(a, MomentsOf(append(append([]float64{}, b...), x))) - NormalMarginalPooled(a, MomentsOf(b))
	if want := -1.2237916478424655; math.Abs(got-want) > 1e-9 {
		t.Errorf("log predictive = %.15g, want %.15g (SciPy)", got, want)
	}
	if !math.IsNaN(NormalMarginalPooled(Moments{}, MomentsOf(b))) {
		t.Error("an empty side must give NaN")
	}
}
