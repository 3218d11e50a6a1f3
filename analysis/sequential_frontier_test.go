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
// figures of docs/ab-until.md: other group-sequential designs than the one
// Sequential implements, compared on the targets of issue 18. It runs only
// with CONTEND_SEQ_SIMS set (TestSequentialFrontier); the normal suite runs
// only the small check of its machinery (TestFrontierBoundsMatchSequential).

// frontierStat is the statistic of a design: the Mann-Whitney statistic
// 2U - n² or the pooled two-sample t statistic of the log values.
type frontierStat int

const (
	frontierMW frontierStat = iota
	frontierT
	// frontierVDW is the van der Waerden (normal-scores) statistic: the
	// sum of the scores Φ⁻¹(r/(2n+1)) of B's ranks r in the pooled sample.
	frontierVDW
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
	// zshape (with spend nil) gives the bounds C·zshape(n) on the normal
	// quantile of the look's two-sided t p-value, C calibrated on the null
	// paths to spend the budget (Wang-Tsiatis: zshape = (n/N)^(Δ-1/2)).
	zshape func(n int) float64
	// bfCal (with spend nil) stops when the Bayes factor of bf reaches a
	// threshold calibrated on the null paths to spend the budget over the
	// looks, instead of 1/alpha; with bfLast the last look is a t bound
	// that spends what the Bayes-factor looks left.
	bfCal, bfLast bool
	// futz gives a binding futility bound on the same normal scale: a
	// look with a smaller |z| stops undecided (nil: none). The null paths
	// it stops cannot decide later, which frees error for the other looks.
	futz func(n int) float64
}

// frontierFutility returns the futility bounds of d on |t| at its looks
// (0 where none).
func frontierFutility(d frontierDesign) []float64 {
	f := make([]float64, len(d.looks))
	if d.futz == nil {
		return f
	}
	for i, n := range d.looks {
		if z := d.futz(n); z > 0 {
			p := 2 * normalSF(z)
			f[i] = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(2*n - 2)}.Quantile(1 - p/2)
		}
	}
	return f
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

// wangTsiatis is the shape (n/last)^(delta-1/2) of the Wang-Tsiatis
// (Pampallona-Tsiatis) power family: delta 1/2 is Pocock's constant
// boundary, 0 O'Brien-Fleming's; above 1/2 it spends still earlier.
func wangTsiatis(delta float64, last int) func(int) float64 {
	return func(n int) float64 { return math.Pow(float64(n)/float64(last), delta-0.5) }
}

// zTable is a boundary shape given look by look (index n).
func zTable(z []float64) func(int) float64 {
	return func(n int) float64 {
		if n >= len(z) {
			return 0
		}
		return z[n]
	}
}

// The shapes found by a Nelder-Mead search (common random numbers, 50,000
// null and 20,000 alternative paths) over boundaries interpolated in log n
// between 7 to 9 knots: searched30 minimises the mean pairs at sigma 0.1
// under all three targets of issue 18, searched11 and searched14 only
// under the A/A and 95%-correct targets, with the last look at 11 or 14.
var (
	searched30 = []float64{0, 0, 0, 3.001, 2.546, 2.453, 2.553, 2.545, 2.539, 2.591, 2.639, 2.672, 2.702, 2.731, 2.757,
		2.789, 2.818, 2.847, 2.874, 2.899, 2.924, 2.935, 2.946, 2.956, 2.967, 2.976, 2.985, 2.994, 3.003, 3.012, 3.02}
	searched11 = []float64{0, 0, 0, 2.755, 2.557, 2.404, 2.57, 2.453, 2.499, 2.542, 2.474, 2.414}
	searched14 = []float64{0, 0, 0, 0, 2.379, 2.408, 2.412, 2.396, 2.453, 2.504, 2.589, 2.668, 2.809, 2.946, 3.079}
)

