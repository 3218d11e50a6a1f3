package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSortFloatsAsSortFloat64s: random samples of every size around the
// radix threshold, with ties, subnormals, infinities, huge and negative
// values, and some with -0 (sort.Float64s's way), come out bit for bit as
// sort.Float64s leaves them.
func TestSortFloatsAsSortFloat64s(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	special := []float64{0, 5e-324, -5e-324, 1e-310, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), 1, -1}
	for trial := range 400 {
		n := rng.IntN(3 * radixMin)
		if trial%50 == 0 {
			n = 100000 + rng.IntN(1000)
		}
		xs := make([]float64, n)
		for i := range xs {
			switch rng.IntN(5) {
			case 0:
				xs[i] = special[rng.IntN(len(special))]
			case 1:
				xs[i] = float64(1e6 + rng.IntN(50))
			default:
				xs[i] = rng.NormFloat64() * math.Pow(2, float64(rng.IntN(200)-100))
			}
		}
		if n > 0 && trial%7 == 0 {
			xs[rng.IntN(n)] = math.Copysign(0, -1)
		}
		got, want := slices.Clone(xs), slices.Clone(xs)
		sortFloats(got)
		sort.Float64s(want)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d (n %d): element %d is %v, sort.Float64s %v", trial, n, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkSortFloats compares the radix sort with sort.Float64s on
// 100,000 values as compare meets them.
func BenchmarkSortFloats(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 100000)
	for i := range xs {
		xs[i] = float64(1000000 + rng.IntN(50000))
	}
	s := make([]float64, len(xs))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(s, xs)
			sortFloats(s)
		}
	})
	b.Run("pdq", func(b *testing.B) {
		for b.Loop() {
			copy(s, xs)
			sort.Float64s(s)
		}
	})
}
