package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"
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
