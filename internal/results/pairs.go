package results

import "math"

// PairDiffs returns the differences of metric within each measured round
// of f (an A/B file: configurations 0 and 1, a round holding one
// repetition of each): ln(b/a) when every value is positive (a relative
// change, as the headline's), else b - a; rounds where a side failed are
// left out. rel says which.
func (f *File) PairDiffs(metric string) (d []float64, rel bool) {
	type pair struct {
		v   [2]float64
		has [2]bool
	}
	byRound := map[int]*pair{}
	var rounds []int
	cols := f.Columns()
	vals, has := cols.Metric(metric)
	for i := range cols.Len() {
		c := cols.Config(i)
		if !has[i] || cols.Warmup(i) || cols.Status(i) != StatusOK || c < 0 || c > 1 {
			continue
		}
		p := byRound[cols.Round(i)]
		if p == nil {
			p = &pair{}
			byRound[cols.Round(i)] = p
			rounds = append(rounds, cols.Round(i))
		}
		p.v[c], p.has[c] = vals[i], true
	}
	rel = true
	var ps []*pair
	for _, r := range rounds {
		if p := byRound[r]; p.has[0] && p.has[1] {
			ps = append(ps, p)
			rel = rel && p.v[0] > 0 && p.v[1] > 0
		}
	}
	for _, p := range ps {
		if rel {
			d = append(d, math.Log(p.v[1]/p.v[0]))
		} else {
			d = append(d, p.v[1]-p.v[0])
		}
	}
	return d, rel
}
