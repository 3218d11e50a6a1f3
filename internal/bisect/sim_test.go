package bisect

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"contend/internal/testsize"
)

// simProber measures commit i as base plus the steps of the culprits at
// or before i, plus the machine's level at the moment (level, by the
// number of runs measured so far in the search), plus noise of SD sd(t)
// drawn by noise (standard normal when nil), from a seeded generator.
type simProber struct {
	culprit int
	shift   float64
	// more are further culprits and their steps (two culprits of half a
	// step each: culprit, shift and one of more).
	more  map[int]float64
	level func(t int) float64
	sd    func(t int) float64
	noise func(r *rand.Rand) float64
	rng   *rand.Rand
	index map[string]int
	fail  map[int]bool // commits that do not build
	t     int          // runs measured so far
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
	p := b.p
	xs := make([]float64, n)
	mean := 100.0
	if p.culprit > 0 && b.i >= p.culprit {
		mean += p.shift
	}
	for c, s := range p.more {
		if b.i >= c {
			mean += s
		}
	}
	for k := range xs {
		lv, sd, e := 0.0, 1.0, 0.0
		if p.level != nil {
			lv = p.level(p.t)
		}
		if p.sd != nil {
			sd = p.sd(p.t)
		}
		if p.noise != nil {
			e = p.noise(p.rng)
		} else {
			e = p.rng.NormFloat64()
		}
		xs[k] = mean + lv + sd*e
		p.t++
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

// scenario is one condition of the machine and the range.
type scenario struct {
	name  string
	shift float64 // the step of the one culprit; 0: none (A/A) unless half
	// half: two culprits of shift/2 each instead of one.
	half  bool
	level func(t int) float64
	sd    func(t int) float64
	noise func(r *rand.Rand) float64
}

// oneCulprit says whether the scenario has a single step.
func (sc scenario) oneCulprit() bool { return sc.shift != 0 && !sc.half }

// drift is a level moving by sds standard deviations over 300 runs (a
// search's length, about), and on at the same rate after.
func drift(sds float64) func(int) float64 {
	return func(t int) float64 { return sds * float64(t) / 300 }
}

// switching is a load that takes the level down by 1 SD every other 40
// runs.
func switching(t int) float64 {
	if (t/40)%2 == 1 {
		return -1
	}
	return 0
}

// simScenarios are the conditions of issue 38: a stationary machine, a
// level that drifts or switches, a noise that triples mid-search, heavy
// tails and outliers, two culprits of half a step, and no step.
var simScenarios = []scenario{
	{name: "stationary 1 SD", shift: 1},
	{name: "stationary 0.5 SD", shift: 0.5},
	{name: "heavy tails (t3) 1 SD", shift: 1, noise: func(r *rand.Rand) float64 {
		// Student's t with 3 degrees of freedom, scaled to SD 1.
		z := r.NormFloat64()
		chi := 0.0
		for k := 0; k < 3; k++ {
			g := r.NormFloat64()
			chi += g * g
		}
		return z / math.Sqrt(chi/3) / math.Sqrt(3)
	}},
	{name: "outliers 2% at +8 SD, 1 SD", shift: 1, noise: func(r *rand.Rand) float64 {
		if r.Float64() < 0.02 {
			return 8 + r.NormFloat64()
		}
		return r.NormFloat64()
	}},
	{name: "drift +1 SD, 1 SD", shift: 1, level: drift(1)},
	{name: "drift -1 SD, 1 SD", shift: 1, level: drift(-1)},
	{name: "drift +0.5 SD, 1 SD", shift: 1, level: drift(0.5)},
	{name: "drift -0.5 SD, 1 SD", shift: 1, level: drift(-0.5)},
	{name: "switching load, 1 SD", shift: 1, level: switching},
	{name: "noise SD 1 -> 3 mid-search, 1 SD", shift: 1, sd: func(t int) float64 {
		if t >= 150 {
			return 3
		}
		return 1
	}},
	{name: "two culprits of 0.5 SD", shift: 1, half: true},
	{name: "A/A", shift: 0},
	{name: "A/A, drift +1 SD", shift: 0, level: drift(1)},
}

type simStats struct {
	total, claimed, claimedRight, noCulprit, wrongAtEnds, runs int
}

// simRun runs count searches of scenario sc over n commits, each with
// culprits drawn uniformly (the second of two at least 2 commits after
// the first), and counts what they claimed.
func simRun(t *testing.T, sc scenario, seed uint64, count, n int, opt Options) simStats {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0xb15ec7))
	cs, idx := simCommits(n)
	var st simStats
	for r := 0; r < count; r++ {
		p := &simProber{level: sc.level, sd: sc.sd, noise: sc.noise, rng: rng, index: idx}
		truth := map[int]bool{}
		switch {
		case sc.half:
			a := 1 + rng.IntN(n-3)
			b := a + 2 + rng.IntN(n-a-1)
			p.culprit, p.shift, p.more = a, sc.shift/2, map[int]float64{b: sc.shift / 2}
			truth[a], truth[b] = true, true
		case sc.shift != 0:
			p.culprit, p.shift = 1+rng.IntN(n), sc.shift
			truth[p.culprit] = true
		}
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
		st.runs += res.Runs.Total
		if res.Stop != StopConfident || len(res.Top) == 0 {
			st.noCulprit++
			continue
		}
		st.claimed++
		got := res.Top[0].Index
		if truth[got] {
			st.claimedRight++
		} else if got == 1 || got == n {
			st.wrongAtEnds++
		}
	}
	return st
}

