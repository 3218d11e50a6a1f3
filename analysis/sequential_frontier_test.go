package analysis

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file holds the simulation behind the "What --until cannot do"
// figures of docs/HACKING.md: other group-sequential designs than the one
// Sequential implements, compared on the targets of issue 18. It runs only
// with CONTEND_SEQ_SIMS set (TestSequentialFrontier); the normal suite runs
// only the small check of its machinery (TestFrontierBoundsMatchSequential).

// frontierStat is the statistic of a design: the Mann-Whitney statistic
// 2U - n² or the pooled two-sample t statistic of the log values.
type frontierStat int

const (
	frontierMW frontierStat = iota
	frontierT
)

// A frontierDesign is a group-sequential design: looks after the pair
// counts in looks, error spent by spend(t), t = n/looks[last]. With bf > 0
// it is instead the always-valid Bayes-factor t-test (a normal prior of
// variance bf on the standardized effect, right-Haar prior on the scale)
// that stops when the Bayes factor reaches 1/alpha.
type frontierDesign struct {
	name  string
	stat  frontierStat
	looks []int
	spend func(t float64) float64 // fraction of alpha spent by t
	bf    float64
	seq   *Sequential // the bounds of this rule instead of simulated ones
}

// sequentialStatBounds returns the bounds on |2U - n²| at the looks of s
// (5..MaxRuns) that decide as s.Decide does without ties: the smallest d
// whose exact p-value is within the level of the look.
func sequentialStatBounds(s *Sequential, looks []int) []float64 {
	b := make([]float64, len(looks))
	for i, n := range looks {
		b[i] = math.Inf(1)
		if s.Levels[n] == 0 {
			continue
		}
		for d := n * n; d > 0; d -= 2 {
			if mwTailEqual(n, d) > s.Levels[n]*(1+1e-9) {
				break
			}
			b[i] = float64(d)
		}
	}
	return b
}

func lookRange(lo, hi int) []int {
	var r []int
	for n := lo; n <= hi; n++ {
		r = append(r, n)
	}
	return r
}

func pocockFrac(t float64) float64 { return math.Log(1 + (math.E-1)*math.Min(t, 1)) }

func powerFrac(rho float64) func(float64) float64 {
	return func(t float64) float64 { return math.Pow(math.Min(t, 1), rho) }
}

// stepFrac spends the fraction f of alpha linearly up to t0, the rest
// linearly after.
func stepFrac(f, t0 float64) func(float64) float64 {
	return func(t float64) float64 {
		if t <= t0 {
			return f * t / t0
		}
		return math.Min(1, f+(1-f)*(t-t0)/(1-t0))
	}
}

// frontierPath fills out with the statistic at each look of one simulated
// run of the log values: A with noise sigma, B shifted by shift; with
// heavy the noise is Student t with 3 degrees of freedom (scale sigma).
func frontierPath(rng *rand.Rand, stat frontierStat, looks []int, shift, sigma float64, heavy bool, out []float64) {
	noise := func() float64 {
		z := rng.NormFloat64()
		if heavy {
			c := 0.0
			for range 3 {
				g := rng.NormFloat64()
				c += g * g
			}
			z /= math.Sqrt(c / 3)
		}
		return sigma * z
	}
	var sa, sb, qa, qb float64
	xs := make([]float64, 0, looks[len(looks)-1])
	ys := make([]float64, 0, looks[len(looks)-1])
	u, k := 0, 0
	for n := 1; k < len(looks); n++ {
		x, y := noise(), shift+noise()
		if stat == frontierMW {
			for _, v := range ys {
				if v > x {
					u++
				}
			}
			xs = append(xs, x)
			for _, v := range xs {
				if y > v {
					u++
				}
			}
			ys = append(ys, y)
		}
		sa, sb, qa, qb = sa+x, sb+y, qa+x*x, qb+y*y
		if n != looks[k] {
			continue
		}
		if stat == frontierMW {
			out[k] = float64(2*u - n*n)
		} else {
			fn := float64(n)
			ma, mb := sa/fn, sb/fn
			sp := ((qa - fn*ma*ma) + (qb - fn*mb*mb)) / (2*fn - 2)
			out[k] = (mb - ma) / math.Sqrt(sp*2/fn)
		}
		k++
	}
}

