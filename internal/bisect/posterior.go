package bisect

import (
	"math"
	"slices"
)

// block is two commits measured side by side, one batch each, close in
// time: the unit of evidence of a search. lo < hi are indices in the
// range; xs[0] are lo's values, xs[1] hi's.
type block struct {
	lo, hi int
	xs     [2][]float64
}

// complete says whether both sides of b have values (a search killed
// between its two batches leaves a block with one side, which tells
// nothing: only differences within a block inform).
func (b *block) complete() bool { return len(b.xs[0]) > 0 && len(b.xs[1]) > 0 }

// model is the evidence of a search: the commits 0 (good end) to n (bad
// end), its blocks, the skipped commits, and the prior over the culprit
// (the first bad commit, 1..n).
type model struct {
	n       int
	blocks  map[int]*block // by block number
	skipped map[int]string
	prior   []float64 // weights of commits 1..n at [1..n]; nil: uniform

	diff []float64 // posterior's scratch space: (n+2) x gridSize, row j the log likelihood of j on grid
	grid []float64 // the grid of the last posterior
}

func newModel(n int, prior []float64) *model {
	return &model{n: n, blocks: map[int]*block{}, skipped: map[int]string{}, prior: prior}
}

// gridSize is the number of points at which the posterior integrates
// over the step's size.
const gridSize = 97

// contrast is what a complete block says: the difference of its sides'
// means d (hi less lo), h = n_lo n_hi / (n_lo + n_hi), the sum of squared
// deviations within the sides w, and the number of values.
type contrast struct {
	lo, hi   int
	d, h, w  float64
	n        int
	calibrat bool // a block of the two ends
}

// contrasts returns the complete blocks' contrasts, on the log scale when
// every value of the search is positive (a load that slows every commit
// by a factor leaves the step's size unchanged there), with the spread
// floored (values that never vary still say which side a commit is on).
func (m *model) contrasts() []contrast { return m.contrastsOf(nil) }

// contrastsOf returns the contrasts of the blocks numbered nums (nil:
// all), on the scale contrasts chooses for the whole search.
func (m *model) contrastsOf(nums map[int]bool) []contrast {
	logs := true
	for _, b := range m.blocks {
		for _, xs := range b.xs {
			for _, x := range xs {
				if !(x > 0) {
					logs = false
				}
			}
		}
	}
	var cs []contrast
	for _, num := range m.sortedBlocks() {
		b := m.blocks[num]
		if !b.complete() || (nums != nil && !nums[num]) {
			continue
		}
		var mean [2]float64
		w := 0.0
		for s, xs := range b.xs {
			for _, x := range xs {
				if logs {
					x = math.Log(x)
				}
				mean[s] += x
			}
			mean[s] /= float64(len(xs))
			for _, x := range xs {
				if logs {
					x = math.Log(x)
				}
				w += (x - mean[s]) * (x - mean[s])
			}
		}
		n0, n1 := float64(len(b.xs[0])), float64(len(b.xs[1]))
		n := len(b.xs[0]) + len(b.xs[1])
		eps := 1e-6 * math.Max(math.Max(math.Abs(mean[0]), math.Abs(mean[1])), 1e-12)
		w = math.Max(w, float64(max(n-2, 1))*eps*eps)
		cs = append(cs, contrast{lo: b.lo, hi: b.hi, d: mean[1] - mean[0], h: n0 * n1 / (n0 + n1), w: w, n: n,
			calibrat: b.lo == 0 && b.hi == m.n})
	}
	return cs
}

func (m *model) sortedBlocks() []int {
	nums := make([]int, 0, len(m.blocks))
	for k := range m.blocks {
		nums = append(nums, k)
	}
	slices.Sort(nums)
	return nums
}

// logLik is a block's log likelihood of the difference mu between its
// sides: its level and its variance each its own and unknown, integrated
// out under the Jeffreys prior (flat level, 1/sigma^2), which leaves
// -(n-1)/2 log(w + h (d - mu)^2) up to terms that do not depend on mu.
func (c contrast) logLik(mu float64) float64 {
	e := c.d - mu
	return -float64(c.n-1) / 2 * math.Log(c.w+c.h*e*e)
}

// stepGrid returns the points at which the step's size is integrated:
// around the ends' blocks' estimate, 8 of its standard errors (or a
// quarter of the estimate) each way. ok is false without a complete
// block of the ends.
func stepGrid(cs []contrast) (grid []float64, ok bool) {
	sh, shd, sw, sdf := 0.0, 0.0, 0.0, 0
	for _, c := range cs {
		if c.calibrat {
			sh += c.h
			shd += c.h * c.d
			sw += c.w
			sdf += c.n - 2
		}
	}
	if sh == 0 {
		return nil, false
	}
	center := shd / sh
	se := math.Sqrt(sw / float64(max(sdf, 1)) / sh)
	half := math.Max(8*se, 0.25*math.Abs(center))
	if !(half > 0) {
		half = math.Max(1e-9*math.Abs(center), 1e-300)
	}
	grid = make([]float64, gridSize)
	for g := range grid {
		grid[g] = center - half + 2*half*float64(g)/float64(gridSize-1)
	}
	return grid, true
}

