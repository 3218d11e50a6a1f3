package analysis

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"contend/internal/testsize"
)

// seqOutcome sums simulated sequential A/B runs.
type seqOutcome struct {
	sims               int
	increase, decrease int // runs that decided B larger, B smaller
	pairs              int // pairs run, summed
}

func (o seqOutcome) rate(k int) float64 { return float64(k) / float64(o.sims) }
func (o seqOutcome) meanPairs() float64 { return float64(o.pairs) / float64(o.sims) }

// simulateSequential runs sims A/B runs of s with lognormal noise sigma
// (on the log scale) and B larger than A by the factor 1+effect, one look
// after every pair, and counts the decisions and the pairs used.
func simulateSequential(t testing.TB, s *Sequential, sigma, effect float64, sims int, seed uint64) seqOutcome {
	rng := rand.New(rand.NewPCG(seed, 18))
	o := seqOutcome{sims: sims}
	a := make([]float64, 0, s.MaxRuns)
	b := make([]float64, 0, s.MaxRuns)
	for sim := 0; sim < sims; sim++ {
		a, b = a[:0], b[:0]
		for n := 1; n <= s.MaxRuns; n++ {
			a = append(a, 100*math.Exp(sigma*rng.NormFloat64()))
			b = append(b, 100*(1+effect)*math.Exp(sigma*rng.NormFloat64()))
			d, err := s.Decide(n, a, b)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Stop {
				continue
			}
			o.pairs += n
			if d.Significant {
				if d.Change > 0 {
					o.increase++
				} else {
					o.decrease++
				}
			}
			break
		}
	}
	return o
}

// fixedPower is the power of the fixed design with n runs per side: the
// two-sided Mann-Whitney test at alpha, B larger by 1+effect.
func fixedPower(t testing.TB, n int, sigma, effect, alpha float64, sims int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 19))
	hit := 0
	a := make([]float64, n)
	b := make([]float64, n)
	for sim := 0; sim < sims; sim++ {
		for i := range a {
			a[i] = 100 * math.Exp(sigma*rng.NormFloat64())
			b[i] = 100 * (1 + effect) * math.Exp(sigma*rng.NormFloat64())
		}
		mw, err := MannWhitney(a, b, TwoSided)
		if err != nil {
			t.Fatal(err)
		}
		if mw.P <= alpha && Median(b) > Median(a) {
			hit++
		}
	}
	return float64(hit) / float64(sims)
}

// TestSequentialFalsePositiveRate simulates A/A runs, where every decided
// difference is a false positive: the rate must stay at or below alpha and
// not fall below alpha/2 (the design spends its budget). The noise
// distribution does not matter for a rank test; two are tried.
func TestSequentialFalsePositiveRate(t *testing.T) {
	const alpha = 0.05
	s, err := NewSequential(alpha, 5, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	sims := testsize.Pick(500, 1500)
	// Two standard errors of a rate alpha.
	tol := testsize.Tolerance(alpha, sims, 2)
	for i, sigma := range []float64{0.1, 1} {
		o := simulateSequential(t, s, sigma, 0, sims, uint64(100+i))
		rate := o.rate(o.increase + o.decrease)
		t.Logf("A/A sigma %g: false-positive rate %.4f over %d runs (design %.4f)", sigma, rate, sims, s.Spent[30])
		if rate > alpha+tol || rate < alpha/2-tol {
			t.Errorf("A/A sigma %g: false-positive rate %.4f outside [alpha/2, alpha] = [%.3f, %.3f] ± %.4f", sigma, rate, alpha/2, alpha, tol)
		}
	}
	if !(s.Spent[30] <= alpha && s.Spent[30] >= alpha/2) {
		t.Errorf("designed rate %.4f outside [alpha/2, alpha]", s.Spent[30])
	}
}

// TestSequentialSavesRuns checks a clear difference (+20% at lognormal
// sigma 0.1): the rule must decide it correctly in at least 95% of the runs
// and use clearly fewer runs than a fixed 10+10 design. The Bonferroni rule
// this replaces needed 9.9 pairs on average; the exact test's coarse
// p-values at 5 and 6 runs put the floor near 7 (see docs/commands.md).
func TestSequentialSavesRuns(t *testing.T) {
	s, err := NewSequential(0.05, 5, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	sims := testsize.Pick(300, 1000)
	o := simulateSequential(t, s, 0.1, 0.2, sims, 7)
	t.Logf("+20%% at sigma 0.1: correct %.4f, wrong %.4f, mean pairs %.2f", o.rate(o.increase), o.rate(o.decrease), o.meanPairs())
	if o.rate(o.increase) < 0.95 || o.decrease > 0 {
		t.Errorf("correct verdicts %.4f < 0.95 or %d wrong", o.rate(o.increase), o.decrease)
	}
	if o.meanPairs() > 8 {
		t.Errorf("mean pairs %.2f > 8 (80%% of a fixed 10+10 design)", o.meanPairs())
	}
}

// TestSequentialPowerVsFixed checks that at lognormal sigma 0.2 the rule
// has at least the power of a fixed design with as many runs as the rule
// uses on average.
func TestSequentialPowerVsFixed(t *testing.T) {
	s, err := NewSequential(0.05, 5, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	sims := testsize.Pick(300, 1000)
	o := simulateSequential(t, s, 0.2, 0.2, sims, 8)
	n := int(math.Ceil(o.meanPairs()))
	fixed := fixedPower(t, n, 0.2, 0.2, 0.05, sims, 9)
	t.Logf("+20%% at sigma 0.2: power %.4f with %.2f pairs on average; fixed %d+%d: %.4f", o.rate(o.increase), o.meanPairs(), n, n, fixed)
	if o.rate(o.increase) < fixed {
		t.Errorf("sequential power %.4f < fixed-design power %.4f at %d runs per side", o.rate(o.increase), fixed, n)
	}
}

// TestSequentialFigures prints the figures of docs/commands.md with many
// simulations; it runs only with CONTEND_SEQ_SIMS set (such as 20000).
func TestSequentialFigures(t *testing.T) {
	sims, _ := strconv.Atoi(os.Getenv("CONTEND_SEQ_SIMS"))
	if sims <= 0 {
		t.Skip("set CONTEND_SEQ_SIMS to run")
	}
	for _, sp := range []Spending{SpendPocock, SpendOBrienFleming} {
		s, err := NewSequentialSpending(0.05, 5, 30, 0, sp)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: levels %.4g", sp, s.Levels[5:])
		aa := simulateSequential(t, s, 0.1, 0, sims, 1)
		t.Logf("%v A/A: false-positive rate %.4f (design %.4f)", sp, aa.rate(aa.increase+aa.decrease), s.Spent[30])
		for _, sigma := range []float64{0.1, 0.2} {
			o := simulateSequential(t, s, sigma, 0.2, sims, 2)
			n := int(math.Ceil(o.meanPairs()))
			t.Logf("%v +20%% sigma %.1f: correct %.4f wrong %.4f mean pairs %.2f; fixed %d+%d power %.4f, fixed 10+10 %.4f",
				sp, sigma, o.rate(o.increase), o.rate(o.decrease), o.meanPairs(), n, n,
				fixedPower(t, n, sigma, 0.2, 0.05, sims, 3), fixedPower(t, 10, sigma, 0.2, 0.05, sims, 3))
		}
	}
}
