package analysis

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
	return cliffsDeltaSorted(Sorted(a), Sorted(b)), nil
}

// cliffsDeltaSorted is CliffsDelta of checked samples, sorted: the counts
// of pairs in one walk through both.
func cliffsDeltaSorted(a, b []float64) float64 {
	var gt, lt int
	below, notAbove := 0, 0 // a_i < y, a_i <= y for the current y
	for _, y := range b {
		for below < len(a) && a[below] < y {
			below++
		}
		notAbove = max(notAbove, below)
		for notAbove < len(a) && a[notAbove] <= y {
			notAbove++
		}
		lt += len(a) - notAbove // a_i > y
		gt += below
	}
	return float64(gt-lt) / (float64(len(a)) * float64(len(b)))
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
