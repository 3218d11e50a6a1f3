package analysis

import (
	"fmt"
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
	mad := medianDeviation(s, 0, med)
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

// medianDeviation returns medianSorted(sortedDeviations(s', med)), the
// median absolute deviation from med of the sorted values s divided by
// 2^k (s' = rescaled(s, k); k is 0 for values already scaled), without
// storing the deviations: the merge of sortedDeviations walked to the
// middle. Dividing by 2^k keeps the order, so s' is sorted too.
func medianDeviation(s []float64, k int, med float64) float64 {
	n := len(s)
	at := func(i int) float64 { return math.Ldexp(s[i], -k) }
	split := 0 // s'[:split] < med
	for split < n && at(split) < med {
		split++
	}
	i, j := split-1, split // falling run read backwards, rising run
	var prev, cur float64
	for range n/2 + 1 {
		prev = cur
		if j == n || (i >= 0 && math.Abs(at(i)-med) <= math.Abs(at(j)-med)) {
			cur = math.Abs(at(i) - med)
			i--
		} else {
			cur = math.Abs(at(j) - med)
			j++
		}
	}
	if n%2 == 1 {
		return cur
	}
	return midpoint(prev, cur)
}

// HighScores returns the indices, in increasing order, of the values of
// xs whose modified z-score exceeds threshold in absolute value, with
// those scores: the numbers ModifiedZScores(xs) gives them, bit for bit
// (TestHighScoresAsModifiedZScores), without its copy of the sample and
// its array of scores. sorted is Sorted(xs), which it only reads: the
// sort a caller made for the other statistics of the sample
// (comparison.Build sorts each side once, for Compare and the outliers).
// It returns the errors of ModifiedZScores, and one for a sorted of
// another length.
func HighScores(xs, sorted []float64, threshold float64) (idx []int, z []float64, err error) {
	if err := checkSample("X", xs); err != nil {
		return nil, nil, err
	}
	n := len(xs)
	if len(sorted) != n {
		return nil, nil, fmt.Errorf("analysis: HighScores: %d sorted values for %d values", len(sorted), n)
	}
	// As ModifiedZScores, on the values divided by 2^k, taken from sorted
	// as they are needed: dividing by 2^k keeps the order, so sorted
	// divided is the scaled sample sorted (the same numbers; a zero may
	// have the other sign, which no score above a threshold shows).
	k := scaleExp(sorted[:1], sorted[n-1:]) // the largest |x| is at an end
	med := math.Ldexp(sorted[n/2], -k)
	if n%2 == 0 {
		med = midpoint(math.Ldexp(sorted[n/2-1], -k), med)
	}
	mad := medianDeviation(sorted, k, med)
	scale := mad / 0.6745
	if mad == 0 {
		var sum float64
		for _, x := range xs {
			sum += math.Abs(math.Ldexp(x, -k) - med)
		}
		scale = 1.253314 * sum / float64(n)
	}
	for i, x := range xs {
		zi := 0.0 // every score is 0 when the scale is
		if scale != 0 {
			zi = (math.Ldexp(x, -k) - med) / scale
		}
		if math.Abs(zi) > threshold {
			idx, z = append(idx, i), append(z, zi)
		}
	}
	return idx, z, nil
}

// MedianSorted returns the median of the sorted values s, the number
// Median gives for them in any order (NaN for none).
func MedianSorted(s []float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return medianSorted(s)
}