func (st simStats) rightAmongClaimed() float64 {
	return float64(st.claimedRight) / float64(max(st.claimed, 1))
}

func (st simStats) String() string {
	return fmt.Sprintf("%d searches: %d claimed a culprit, right among them %.3f (%d wrong at an end); %d ended without one; mean runs %.1f",
		st.total, st.claimed, st.rightAmongClaimed(), st.wrongAtEnds, st.noCulprit, float64(st.runs)/float64(st.total))
}

// simSize is the number of searches per scenario: 300 with
// CONTEND_FULL_SIM=1 (CI), 24 by default, or CONTEND_BISECT_SIM=N.
func simSize() (count int, full bool) {
	if v, err := strconv.Atoi(os.Getenv("CONTEND_BISECT_SIM")); err == nil && v > 0 {
		return v, v >= 300
	}
	return testsize.Pick(24, 300), testsize.Full()
}

// TestSimulationScenarios: the real search, 64 commits, a step of one
// noise SD (half in one row), 5 runs a batch, under each condition of
// simScenarios. With one culprit, at least 95% of the culprits claimed
// are right (90% at the default size of 24, which a true 97% still
// fails one time in 30); with none or two, at least 95% of the
// searches end without a culprit or name one of the true ones (90% at
// the default size); and never more than 5% of the searches name an end
// wrongly (drift once pushed most wrong answers to one end). On the
// search of one calibration and ends measured once (before 2026-12),
// the drift rows were right 19-59% of the time: this test fails there.
func TestSimulationScenarios(t *testing.T) {
	count, full := simSize()
	bound := 0.90
	if full {
		bound = 0.95
	}
	for k, sc := range simScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			st := simRun(t, sc, uint64(100+k), count, 64, Options{})
			t.Logf("%-36s %s", sc.name, st)
			if sc.oneCulprit() {
				if st.claimed > 0 && st.rightAmongClaimed() < bound {
					t.Errorf("right among those claimed: %.3f, want >= %.2f", st.rightAmongClaimed(), bound)
				}
			} else if ok := float64(st.noCulprit+st.claimedRight) / float64(st.total); ok < bound {
				t.Errorf("ended without a culprit or named a true one: %.3f, want >= %.2f", ok, bound)
			}
			if frac := float64(st.wrongAtEnds) / float64(st.total); frac > 0.05 {
				t.Errorf("named an end wrongly in %.3f of the searches, want <= 0.05", frac)
			}
		})
	}
}

// TestSimulationStationaryCost: on a quiet machine (stationary, 1 SD)
// most searches end with a culprit: the blocks' price in runs is stated
// in docs/bisect.md, and the budget must not cut the searches short.
func TestSimulationStationaryCost(t *testing.T) {
	count, _ := simSize()
	st := simRun(t, simScenarios[0], 7, count, 64, Options{})
	t.Log(st)
	if frac := float64(st.claimed) / float64(st.total); frac < 0.85 {
		t.Errorf("claimed a culprit in %.3f of the stationary searches, want >= 0.85", frac)
	}
}
