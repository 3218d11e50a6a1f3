package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// ErrTooFewLevels is returned (wrapped) by FitUSL and FitAmdahl when the data
// have fewer distinct values of N than the model has parameters, so the
// parameters are not identified.
var ErrTooFewLevels = errors.New("analysis: too few distinct values of N for the model")

// Thresholds of the warnings attached to a model fit.
const (
	// FitPoorR2 is the coefficient of determination below which a fit is
	// reported as poor.
	FitPoorR2 = 0.9
	// FitWideRelSE is the relative standard error SE/|estimate| above which a
	// parameter is reported as poorly determined. At 0.5 the interval
	// estimate ± 2 SE contains 0.
	FitWideRelSE = 0.5
)

// fitBoundaryTol is the contribution to the model's denominator at the largest
// N, sigma*(Nmax-1) or kappa*Nmax*(Nmax-1), below which a fitted sigma or
// kappa is set to exactly 0 (its lower bound). Such a term changes the
// predicted throughput by less than 1e-7 relative anywhere in the measured
// range.
const fitBoundaryTol = 1e-7

// FitQuality describes how well a fitted scalability model matches its data.
// USLFit and AmdahlFit embed it.
type FitQuality struct {
	Points int // number of (N, X) points fitted
	Levels int // number of distinct values of N
	DF     int // residual degrees of freedom: Points minus the number of parameters

	// SSE is the residual sum of squares of the logarithms, the criterion
	// that is minimised:
	//  SSE = \sum_i (ln x_i - ln X(N_i))^2
	SSE float64
	// R2 is the coefficient of determination on the same scale,
	//  R^2 = 1 - SSE / \sum_i (ln x_i - mean(ln x))^2
	// the fraction of the variation of log throughput that the model
	// explains. It is NaN when all throughputs are equal (to 1e-12
	// relative).
	R2 float64
	// ResidualSE is the residual standard error s = sqrt(SSE / DF) of log
	// throughput: the typical relative deviation of a point from the curve
	// (0.03 is about 3%). It is NaN when DF is 0.
	ResidualSE float64

	// Warnings lists conditions that weaken the fit without making it wrong:
	// a poor fit, parameters at a bound, wide uncertainty, a peak outside the
	// measured range.
	Warnings []string
}

// USLFit is a least-squares fit of Gunther's Universal Scalability Law
//
//	X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1))
//
// to throughput X measured at concurrency N. Lambda is the throughput of one
// unit of concurrency without contention, Sigma the contention (serialised
// fraction) and Kappa the coherency delay (pairwise crosstalk).
type USLFit struct {
	Lambda float64 // throughput per unit of concurrency, in units of throughput
	Sigma  float64 // contention, >= 0
	Kappa  float64 // coherency, >= 0

	// LambdaSE, SigmaSE and KappaSE are the asymptotic standard errors of the
	// parameters, the square roots of the diagonal of Cov. They are NaN when
	// Cov is nil.
	LambdaSE, SigmaSE, KappaSE float64
	// Cov is the 3×3 asymptotic covariance matrix of (Lambda, Sigma, Kappa),
	//  Cov = s^2 (J^T J)^{-1}
	// where J is the Jacobian of ln X(N_i) with respect to the parameters at
	// the estimate,
	//  J_i = (1/lambda, -(N_i-1)/D_i, -N_i (N_i-1)/D_i),  D_i = 1 + sigma (N_i-1) + kappa N_i (N_i-1)
	// and s is ResidualSE. It is nil when DF is 0 or J^T J is singular.
	Cov *mat.SymDense

	// PeakN is the concurrency of maximum throughput,
	//  N* = sqrt((1 - sigma) / kappa)
	// It is 1 when Sigma >= 1 or the root is below 1: throughput then never
	// rises above X(1). Otherwise it is +Inf when Kappa is 0: throughput then
	// rises for ever towards Lambda/Sigma.
	PeakN float64
	// PeakNSE is the delta-method standard error of PeakN,
	//  Var(N*) = g^T Cov g,  g = (0, -1/(2 kappa N*), -N*/(2 kappa))
	// NaN when PeakN is infinite or clamped to 1, or Cov is nil.
	PeakNSE float64
	// PeakX is the predicted peak throughput X(PeakN); Lambda/Sigma when
	// PeakN is +Inf (+Inf when Sigma is 0 as well).
	PeakX float64
	// Flat tells that the fitted curve changes by less than FlatTolerance
	// over the measured N: throughput does not depend on N (sigma about
	// 1, kappa about 0: the work is done one at a time). PeakN is then 1
	// and PeakX Lambda.
	Flat bool

	FitQuality
}

