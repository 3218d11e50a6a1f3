package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Hosts as a factor.
//
// A fleet runs the same comparison on several hosts. Each host gives its
// own change; the question is what the change is across hosts of this
// kind, and whether it differs from host to host. That is a
// random-effects meta-analysis of the per-host changes:
//
//	y_i = μ + u_i + e_i,  u_i ~ N(0, τ²) (between hosts),  e_i ~ N(0, v_i) (within)
//
// with y_i the log ratio of the geometric means of host i (mean of log B
// minus mean of log A) and v_i its squared standard error (s²_logA/n_A +
// s²_logB/n_B). τ² is estimated by the method of moments of DerSimonian
// and Laird (Controlled Clinical Trials 7, 1986); the interval and the
// test of μ use the Hartung-Knapp-Sidik-Jonkman variance with Student's t
// on k-1 degrees of freedom (Hartung and Knapp, Statistics in Medicine 20,
// 2001; Sidik and Jonkman, Statistics in Medicine 21, 2002), in its
// modified form that never makes the interval narrower than the
// DerSimonian-Laird one (Röver, Knapp and Friede, BMC Medical Research
// Methodology 15:99, 2015). With few hosts the plain DerSimonian-Laird
// interval (normal quantiles) rejects a true null far more often than
// alpha; this one holds it (TestMetaAASimulation).
//
// Heterogeneity is Cochran's Q = Σ w_i (y_i - ȳ_FE)², w_i = 1/v_i, and
// I² = max(0, (Q - (k-1))/Q), the share of the variation of the y_i that
// is due to differences between hosts rather than noise (Higgins and
// Thompson, Statistics in Medicine 21, 2002). Q's χ² test on k-1 degrees
// of freedom treats the v_i as known; estimated from a few runs a host
// they are not, and it rejects homogeneity too often (8% at 5% with 8+8
// runs a host). When every effect carries the degrees of freedom of its
// variance, the test is Welch's (Biometrika 38, 1951) for means with
// unequal variances instead: F = [Q/(k-1)] / [1 + 2(k-2)/(k²-1)·Λ],
// Λ = Σ (1 - w_i/Σw)²/ν_i, on k-1 and (k²-1)/(3Λ) degrees of freedom
// (statsmodels' anova_oneway(use_var="unequal") on raw groups).
//
// The reference (testdata/gen_meta.py) is statsmodels'
// stats.meta_analysis.combine_effects(method_re="chi2", use_t=True):
// "random effect" for the DerSimonian-Laird figures, "random effect wls"
// for Hartung-Knapp, test_homogeneity for Q.

// An Effect is one study's (host's) estimate of a change and its
// variance, on the log scale.
type Effect struct {
	Y, V float64 // estimate, squared standard error
	// DF is the degrees of freedom of V (0: unknown, taken as known).
	DF float64
}

// LogRatioEffect is the log ratio of the geometric means of b and a,
// mean(log b) - mean(log a), with its variance s²_logA/n_A + s²_logB/n_B
// and the Welch-Satterthwaite degrees of freedom of that variance.
// Each side needs at least 2 positive values; ok is false otherwise, or
// when both sides have no spread (the variance would be 0).
func LogRatioEffect(a, b []float64) (Effect, bool) {
	if len(a) < 2 || len(b) < 2 || !allPositive(a) || !allPositive(b) {
		return Effect{}, false
	}
	la, lb := logs(a), logs(b)
	ma, va := stat.MeanVariance(la, nil)
	mb, vb := stat.MeanVariance(lb, nil)
	na, nb := float64(len(la)), float64(len(lb))
	v := va/na + vb/nb
	if !(v > 0) || math.IsInf(v, 0) {
		return Effect{}, false
	}
	df := v * v / ((va/na)*(va/na)/(na-1) + (vb/nb)*(vb/nb)/(nb-1))
	return Effect{Y: mb - ma, V: v, DF: df}, true
}

