package bisect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// simProber measures commit i as normal values of mean base (before the
// culprit) or base+shift (from it on), SD 1, from a seeded generator.
type simProber struct {
	culprit int
	shift   float64
	rng     *rand.Rand
	index   map[string]int
	fail    map[int]bool // commits that do not build
}

type simBuilt struct {
	p *simProber
	i int
}

func (p *simProber) Build(_ context.Context, c Commit) (Built, error) {
	i := p.index[c.Hash]
	if p.fail[i] {
		return nil, &SkipError{Reason: "build failed (simulated)"}
	}
	return &simBuilt{p, i}, nil
}

func (b *simBuilt) Measure(_ context.Context, n int) ([]float64, error) {
	xs := make([]float64, n)
	mean := 100.0
	if b.i >= b.p.culprit {
		mean += b.p.shift
	}
	for k := range xs {
		xs[k] = mean + b.p.rng.NormFloat64()
	}
	return xs, nil
}

func (b *simBuilt) Close() error { return nil }

func simCommits(n int) ([]Commit, map[string]int) {
	cs := make([]Commit, n+1)
	idx := map[string]int{}
	for i := range cs {
		cs[i] = Commit{Hash: fmt.Sprintf("c%04d", i)}
		idx[cs[i].Hash] = i
	}
	return cs, idx
}

type simStats struct {
	runs, right, claimed, claimedRight, noDiff, total int
}

// simulate runs count bisects of n commits at shift SDs, each with a
// culprit drawn uniformly.
func simulate(t *testing.T, seed uint64, count, n int, shift float64, opt Options) simStats {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0xb15ec7))
	cs, idx := simCommits(n)
	var st simStats
	for r := 0; r < count; r++ {
		p := &simProber{culprit: 1 + rng.IntN(n), shift: shift, rng: rng, index: idx}
		o := opt
		o.Now = func() time.Time { return time.Unix(0, 0) }
		s, err := New(cs, o, &Memory{}, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		st.total++
		st.runs += res.Runs.Calibration + res.Runs.Probes
		if res.Stop == StopNoDifference {
			st.noDiff++
			continue
		}
		right := res.Top[0].Index == p.culprit
		if right {
			st.right++
		}
		if res.Stop == StopConfident {
			st.claimed++
			if right {
				st.claimedRight++
			}
		}
	}
	return st
}

func (st simStats) String() string {
	return fmt.Sprintf("%d bisects: right %.3f, claimed >= conf %d (right among them %.3f), stopped at calibration %d, mean runs %.1f",
		st.total, float64(st.right)/float64(st.total), st.claimed, float64(st.claimedRight)/float64(max(st.claimed, 1)), st.noDiff, float64(st.runs)/float64(st.total))
}

// TestSimulationOneSD: 500 bisects of 1,024 commits, the change one
// noise SD, 5 runs a probe, the ends calibrated with 10..40 runs each:
// of the answers claimed at P >= 0.95, at least 95% are right; at least
// 95% of all answers are right; the mean runs (calibration and probes)
// are at most those of a threshold bisect of 20 runs a probe (10 probes,
// 200 runs), which is right 88% of the time.
func TestSimulationOneSD(t *testing.T) {
	st := simulate(t, 1, 500, 1024, 1, Options{VerifyRuns: -1, BudgetRuns: 2000})
	t.Log(st)
	if got := float64(st.claimedRight) / float64(st.claimed); got < 0.95 {
		t.Errorf("right among those claimed >= 0.95: %.3f, want >= 0.95", got)
	}
	if got := float64(st.right) / float64(st.total); got < 0.95 {
		t.Errorf("right: %.3f, want >= 0.95", got)
	}
	if got := float64(st.runs) / float64(st.total); got > 200 {
		t.Errorf("mean runs %.1f, want <= 200", got)
	}
}

// TestSimulationHalfSD: the same at half an SD, with the calibration
// allowed up to 100 runs an end (the ends differ by half an SD: a fixed
// test of 10 runs a side would see it one time in five) and a budget of
// 700 runs: at least 95% right, 95% of the confident answers right.
func TestSimulationHalfSD(t *testing.T) {
	count := 500
	if testing.Short() {
		count = 200
	}
	st := simulate(t, 2, count, 1024, 0.5, Options{VerifyRuns: -1, CalibrateMax: 200, BudgetRuns: 1200})
	t.Log(st)
	if got := float64(st.claimedRight) / float64(st.claimed); got < 0.95 {
		t.Errorf("right among those claimed >= 0.95: %.3f, want >= 0.95", got)
	}
	if got := float64(st.right) / float64(st.total); got < 0.95 {
		t.Errorf("right: %.3f, want >= 0.95", got)
	}
}
