package bisect

import (
	"math"
	"testing"
)

// blocksModel returns a model of n commits with the blocks given as
// (lo, hi, lo's values, hi's values).
func blocksModel(n int, bs ...block) *model {
	m := newModel(n, nil)
	for k := range bs {
		b := bs[k]
		m.blocks[k+1] = &b
	}
	return m
}

// TestBlockLogLikIsMarginal: a block's log likelihood of a difference mu
// is, up to a constant, the log of the normal likelihood of its values
// with its level and its variance integrated out (flat level, 1/sigma^2):
// checked against numerical integration over both.
func TestBlockLogLikIsMarginal(t *testing.T) {
	lo, hi := []float64{3, 5, 4.5, 6}, []float64{7.5, 8, 9.1, 8.7, 10}
	m := blocksModel(2, block{lo: 0, hi: 2, xs: [2][]float64{lo, hi}})
	// Logs are taken (every value is positive): undo for the check.
	for _, xs := range m.blocks[1].xs {
		for k := range xs {
			xs[k] = math.Exp(xs[k])
		}
	}
	c := m.contrasts()[0]
	numeric := func(mu float64) float64 {
		// integral over lambda in [-20, 40] and log sigma in [-6, 5].
		total := 0.0
		for li := 0; li < 1200; li++ {
			lambda := -20 + 60*(float64(li)+0.5)/1200
			for si := 0; si < 400; si++ {
				ls := -6 + 11*(float64(si)+0.5)/400
				s2 := math.Exp(2 * ls)
				q := 0.0
				for _, x := range lo {
					q += (x - lambda) * (x - lambda)
				}
				for _, x := range hi {
					q += (x - lambda - mu) * (x - lambda - mu)
				}
				n := float64(len(lo) + len(hi))
				// prior 1/sigma^2 d sigma^2 = 2 d log sigma.
				total += math.Exp(-n/2*math.Log(2*math.Pi*s2) - q/(2*s2))
			}
		}
		return math.Log(total)
	}
	base := numeric(0) - c.logLik(0)
	for _, mu := range []float64{1, 3, 4.2, 6} {
		if d := numeric(mu) - c.logLik(mu); math.Abs(d-base) > 1e-4 {
			t.Errorf("mu %v: numeric - logLik = %v, at 0: %v", mu, d, base)
		}
	}
}

// TestPosteriorShape: with the ends' blocks and probes showing a step
// between commits 5 and 6 of 10, the posterior is highest at 6, sums to
// one, and the next probe is where its CDF crosses 1/2; a skipped commit
// joins the group of the commit after it.
func TestPosteriorShape(t *testing.T) {
	good, bad := []float64{10, 11, 9, 10.5, 9.5}, []float64{20, 21, 19, 20.5, 19.5}
	m := blocksModel(10,
		block{lo: 0, hi: 10, xs: [2][]float64{good, bad}},
		block{lo: 0, hi: 10, xs: [2][]float64{good, bad}},
		block{lo: 0, hi: 5, xs: [2][]float64{good, {10.2, 9.8, 10.1}}},
		block{lo: 6, hi: 10, xs: [2][]float64{{20.2, 19.8, 20.1}, bad}},
	)
	p := m.posterior()
	sum := 0.0
	for _, x := range p {
		sum += x
	}
	if math.Abs(sum-1) > 1e-12 || p[0] != 0 {
		t.Fatalf("posterior sums to %v, p[0] = %v", sum, p[0])
	}
	if g := top(m.groups(p), 1)[0]; g.last != 6 || g.p < 0.99 {
		t.Fatalf("top = %+v, want commit 6 with p >= 0.99", g)
	}
	m.skipped[6] = "build failed"
	delete(m.blocks, 4)
	p = m.posterior()
	gs := m.groups(p)
	for _, g := range gs {
		if g.last == 6 {
			t.Fatal("a skipped commit is its own candidate")
		}
		if g.last == 7 && (len(g.skipped) != 1 || g.skipped[0] != 6 || math.Abs(g.p-(p[6]+p[7])) > 1e-12) {
			t.Fatalf("group of 7 = %+v", g)
		}
	}
	if i := m.next(p); i == 6 || i < 1 || i > 9 {
		t.Fatalf("next = %d", i)
	}
}

// TestPosteriorIgnoresLevels: adding a constant to both sides of any
// block (a load that came and went between blocks) leaves the posterior
// as it was: only differences within a block inform. Values are kept
// below zero somewhere so that no log is taken.
func TestPosteriorIgnoresLevels(t *testing.T) {
	mk := func(shift []float64) *model {
		add := func(xs []float64, c float64) []float64 {
			out := make([]float64, len(xs))
			for k, x := range xs {
				out[k] = x + c
			}
			return out
		}
		good, bad := []float64{-1, 0.4, -0.3, 0.2, 0.5}, []float64{1.1, 0.8, 1.4, 0.7, 1.2}
		return blocksModel(8,
			block{lo: 0, hi: 8, xs: [2][]float64{add(good, shift[0]), add(bad, shift[0])}},
			block{lo: 0, hi: 8, xs: [2][]float64{add(good, shift[1]), add(bad, shift[1])}},
			block{lo: 0, hi: 4, xs: [2][]float64{add(good, shift[2]), add([]float64{0.1, -0.2, 0.3, 0, 0.2}, shift[2])}},
			block{lo: 6, hi: 8, xs: [2][]float64{add([]float64{1, 1.3, 0.9, 1.1, 0.8}, shift[3]), add(bad, shift[3])}},
		)
	}
	a, b := mk([]float64{0, 0, 0, 0}).posterior(), mk([]float64{-5, 3, 7, -2}).posterior()
	for j := range a {
		if math.Abs(a[j]-b[j]) > 1e-9 {
			t.Fatalf("P(%d): %v without the levels, %v with them", j, a[j], b[j])
		}
	}
}

// TestPosteriorWithoutEnds: before a complete block of the ends the
// posterior is the prior and no candidate is reported.
func TestPosteriorWithoutEnds(t *testing.T) {
	m := blocksModel(4, block{lo: 0, hi: 4, xs: [2][]float64{{1, 2}, nil}})
	p := m.posterior()
	for j := 1; j <= 4; j++ {
		if math.Abs(p[j]-0.25) > 1e-12 {
			t.Fatalf("P = %v, want the uniform prior", p)
		}
	}
	if _, ok := stepGrid(m.contrasts()); ok {
		t.Fatal("a block with one side measures the step")
	}
}
