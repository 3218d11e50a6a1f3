package analysis

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// bootReference holds testdata/boots_reference.json, written by
// testdata/gen_boots.py with SciPy and statsmodels.
type bootReference struct {
	Cases []struct {
		A, B          [][]float64
		T, P, DF      float64
		Ratio, Lo, Hi float64
		LMM           *struct{ Effect, SE, Between, Within float64 }
	}
}

func TestCompareBootsReference(t *testing.T) {
	b, err := os.ReadFile("testdata/boots_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref bootReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 5 {
		t.Fatalf("%d reference cases, want at least 5", len(ref.Cases))
	}
	for i, c := range ref.Cases {
		r, err := CompareBoots(c.A, c.B, 0.95)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		name := "case " + strconv.Itoa(i) + " "
		checkClose(t, name+"T", r.T, c.T, 1e-9, 1e-12)
		checkClose(t, name+"P", r.P, c.P, 1e-7, 1e-12)
		checkClose(t, name+"DF", r.DF, c.DF, 0, 0)
		checkClose(t, name+"Ratio", r.Ratio, c.Ratio, 1e-12, 0)
		checkClose(t, name+"Lo", r.Lo, c.Lo, 1e-9, 0)
		checkClose(t, name+"Hi", r.Hi, c.Hi, 1e-9, 0)
		if c.LMM == nil {
			continue
		}
		// Balanced: the boot-level t-test is the REML mixed model.
		checkClose(t, name+"log ratio vs LMM effect", math.Log(r.Ratio), c.LMM.Effect, 1e-6, 1e-9)
		se := math.Log(r.Ratio) / r.T
		checkClose(t, name+"SE vs LMM", se, c.LMM.SE, 1e-4, 0)
		checkClose(t, name+"within vs LMM scale", r.Components.Within, c.LMM.Within, 1e-4, 0)
		checkClose(t, name+"between vs LMM cov_re", r.Components.Between, c.LMM.Between, 1e-3, 0)
	}
}

func TestCompareBootsErrors(t *testing.T) {
	one := [][]float64{{1, 2, 3}}
	two := [][]float64{{1, 2, 3}, {2, 3, 4}}
	if _, err := CompareBoots(one, two, 0.95); !errors.Is(err, ErrOneBoot) {
		t.Errorf("one boot on A: %v, want ErrOneBoot", err)
	}
	if _, err := CompareBoots(two, [][]float64{{1, 2}, {0, 1}}, 0.95); err == nil {
		t.Error("a zero value was accepted: logs need positive values")
	}
	if _, err := CompareBoots(two, [][]float64{{1, 2}, {}}, 0.95); err == nil {
		t.Error("an empty boot was accepted")
	}
	r, err := CompareBoots(two, two, 0.95)
	if err != nil || r.P != 1 || r.Ratio != 1 {
		t.Errorf("identical sides: %+v, %v", r, err)
	}
}

func TestOptimalRunsPerBoot(t *testing.T) {
	v := VarianceComponents{Within: 4, Between: 1}
	// sqrt(100/1 * 4/1) = 20
	if r := OptimalRunsPerBoot(100, 1, v); r != 20 {
		t.Errorf("r* = %d, want 20", r)
	}
	// sqrt(2/1 * 1/4) = 0.71 -> 1
	if r := OptimalRunsPerBoot(2, 1, VarianceComponents{Within: 1, Between: 4}); r != 1 {
		t.Errorf("r* = %d, want 1", r)
	}
	if r := OptimalRunsPerBoot(100, 1, VarianceComponents{Within: 1}); r != MaxRunsPerBoot {
		t.Errorf("no between-boot variance: r* = %d, want %d", r, MaxRunsPerBoot)
	}
}

