package analysis

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// fitNs are the concurrencies of the synthetic curves: powers of two as a
// will-it-scale style sweep would use.
var fitNs = []float64{1, 2, 4, 8, 16, 32, 64}

// uslCurve returns reps points per N of the USL with the given parameters,
// each multiplied by exp(cv*Z), Z standard normal (lognormal noise of
// relative size about cv). rng may be nil when cv is 0.
func uslCurve(ns []float64, reps int, lambda, sigma, kappa, cv float64, rng *rand.Rand) (n, x []float64) {
	for _, v := range ns {
		for range reps {
			y := lambda * v / (1 + sigma*(v-1) + kappa*v*(v-1))
			if cv > 0 {
				y *= math.Exp(cv * rng.NormFloat64())
			}
			n = append(n, v)
			x = append(x, y)
		}
	}
	return n, x
}

func fitRelErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func fitHasWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func fitPanics(fn func()) (p bool) {
	defer func() {
		if recover() != nil {
			p = true
		}
	}()
	fn()
	return false
}

func TestFitUSLExact(t *testing.T) {
	// Noise-free curves must be recovered to 1e-6 relative: the optimum has
	// SSE = 0 and the optimiser polishes with BFGS to the floating-point
	// limit. (A term that adds under 1e-3 to the denominator at the largest
	// N, such as kappa = 1e-7 with N <= 64, is determined only to about 1e-5
	// even without noise: the SSE is nearly flat along it.)
	for _, tc := range []struct {
		name                 string
		ns                   []float64
		lambda, sigma, kappa float64
	}{
		{"typical", fitNs, 1000, 0.05, 0.001},
		{"strong retrograde", fitNs, 250, 0.5, 0.05},
		{"weak coherency", fitNs, 3e6, 0.02, 2e-5},
		{"pure coherency", fitNs, 10, 0.001, 0.002},
		{"no N=1", []float64{2, 3, 6, 12, 24, 48}, 1000, 0.08, 0.0005},
		{"sparse", []float64{1, 4, 16, 48}, 5e-3, 0.1, 0.001},
		{"many cores", []float64{1, 8, 32, 64, 128, 256, 512}, 1e5, 0.001, 1e-6},
	} {
		n, x := uslCurve(tc.ns, 1, tc.lambda, tc.sigma, tc.kappa, 0, nil)
		f, err := FitUSL(n, x)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, p := range []struct {
			name      string
			got, want float64
		}{
			{"lambda", f.Lambda, tc.lambda},
			{"sigma", f.Sigma, tc.sigma},
			{"kappa", f.Kappa, tc.kappa},
			{"peak N", f.PeakN, math.Sqrt((1 - tc.sigma) / tc.kappa)},
		} {
			if e := fitRelErr(p.got, p.want); e > 1e-6 {
				t.Errorf("%s: %s = %v, want %v (relative error %.2g)", tc.name, p.name, p.got, p.want, e)
			}
		}
		if f.R2 < 1-1e-9 {
			t.Errorf("%s: R2 = %v, want 1", tc.name, f.R2)
		}
		for i := range n {
			if e := fitRelErr(f.Predict(n[i]), x[i]); e > 1e-6 {
				t.Errorf("%s: Predict(%v) = %v, want %v", tc.name, n[i], f.Predict(n[i]), x[i])
			}
		}
		if e := fitRelErr(f.PeakX, f.Predict(f.PeakN)); e > 1e-12 {
			t.Errorf("%s: PeakX = %v, Predict(PeakN) = %v", tc.name, f.PeakX, f.Predict(f.PeakN))
		}
		if f.Points != len(n) || f.Levels != len(tc.ns) || f.DF != len(n)-3 {
			t.Errorf("%s: Points, Levels, DF = %d, %d, %d", tc.name, f.Points, f.Levels, f.DF)
		}
	}
}

