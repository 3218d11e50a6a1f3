package comparison

import (
	"math"

	"contend/analysis"
	"contend/internal/results"
)

// OutlierMinN is the smallest sample checked for outliers. With 3 values
// the modified z-score compares the two outer distances to the median
// with each other, and flags one whenever it is 5.2 times the other:
// noise, not evidence.
const OutlierMinN = 4

// OutlierMinShift is the smallest distance from the median, relative to
// the median, at which a repetition is reported as an outlier. Counters
// that are nearly constant (page faults of a fixed mapping) have a median
// absolute deviation near 0, so a difference of a few counts in 65000
// gets a modified z-score of 50: a repetition is an outlier only when its
// z-score is above analysis.OutlierThreshold and it is at least 1% away
// from the median.
const OutlierMinShift = 0.01

// OutlierListMax is the most outliers the text report lists; the JSON
// report lists every one.
const OutlierListMax = 8

// An Outlier is a repetition whose modified z-score exceeds
// analysis.OutlierThreshold. It is reported, never dropped.
type Outlier struct {
	Side   int
	Metric string
	Part   string
	Rep    int // repetition index in its file, from 0
	Ord    int // its number among the measured repetitions of its configuration, from 1
	Value  float64
	Z      float64
}

// sideOutliers returns the outliers of side s (index si) in metrics.
func sideOutliers(s *SideReport, si int, metrics []results.Metric) []Outlier {
	var out []Outlier
	for _, m := range metrics {
		if xs := s.Values(m.Name); len(xs) >= OutlierMinN {
			out = append(out, metricOutliers(s, si, m, analysis.Sorted(xs))...)
		}
	}
	return out
}

// metricOutliers returns the outliers of side s (index si) in metric m,
// whose values sorted are sorted (analysis.Sorted).
func metricOutliers(s *SideReport, si int, m results.Metric, sorted []float64) []Outlier {
	xs := s.Values(m.Name)
	if len(xs) < OutlierMinN {
		return nil
	}
	idx, z, err := analysis.HighScores(xs, sorted, analysis.OutlierThreshold)
	if err != nil {
		return nil
	}
	var out []Outlier
	if len(idx) == 0 {
		return nil
	}
	med := analysis.MedianSorted(sorted)
	for j, i := range idx {
		if math.Abs(xs[i]-med) >= OutlierMinShift*math.Abs(med) {
			o := s.origin(m.Name, i)
			out = append(out, Outlier{
				Side: si, Metric: m.Name, Part: s.Parts[o.part],
				Rep: int(o.rep), Ord: int(o.ord), Value: xs[i], Z: z[j],
			})
		}
	}
	return out
}

// Outliers returns the outliers of config c of f (c < 0: all configs
// pooled), metric by metric: the successful measured repetitions whose
// modified z-score exceeds analysis.OutlierThreshold, computed over the
// repetitions of that metric (none below OutlierMinN values).
func Outliers(f *results.File, c int) []Outlier {
	var configs []int
	for i := range f.Configs {
		if c < 0 || i == c {
			configs = append(configs, i)
		}
	}
	s := collectSide("", Side{Parts: []Part{{File: f, Configs: configs}}})
	return sideOutliers(&s, 0, f.Metrics)
}
