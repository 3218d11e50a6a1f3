package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNewSequential(t *testing.T) {
	s, err := NewSequential(0.05, 5, 30, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	// 6 runs: 2/C(12,6) = 0.00216 <= 0.05/25 = 0.002? No; 7 runs:
	// 2/3432 = 0.00058 <= 0.05/24.
	if s.FirstTest != 7 {
		t.Errorf("FirstTest = %d, want 7", s.FirstTest)
	}
	checkClose(t, "NominalAlpha", s.NominalAlpha, 0.05/24, 1e-15, 0)
	s, _ = NewSequential(0.05, 10, 10, 0)
	if s.FirstTest != 10 || s.NominalAlpha != 0.05 {
		t.Errorf("single look: %+v", s)
	}
	for _, bad := range []struct {
		alpha      float64
		minR, maxR int
		until      float64
	}{{0, 5, 10, 0}, {1, 5, 10, 0}, {0.05, 0, 10, 0}, {0.05, 5, 4, 0}, {0.05, 5, 10, -1}, {0.05, 2, 3, 0}} {
		if _, err := NewSequential(bad.alpha, bad.minR, bad.maxR, bad.until); err == nil {
			t.Errorf("NewSequential(%v) accepted", bad)
		}
	}
}

func TestSequentialDecide(t *testing.T) {
	s, _ := NewSequential(0.05, 3, 20, 0)
	d, err := s.Decide([]float64{1, 2}, []float64{1, 2})
	if err != nil || d.Stop || !strings.Contains(d.Reason, "at least 3") {
		t.Errorf("before MinRuns: %+v %v", d, err)
	}
	a := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7}
	b := []float64{110, 111, 109, 110.5, 109.5, 110.2, 109.8, 110.1, 110.3, 109.7}
	var stopped int
	for n := 3; n <= len(a); n++ {
		d, _ = s.Decide(a[:n], b[:n])
		if d.Stop {
			stopped = n
			break
		}
	}
	if stopped == 0 || !d.Significant || !(d.Lo > 0.05 && d.Hi < 0.15) {
		t.Errorf("clear 10%% shift: stopped at %d, %+v", stopped, d)
	}
	// Reaching MaxRuns stops without a decision.
	s, _ = NewSequential(0.05, 3, 6, 0)
	d, _ = s.Decide(a[:6], a[:6])
	if !d.Stop || d.Significant || !strings.Contains(d.Reason, "maximum") {
		t.Errorf("at MaxRuns: %+v", d)
	}
	if _, err := s.Decide(nil, a); err == nil {
		t.Errorf("empty A accepted")
	}
	if _, err := s.Decide(a, []float64{math.NaN()}); err == nil {
		t.Errorf("NaN accepted")
	}
}

func TestSequentialPrecisionStop(t *testing.T) {
	s, _ := NewSequential(0.05, 5, 200, 0.01)
	rng := rand.New(rand.NewPCG(7, 7))
	var a, b []float64
	for n := 1; n <= 200; n++ {
		a = append(a, 100+0.5*rng.NormFloat64())
		b = append(b, 100+0.5*rng.NormFloat64())
		d, err := s.Decide(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if d.Stop {
			if !strings.Contains(d.Reason, "precise") || n >= 200 {
				t.Errorf("stopped at %d: %s", n, d.Reason)
			}
			return
		}
	}
	t.Errorf("never stopped")
}

// TestSequentialFalsePositiveRate simulates A/A runs, where any decided
// difference is a false positive, and checks that the rate stays at or
// below alpha. It also checks that the same looks at the unadjusted level
// would exceed alpha, which is what the rule guards against.
func TestSequentialFalsePositiveRate(t *testing.T) {
	const (
		alpha   = 0.05
		minRuns = 5
		maxRuns = 30
	)
	sims := 2000
	noises := []struct {
		name string
		draw func(*rand.Rand) float64
	}{
		{"normal", func(r *rand.Rand) float64 { return 100 + 3*r.NormFloat64() }},
		{"lognormal", func(r *rand.Rand) float64 { return 100 * math.Exp(0.3*r.NormFloat64()) }},
	}
	if testing.Short() {
		noises, sims = noises[:1], 500
	}
	// Monte Carlo tolerance: three standard errors of a rate alpha.
	tol := 3 * math.Sqrt(alpha*(1-alpha)/float64(sims))
	for i, noise := range noises {
		t.Run(noise.name, func(t *testing.T) {
			t.Parallel()
			simulateAA(t, uint64(i+1), noise.draw, alpha, minRuns, maxRuns, sims, tol)
		})
	}
}

// simulateAA runs sims A/A runs with values from draw and checks the
// false-positive rates of Sequential and of unadjusted looks.
func simulateAA(t *testing.T, seed uint64, draw func(*rand.Rand) float64, alpha float64, minRuns, maxRuns, sims int, tol float64) {
	rng := rand.New(rand.NewPCG(seed, 42))
	s, err := NewSequential(alpha, minRuns, maxRuns, 0.002)
	if err != nil {
		t.Fatal(err)
	}
	var fp, naive int
	for sim := 0; sim < sims; sim++ {
		a := make([]float64, 0, maxRuns)
		b := make([]float64, 0, maxRuns)
		decided, naiveHit := false, false
		for n := 1; n <= maxRuns; n++ {
			a = append(a, draw(rng))
			b = append(b, draw(rng))
			if !naiveHit && n >= minRuns {
				mw, _ := MannWhitney(a, b, TwoSided)
				naiveHit = mw.P <= alpha
			}
			if !decided {
				d, err := s.Decide(a, b)
				if err != nil {
					t.Fatal(err)
				}
				if d.Significant {
					fp++
				}
				decided = d.Stop
			}
			if decided && naiveHit {
				break
			}
		}
		if naiveHit {
			naive++
		}
	}
	rate, naiveRate := float64(fp)/float64(sims), float64(naive)/float64(sims)
	t.Logf("false-positive rate %.4f (alpha %g), unadjusted looks %.4f", rate, alpha, naiveRate)
	if rate > alpha+tol {
		t.Errorf("false-positive rate %.4f > alpha %g + %.4f", rate, alpha, tol)
	}
	if naiveRate <= alpha+tol {
		t.Errorf("unadjusted repeated looks gave only %.4f; the simulation shows nothing", naiveRate)
	}
}
