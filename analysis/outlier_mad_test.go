package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sortedDeviations returns |x - med| for the sorted values s, sorted:
// the deviations fall (as computed too: rounding is monotone) up to med
// and rise after it, so the two runs are merged rather than sorted.
func sortedDeviations(s []float64, med float64) []float64 {
	split := 0 // s[:split] < med
	for split < len(s) && s[split] < med {
		split++
	}
	dev := make([]float64, 0, len(s))
	i, j := split-1, split // falling run read backwards, rising run
	for i >= 0 || j < len(s) {
		if j == len(s) || (i >= 0 && math.Abs(s[i]-med) <= math.Abs(s[j]-med)) {
			dev = append(dev, math.Abs(s[i]-med))
			i--
		} else {
			dev = append(dev, math.Abs(s[j]-med))
			j++
		}
	}
	return dev
}

// TestMedianDeviationSameAsStored: on random samples (sizes 1 to 3,000,
// odd and even, many ties, all equal, negative, tiny and huge values) the
// median deviation found without storing the deviations is the same
// number, bit for bit, as the median of the deviations stored and sorted
// (the scores: TestModifiedZScoresSameAsSortEach).
func TestMedianDeviationSameAsStored(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for trial := range 2000 {
		n := 1 + rng.IntN(40)
		if trial%50 == 0 {
			n = 1 + rng.IntN(3000)
		}
		xs := make([]float64, n)
		scale := math.Ldexp(1, rng.IntN(2000)-1000)
		for i := range xs {
			switch trial % 4 {
			case 0:
				xs[i] = float64(rng.IntN(5)) * scale // ties
			case 1:
				xs[i] = rng.NormFloat64() * scale
			case 2:
				xs[i] = 7 // all equal
			default:
				xs[i] = rng.ExpFloat64()*scale + 1e6
			}
		}
		k := scaleExp(xs)
		s := rescaled(xs, k)
		sortFloats(s)
		med := medianSorted(s)
		if got, want := medianDeviation(s, 0, med), medianSorted(sortedDeviations(s, med)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d (n %d): medianDeviation %v, before %v", trial, n, got, want)
		}
	}
}