// AmdahlFit is a least-squares fit of Amdahl's law in throughput form
//
//	X(N) = lambda N / (1 + sigma (N-1))
//
// the Universal Scalability Law with kappa = 0. Throughput rises
// monotonically towards the asymptote lambda/sigma; there is no peak.
type AmdahlFit struct {
	Lambda float64 // throughput per unit of concurrency, in units of throughput
	Sigma  float64 // contention (serial fraction), >= 0

	// LambdaSE and SigmaSE are the asymptotic standard errors of the
	// parameters, NaN when Cov is nil.
	LambdaSE, SigmaSE float64
	// Cov is the 2×2 asymptotic covariance matrix of (Lambda, Sigma),
	//  Cov = s^2 (J^T J)^{-1}
	// nil when DF is 0 or J^T J is singular.
	Cov *mat.SymDense

	// Asymptote is the limit of throughput as N grows,
	//  X(inf) = lambda / sigma
	// +Inf when Sigma is 0.
	Asymptote float64
	// Flat tells that the fitted curve changes by less than FlatTolerance
	// over the measured N: throughput does not depend on N.
	Flat bool
	// AsymptoteSE is the delta-method standard error of Asymptote,
	//  Var = g^T Cov g,  g = (1/sigma, -lambda/sigma^2)
	// NaN when Sigma is 0 or Cov is nil.
	AsymptoteSE float64

	FitQuality
}

// USLModel is the formula fitted by FitUSL.
const USLModel = "X(N) = lambda*N / (1 + sigma*(N-1) + kappa*N*(N-1))"

// AmdahlModel is the formula fitted by FitAmdahl.
const AmdahlModel = "X(N) = lambda*N / (1 + sigma*(N-1))"

// Predict returns the throughput the fitted law predicts at concurrency n,
//
//	X(n) = lambda n / (1 + sigma (n-1) + kappa n (n-1))
func (f USLFit) Predict(n float64) float64 {
	return f.Lambda * n / uslDenom(n, f.Sigma, f.Kappa)
}

// Model returns the formula of the Universal Scalability Law, USLModel.
func (f USLFit) Model() string { return USLModel }

// String returns the fitted law on one line: parameters with standard
// errors, the peak, and R^2.
func (f USLFit) String() string {
	return fmt.Sprintf("USL %s: lambda=%.4g±%.2g sigma=%.4g±%.2g kappa=%.4g±%.2g peak N*=%.4g X*=%.4g R^2=%.4f s=%.4g (%d points, %d levels)",
		USLModel, f.Lambda, f.LambdaSE, f.Sigma, f.SigmaSE, f.Kappa, f.KappaSE,
		f.PeakN, f.PeakX, f.R2, f.ResidualSE, f.Points, f.Levels)
}

// Predict returns the throughput the fitted law predicts at concurrency n,
//
//	X(n) = lambda n / (1 + sigma (n-1))
func (f AmdahlFit) Predict(n float64) float64 {
	return f.Lambda * n / uslDenom(n, f.Sigma, 0)
}

// Model returns the formula of Amdahl's law, AmdahlModel.
func (f AmdahlFit) Model() string { return AmdahlModel }

// String returns the fitted law on one line: parameters with standard
// errors, the asymptote, and R^2.
func (f AmdahlFit) String() string {
	return fmt.Sprintf("Amdahl %s: lambda=%.4g±%.2g sigma=%.4g±%.2g asymptote=%.4g R^2=%.4f s=%.4g (%d points, %d levels)",
		AmdahlModel, f.Lambda, f.LambdaSE, f.Sigma, f.SigmaSE,
		f.Asymptote, f.R2, f.ResidualSE, f.Points, f.Levels)
}