func TestFitUSLNoisy(t *testing.T) {
	// 3% lognormal noise, 5 repetitions at N = 1..64. At this design the
	// asymptotic standard errors are about 1% of lambda, 6% of sigma, 5% of
	// kappa and 2.5% of N*, so the tolerances below are four to five
	// standard errors: each check fails by chance with probability below
	// 1e-4, while a biased or non-converged fit still fails them.
	const lambda, sigma, kappa = 1000.0, 0.05, 0.001
	peak := math.Sqrt((1 - sigma) / kappa)
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 1))
		n, x := uslCurve(fitNs, 5, lambda, sigma, kappa, 0.03, rng)
		f, err := FitUSL(n, x)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct {
			name           string
			got, want, tol float64
		}{
			{"lambda", f.Lambda, lambda, 0.05},
			{"sigma", f.Sigma, sigma, 0.25},
			{"kappa", f.Kappa, kappa, 0.2},
			{"peak N", f.PeakN, peak, 0.1},
		} {
			if e := fitRelErr(p.got, p.want); e > p.tol {
				t.Errorf("seed %d: %s = %v, want %v within %g relative", seed, p.name, p.got, p.want, p.tol)
			}
		}
		// The estimate must lie within four of its own standard errors.
		for _, p := range []struct {
			name          string
			got, se, want float64
		}{
			{"lambda", f.Lambda, f.LambdaSE, lambda},
			{"sigma", f.Sigma, f.SigmaSE, sigma},
			{"kappa", f.Kappa, f.KappaSE, kappa},
			{"peak N", f.PeakN, f.PeakNSE, peak},
		} {
			if !(p.se > 0) || math.Abs(p.got-p.want) > 4*p.se {
				t.Errorf("seed %d: %s = %v ± %v does not cover %v", seed, p.name, p.got, p.se, p.want)
			}
		}
		// s estimates the noise: the log-scale residual SE is about 0.03,
		// with a standard deviation of 0.03/sqrt(2*32) = 0.004.
		if f.ResidualSE < 0.015 || f.ResidualSE > 0.045 {
			t.Errorf("seed %d: ResidualSE = %v, want about 0.03", seed, f.ResidualSE)
		}
		if f.R2 < 0.95 || len(f.Warnings) != 0 {
			t.Errorf("seed %d: R2 = %v, warnings %q", seed, f.R2, f.Warnings)
		}
	}
}

func TestFitUSLScaleInvariance(t *testing.T) {
	// The unit of throughput must not matter: ops/s and Mops/s give the same
	// sigma and kappa and proportional lambda.
	rng := rand.New(rand.NewPCG(7, 7))
	n, x := uslCurve(fitNs, 3, 1, 0.03, 0.0005, 0.02, rng)
	ref, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []float64{1e-9, 1e9} {
		xs := make([]float64, len(x))
		for i := range x {
			xs[i] = x[i] * scale
		}
		f, err := FitUSL(n, xs)
		if err != nil {
			t.Fatal(err)
		}
		if fitRelErr(f.Lambda, ref.Lambda*scale) > 1e-6 || fitRelErr(f.Sigma, ref.Sigma) > 1e-6 ||
			fitRelErr(f.Kappa, ref.Kappa) > 1e-6 || fitRelErr(f.R2, ref.R2) > 1e-9 ||
			fitRelErr(f.LambdaSE, ref.LambdaSE*scale) > 1e-5 || fitRelErr(f.KappaSE, ref.KappaSE) > 1e-5 {
			t.Errorf("scale %g: %v\nwant %v", scale, f, ref)
		}
	}
}

