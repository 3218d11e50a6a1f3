package bisect

import (
	"math"
	"slices"

	"contend/analysis"
)

// batch is the values of one probe of one commit.
type batch struct {
	commit int
	m      analysis.Moments
}

// model is the evidence of a search: the commits 0 (good end) to n (bad
// end), the values of the ends, the probes' batches, the skipped commits,
// and the prior over the culprit (the first bad commit, 1..n).
type model struct {
	n       int
	ends    [2]analysis.Moments // good (commit 0), bad (commit n)
	batches []batch
	skipped map[int]string
	prior   []float64 // weights of commits 1..n at [1..n]; nil: uniform

	agg, bad []analysis.Moments // posterior's scratch space
}

func newModel(n int, prior []float64) *model {
	return &model{n: n, skipped: map[int]string{}, prior: prior}
}

// posterior returns P(culprit = j) for j in 0..n (0 always 0).
//
// Culprit j splits the values in two normal samples, each with its own
// unknown mean, sharing one unknown variance: the good one (the good end
// and every commit before j) and the bad one (commit j and after, the
// bad end). Under the Jeffreys prior, the likelihood of j is the two
// samples' marginal likelihood (analysis.NormalMarginalPooled). Read
// probe by probe, that is each batch's Student-t predictive density
// given the values before it: the good and bad distributions are
// estimated from the ends and refined by every probe on the side j puts
// it on, and the error of that estimation is carried, not taken as
// known. One variance, not one a side: with a variance of its own, a
// side could take in values of the other as a wide spread, and the
// search then stalled between such splits (seen in simulation).
func (m *model) posterior() []float64 {
	if len(m.agg) != m.n+1 {
		m.agg, m.bad = make([]analysis.Moments, m.n+1), make([]analysis.Moments, m.n+1)
	}
	agg, bad := m.agg, m.bad
	clear(agg)
	for _, b := range m.batches {
		agg[b.commit] = agg[b.commit].Merge(b.m)
	}
	// bad[j]: the bad end and commits j..n-1.
	bad[m.n] = m.ends[1]
	for j := m.n - 1; j >= 1; j-- {
		bad[j] = bad[j+1].Merge(agg[j])
	}
	logw := make([]float64, m.n+1)
	logw[0] = math.Inf(-1)
	good := m.ends[0]
	for j := 1; j <= m.n; j++ {
		good = good.Merge(agg[j-1])
		w := 1.0
		if m.prior != nil {
			w = m.prior[j]
		}
		logw[j] = math.Log(w) + splitLikelihood(floored(good, bad[j]))
		if math.IsNaN(logw[j]) {
			logw[j] = math.Log(w)
		}
	}
	mx := slices.Max(logw)
	p := make([]float64, m.n+1)
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

// splitLikelihood is analysis.NormalMarginalPooled(a, b) less the terms
// that depend only on a.N+b.N, the same for every culprit:
// TestSplitLikelihoodIsMarginal.
func splitLikelihood(a, b analysis.Moments) float64 {
	n := float64(a.N + b.N)
	return -0.5*math.Log(float64(a.N)*float64(b.N)) - (n-2)/2*math.Log(a.M2+b.M2)
}

// floored gives samples without spread (a count that never varies) a
// spread of a millionth of their means, so that their likelihood is
// finite: values that never vary still say which side a commit is on.
func floored(a, b analysis.Moments) (analysis.Moments, analysis.Moments) {
	if a.M2+b.M2 <= 0 {
		eps := 1e-6 * math.Max(math.Max(math.Abs(a.Mean), math.Abs(b.Mean)), 1e-12)
		a.M2 = float64(max(a.N-1, 1)) * eps * eps
	}
	return a, b
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

// best returns the mass of the most probable group (groups without
// making them).
func (m *model) best(p []float64) float64 {
	mx, mass := 0.0, 0.0
	for j := 1; j <= m.n; j++ {
		mass += p[j]
		if _, ok := m.skipped[j]; ok && j < m.n {
			continue
		}
		mx, mass = math.Max(mx, mass), 0
	}
	return mx
}

// top returns the k most probable groups, most probable first.
func top(gs []group, k int) []group {
	if k == 1 && len(gs) > 0 {
		best := gs[0]
		for _, g := range gs[1:] {
			if g.p > best.p {
				best = g
			}
		}
		return []group{best}
	}
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
