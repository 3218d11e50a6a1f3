package analysis

import (
	"fmt"
	"math"
	"sort"
)

// Holm returns the Holm–Bonferroni adjusted p-values of ps, in the order of
// ps. With p(1) <= … <= p(m) the sorted p-values,
//
//	adj(i) = min(1, max_{j <= i} (m - j + 1)·p(j)),
//
// so the adjusted values keep the order of the raw ones and never exceed 1.
// Rejecting every hypothesis with adj <= alpha controls the family-wise
// error rate at alpha under any dependence between the tests (Holm 1979).
// It returns an error wrapping ErrNoData for an empty slice and an error
// for a value that is NaN or outside [0, 1].
func Holm(ps []float64) ([]float64, error) {
	if len(ps) == 0 {
		return nil, fmt.Errorf("analysis: Holm: %w", ErrNoData)
	}
	for i, p := range ps {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("analysis: Holm: p-value %d is %v, not in [0, 1]", i, p)
		}
	}
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return ps[idx[i]] < ps[idx[j]] })
	adj := make([]float64, m)
	run := 0.0
	for rank, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-rank)*ps[i]))
		adj[i] = run
	}
	return adj, nil
}
