package comparison

import (
	"math"

	"contend/analysis"
)

// A WithinCheck tests whether two files of one pooled side differ more
// than their noise allows (Mann-Whitney U, Holm-adjusted over every such
// test). When the test cannot reach Alpha, Separated tells whether the
// values of the two files do not overlap at all.
type WithinCheck struct {
	Side         int
	Metric       string
	PartA, PartB string
	MedianA      float64
	MedianB      float64
	P, AdjustedP float64
	CanTest      bool
	Separated    bool
	Differ       bool // AdjustedP <= Alpha
}

// checkWithin tests every pair of files of each pooled side against each
// other, every compared metric, and Holm-adjusts all these tests
// together.
func (r *Comparison) checkWithin() error {
	var ps []float64
	var idx []int
	for si := range r.Sides {
		s := &r.Sides[si]
		if len(s.Parts) < 2 {
			continue
		}
		for _, m := range r.Metrics {
			byPart := make([][]float64, len(s.Parts))
			for i, x := range s.Values(m.Name) {
				p := s.origin(m.Name, i).part
				byPart[p] = append(byPart[p], x)
			}
			for i := range byPart {
				for j := i + 1; j < len(byPart); j++ {
					a, b := byPart[i], byPart[j]
					if len(a) == 0 || len(b) == 0 || allEqual(a, b) {
						continue
					}
					wc := WithinCheck{Side: si, Metric: m.Name, PartA: s.Parts[i], PartB: s.Parts[j],
						MedianA: analysis.Median(a), MedianB: analysis.Median(b)}
					mw, err := analysis.MannWhitney(a, b, analysis.TwoSided)
					if err != nil {
						return err
					}
					wc.P = mw.P
					wc.CanTest = analysis.CanReachSignificance(len(a), len(b), r.Options.Alpha)
					wc.Separated = maxOf(a) < minOf(b) || maxOf(b) < minOf(a)
					ps = append(ps, mw.P)
					idx = append(idx, len(r.Within))
					r.Within = append(r.Within, wc)
				}
			}
		}
	}
	if len(ps) == 0 {
		return nil
	}
	adj, err := analysis.Holm(ps)
	if err != nil {
		return err
	}
	for k, i := range idx {
		r.Within[i].AdjustedP = adj[k]
		r.Within[i].Differ = r.Within[i].CanTest && adj[k] <= r.Options.Alpha
	}
	return nil
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}