// TestPlanBoots checks the plan against values computed by hand (SciPy's
// t.ppf): a boot 100 s, a run 10 s, between 0.01, within 0.04. In 960 s
// the designs that fit are b boots per side with floor((960/(2b)-100)/10)
// runs: 3 x 6 and 4 x 2 (5 boots fit no run); half-widths
// t(.975, 2b-2)·sqrt(2(B/b+W/(b·r))): 3x6 0.29266 (best), 4x2 0.29968.
// Every plan fits its budget: before, boots per side were rounded to the
// nearest and the runs filled the rest, so a budget of 840 s (the design
// 3 x 4) got a plan of 3 x 6 in 960 s.
func TestPlanBoots(t *testing.T) {
	v := VarianceComponents{Within: 0.04, Between: 0.01}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-4 }
	if hw := BootHalfWidth(3, 4, v, 0.95); !near(hw, 0.3205963) {
		t.Errorf("half-width of 3x4 = %.6f, want 0.320596", hw)
	}
	if hw := BootHalfWidth(4, 2, v, 0.95); !near(hw, 0.2996843) {
		t.Errorf("half-width of 4x2 = %.6f, want 0.299684", hw)
	}
	p := PlanBoots(100, 10, v, 960, 0.95, 0, 0)
	if p.BootsPerSide != 3 || p.RunsPerBoot != 6 || p.Seconds != 960 || !near(p.HalfWidth, 0.2926630) || p.Current || p.AtLeast {
		t.Errorf("plan %+v, want 3 boots x 6 runs in 960 s, half-width 0.292663", p)
	}
	// In 840 s only 3 x 4 fits (3 x 5 takes 900 s, 4 boots no run): the
	// current design is kept.
	if p := PlanBoots(100, 10, v, 840, 0.95, 3, 4); !p.Current || p.BootsPerSide != 3 || p.RunsPerBoot != 4 || p.Seconds != 840 {
		t.Errorf("plan %+v, want the current 3x4 in 840 s", p)
	}
	// A current design narrower than any candidate is kept: 5 boots x 6
	// runs given the budget of 3x4.
	if p := PlanBoots(100, 10, v, 840, 0.95, 5, 6); !p.Current || p.BootsPerSide != 5 || p.RunsPerBoot != 6 || p.Seconds != 840 {
		t.Errorf("plan %+v, want the current 5x6", p)
	}
	// A budget of fewer than 3 boots per side: 3 boots, runs that fit
	// (floor((400/6-100)/10) < 1: 1), said so; half-width 0.506907.
	if p := PlanBoots(100, 10, v, 400, 0.95, 0, 0); !p.AtLeast || p.BootsPerSide != 3 || p.RunsPerBoot != 1 || !near(p.HalfWidth, 0.5069072) || p.Seconds != 660 || p.Budget != 400 {
		t.Errorf("plan %+v, want at least 3 boots x 1 run in 660 s of 400, half-width 0.506907", p)
	}
	// Never fewer than 3 boots per side, whatever the budget; and every
	// plan that is not AtLeast fits its budget, over many costs and
	// components.
	for _, budget := range []float64{1, 500, 1e4, 1e6} {
		if p := PlanBoots(100, 1, VarianceComponents{Within: 1}, budget, 0.95, 0, 0); p.BootsPerSide < MinBootsPerSide {
			t.Errorf("budget %g: %d boots per side", budget, p.BootsPerSide)
		}
	}
	for _, boot := range []float64{0.01, 1, 36, 120} {
		for _, run := range []float64{0.005, 0.2, 3, 60} {
			for _, ratio := range []float64{0, 0.1, 1, 10} {
				for _, budget := range []float64{2.55, 60, 1040, 1e5} {
					v := VarianceComponents{Within: 0.01, Between: 0.01 * ratio}
					p := PlanBoots(boot, run, v, budget, 0.95, 0, 0)
					if !p.AtLeast && p.Seconds > budget*(1+1e-9) {
						t.Errorf("boot %g run %g ratio %g budget %g: plan %dx%d takes %g s", boot, run, ratio, budget, p.BootsPerSide, p.RunsPerBoot, p.Seconds)
					}
					if p.AtLeast && (p.BootsPerSide != MinBootsPerSide || 2*MinBootsPerSide*(boot+run) <= budget) {
						t.Errorf("boot %g run %g budget %g: AtLeast plan %+v, but 3 x 1 fits", boot, run, budget, p)
					}
				}
			}
		}
	}
}

