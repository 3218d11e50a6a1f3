package analysis

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// signedRankA is ln(contend/original) of the first 12 rounds of a
// `contend verify mutex` at the original's size (1000 threads x 300000
// locks) on the project's VM; signedRankB 60 values past the exact
// distribution's bound.
var signedRankA = []float64{0.076849, 0.127139, 0.05515, 0.013063, 0.048416, -0.014194, -0.018372, 0.081642, 0.041668, -0.012365, 0.085406, 0.122519}

func signedRankB() []float64 {
	b := make([]float64, 60)
	for i := range b {
		b[i] = math.Round((0.05*math.Sin(1.7*float64(i))+0.01*float64(i%7)/7+0.004)*1e6) / 1e6
	}
	return b
}

// The reference values are SciPy 1.10's wilcoxon inverted: the centres
// mu whose d - mu the two-sided test (exact for A, the normal
// approximation with the continuity correction for B) does not reject,
// tried at the midpoint of every gap between Walsh averages; their ends
// are the bounds.
func TestSignedRankIntervalMatchesSciPyInverted(t *testing.T) {
	cases := []struct {
		name           string
		d              []float64
		conf           float64
		est, lo, hi    float64
		wantExactRange bool
	}{
		{"A 90%", signedRankA, 0.90, 0.051928249999999995, 0.020478, 0.081642, true},
		{"A 95%", signedRankA, 0.95, 0.051928249999999995, 0.015022, 0.085406, true},
		{"B 90%", signedRankB(), 0.90, 0.00815475, 0.0010394999999999988, 0.0154375, false},
		{"B 95%", signedRankB(), 0.95, 0.00815475, -0.0003585000000000012, 0.0169275, false},
	}
	for _, c := range cases {
		r, err := SignedRankInterval(c.d, c.conf)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !r.HasCI || r.N != len(c.d) {
			t.Fatalf("%s: HasCI %v N %d, want an interval of %d", c.name, r.HasCI, r.N, len(c.d))
		}
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"estimate", r.Estimate, c.est}, {"lo", r.Lo, c.lo}, {"hi", r.Hi, c.hi}} {
			if math.Abs(v.got-v.want) > 1e-12 {
				t.Errorf("%s: %s %.17g, SciPy inverted %.17g", c.name, v.what, v.got, v.want)
			}
		}
		if r.Coverage < c.conf || r.Coverage >= 1 {
			t.Errorf("%s: coverage %v, want at least %v", c.name, r.Coverage, c.conf)
		}
	}
}

// TestSignedRankIntervalInvertsSignedRank: just inside each bound the
// signed-rank test of d - mu keeps mu, just outside it rejects it.
func TestSignedRankIntervalInvertsSignedRank(t *testing.T) {
	for _, d := range [][]float64{signedRankA, signedRankB(), {3, 1, 4, 1.5, 9, 2.6, 5.3}} {
		r, err := SignedRankInterval(d, 0.90)
		if err != nil || !r.HasCI {
			t.Fatalf("%v: %+v %v", d, r, err)
		}
		var w []float64
		for i := range d {
			for j := i; j < len(d); j++ {
				w = append(w, d[i]/2+d[j]/2)
			}
		}
		slices.Sort(w)
		w = slices.Compact(w)
		lo, hi := slices.Index(w, r.Lo), slices.Index(w, r.Hi)
		if lo <= 0 || hi < 0 || hi >= len(w)-1 {
			t.Fatalf("bounds %v, %v not inner Walsh averages of %v", r.Lo, r.Hi, d)
		}
		p := func(mu float64) float64 {
			s := make([]float64, len(d))
			for i, x := range d {
				s[i] = x - mu
			}
			sr, err := SignedRank(s)
			if err != nil {
				t.Fatal(err)
			}
			return sr.P
		}
		for _, c := range []struct {
			mu   float64
			keep bool
		}{
			{(w[lo-1] + w[lo]) / 2, false}, {(w[lo] + w[lo+1]) / 2, true},
			{(w[hi-1] + w[hi]) / 2, true}, {(w[hi] + w[hi+1]) / 2, false},
		} {
			if got := p(c.mu) > 0.10; got != c.keep {
				t.Errorf("n %d: the test at mu %v has p %v: kept %v, the interval [%v, %v] says %v", len(d), c.mu, p(c.mu), got, r.Lo, r.Hi, c.keep)
			}
		}
	}
}

func TestSignedRankIntervalSmallAndBad(t *testing.T) {
	// 4 differences: P(W+ = 0) = 1/16 > 0.05, no 90% interval.
	r, err := SignedRankInterval([]float64{1, 2, 3, 4}, 0.90)
	if err != nil || r.HasCI || !math.IsNaN(r.Lo) || r.Estimate != 2.5 {
		t.Errorf("4 differences: %+v %v, want no interval and the estimate 2.5", r, err)
	}
	// 5: 1/32 <= 0.05, k = 1: the extremes, coverage 1 - 2/32.
	r, err = SignedRankInterval([]float64{5, -1, 2, 4, 3}, 0.90)
	if err != nil || !r.HasCI || r.Lo != -1 || r.Hi != 5 || math.Abs(r.Coverage-(1-2.0/32)) > 1e-15 {
		t.Errorf("5 differences: %+v %v, want [-1, 5] at coverage 0.9375", r, err)
	}
	if _, err := SignedRankInterval(nil, 0.9); !errors.Is(err, ErrNoData) {
		t.Errorf("no differences: %v, want ErrNoData", err)
	}
	if _, err := SignedRankInterval([]float64{1, math.NaN()}, 0.9); err == nil {
		t.Error("a NaN difference was accepted")
	}
}

// TestSignedRankIntervalLarge: 100,000 differences (MaxRuns rounds) need
// no n² memory, in the interval or in SignedRank's estimate (which formed
// all 5·10⁹ Walsh averages, 40 GB); the interval is the sorted values'
// around the median for a symmetric sample.
func TestSignedRankIntervalLarge(t *testing.T) {
	d := make([]float64, 100000)
	for i := range d {
		d[i] = float64(i - 50000)
	}
	r, err := SignedRankInterval(d, 0.95)
	if err != nil || !r.HasCI {
		t.Fatalf("%+v %v", r, err)
	}
	if r.Estimate != -0.5 || !(r.Lo < -0.5 && r.Hi > -0.5) || math.Abs(r.Lo+r.Hi+1) > 1 {
		t.Errorf("estimate %v interval [%v, %v], want -0.5 inside a symmetric interval", r.Estimate, r.Lo, r.Hi)
	}
	if sr, err := SignedRank(d); err != nil || sr.Estimate != -0.5 {
		t.Errorf("SignedRank: estimate %v, %v; want -0.5", sr.Estimate, err)
	}
}