// dpReject and dpFutility are the bounds (normal scale, index n) of the
// rule that solves the Lagrangian problem min E[pairs | +20%, sigma 0.1] +
// λ·P(decide B larger | A/A) + μ·P(no correct verdict) by backward
// induction over the Markov chain of the t statistic (Hall, Wijsman and
// Ghosh 1965: t_n is invariantly sufficient and transitive), transitions
// estimated from 300,000 simulated paths in 300 bins per look; λ = 60.7,
// μ = 10.8 maximise the dual bound (5.87 pairs for a one-sided level of
// 0.025). It stops undecided when |z| falls below dpFutility.
var (
	dpReject = []float64{0, 0, 0, 2.763, 2.403, 2.373, 2.378, 2.433, 2.496, 2.562, 2.617, 2.679, 2.741, 2.791, 2.855, 2.923,
		2.973, 3.035, 3.081, 3.159, 3.224, 3.28, 3.315, 3.424, 3.427, 3.543, 3.468, 3.581, 3.676, 3.78, 3.876}
	dpFutility = []float64{0, 0, 0, 0.023, 0.261, 0.535, 0.783, 0.877, 1.09, 1.284, 1.274, 1.441, 1.613, 1.789}
	// dp2Reject and dp2Futility: the same induction truncated at 30
	// pairs, with λ = 60 and μ = 10, the best rule of a grid of (λ, μ)
	// (each rule's bounds rescaled to spend the budget, 95.3% correct
	// on the search's own paths); a futility bound of 0 is none.
	dp2Reject = []float64{0, 0, 0, 2.692, 2.361, 2.365, 2.38, 2.441, 2.483, 2.55, 2.602, 2.677, 2.752, 2.811, 2.875, 2.924,
		2.979, 3.045, 3.095, 3.165, 3.226, 3.286, 3.317, 3.319, 3.438, 3.355, 3.469, 3.565, 3.678, 3.785, 3.878}
	dp2Futility = []float64{0, 0, 0, 0.239, 0.429, 0.711, 0.875, 1.009, 1.225, 1.291, 1.478, 0, 1.635, 1.783, 1.949, 2.098, 2.231}
)

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
		if stat == frontierVDW {
			xs, ys = append(xs, x), append(ys, y)
		}
		sa, sb, qa, qb = sa+x, sb+y, qa+x*x, qb+y*y
		if n != looks[k] {
			continue
		}
		switch stat {
		case frontierMW:
			out[k] = float64(2*u - n*n)
		case frontierVDW:
			out[k] = vdwStat(xs, ys)
		default:
			fn := float64(n)
			ma, mb := sa/fn, sb/fn
			sp := ((qa - fn*ma*ma) + (qb - fn*mb*mb)) / (2*fn - 2)
			out[k] = (mb - ma) / math.Sqrt(sp*2/fn)
		}
		k++
	}
}

// vdwStat returns the van der Waerden statistic of B's values ys against
// A's xs (equal sizes, no ties): the scores summed in rank order, so that
// the same ranks always give the same value.
func vdwStat(xs, ys []float64) float64 {
	type v struct {
		x float64
		b bool
	}
	all := make([]v, 0, len(xs)+len(ys))
	for _, x := range xs {
		all = append(all, v{x, false})
	}
	for _, y := range ys {
		all = append(all, v{y, true})
	}
	slices.SortFunc(all, func(p, q v) int {
		switch {
		case p.x < q.x:
			return -1
		case p.x > q.x:
			return 1
		}
		return 0
	})
	m := float64(len(all) + 1)
	sum := 0.0
	for r, e := range all {
		if e.b {
			sum += distuv.UnitNormal.Quantile(float64(r+1) / m)
		}
	}
	return sum
}

// frontierBFLog is the log Bayes factor of the always-valid t-test at
// |t| = t after n pairs, prior variance g on the standardized effect.
func frontierBFLog(t float64, n int, g float64) float64 {
	nu, m := float64(2*n-2), float64(n)/2
	t2 := t * t
	return -0.5*math.Log(1+m*g) - (nu+1)/2*math.Log1p(t2/((1+m*g)*nu)) + (nu+1)/2*math.Log1p(t2/nu)
}

