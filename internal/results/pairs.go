package results

import "math"

// PairDiffs returns the differences of metric within each measured round
// of f (an A/B file: configurations 0 and 1, a round holding one
// repetition of each): ln(b/a) when every value is positive (a relative
// change, as the headline's), else b - a; rounds where a side failed are
// left out. rel says which. A round's two repetitions are neighbours in
// the file: a session appended to it (--append) numbers its rounds from 0
// again, and its rounds pair among themselves, not with the earlier
// session's rounds of the same numbers.
func (f *File) PairDiffs(metric string) (d []float64, rel bool) {
	cols := f.Columns()
	vals, has := cols.Metric(metric)
	var ps [][2]float64
	for i := 0; i+1 < cols.Len(); i++ {
		j := i + 1
		ci, cj := cols.Config(i), cols.Config(j)
		if cols.Warmup(i) || cols.Warmup(j) || cols.Round(i) != cols.Round(j) || ci < 0 || ci > 1 || cj != 1-ci {
			continue
		}
		if has[i] && has[j] && cols.Status(i) == StatusOK && cols.Status(j) == StatusOK {
			var p [2]float64
			p[ci], p[cj] = vals[i], vals[j]
			ps = append(ps, p)
		}
		i++ // j is this round's too
	}
	rel = true
	for _, p := range ps {
		rel = rel && p[0] > 0 && p[1] > 0
	}
	for _, p := range ps {
		if rel {
			d = append(d, math.Log(p[1]/p[0]))
		} else {
			d = append(d, p[1]-p[0])
		}
	}
	return d, rel
}