// FitUSL fits the Universal Scalability Law
//
//	X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)),  lambda > 0, sigma >= 0, kappa >= 0
//
// to throughputs x measured at concurrencies n by least squares on the
// logarithm of throughput, minimising
//
//	SSE = \sum_i (ln x_i - ln X(n_i))^2
//
// that is, least squares in relative error. The noise of a throughput is
// roughly proportional to its level (a constant coefficient of variation), so
// raw least squares would let the high-throughput points dominate and its
// standard errors would be too small for kappa; on the log scale the errors
// have equal variance and the fit is maximum likelihood for multiplicative
// lognormal noise.
//
// Several points may share a value of N (repetitions); each counts as one
// independent observation. ln lambda enters linearly and is profiled out
// (ln lambda = mean_i(ln x_i - ln g_i), g_i = X(n_i)/lambda); sigma and kappa
// are found with gonum's optimize package (Nelder-Mead from three starts, then
// BFGS) over square-root reparameterisations that keep them non-negative. The
// first start is Gunther's linearisation
//
//	lambda0 n / x - 1 = sigma (n-1) + kappa n (n-1)
//
// fitted without intercept, with lambda0 the mean of x/n at the smallest N.
// A sigma or kappa whose term adds less than 1e-7 to the denominator at the
// largest N is set to exactly 0 (its bound) and the other parameter refitted.
//
// Standard errors are the asymptotic ones of nonlinear least squares,
// s^2 (J^T J)^{-1}; see USLFit.Cov. They are approximate: normal theory on a
// linearised model, and not valid for a parameter at its bound.
//
// n and x must have the same length (FitUSL panics otherwise). FitUSL
// returns ErrNoData for empty input, an error for a NaN or infinite value,
// for n < 1 or x <= 0, and an error wrapping ErrTooFewLevels when n has
// fewer than 3 distinct values. Weak fits are reported in Warnings.
func FitUSL(n, x []float64) (USLFit, error) {
	c, err := fitCurve("USL", n, x, true)
	if err != nil {
		return USLFit{}, err
	}
	f := USLFit{
		Lambda:     c.p[0],
		Sigma:      c.p[1],
		Kappa:      c.p[2],
		LambdaSE:   c.se[0],
		SigmaSE:    c.se[1],
		KappaSE:    c.se[2],
		Cov:        c.cov,
		PeakNSE:    math.NaN(),
		FitQuality: c.q,
	}
	switch {
	case isFlat(c, f.Predict):
		f.Flat, f.PeakN, f.PeakX = true, 1, f.Lambda
		f.Warnings = append(f.Warnings, fmt.Sprintf(
			"flat: throughput stays at %.4g from N = %g to %g (sigma = %.4g, kappa = %.4g): it does not depend on N",
			f.Lambda, c.nmin, c.nmax, f.Sigma, f.Kappa))
	case f.Sigma >= 1 || (f.Kappa > 0 && (1-f.Sigma)/f.Kappa < 1):
		f.PeakN = 1
		f.PeakX = f.Lambda
		f.Warnings = append(f.Warnings, fmt.Sprintf(
			"no scaling: sigma = %.4g, kappa = %.4g put the peak at N = 1; throughput never rises above lambda",
			f.Sigma, f.Kappa))
	case f.Kappa == 0 && f.Sigma == 0:
		f.PeakN, f.PeakX = math.Inf(1), math.Inf(1)
		f.Warnings = append(f.Warnings, "no peak: sigma = kappa = 0, so throughput grows in proportion to N without limit")
	case f.Kappa == 0:
		f.PeakN = math.Inf(1)
		f.PeakX = f.Lambda / f.Sigma
		f.Warnings = append(f.Warnings, fmt.Sprintf(
			"no peak: kappa = 0, so throughput keeps rising with N towards lambda/sigma = %.4g", f.PeakX))
	default:
		f.PeakN = math.Sqrt((1 - f.Sigma) / f.Kappa)
		f.PeakX = f.Predict(f.PeakN)
		if f.Cov != nil {
			g := mat.NewVecDense(3, []float64{0, -1 / (2 * f.Kappa * f.PeakN), -f.PeakN / (2 * f.Kappa)})
			f.PeakNSE = math.Sqrt(mat.Inner(g, f.Cov, g))
		}
		if f.PeakN > c.nmax {
			f.Warnings = append(f.Warnings, fmt.Sprintf(
				"peak N* = %.4g lies beyond the largest measured N = %g: it is an extrapolation", f.PeakN, c.nmax))
		} else if f.PeakN < c.nmin {
			f.Warnings = append(f.Warnings, fmt.Sprintf(
				"peak N* = %.4g lies below the smallest measured N = %g: it is an extrapolation", f.PeakN, c.nmin))
		}
	}
	return f, nil
}

