package comparison

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"contend/analysis"
	"contend/internal/results"
	"contend/internal/testsize"
)

// sideOutliersBefore is sideOutliers as it was before it took the median
// only when a score is high (the reference of TestOutliersSameAsBefore).
func sideOutliersBefore(s *SideReport, si int, metrics []results.Metric) []Outlier {
	var out []Outlier
	for _, m := range metrics {
		os := s.obsOf(m.Name)
		xs := s.Values(m.Name)
		if len(xs) < OutlierMinN {
			continue
		}
		z, err := analysis.ModifiedZScores(xs)
		if err != nil {
			continue
		}
		med := analysis.Median(xs)
		for i, zi := range z {
			if math.Abs(zi) > analysis.OutlierThreshold && math.Abs(xs[i]-med) >= OutlierMinShift*math.Abs(med) {
				out = append(out, Outlier{
					Side: si, Metric: m.Name, Part: s.Parts[os[i].part],
					Rep: int(os[i].rep), Ord: int(os[i].ord), Value: os[i].v, Z: zi,
				})
			}
		}
	}
	return out
}

// TestOutliersSameAsBefore: the outliers of random sides, with and
// without far values, near-constant counters and zeros, are those found
// before.
func TestOutliersSameAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	ms := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "faults", Unit: "count"}}
	for trial := range testsize.Pick(100, 300) {
		var vals, counts [2][]float64
		for c := range vals {
			for range 3 + rng.IntN(40) {
				counts[c] = append(counts[c], 65542+float64(rng.IntN(2)*rng.IntN(20)))
				x := 100 + rng.NormFloat64()
				switch rng.IntN(8) {
				case 0:
					x *= 1 + 3*rng.Float64() // far
				case 1:
					x = 0
				case 2:
					x = 100
				}
				vals[c] = append(vals[c], x)
			}
		}
		f := file("x", ms, []string{"a", "b"}, map[string][][]float64{"time": {vals[0], vals[1]}, "faults": {counts[0], counts[1]}})
		for c := range 2 {
			s := collectSide("", Side{Parts: []Part{{File: f, Configs: []int{c}}}})
			got, want := sideOutliers(&s, c, ms), sideOutliersBefore(&s, c, ms)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d side %d: %+v, before %+v", trial, c, got, want)
			}
		}
	}
}