// frontierBounds simulates the null paths of d and returns at each look
// the smallest |statistic| that decides (+Inf where none may), spending
// at most budget·spend(t) by each look, as sequentialBounds does.
func frontierBounds(d frontierDesign, budget float64, paths int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	k := len(d.looks)
	stat := make([]float64, paths*k)
	for p := 0; p < paths; p++ {
		row := stat[p*k : (p+1)*k]
		frontierPath(rng, d.stat, d.looks, 0, 1, false, row)
		for i := range row {
			row[i] = math.Abs(row[i])
		}
	}
	bounds := make([]float64, k)
	alive := make([]bool, paths)
	for p := range alive {
		alive[p] = true
	}
	stopped := 0
	last := float64(d.looks[k-1])
	for i, n := range d.looks {
		bounds[i] = math.Inf(1)
		allowed := int(math.Floor(budget*d.spend(float64(n)/last)*float64(paths) + 1e-9))
		var v []float64
		for p := 0; p < paths; p++ {
			if alive[p] {
				v = append(v, stat[p*k+i])
			}
		}
		slices.Sort(v)
		slices.Reverse(v)
		// The largest j <= allowed-stopped such that exactly j values are
		// >= v[j-1]: the widest region within the budget.
		for j := min(allowed-stopped, len(v)); j >= 1; j-- {
			if j == len(v) || v[j] < v[j-1] {
				if v[j-1] > 0 {
					bounds[i] = v[j-1]
				}
				break
			}
		}
		for p := 0; p < paths; p++ {
			if alive[p] && stat[p*k+i] >= bounds[i] {
				alive[p] = false
				stopped++
			}
		}
	}
	return bounds
}

// frontierRun simulates sims runs of d and returns the rates of correct
// (B larger) and wrong decisions and the mean pairs.
func frontierRun(d frontierDesign, bounds []float64, alpha, shift, sigma float64, heavy bool, sims int, seed uint64) (pos, neg, mean float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]float64, len(d.looks))
	var np, nn, tot int
	for s := 0; s < sims; s++ {
		frontierPath(rng, d.stat, d.looks, shift, sigma, heavy, out)
		stop := d.looks[len(d.looks)-1]
		for i, n := range d.looks {
			var hit bool
			if d.bf > 0 {
				nu, m := float64(2*n-2), float64(n)/2
				t2 := out[i] * out[i]
				logBF := -0.5*math.Log(1+m*d.bf) - (nu+1)/2*math.Log1p(t2/((1+m*d.bf)*nu)) + (nu+1)/2*math.Log1p(t2/nu)
				hit = logBF >= -math.Log(alpha)
			} else {
				hit = math.Abs(out[i]) >= bounds[i]
			}
			if hit {
				if out[i] > 0 {
					np++
				} else {
					nn++
				}
				stop = n
				break
			}
		}
		tot += stop
	}
	f := float64(sims)
	return float64(np) / f, float64(nn) / f, float64(tot) / f
}

// frontierFixedPower is the power of the fixed design with n pairs and
// the design's test at alpha (B larger decided).
func frontierFixedPower(t *testing.T, stat frontierStat, n int, alpha, shift, sigma float64, sims int, seed uint64) float64 {
	if stat == frontierMW {
		return fixedPower(t, n, sigma, math.Exp(shift)-1, alpha, sims, seed)
	}
	c := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(2*n - 2)}.Quantile(1 - alpha/2)
	rng := rand.New(rand.NewPCG(seed, 3))
	out := []float64{0}
	hit := 0
	for s := 0; s < sims; s++ {
		frontierPath(rng, frontierT, []int{n}, shift, sigma, false, out)
		if out[0] >= c {
			hit++
		}
	}
	return float64(hit) / float64(sims)
}

// TestFrontierBoundsMatchSequential checks the frontier machinery against
// Sequential: for the Mann-Whitney design Sequential implements, the
// bounds simulated here decide at the same nominal levels as Sequential's
// at most looks, and near them at all (they come from other random paths).
func TestFrontierBoundsMatchSequential(t *testing.T) {
	s, err := NewSequential(0.05, 5, 12, 0)
	if err != nil {
		t.Fatal(err)
	}
	budget := 0.05 - 2*math.Sqrt(0.05*0.95/20000)
	b := frontierBounds(frontierDesign{stat: frontierMW, looks: lookRange(5, 12), spend: pocockFrac}, budget, 20000, 5)
	differ := 0
	for i, n := range lookRange(5, 12) {
		var lv float64
		if !math.IsInf(b[i], 1) {
			lv = mwTailEqual(n, int(b[i]))
		}
		if lv != s.Levels[n] {
			differ++
		}
		if (lv == 0) != (s.Levels[n] == 0) || math.Abs(lv-s.Levels[n]) > 0.5*s.Levels[n] {
			t.Errorf("look %d: frontier level %g, Sequential %g", n, lv, s.Levels[n])
		}
	}
	// The exact levels are few, so most looks pick the same one.
	if differ > 2 {
		t.Errorf("%d of 8 looks at other levels than Sequential's", differ)
	}
	// One look of the t statistic with all of alpha: the Student t
	// quantile t(0.975, 18) = 2.1009.
	bt := frontierBounds(frontierDesign{stat: frontierT, looks: []int{10}, spend: pocockFrac}, 0.05, 20000, 6)
	checkClose(t, "t bound", bt[0], 2.1009, 0.03, 0)
}