// FitAmdahl fits Amdahl's law in throughput form
//
//	X(N) = lambda N / (1 + sigma (N-1)),  lambda > 0, sigma >= 0
//
// to throughputs x measured at concurrencies n by least squares on log
// throughput, as FitUSL does with kappa fixed at 0,
//
//	SSE = \sum_i (ln x_i - ln X(n_i))^2
//
// with Cov = s^2 (J^T J)^{-1}, J_i = (1/lambda, -(N_i-1)/D_i). It needs at
// least 2 distinct values of N, reports the asymptote lambda/sigma instead of
// a peak, and otherwise returns errors and warnings as FitUSL does.
func FitAmdahl(n, x []float64) (AmdahlFit, error) {
	c, err := fitCurve("Amdahl", n, x, false)
	if err != nil {
		return AmdahlFit{}, err
	}
	f := AmdahlFit{
		Lambda:      c.p[0],
		Sigma:       c.p[1],
		LambdaSE:    c.se[0],
		SigmaSE:     c.se[1],
		Cov:         c.cov,
		Asymptote:   c.p[0] / c.p[1],
		AsymptoteSE: math.NaN(),
		FitQuality:  c.q,
	}
	if f.Sigma > 0 && f.Cov != nil {
		g := mat.NewVecDense(2, []float64{1 / f.Sigma, -f.Lambda / (f.Sigma * f.Sigma)})
		f.AsymptoteSE = math.Sqrt(mat.Inner(g, f.Cov, g))
	}
	switch {
	case isFlat(c, f.Predict):
		f.Flat = true
		f.Warnings = append(f.Warnings, fmt.Sprintf(
			"flat: throughput stays at %.4g from N = %g to %g (sigma = %.4g): it does not depend on N",
			f.Lambda, c.nmin, c.nmax, f.Sigma))
	case f.Sigma > 1:
		f.Warnings = append(f.Warnings, fmt.Sprintf(
			"no scaling: sigma = %.4g is above 1, so throughput falls from lambda towards lambda/sigma as N grows", f.Sigma))
	}
	return f, nil
}

// FlatTolerance is the largest relative change of a fitted curve over the
// measured N for which the fit calls it flat.
const FlatTolerance = 1e-3

// isFlat tells whether predict changes by less than FlatTolerance between
// the smallest and the largest measured N of c.
func isFlat(c curveFit, predict func(float64) float64) bool {
	lo, hi := predict(c.nmin), predict(c.nmax)
	return c.nmax > c.nmin && math.Abs(hi/lo-1) < FlatTolerance
}

func uslDenom(n, sigma, kappa float64) float64 {
	return 1 + sigma*(n-1) + kappa*n*(n-1)
}

// curveFit is the part of a USL or Amdahl fit common to both.
type curveFit struct {
	p, se []float64 // lambda, sigma[, kappa]
	cov   *mat.SymDense
	q     FitQuality
	nmin  float64
	nmax  float64
}