// A MetaResult is a random-effects combination of k effects.
type MetaResult struct {
	K int // effects combined

	// Estimate is μ, the mean change on the log scale; exp(Estimate) is
	// the ratio of geometric means B/A across hosts. [Lo, Hi] is its
	// interval at Confidence (Hartung-Knapp-Sidik-Jonkman, modified), SE
	// the standard error behind it, T = Estimate/SE, P the two-sided
	// p-value from Student's t on DF = K-1 degrees of freedom.
	Estimate, SE, Lo, Hi float64
	T, DF, P             float64
	Confidence           float64

	// SEDL is the DerSimonian-Laird standard error, SEHK the plain
	// Hartung-Knapp one; SE is the larger of the two.
	SEDL, SEHK float64
	// Tau2 is the between-host variance τ² (DerSimonian-Laird), on the
	// log scale.
	Tau2 float64
	// Q is Cochran's Q, QP its p-value (χ², K-1 degrees of freedom), I2
	// the share of variation due to heterogeneity, in [0, 1].
	Q, QP, I2 float64
	// HetP is the p-value of the test of "the change is the same on every
	// host": Welch's F (HetF on HetDF1, HetDF2 degrees of freedom) when
	// every effect has its DF, else QP (HetF NaN).
	HetP, HetF, HetDF1, HetDF2 float64
	// FixedEstimate is the inverse-variance (fixed-effect) mean.
	FixedEstimate float64
}

// RandomEffects combines effects (k >= 2, each with a positive finite
// variance) as the package comment says, with a two-sided interval at
// confidence.
func RandomEffects(effects []Effect, confidence float64) (MetaResult, error) {
	if !(confidence > 0 && confidence < 1) {
		panic(fmt.Sprintf("analysis: RandomEffects confidence %v outside (0, 1)", confidence))
	}
	k := len(effects)
	if k < 2 {
		return MetaResult{}, fmt.Errorf("analysis: a random-effects estimate needs at least 2 hosts, got %d: %w", k, ErrNoData)
	}
	var sw, swy, sw2 float64
	for i, e := range effects {
		if math.IsNaN(e.Y) || math.IsInf(e.Y, 0) || !(e.V > 0) || math.IsInf(e.V, 0) {
			return MetaResult{}, fmt.Errorf("analysis: effect %d is %v with variance %v: want a finite estimate with a positive finite variance", i, e.Y, e.V)
		}
		w := 1 / e.V
		sw += w
		swy += w * e.Y
		sw2 += w * w
	}
	fixed := swy / sw
	var q, lambda float64
	dfKnown := true
	for _, e := range effects {
		d := e.Y - fixed
		q += d * d / e.V
		if !(e.DF > 0) {
			dfKnown = false
		}
		u := 1 - 1/e.V/sw
		lambda += u * u / e.DF
	}
	df := float64(k - 1)
	tau2 := math.Max(0, (q-df)/(sw-sw2/sw))

	var swr, swry float64
	for _, e := range effects {
		w := 1 / (e.V + tau2)
		swr += w
		swry += w * e.Y
	}
	mu := swry / swr
	seDL := math.Sqrt(1 / swr)
	var hk float64
	for _, e := range effects {
		d := e.Y - mu
		hk += d * d / (e.V + tau2)
	}
	seHK := math.Sqrt(hk / df / swr)
	se := math.Max(seDL, seHK)

	r := MetaResult{K: k, Estimate: mu, SE: se, SEDL: seDL, SEHK: seHK, DF: df, Confidence: confidence,
		Tau2: tau2, Q: q, FixedEstimate: fixed}
	r.QP = distuv.ChiSquared{K: df}.Survival(q)
	if q > 0 {
		r.I2 = math.Max(0, (q-df)/q)
	}
	r.HetP, r.HetF, r.HetDF1, r.HetDF2 = r.QP, math.NaN(), df, math.Inf(1)
	if dfKnown {
		kk := float64(k)
		r.HetF = q / df / (1 + 2*(kk-2)/(kk*kk-1)*lambda)
		r.HetDF2 = (kk*kk - 1) / (3 * lambda)
		r.HetP = distuv.F{D1: df, D2: r.HetDF2}.Survival(r.HetF)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	r.T = mu / se
	r.P = math.Min(1, 2*t.Survival(math.Abs(r.T)))
	crit := t.Quantile((1 + confidence) / 2)
	r.Lo, r.Hi = mu-crit*se, mu+crit*se
	return r, nil
}