// simulateCampaign draws log values: each boot gets a N(0, sdB) offset,
// each run a N(0, sdW) error, side B is shifted by logRatio.
func simulateCampaign(rng *rand.Rand, boots, runs int, sdB, sdW, logRatio float64) (a, b [][]float64) {
	side := func(shift float64) [][]float64 {
		var s [][]float64
		for range boots {
			off := math.Log(100) + shift + sdB*rng.NormFloat64()
			g := make([]float64, runs)
			for j := range g {
				g[j] = math.Exp(off + sdW*rng.NormFloat64())
			}
			s = append(s, g)
		}
		return s
	}
	return side(0), side(logRatio)
}

func pool(s [][]float64) []float64 {
	var out []float64
	for _, g := range s {
		out = append(out, g...)
	}
	return out
}

// TestBootLevelSimulation validates the boot-level method on simulated
// campaigns of 3 boots x 10 runs per side with the between-boot SD equal
// to the within-boot SD: under A/A the test that pools all runs rejects
// far more often than alpha, the boot-level test at most alpha (within
// simulation error), and the boot-level 95% interval of the ratio covers
// the true ratio 94-96% of the time. CONTEND_BOOT_SIM=N runs N campaigns
// instead of 4000 (the report quotes a run of 100000).
func TestBootLevelSimulation(t *testing.T) {
	n := 4000
	if s := os.Getenv("CONTEND_BOOT_SIM"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 100 {
			t.Fatalf("CONTEND_BOOT_SIM=%q: give a number of campaigns, at least 100", s)
		}
		n = v
	}
	const alpha, sd = 0.05, 0.01
	rng := rand.New(rand.NewPCG(20261130, 15))
	naiveT, naiveU, boot := 0, 0, 0
	for range n {
		a, b := simulateCampaign(rng, 3, 10, sd, sd, 0)
		la, lb := logValues(pool(a)), logValues(pool(b))
		w, err := Welch(la, lb, TwoSided, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if w.P <= alpha {
			naiveT++
		}
		u, err := MannWhitney(pool(a), pool(b), TwoSided)
		if err != nil {
			t.Fatal(err)
		}
		if u.P <= alpha {
			naiveU++
		}
		r, err := CompareBoots(a, b, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if r.P <= alpha {
			boot++
		}
	}
	se := math.Sqrt(alpha * (1 - alpha) / float64(n))
	ft, fu, fb := float64(naiveT)/float64(n), float64(naiveU)/float64(n), float64(boot)/float64(n)
	t.Logf("A/A, %d campaigns of 3 boots x 10 runs per side, between SD = within SD: false positives: pooled Welch %.1f%%, pooled Mann-Whitney %.1f%%, boot-level %.2f%% (alpha %.0f%%, simulation SE %.2f%%)",
		n, 100*ft, 100*fu, 100*fb, 100*alpha, 100*se)
	if ft < 0.3 || fu < 0.3 {
		t.Errorf("the pooled tests reject %.1f%% and %.1f%% of A/A campaigns; the design effect 1+(10-1)*0.5 = 5.5 predicts about 45%%", 100*ft, 100*fu)
	}
	if fb > alpha+3*se {
		t.Errorf("boot-level false-positive rate %.2f%% exceeds alpha %.0f%% by more than 3 simulation SEs (%.2f%%)", 100*fb, 100*alpha, 100*se)
	}

	// Coverage of the boot-level interval, with a true change of +3%.
	truth := 1.03
	cover := 0
	for range n {
		a, b := simulateCampaign(rng, 3, 10, sd, sd, math.Log(truth))
		r, err := CompareBoots(a, b, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if r.Lo <= truth && truth <= r.Hi {
			cover++
		}
	}
	c := float64(cover) / float64(n)
	t.Logf("coverage of the boot-level 95%% interval over %d campaigns: %.2f%%", n, 100*c)
	if c < 0.94 || c > 0.96 {
		t.Errorf("coverage %.2f%%, want 94-96%%", 100*c)
	}
}

func logValues(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}