// fitCurve validates the data, fits the USL (usl) or Amdahl's law by least
// squares and computes the statistics of the fit.
func fitCurve(model string, n, x []float64, usl bool) (curveFit, error) {
	if len(n) != len(x) {
		panic("analysis: slice length mismatch")
	}
	if len(n) == 0 {
		return curveFit{}, ErrNoData
	}
	for i := range n {
		switch {
		case math.IsNaN(n[i]) || math.IsInf(n[i], 0):
			return curveFit{}, fmt.Errorf("analysis: N[%d] is %v: only finite concurrencies can be fitted", i, n[i])
		case math.IsNaN(x[i]) || math.IsInf(x[i], 0):
			return curveFit{}, fmt.Errorf("analysis: throughput[%d] is %v: only finite throughputs can be fitted", i, x[i])
		case n[i] < 1:
			return curveFit{}, fmt.Errorf("analysis: N[%d] = %g: concurrency must be at least 1", i, n[i])
		case x[i] <= 0:
			return curveFit{}, fmt.Errorf("analysis: throughput[%d] = %g: throughput must be positive", i, x[i])
		}
	}
	np := 2
	if usl {
		np = 3
	}
	levels := fitLevels(n)
	if levels < np {
		return curveFit{}, fmt.Errorf("%w: the %s fit has %d parameters and needs at least %d distinct values of N, have %d",
			ErrTooFewLevels, model, np, np, levels)
	}

	nmin, nmax := n[0], n[0]
	for i := range n {
		nmin = math.Min(nmin, n[i])
		nmax = math.Max(nmax, n[i])
	}
	y := make([]float64, len(x))
	for i := range x {
		y[i] = math.Log(x[i])
	}
	ls := uslLSQ{n: n, y: y, sigScale: nmax - 1, kapScale: nmax * (nmax - 1)}
	sigma, kappa, warn := ls.minimize(usl, nmin)
	lambda, _ := ls.profile(sigma, kappa)

	c := curveFit{nmin: nmin, nmax: nmax}
	if usl {
		c.p = []float64{lambda, sigma, kappa}
	} else {
		c.p = []float64{lambda, sigma}
	}
	q := &c.q
	q.Points, q.Levels, q.DF = len(n), levels, len(n)-np
	if warn != "" {
		q.Warnings = append(q.Warnings, warn)
	}

	var sum float64
	for _, v := range y {
		sum += v
	}
	mean := sum / float64(len(y))
	var sst float64
	for i := range n {
		r := y[i] - math.Log(lambda*n[i]/uslDenom(n[i], sigma, kappa))
		q.SSE += r * r
		sst += (y[i] - mean) * (y[i] - mean)
	}
	q.R2 = math.NaN()
	if sst > float64(len(y))*1e-24 { // not all equal to 1e-12 relative
		q.R2 = 1 - q.SSE/sst
	}
	q.ResidualSE = math.NaN()
	if q.DF > 0 {
		q.ResidualSE = math.Sqrt(q.SSE / float64(q.DF))
	}

	c.se = make([]float64, np)
	for i := range c.se {
		c.se[i] = math.NaN()
	}
	if q.DF == 0 {
		q.Warnings = append(q.Warnings, fmt.Sprintf(
			"no residual degrees of freedom (%d points for %d parameters): no standard errors", q.Points, np))
	} else {
		c.cov = fitCovariance(n, c.p, q.ResidualSE)
		if c.cov == nil {
			q.Warnings = append(q.Warnings, "the Jacobian is rank-deficient: no standard errors")
		} else {
			for i := range c.se {
				c.se[i] = math.Sqrt(c.cov.At(i, i))
			}
		}
	}

	if math.IsNaN(q.R2) {
		q.Warnings = append(q.Warnings, "all throughputs are equal: R^2 is undefined")
	} else if q.R2 < FitPoorR2 {
		q.Warnings = append(q.Warnings, fmt.Sprintf(
			"poor fit: R^2 = %.3f < %g; the %s model may not describe these data", q.R2, FitPoorR2, model))
	}
	names := []string{"lambda", "sigma", "kappa"}
	for i := 1; i < np; i++ {
		if c.p[i] == 0 {
			q.Warnings = append(q.Warnings, fmt.Sprintf(
				"%s is at its lower bound 0; its standard error does not give a valid interval", names[i]))
		}
	}
	for i := range np {
		if c.p[i] != 0 && c.se[i]/math.Abs(c.p[i]) > FitWideRelSE {
			q.Warnings = append(q.Warnings, fmt.Sprintf(
				"%s = %.4g is poorly determined: standard error %.2g is over %g%% of it",
				names[i], c.p[i], c.se[i], FitWideRelSE*100))
		}
	}
	return c, nil
}

// fitLevels returns the number of distinct values in xs.
func fitLevels(xs []float64) int {
	seen := make(map[float64]bool)
	for _, v := range xs {
		seen[v] = true
	}
	return len(seen)
}

