package analysis

import "sort"

// CliffsDelta returns Cliff's delta of B against A, the probability that
// a value of B exceeds a value of A minus the reverse:
//
//	δ = (#{(i,j): b_j > a_i} - #{(i,j): b_j < a_i}) / (N1·N2)  in [-1, 1].
//
// It equals 2U/(N1·N2) - 1 for the Mann-Whitney U of MWResult. It returns
// an error wrapping ErrNoData for an empty sample and an error for NaN or
// infinite values.
func CliffsDelta(a, b []float64) (float64, error) {
	if err := checkSample("A", a); err != nil {
		return 0, err
	}
	if err := checkSample("B", b); err != nil {
		return 0, err
	}
	sa := Sorted(a)
	var gt, lt int
	for _, y := range b {
		below := sort.SearchFloat64s(sa, y) // count of a_i < y
		notAbove := sort.Search(len(sa), func(i int) bool { return sa[i] > y })
		lt += len(sa) - notAbove // a_i > y
		gt += below
	}
	return float64(gt-lt) / (float64(len(a)) * float64(len(b))), nil
}

// DeltaMagnitude names the size of Cliff's delta d by the thresholds of
// Romano et al. (2006) on |d|: "negligible" below 0.147, "small" below
// 0.33, "medium" below 0.474, and "large" otherwise.
func DeltaMagnitude(d float64) string {
	switch ad := abs(d); {
	case ad < 0.147:
		return "negligible"
	case ad < 0.33:
		return "small"
	case ad < 0.474:
		return "medium"
	}
	return "large"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