// posterior returns P(culprit = j) for j in 0..n (0 always 0).
//
// The model: within a block, commit c's values are normal around the
// block's own level plus delta when c is the culprit j or after it,
// with the block's own variance. A level per block absorbs whatever the
// machine does between blocks (a load that drifts, switches on and off,
// a noise that changes): only the difference within a block informs, as
// in Pinpoint's sandwich and a randomized block design. Integrating the
// level and the variance of each block out (contrast.logLik), a block of
// commits lo < hi says delta when lo < j <= hi and 0 otherwise; the
// blocks of the ends (0, n) say delta for every j and so measure the
// step. delta, common to the blocks, is integrated over stepGrid with a
// flat prior. This is a Bayesian probabilistic bisection (Horstein 1963;
// Waeber, Frazier and Henderson 2013) with a block likelihood instead of
// one known noise distribution.
func (m *model) posterior() []float64 {
	p := make([]float64, m.n+1)
	cs := m.contrasts()
	grid, ok := stepGrid(cs)
	m.grid = grid
	logw := make([]float64, m.n+1)
	logw[0] = math.Inf(-1)
	for j := 1; j <= m.n; j++ {
		logw[j] = 0
		if m.prior != nil {
			logw[j] = math.Log(m.prior[j])
		}
	}
	if ok {
		G := len(grid)
		need := (m.n + 2) * G
		if len(m.diff) != need {
			m.diff = make([]float64, need)
		}
		diff := m.diff
		clear(diff)
		for _, c := range cs {
			l0 := c.logLik(0)
			a, b := (c.lo+1)*G, (c.hi+1)*G
			for g, mu := range grid {
				dl := c.logLik(mu) - l0
				diff[a+g] += dl
				diff[b+g] -= dl
			}
		}
		// Prefix sums over j: row j is the total of the blocks that put
		// delta between their sides when j is the culprit.
		for j := 1; j <= m.n; j++ {
			row, prev := diff[j*G:(j+1)*G], diff[(j-1)*G:j*G]
			for g := range row {
				row[g] += prev[g]
			}
			logw[j] += logSumExp(row)
		}
	}
	mx := slices.Max(logw)
	sum := 0.0
	for j := 1; j <= m.n; j++ {
		p[j] = math.Exp(logw[j] - mx)
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
	return p
}

// endsStep returns the step between the ends as their blocks measure
// it (the centre of stepGrid), on the scale of the contrasts; NaN before
// a block of the ends.
func (m *model) endsStep() float64 {
	g, ok := stepGrid(m.contrasts())
	if !ok {
		return math.NaN()
	}
	return (g[0] + g[len(g)-1]) / 2
}

// pairLR returns the log likelihood ratio of the blocks numbered nums,
// each of the commits lo < hi, for a difference of delta between them
// against none, and the values of the fewer side.
func (m *model) pairLR(nums map[int]bool, delta float64) (llr float64, n int) {
	got := [2]int{}
	for _, c := range m.contrastsOf(nums) {
		llr += c.logLik(delta) - c.logLik(0)
	}
	for num := range nums {
		if b := m.blocks[num]; b != nil && b.complete() {
			got[0] += len(b.xs[0])
			got[1] += len(b.xs[1])
		}
	}
	return llr, min(got[0], got[1])
}

// pBad returns the probability that commit i is on the bad side (the
// culprit is i or before it) with a prior of 1/2 each way, from the same
// likelihood as posterior.
func (m *model) pBad(i int) float64 {
	saved := m.prior
	defer func() { m.prior = saved }()
	m.prior = make([]float64, m.n+1)
	m.prior[i], m.prior[i+1] = 1, 1
	return m.posterior()[i]
}

func logSumExp(xs []float64) float64 {
	mx := slices.Max(xs)
	if math.IsInf(mx, 0) {
		return mx
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}

// group is a candidate answer: the testable commit last and the skipped
// commits right before it, which no probe can tell from it.
type group struct {
	last    int
	skipped []int
	p       float64
}

// groups returns the candidates in commit order: each commit 1..n that
// is not skipped, with the skipped commits before it and their mass.
func (m *model) groups(p []float64) []group {
	var gs []group
	var pend []int
	mass := 0.0
	for j := 1; j <= m.n; j++ {
		mass += p[j]
		if _, ok := m.skipped[j]; ok && j < m.n {
			pend = append(pend, j)
			continue
		}
		gs = append(gs, group{last: j, skipped: pend, p: mass})
		pend, mass = nil, 0
	}
	return gs
}

// top returns the k most probable groups, most probable first.
func top(gs []group, k int) []group {
	s := slices.Clone(gs)
	slices.SortStableFunc(s, func(a, b group) int {
		switch {
		case a.p > b.p:
			return -1
		case a.p < b.p:
			return 1
		}
		return a.last - b.last
	})
	return s[:min(k, len(s))]
}

// next returns the commit to probe: the one not skipped, strictly
// between the ends, where the posterior's CDF is closest to 1/2 (the
// posterior median: Horstein's rule); -1 when none is left.
func (m *model) next(p []float64) int {
	best, bestD := -1, math.Inf(1)
	cdf := 0.0
	for i := 1; i < m.n; i++ {
		cdf += p[i]
		if _, ok := m.skipped[i]; ok {
			continue
		}
		if d := math.Abs(cdf - 0.5); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}