// fitCovariance returns s^2 (J^T J)^{-1} for the USL parameters p = (lambda,
// sigma[, kappa]) at concurrencies n, or nil when J^T J is singular. The
// columns of J are scaled to unit norm before the inversion so that its
// condition number reflects the design, not the units of the parameters.
func fitCovariance(n, p []float64, s float64) *mat.SymDense {
	np := len(p)
	lambda, sigma, kappa := p[0], p[1], 0.0
	if np == 3 {
		kappa = p[2]
	}
	j := mat.NewDense(len(n), np, nil)
	for i, v := range n {
		d := uslDenom(v, sigma, kappa)
		j.Set(i, 0, 1/lambda)
		j.Set(i, 1, -(v-1)/d)
		if np == 3 {
			j.Set(i, 2, -v*(v-1)/d)
		}
	}
	scale := make([]float64, np)
	for k := range np {
		scale[k] = mat.Norm(j.ColView(k), 2)
		if scale[k] == 0 {
			return nil
		}
		for i := range n {
			j.Set(i, k, j.At(i, k)/scale[k])
		}
	}
	jtj := mat.NewSymDense(np, nil)
	jtj.SymOuterK(1, j.T())
	var chol mat.Cholesky
	if !chol.Factorize(jtj) || chol.Cond() > 1e14 {
		return nil
	}
	cov := mat.NewSymDense(np, nil)
	if err := chol.InverseTo(cov); err != nil {
		return nil
	}
	for a := range np {
		for b := a; b < np; b++ {
			cov.SetSym(a, b, cov.At(a, b)*s*s/(scale[a]*scale[b]))
		}
	}
	return cov
}

// uslLSQ is the least-squares problem on log throughput with lambda profiled
// out. The optimiser works on u = (u_s, u_k) with
//
//	sigma = u_s^2 / sigScale,  kappa = u_k^2 / kapScale
//
// so that u_s^2 and u_k^2 are the contributions of the two terms to the
// denominator at the largest N.
type uslLSQ struct {
	n, y               []float64 // y = ln x
	sigScale, kapScale float64
}

// profile returns the optimal lambda for given sigma and kappa,
//
//	ln lambda = mean_i(y_i - ln g_i),  g_i = n_i / D_i
//
// and the resulting SSE.
func (ls uslLSQ) profile(sigma, kappa float64) (lambda, sse float64) {
	var sum float64
	for i, v := range ls.n {
		sum += ls.y[i] - math.Log(v/uslDenom(v, sigma, kappa))
	}
	ll := sum / float64(len(ls.n))
	for i, v := range ls.n {
		r := ls.y[i] - ll - math.Log(v/uslDenom(v, sigma, kappa))
		sse += r * r
	}
	return math.Exp(ll), sse
}

// gradient returns dSSE/dsigma and dSSE/dkappa of the profiled SSE. By the
// envelope theorem they equal the partial derivatives at the optimal lambda:
//
//	dSSE/dsigma = 2 \sum_i r_i (n_i-1) / D_i
//	dSSE/dkappa = 2 \sum_i r_i n_i (n_i-1) / D_i
func (ls uslLSQ) gradient(sigma, kappa float64) (gs, gk float64) {
	lambda, _ := ls.profile(sigma, kappa)
	ll := math.Log(lambda)
	for i, v := range ls.n {
		d := uslDenom(v, sigma, kappa)
		r := ls.y[i] - ll - math.Log(v/d)
		w := 2 * r * (v - 1) / d
		gs += w
		gk += w * v
	}
	return gs, gk
}

// minimize returns the least-squares sigma and kappa (kappa = 0 unless usl),
// and a warning when the optimiser failed to converge.
func (ls uslLSQ) minimize(usl bool, nmin float64) (sigma, kappa float64, warn string) {
	free := []bool{true, usl}
	starts := [][2]float64{ls.linearStart(usl, nmin), {0.3, 0.3}, {1, 0.01}}
	best, bestF := [2]float64{}, math.Inf(1)
	var nmErr error
	for _, s := range starts {
		if !usl {
			s[1] = 0
		}
		u, f, err := ls.run(free, s, &optimize.NelderMead{})
		if f < bestF {
			best, bestF, nmErr = u, f, err
		}
	}
	u, f, _ := ls.run(free, best, &optimize.BFGS{})
	if f <= bestF {
		best, bestF = u, f
	}
	// Snap negligible terms to their bound 0 and refit the others.
	snapped := false
	for k := range free {
		if free[k] && best[k]*best[k] < fitBoundaryTol {
			free[k], best[k], snapped = false, 0, true
		}
	}
	if snapped && (free[0] || free[1]) {
		if u, f, _ := ls.run(free, best, &optimize.BFGS{}); f <= ls.objective(best) {
			best = u
		}
	}
	// The BFGS polish may end in a line-search failure when floating point
	// allows no further progress; only a failed Nelder-Mead search is
	// reported.
	if nmErr != nil {
		warn = fmt.Sprintf("the optimiser may not have converged: %v", nmErr)
	}
	return best[0] * best[0] / ls.sigScale, best[1] * best[1] / ls.kapScale, warn
}

