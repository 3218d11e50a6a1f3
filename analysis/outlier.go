package analysis

import (
	"math"
)

// OutlierThreshold is the modified z-score above which Outliers flags a
// value, as recommended by Iglewicz and Hoaglin (1993).
const OutlierThreshold = 3.5

// ModifiedZScores returns the modified z-score of each value of xs,
//
//	M_i = 0.6745·(x_i - median) / MAD,  MAD = median(|x_i - median|),
//
// where 0.6745 = Φ⁻¹(3/4) makes M comparable to a standard normal score
// (Iglewicz & Hoaglin, How to Detect and Handle Outliers, 1993). When more
// than half the values are equal MAD is 0; the scores then use the mean
// absolute deviation instead, M_i = (x_i - median)/(1.253314·MeanAD), and
// when that is 0 too (all values equal) every score is 0. It returns an
// error wrapping ErrNoData for empty input and an error for NaN or
// infinite values.
func ModifiedZScores(xs []float64) ([]float64, error) {
	if err := checkSample("X", xs); err != nil {
		return nil, err
	}
	// The scores do not depend on the unit: compute them on the values
	// divided by 2^k, where no deviation overflows or underflows.
	// One array of len(xs), not four (a copy scaled, sorted, the
	// deviations, the scores): the scaled values are sorted where they
	// are made, taken again from xs where needed (the same numbers: the
	// scaling is exact), their median deviation found without storing
	// the deviations (medianDeviation), and the scores written over them.
	k := scaleExp(xs)
	s := rescaled(xs, k)
	sortFloats(s)
	med := medianSorted(s)
	var sum float64
	for _, x := range xs {
		sum += math.Abs(math.Ldexp(x, -k) - med)
	}
	mad := medianDeviation(s, med)
	scale := mad / 0.6745
	if mad == 0 {
		// 1.253314 = sqrt(π/2) turns the mean absolute deviation of a
		// normal sample into its standard deviation.
		scale = 1.253314 * sum / float64(len(xs))
	}
	z := s // the sorted values are no longer needed: the scores replace them
	if scale == 0 {
		clear(z)
		return z, nil
	}
	for i, x := range xs {
		z[i] = (math.Ldexp(x, -k) - med) / scale
	}
	return z, nil
}

// Outliers returns the indices, in increasing order, of the values of xs
// whose modified z-score exceeds threshold in absolute value (use
// OutlierThreshold). It returns the errors of ModifiedZScores.
func Outliers(xs []float64, threshold float64) ([]int, error) {
	z, err := ModifiedZScores(xs)
	if err != nil {
		return nil, err
	}
	var out []int
	for i, s := range z {
		if math.Abs(s) > threshold {
			out = append(out, i)
		}
	}
	return out, nil
}

// medianDeviation returns medianSorted(sortedDeviations(s, med)), the
// median absolute deviation of the sorted values s from med, without
// storing the deviations: the merge of sortedDeviations walked to the
// middle.
func medianDeviation(s []float64, med float64) float64 {
	n := len(s)
	split := 0 // s[:split] < med
	for split < n && s[split] < med {
		split++
	}
	i, j := split-1, split // falling run read backwards, rising run
	var prev, cur float64
	for k := 0; k <= n/2; k++ {
		prev = cur
		if j == n || (i >= 0 && math.Abs(s[i]-med) <= math.Abs(s[j]-med)) {
			cur = math.Abs(s[i] - med)
			i--
		} else {
			cur = math.Abs(s[j] - med)
			j++
		}
	}
	if n%2 == 1 {
		return cur
	}
	return midpoint(prev, cur)
}