// TestSequentialFrontier prints, for each design, the figures of the
// issue-18 targets: A/A false-positive rate (normal and t3 noise on the
// log scale), +20% at lognormal sigma 0.1 (correct, wrong, mean pairs; and
// with t3 noise), +20% at sigma 0.2 against the fixed design with the same
// test and the mean pairs rounded up. Run with CONTEND_SEQ_SIMS=20000.
func TestSequentialFrontier(t *testing.T) {
	sims, _ := strconv.Atoi(os.Getenv("CONTEND_SEQ_SIMS"))
	if sims <= 0 {
		t.Skip("set CONTEND_SEQ_SIMS to run")
	}
	const alpha, paths = 0.05, 50000
	shift := math.Log(1.2)
	sparse := []int{5, 6, 7, 8, 10, 13, 17, 22, 30}
	seq, err := NewSequential(alpha, 5, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	designs := []frontierDesign{
		{name: "Sequential: MW Pocock 5..30", stat: frontierMW, looks: lookRange(5, 30), seq: seq},
		{name: "MW Pocock 5..30, other null paths", stat: frontierMW, looks: lookRange(5, 30), spend: pocockFrac},
		{name: "MW alpha·t^0.5 5..30", stat: frontierMW, looks: lookRange(5, 30), spend: powerFrac(0.5)},
		{name: "MW alpha·t^0.3 5..30", stat: frontierMW, looks: lookRange(5, 30), spend: powerFrac(0.3)},
		{name: "MW 60% by 9 pairs 5..30", stat: frontierMW, looks: lookRange(5, 30), spend: stepFrac(0.6, 9.0/30)},
		{name: "MW 75% by 9 pairs 5..30", stat: frontierMW, looks: lookRange(5, 30), spend: stepFrac(0.75, 9.0/30)},
		{name: "MW Pocock 5,6,7,8,10,13,17,22,30", stat: frontierMW, looks: sparse, spend: pocockFrac},
		{name: "MW 62% at 4 pairs (p=0.029) 4..30", stat: frontierMW, looks: lookRange(4, 30), spend: stepFrac(0.62, 4.0/30)},
		{name: "MW Pocock 4..12", stat: frontierMW, looks: lookRange(4, 12), spend: pocockFrac},
		{name: "t Pocock 3..30", stat: frontierT, looks: lookRange(3, 30), spend: pocockFrac},
		{name: "t Pocock 4..30", stat: frontierT, looks: lookRange(4, 30), spend: pocockFrac},
		{name: "t alpha·t^0.3 4..30", stat: frontierT, looks: lookRange(4, 30), spend: powerFrac(0.3)},
		{name: "t 70% by 8 pairs 4..30", stat: frontierT, looks: lookRange(4, 30), spend: stepFrac(0.7, 8.0/30)},
		{name: "t 75% by 9 pairs 4..30", stat: frontierT, looks: lookRange(4, 30), spend: stepFrac(0.75, 9.0/30)},
		{name: "t 80% by 8 pairs 4..30", stat: frontierT, looks: lookRange(4, 30), spend: stepFrac(0.8, 8.0/30)},
		{name: "t Pocock 4,5,6,8,10,13,17,22,30", stat: frontierT, looks: []int{4, 5, 6, 8, 10, 13, 17, 22, 30}, spend: pocockFrac},
		{name: "t Pocock 4..12", stat: frontierT, looks: lookRange(4, 12), spend: pocockFrac},
		{name: "t Pocock 3..10", stat: frontierT, looks: lookRange(3, 10), spend: pocockFrac},
		{name: "always-valid Bayes factor t, g=3, 2..30", stat: frontierT, looks: lookRange(2, 30), bf: 3},
	}
	budget := alpha - 2*math.Sqrt(alpha*(1-alpha)/paths)
	for _, d := range designs {
		if f := os.Getenv("CONTEND_SEQ_ONLY"); f != "" && !strings.Contains(d.name, f) {
			continue
		}
		var bounds []float64
		switch {
		case d.seq != nil:
			bounds = sequentialStatBounds(d.seq, d.looks)
		case d.bf == 0:
			bounds = frontierBounds(d, budget, paths, 11)
		}
		aaP, aaN, _ := frontierRun(d, bounds, alpha, 0, 1, false, sims, 21)
		hP, hN, _ := frontierRun(d, bounds, alpha, 0, 1, true, sims, 22)
		c1, w1, m1 := frontierRun(d, bounds, alpha, shift, 0.1, false, sims, 23)
		ch, _, mh := frontierRun(d, bounds, alpha, shift, 0.1, true, sims, 24)
		c2, _, m2 := frontierRun(d, bounds, alpha, shift, 0.2, false, sims, 25)
		n := int(math.Ceil(m2))
		fixed := frontierFixedPower(t, d.stat, n, alpha, shift, 0.2, sims, 26)
		t.Logf("%-40s A/A %.4f (t3 %.4f) | s0.1: %.4f correct, %.4f wrong, %.2f pairs (t3: %.4f, %.2f) | s0.2: %.4f at %.2f pairs, fixed %d+%d %.4f",
			d.name, aaP+aaN, hP+hN, c1, w1, m1, ch, mh, c2, m2, n, n, fixed)
	}
}