// objective returns the profiled SSE at u.
func (ls uslLSQ) objective(u [2]float64) float64 {
	_, sse := ls.profile(u[0]*u[0]/ls.sigScale, u[1]*u[1]/ls.kapScale)
	return sse
}

// run minimises the profiled SSE over the free components of u from start
// with method, holding the others fixed.
func (ls uslLSQ) run(free []bool, start [2]float64, method optimize.Method) ([2]float64, float64, error) {
	var idx []int
	for k, ok := range free {
		if ok {
			idx = append(idx, k)
		}
	}
	if len(idx) == 0 {
		return start, ls.objective(start), nil
	}
	expand := func(v []float64) [2]float64 {
		u := start
		for a, k := range idx {
			u[k] = v[a]
		}
		return u
	}
	p := optimize.Problem{
		Func: func(v []float64) float64 { return ls.objective(expand(v)) },
		Grad: func(grad, v []float64) {
			u := expand(v)
			gs, gk := ls.gradient(u[0]*u[0]/ls.sigScale, u[1]*u[1]/ls.kapScale)
			g := [2]float64{gs * 2 * u[0] / ls.sigScale, gk * 2 * u[1] / ls.kapScale}
			for a, k := range idx {
				grad[a] = g[k]
			}
		},
	}
	init := make([]float64, len(idx))
	for a, k := range idx {
		init[a] = start[k]
	}
	settings := &optimize.Settings{
		GradientThreshold: 1e-14,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-16, Relative: 1e-14, Iterations: 50},
		MajorIterations:   5000,
	}
	if _, ok := method.(*optimize.NelderMead); ok {
		// Nelder-Mead only locates the basin; BFGS polishes.
		settings.Converger = &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-8, Iterations: 10}
	}
	res, err := optimize.Minimize(p, init, settings, method)
	if res == nil {
		return start, ls.objective(start), err
	}
	if err == nil && res.Status.Early() {
		err = res.Status.Err() // an iteration or evaluation limit
	}
	return expand(res.X), res.F, err
}

// linearStart returns starting values of u from Gunther's linearisation:
// with lambda0 the mean of x/n at the smallest N,
//
//	y = lambda0 n / x - 1 = sigma (n-1) + kappa n (n-1)
//
// fitted by least squares without intercept, with sigma and kappa kept
// slightly positive.
func (ls uslLSQ) linearStart(usl bool, nmin float64) [2]float64 {
	var sum float64
	var cnt int
	for i, v := range ls.n {
		if v == nmin {
			sum += math.Exp(ls.y[i]) / v
			cnt++
		}
	}
	lambda0 := sum / float64(cnt)
	// Normal equations of y on a = (n-1)/sigScale, b = n(n-1)/kapScale.
	var aa, ab, bb, ay, by float64
	for i, v := range ls.n {
		y := lambda0*v/math.Exp(ls.y[i]) - 1
		a, b := (v-1)/ls.sigScale, v*(v-1)/ls.kapScale
		aa += a * a
		ab += a * b
		bb += b * b
		ay += a * y
		by += b * y
	}
	var cs, ck float64 // contributions at the largest N
	det := aa*bb - ab*ab
	if usl && det > 1e-12*aa*bb {
		cs = (bb*ay - ab*by) / det
		ck = (aa*by - ab*ay) / det
	} else if aa > 0 {
		cs = ay / aa
	}
	cs = math.Max(cs, 0.01)
	ck = math.Max(ck, 0.01)
	if !usl {
		ck = 0
	}
	return [2]float64{math.Sqrt(cs), math.Sqrt(ck)}
}