// frontierBFBound returns the smallest |t| whose log Bayes factor after n
// pairs reaches c (+Inf when none does: the factor is bounded in t).
func frontierBFBound(c float64, n int, g float64) float64 {
	if n < 2 || frontierBFLog(1e6, n, g) < c {
		return math.Inf(1)
	}
	lo, hi := 0.0, 1e6
	for range 200 {
		mid := (lo + hi) / 2
		if frontierBFLog(mid, n, g) >= c {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// frontierNullRate returns the fraction of the null paths (|statistic| at
// each look, k looks a row) that cross bounds at some look.
func frontierNullRate(stat []float64, k int, bounds, fut []float64) float64 {
	hit := 0
	for p := 0; p < len(stat)/k; p++ {
		for i := range k {
			if stat[p*k+i] >= bounds[i] {
				hit++
				break
			}
			if stat[p*k+i] < fut[i] {
				break
			}
		}
	}
	return float64(hit) / float64(len(stat)/k)
}

// frontierCalibrated returns the bounds on |t| of a zshape or bfCal
// design: its one-parameter family of bounds, the parameter found by
// bisection on simulated null paths so that the null rate is within budget.
func frontierCalibrated(d frontierDesign, budget float64, paths int, seed uint64) []float64 {
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
	family := func(c float64) []float64 {
		b := make([]float64, k)
		for i, n := range d.looks {
			if d.zshape != nil {
				p := 2 * normalSF(c*d.zshape(n))
				b[i] = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(2*n - 2)}.Quantile(1 - p/2)
			} else {
				b[i] = frontierBFBound(c, n, d.bf)
			}
		}
		if d.bfLast {
			b[k-1] = math.Inf(1)
		}
		return b
	}
	fut := frontierFutility(d)
	lo, hi := 0.1, 20.0 // rate(lo) > budget >= rate(hi)
	for range 60 {
		mid := (lo + hi) / 2
		if frontierNullRate(stat, k, family(mid), fut) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	b := family(hi)
	if d.bfLast {
		// The widest last bound within what is left of the budget.
		lo, hi := 0.0, 50.0
		for range 60 {
			mid := (lo + hi) / 2
			b[k-1] = mid
			if frontierNullRate(stat, k, b, fut) > budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		b[k-1] = hi
	}
	return b
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
	fut := frontierFutility(d)
	var np, nn, tot int
	for s := 0; s < sims; s++ {
		frontierPath(rng, d.stat, d.looks, shift, sigma, heavy, out)
		stop := d.looks[len(d.looks)-1]
		for i, n := range d.looks {
			var hit bool
			if d.bf > 0 && !d.bfCal {
				nu, m := float64(2*n-2), float64(n)/2
				t2 := out[i] * out[i]
				logBF := -0.5*math.Log(1+m*d.bf) - (nu+1)/2*math.Log1p(t2/((1+m*d.bf)*nu)) + (nu+1)/2*math.Log1p(t2/nu)
				hit = logBF >= -math.Log(alpha)
			} else {
				hit = math.Abs(out[i]) >= bounds[i]
			}
			if !hit && math.Abs(out[i]) < fut[i] {
				stop = n
				break
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
	if stat == frontierVDW {
		c = frontierBounds(frontierDesign{stat: stat, looks: []int{n}, spend: func(float64) float64 { return 1 }}, alpha, 50000, seed+1)[0]
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	out := []float64{0}
	hit := 0
	for s := 0; s < sims; s++ {
		frontierPath(rng, stat, []int{n}, shift, sigma, false, out)
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

// TestFrontierCalibrated checks the pieces of the second round of designs:
// a calibrated single look spending all of alpha is the t-test, the Bayes
// factor bound inverts the Bayes factor, a binding futility bound lowers
// the null rate, and the van der Waerden statistic sums the right scores.
func TestFrontierCalibrated(t *testing.T) {
	one := func(int) float64 { return 1 }
	b := frontierCalibrated(frontierDesign{stat: frontierT, looks: []int{10}, zshape: one}, 0.05, 20000, 6)
	checkClose(t, "calibrated t bound", b[0], 2.1009, 0.03, 0)
	for _, n := range []int{3, 8, 30} {
		c := frontierBFBound(math.Log(20), n, 3.3)
		checkClose(t, "log Bayes factor at its bound", frontierBFLog(c, n, 3.3), math.Log(20), 1e-9, 0)
	}
	if c := frontierBFBound(100, 3, 1); !math.IsInf(c, 1) {
		t.Errorf("an unreachable Bayes factor has bound %g, want +Inf", c)
	}
	// Null paths of |t| at looks 4 and 8: a futility bound at look 4 can
	// only lower the rate of the same decision bounds.
	d := frontierDesign{stat: frontierT, looks: []int{4, 8}, zshape: one, futz: func(n int) float64 { return map[int]float64{4: 0.5}[n] }}
	rng := rand.New(rand.NewPCG(3, 1))
	stat := make([]float64, 2*5000)
	for p := 0; p < 5000; p++ {
		frontierPath(rng, frontierT, d.looks, 0, 1, false, stat[2*p:2*p+2])
		stat[2*p], stat[2*p+1] = math.Abs(stat[2*p]), math.Abs(stat[2*p+1])
	}
	bounds := []float64{2.5, 2.5}
	fut := frontierFutility(d)
	if fut[0] <= 0 || fut[1] != 0 {
		t.Fatalf("futility bounds %v, want one at look 4 only", fut)
	}
	with, without := frontierNullRate(stat, 2, bounds, fut), frontierNullRate(stat, 2, bounds, []float64{0, 0})
	if !(with < without) {
		t.Errorf("null rate with futility %g, without %g: want lower", with, without)
	}
	// B holds ranks 3 and 4 of 4: Φ⁻¹(3/5) + Φ⁻¹(4/5).
	checkClose(t, "van der Waerden", vdwStat([]float64{1, 2}, []float64{3, 4}), 0.253347+0.841621, 1e-5, 0)
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
		// Issue 18, second round: calibrated mixture likelihood ratios,
		// normal scores, and boundaries found by numeric search.
		{name: "BF t calibrated, g=1, 2..30", stat: frontierT, looks: lookRange(2, 30), bf: 1, bfCal: true},
		{name: "BF t calibrated, g=3.3, 2..30", stat: frontierT, looks: lookRange(2, 30), bf: 3.3, bfCal: true},
		{name: "BF t calibrated, g=10, 2..30", stat: frontierT, looks: lookRange(2, 30), bf: 10, bfCal: true},
		{name: "BF t calibrated, g=3.3, 3..30", stat: frontierT, looks: lookRange(3, 30), bf: 3.3, bfCal: true},
		{name: "BF t calibrated + last look, g=3.3, 2..12", stat: frontierT, looks: lookRange(2, 12), bf: 3.3, bfCal: true, bfLast: true},
		{name: "BF t calibrated + last look, g=1, 3..15", stat: frontierT, looks: lookRange(3, 15), bf: 1, bfCal: true, bfLast: true},
		{name: "vdW Pocock 4..30", stat: frontierVDW, looks: lookRange(4, 30), spend: pocockFrac},
		{name: "vdW 70% by 8 pairs 4..30", stat: frontierVDW, looks: lookRange(4, 30), spend: stepFrac(0.7, 8.0/30)},
		{name: "t Wang-Tsiatis Δ=0.6 3..30", stat: frontierT, looks: lookRange(3, 30), zshape: wangTsiatis(0.6, 30)},
		{name: "t Wang-Tsiatis Δ=0.6 4..30", stat: frontierT, looks: lookRange(4, 30), zshape: wangTsiatis(0.6, 30)},
		{name: "t Wang-Tsiatis Δ=0.75 4..30", stat: frontierT, looks: lookRange(4, 30), zshape: wangTsiatis(0.75, 30)},
		{name: "t searched 3..30", stat: frontierT, looks: lookRange(3, 30), zshape: zTable(searched30)},
		{name: "t searched 3..11 (no s0.2 target)", stat: frontierT, looks: lookRange(3, 11), zshape: zTable(searched11)},
		{name: "t searched 4..14 (no s0.2 target)", stat: frontierT, looks: lookRange(4, 14), zshape: zTable(searched14)},
		{name: "t DP rule, binding futility 3..30", stat: frontierT, looks: lookRange(3, 30), zshape: zTable(dpReject), futz: zTable(dpFutility)},
		{name: "t DP rule λ=60 μ=10, binding futility 3..30", stat: frontierT, looks: lookRange(3, 30), zshape: zTable(dp2Reject), futz: zTable(dp2Futility)},
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
		case d.zshape != nil || d.bfCal:
			bounds = frontierCalibrated(d, budget, paths, 11)
			t.Logf("%s: bounds on |t| %.3f", d.name, bounds)
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
