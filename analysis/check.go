package analysis

import (
	"fmt"
	"math"
	"sort"
)

// checkSample returns an error when xs is empty (wrapping ErrNoData) or
// holds a NaN or infinite value. name identifies the sample in the message.
func checkSample(name string, xs []float64) error {
	if len(xs) == 0 {
		return fmt.Errorf("analysis: sample %s: %w", name, ErrNoData)
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("analysis: sample %s: value %d is %v: only finite numbers can be compared", name, i, x)
		}
	}
	return nil
}

// checkLevel panics unless p is a probability strictly between 0 and 1.
// Levels (alpha, confidence, power) are configuration, not data.
func checkLevel(what string, p float64) {
	if !(p > 0 && p < 1) {
		panic(fmt.Sprintf("analysis: %s must be in (0, 1), got %v", what, p))
	}
}

// ranks returns the 1-based ranks of xs with ties given their average rank,
// and tieTerm = Σ (t³ - t) over groups of t tied values.
func ranks(xs []float64) (r []float64, tieTerm float64) {
	n := len(xs)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return xs[idx[i]] < xs[idx[j]] })
	r = make([]float64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		// Positions i..j-1 (0-based) share the ranks i+1..j.
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		if t := float64(j - i); t > 1 {
			tieTerm += t*t*t - t
		}
		i = j
	}
	return r, tieTerm
}

// normalSF returns P(Z > z) for a standard normal Z, accurate in the tail.
func normalSF(z float64) float64 {
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// lchoose returns log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
