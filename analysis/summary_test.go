package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"contend/internal/testsize"
)

func TestSummarizeEdgeCases(t *testing.T) {
	if _, err := Summarize(nil, 0.95); !errors.Is(err, ErrNoData) {
		t.Errorf("n=0: err = %v, want ErrNoData", err)
	}
	for _, bad := range [][]float64{{1, math.NaN()}, {math.Inf(1)}, {2, 3, math.Inf(-1)}} {
		_, err := Summarize(bad, 0.95)
		if err == nil || !(strings.Contains(err.Error(), "NaN") || strings.Contains(err.Error(), "Inf")) {
			t.Errorf("Summarize(%v): err = %v, want one naming the value", bad, err)
		}
	}

	s, err := Summarize([]float64{7}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 1 || s.Median != 7 || s.Mean != 7 || s.StdDev != 0 || s.CV != 0 || s.Min != 7 || s.Max != 7 || s.Q1 != 7 || s.Q3 != 7 {
		t.Errorf("n=1: %+v", s)
	}
	if s.HasCI || !math.IsNaN(s.MedianLo) || !math.IsNaN(s.MedianHi) || len(s.Warnings) != 1 {
		t.Errorf("n=1: CI %v [%v, %v], warnings %q", s.HasCI, s.MedianLo, s.MedianHi, s.Warnings)
	}

	s, _ = Summarize([]float64{3, 1}, 0.95)
	if s.Median != 2 || s.Mean != 2 || s.Q1 != 1.5 || s.Q3 != 2.5 || s.HasCI {
		t.Errorf("n=2: %+v", s)
	}
	checkClose(t, "n=2 StdDev", s.StdDev, math.Sqrt2, 1e-15, 0)

	eq := []float64{4, 4, 4, 4, 4, 4, 4}
	s, _ = Summarize(eq, 0.95)
	if s.Median != 4 || s.StdDev != 0 || s.CV != 0 || !s.HasCI || s.MedianLo != 4 || s.MedianHi != 4 || len(s.Warnings) != 0 {
		t.Errorf("all equal: %+v", s)
	}

	s, _ = Summarize([]float64{-1, 0, 1}, 0.95)
	if !math.IsNaN(s.CV) {
		t.Errorf("mean 0: CV = %v, want NaN", s.CV)
	}
	if !panics(func() { Summarize([]float64{1}, 1) }) || !panics(func() { Summarize([]float64{1}, 0) }) {
		t.Errorf("confidence outside (0, 1) must panic")
	}
}

func TestSummarizeDoesNotModifyInput(t *testing.T) {
	xs := []float64{3, 1, 2}
	Summarize(xs, 0.95)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Errorf("input modified: %v", xs)
	}
}

func TestQuantileType7(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	for _, c := range []struct{ p, want float64 }{
		{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.75, 3.25}, {1, 4}, {1.0 / 3, 2},
	} {
		checkClose(t, "QuantileType7", QuantileType7(c.p, s), c.want, 1e-15, 1e-15)
	}
	if !math.IsNaN(QuantileType7(0.5, nil)) {
		t.Errorf("empty: not NaN")
	}
	if QuantileType7(0.3, []float64{5}) != 5 {
		t.Errorf("single value")
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 2.5}, // gonum's stat.Quantile(0.5) gives 2
		{[]float64{5, 1, 3}, 3},
		{[]float64{2}, 2},
	} {
		if got := Median(c.xs); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Errorf("Median(nil) is not NaN")
	}
}

func TestMedianCI(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	lo, hi, cov, ok := MedianCI(x, 0.95)
	// l = 2: coverage 1 - 2·P(B <= 1) = 1 - 2·11/1024.
	if !ok || lo != 2 || hi != 9 {
		t.Errorf("n=10: [%v, %v] ok %v", lo, hi, ok)
	}
	checkClose(t, "coverage n=10", cov, 1-22.0/1024, 1e-14, 0)
	lo, hi, cov, ok = MedianCI(x[:6], 0.95)
	if !ok || lo != 1 || hi != 6 {
		t.Errorf("n=6: [%v, %v] ok %v", lo, hi, ok)
	}
	checkClose(t, "coverage n=6", cov, 1-2.0/64, 1e-14, 0)
	if _, _, _, ok := MedianCI(x[:5], 0.95); ok {
		t.Errorf("n=5 reaches 95%%")
	}
	if _, _, _, ok := MedianCI(nil, 0.95); ok {
		t.Errorf("n=0 has a CI")
	}
	for conf, want := range map[float64]int{0.95: 6, 0.99: 8, 0.9: 5, 0.5: 2} {
		if got := MinSamplesForMedianCI(conf); got != want {
			t.Errorf("MinSamplesForMedianCI(%g) = %d, want %d", conf, got, want)
		}
		n := MinSamplesForMedianCI(conf)
		if _, _, _, ok := MedianCI(x[:n], conf); !ok {
			t.Errorf("MedianCI with MinSamplesForMedianCI(%g) = %d values has no CI", conf, n)
		}
	}
}

// medianCIScan is the reference implementation of MedianCI that scans
// every l from 1 (as MedianCI did before it bisected first).
func medianCIScan(sorted []float64, confidence float64) (lo, hi, coverage float64, ok bool) {
	n := len(sorted)
	if n == 0 {
		return math.NaN(), math.NaN(), 0, false
	}
	b := distuv.Binomial{N: float64(n), P: 0.5}
	best := 0
	bestCov := 0.0
	for l := 1; l <= n/2; l++ {
		cov := 1 - 2*b.CDF(float64(l-1))
		if cov >= confidence {
			best, bestCov = l, cov
		} else {
			break
		}
	}
	if best == 0 {
		return math.NaN(), math.NaN(), 1 - 2*b.CDF(0), false
	}
	return sorted[best-1], sorted[n-best], bestCov, true
}

// TestMedianCISameAsScan: the interval that starts its scan after a
// bisection is the one the scan from 1 found, bit for bit, for every n
// up to 300, every 7th up to 1,500 (every n at the full size,
// internal/testsize) and large ones, at several confidences.
func TestMedianCISameAsScan(t *testing.T) {
	sizes := []int{10000, 99999, 100000, 123457}
	step := testsize.Pick(7, 1)
	for n := 0; n <= 1500; n++ {
		if n <= 300 || n%step == 0 {
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i)
		}
		for _, c := range []float64{0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.999999} {
			if n > 1500 && c != 0.95 && c != 0.999999 {
				continue
			}
			lo, hi, cov, ok := MedianCI(xs, c)
			wlo, whi, wcov, wok := medianCIScan(xs, c)
			same := func(a, b float64) bool {
				return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
			}
			if !same(lo, wlo) || !same(hi, whi) || !same(cov, wcov) || ok != wok {
				t.Fatalf("n %d confidence %v: %v %v %v %v, scan from 1 %v %v %v %v", n, c, lo, hi, cov, ok, wlo, whi, wcov, wok)
			}
		}
	}
}