func TestFitUSLKappaZero(t *testing.T) {
	// Amdahl-shaped data: without noise kappa must come out exactly 0 (the
	// bound), the peak infinite and PeakX the asymptote lambda/sigma.
	n, x := uslCurve(fitNs, 1, 800, 0.1, 0, 0, nil)
	f, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kappa != 0 || fitRelErr(f.Sigma, 0.1) > 1e-6 || fitRelErr(f.Lambda, 800) > 1e-6 {
		t.Errorf("got %v, want lambda 800, sigma 0.1, kappa 0", f)
	}
	if !math.IsInf(f.PeakN, 1) || fitRelErr(f.PeakX, 8000) > 1e-6 || !math.IsNaN(f.PeakNSE) {
		t.Errorf("PeakN, PeakNSE, PeakX = %v, %v, %v; want +Inf, NaN, 8000", f.PeakN, f.PeakNSE, f.PeakX)
	}
	if !fitHasWarning(f.Warnings, "kappa is at its lower bound") || !fitHasWarning(f.Warnings, "no peak") {
		t.Errorf("warnings %q lack the bound and no-peak warnings", f.Warnings)
	}

	// With 3% noise kappa is 0 or small, and compatible with 0; N* is far
	// out or infinite.
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 2))
		n, x := uslCurve(fitNs, 5, 800, 0.1, 0, 0.03, rng)
		f, err := FitUSL(n, x)
		if err != nil {
			t.Fatal(err)
		}
		if f.Kappa < 0 || f.Kappa > 4*f.KappaSE || fitRelErr(f.Sigma, 0.1) > 0.2 {
			t.Errorf("seed %d: sigma = %v, kappa = %v ± %v, want 0.1 and about 0", seed, f.Sigma, f.Kappa, f.KappaSE)
		}
		if !(f.PeakN > 64) {
			t.Errorf("seed %d: PeakN = %v, want beyond the data", seed, f.PeakN)
		}
		if !math.IsInf(f.PeakN, 1) && !fitHasWarning(f.Warnings, "extrapolation") {
			t.Errorf("seed %d: PeakN = %v but warnings %q", seed, f.PeakN, f.Warnings)
		}
	}

	// Linear scaling: both sigma and kappa at 0, the asymptote infinite.
	n, x = uslCurve(fitNs, 1, 100, 0, 0, 0, nil)
	f, err = FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if f.Sigma != 0 || f.Kappa != 0 || fitRelErr(f.Lambda, 100) > 1e-9 || !math.IsInf(f.PeakX, 1) {
		t.Errorf("linear data: got %v", f)
	}
}

func TestFitUSLNoScaling(t *testing.T) {
	// Throughput that falls from N = 1 on: the peak is clamped to N = 1.
	n, x := uslCurve(fitNs, 1, 100, 1.5, 0.01, 0, nil)
	f, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if fitRelErr(f.Sigma, 1.5) > 1e-6 || f.PeakN != 1 || f.PeakX != f.Lambda || !fitHasWarning(f.Warnings, "no scaling") {
		t.Errorf("got %v, warnings %q", f, f.Warnings)
	}

	// Also when kappa is 0: the peak is at N = 1, not at infinity.
	n, x = uslCurve(fitNs, 1, 100, 2, 0, 0, nil)
	f, err = FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kappa != 0 || fitRelErr(f.Sigma, 2) > 1e-6 || f.PeakN != 1 || f.PeakX != f.Lambda {
		t.Errorf("kappa 0, sigma 2: got %v", f)
	}
	a, err := FitAmdahl(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if fitRelErr(a.Sigma, 2) > 1e-6 || fitRelErr(a.Asymptote, 50) > 1e-6 || !fitHasWarning(a.Warnings, "no scaling") {
		t.Errorf("Amdahl, sigma 2: got %v, warnings %q", a, a.Warnings)
	}

	// Constant throughput: sigma = 1, and R^2 undefined.
	n, _ = uslCurve(fitNs, 2, 100, 1, 0, 0, nil)
	x = make([]float64, len(n))
	for i := range x {
		x[i] = 100
	}
	f, err = FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if fitRelErr(f.Lambda, 100) > 1e-6 || fitRelErr(f.Sigma, 1) > 1e-6 || !math.IsNaN(f.R2) || !fitHasWarning(f.Warnings, "R^2 is undefined") {
		t.Errorf("constant: got %v, warnings %q", f, f.Warnings)
	}
}

func TestFitUSLCoverage(t *testing.T) {
	// Over 200 seeded replications the intervals estimate ± 2 SE should
	// cover the true parameters about 95% of the time (the normal-theory
	// standard errors of a nonlinear fit are approximate, and the t quantile
	// for 32 degrees of freedom is 2.04, so somewhat less is expected).
	// Assert at least 85%: a failure means the standard errors are wrong,
	// not unlucky (the binomial sd of the coverage is 1.5 percentage points).
	const reps = 200
	truth := []float64{1000, 0.02, 0.0002} // peak beyond the data, the hard case for kappa
	rng := rand.New(rand.NewPCG(2024, 11))
	var cover [3]int
	for range reps {
		n, x := uslCurve(fitNs, 5, truth[0], truth[1], truth[2], 0.03, rng)
		f, err := FitUSL(n, x)
		if err != nil {
			t.Fatal(err)
		}
		est := []float64{f.Lambda, f.Sigma, f.Kappa}
		se := []float64{f.LambdaSE, f.SigmaSE, f.KappaSE}
		for i := range est {
			if math.Abs(est[i]-truth[i]) <= 2*se[i] {
				cover[i]++
			}
		}
	}
	for i, name := range []string{"lambda", "sigma", "kappa"} {
		c := float64(cover[i]) / reps
		t.Logf("%s: ±2SE coverage %.3f", name, c)
		if c < 0.85 {
			t.Errorf("%s: ±2SE coverage %.3f < 0.85", name, c)
		}
	}
}

func TestFitAmdahl(t *testing.T) {
	n, x := uslCurve(fitNs, 1, 1200, 0.04, 0, 0, nil)
	f, err := FitAmdahl(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if fitRelErr(f.Lambda, 1200) > 1e-6 || fitRelErr(f.Sigma, 0.04) > 1e-6 || fitRelErr(f.Asymptote, 30000) > 1e-6 {
		t.Errorf("exact: got %v", f)
	}
	if fitRelErr(f.Predict(16), x[4]) > 1e-6 || f.DF != 5 {
		t.Errorf("exact: Predict(16) = %v, want %v; DF = %d", f.Predict(16), x[4], f.DF)
	}

	// Noisy: 3% lognormal, 5 repetitions. Standard errors are about 0.7% of
	// lambda and 2% of sigma, so tolerances of 4% and 10% are five standard
	// errors; the coverage of ± 2 SE is checked as for the USL.
	var cover [2]int
	const reps = 200
	rng := rand.New(rand.NewPCG(99, 1))
	for r := range reps {
		n, x := uslCurve(fitNs, 5, 1200, 0.04, 0, 0.03, rng)
		f, err := FitAmdahl(n, x)
		if err != nil {
			t.Fatal(err)
		}
		if r < 10 && (fitRelErr(f.Lambda, 1200) > 0.04 || fitRelErr(f.Sigma, 0.04) > 0.1 ||
			math.Abs(f.Asymptote-30000) > 4*f.AsymptoteSE) {
			t.Errorf("rep %d: got %v, asymptote SE %v", r, f, f.AsymptoteSE)
		}
		if math.Abs(f.Lambda-1200) <= 2*f.LambdaSE {
			cover[0]++
		}
		if math.Abs(f.Sigma-0.04) <= 2*f.SigmaSE {
			cover[1]++
		}
	}
	for i, c := range cover {
		if float64(c)/reps < 0.85 {
			t.Errorf("parameter %d: ±2SE coverage %d/%d < 85%%", i, c, reps)
		}
	}

	// Linear data: sigma at its bound, infinite asymptote.
	n, x = uslCurve(fitNs, 2, 10, 0, 0, 0, nil)
	f, err = FitAmdahl(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if f.Sigma != 0 || !math.IsInf(f.Asymptote, 1) || !fitHasWarning(f.Warnings, "sigma is at its lower bound") {
		t.Errorf("linear: got %v, warnings %q", f, f.Warnings)
	}
}

func TestFitTooFewLevels(t *testing.T) {
	// Many repetitions do not make up for too few distinct N.
	n, x := uslCurve([]float64{1, 8}, 10, 100, 0.1, 0.01, 0, nil)
	_, err := FitUSL(n, x)
	if !errors.Is(err, ErrTooFewLevels) || !strings.Contains(err.Error(), "needs at least 3 distinct values of N, have 2") {
		t.Errorf("FitUSL with 2 levels: err = %v", err)
	}
	n, x = uslCurve([]float64{4}, 10, 100, 0.1, 0, 0, nil)
	if _, err := FitAmdahl(n, x); !errors.Is(err, ErrTooFewLevels) {
		t.Errorf("FitAmdahl with 1 level: err = %v", err)
	}

	// As many levels as parameters: a fit, but no standard errors.
	n, x = uslCurve([]float64{1, 8, 32}, 1, 100, 0.1, 0.001, 0, nil)
	f, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if f.DF != 0 || !math.IsNaN(f.ResidualSE) || !math.IsNaN(f.KappaSE) || f.Cov != nil ||
		!fitHasWarning(f.Warnings, "no residual degrees of freedom") || fitRelErr(f.Kappa, 0.001) > 1e-6 {
		t.Errorf("3 points: got %v, warnings %q", f, f.Warnings)
	}
	n, x = uslCurve([]float64{1, 8}, 3, 100, 0.1, 0, 0, nil)
	if f, err := FitAmdahl(n, x); err != nil || fitRelErr(f.Sigma, 0.1) > 1e-6 {
		t.Errorf("FitAmdahl with 2 levels: %v, %v", f, err)
	}
}

func TestFitInvalidInput(t *testing.T) {
	good := []float64{1, 2, 4, 8}
	for _, tc := range []struct {
		name string
		n, x []float64
		msg  string
	}{
		{"NaN N", []float64{1, math.NaN(), 4, 8}, good, "N[1] is NaN"},
		{"Inf x", good, []float64{1, 2, math.Inf(1), 3}, "throughput[2] is +Inf"},
		{"zero x", good, []float64{1, 2, 0, 3}, "throughput[2] = 0: throughput must be positive"},
		{"negative x", good, []float64{1, -2, 3, 3}, "throughput[1] = -2"},
		{"zero N", []float64{0, 2, 4, 8}, good, "N[0] = 0: concurrency must be at least 1"},
		{"fractional N", []float64{0.5, 2, 4, 8}, good, "N[0] = 0.5"},
	} {
		if _, err := FitUSL(tc.n, tc.x); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("FitUSL %s: err = %v, want %q", tc.name, err, tc.msg)
		}
		if _, err := FitAmdahl(tc.n, tc.x); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("FitAmdahl %s: err = %v, want %q", tc.name, err, tc.msg)
		}
	}
	if _, err := FitUSL(nil, nil); err != ErrNoData {
		t.Errorf("FitUSL(nil, nil): err = %v, want ErrNoData", err)
	}
	if !fitPanics(func() { _, _ = FitUSL(good, good[:3]) }) {
		t.Error("FitUSL with mismatched lengths did not panic")
	}
	if !fitPanics(func() { _, _ = FitAmdahl(good[:1], good) }) {
		t.Error("FitAmdahl with mismatched lengths did not panic")
	}
}

func TestFitUSLWarnings(t *testing.T) {
	// A step function is not a USL curve: poor fit.
	n := []float64{1, 1, 2, 2, 4, 4, 8, 8, 16, 16}
	x := []float64{100, 300, 300, 100, 100, 300, 300, 100, 100, 300}
	f, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if !(f.R2 < FitPoorR2) || !fitHasWarning(f.Warnings, "poor fit") {
		t.Errorf("step data: R2 = %v, warnings %q", f.R2, f.Warnings)
	}

	// 20% noise on a short range of N: kappa is poorly determined.
	rng := rand.New(rand.NewPCG(5, 5))
	n, x = uslCurve([]float64{1, 2, 3, 4, 6}, 2, 100, 0.05, 0.002, 0.2, rng)
	f, err = FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if !fitHasWarning(f.Warnings, "poorly determined") && !fitHasWarning(f.Warnings, "lower bound") {
		t.Errorf("noisy short curve: %v, warnings %q", f, f.Warnings)
	}
}

func TestFitModelString(t *testing.T) {
	n, x := uslCurve(fitNs, 2, 1000, 0.05, 0.001, 0, nil)
	u, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	a, err := FitAmdahl(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if u.Model() != USLModel || a.Model() != AmdahlModel {
		t.Errorf("Model() = %q, %q", u.Model(), a.Model())
	}
	if s := u.String(); !strings.Contains(s, USLModel) || !strings.Contains(s, "kappa=0.001") || !strings.Contains(s, "peak N*=30.82") {
		t.Errorf("USLFit.String() = %q", s)
	}
	if s := a.String(); !strings.Contains(s, AmdahlModel) || !strings.Contains(s, "asymptote=") {
		t.Errorf("AmdahlFit.String() = %q", s)
	}
}
