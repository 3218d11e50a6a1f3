package analysis

import "math"

// Moments are the sufficient statistics of a normal sample: its size,
// mean and sum of squared deviations from the mean (M2), kept by
// Welford's update so that samples can be added and taken out again
// without holding their values.
type Moments struct {
	N    int
	Mean float64
	M2   float64
}

// MomentsOf returns the moments of xs.
func MomentsOf(xs []float64) Moments {
	var m Moments
	for _, x := range xs {
		m.Add(x)
	}
	return m
}

// Add adds the value x.
func (m *Moments) Add(x float64) {
	m.N++
	d := x - m.Mean
	m.Mean += d / float64(m.N)
	m.M2 += d * (x - m.Mean)
}

// Merge returns the moments of the two samples together (Chan et al.).
func (m Moments) Merge(o Moments) Moments {
	switch {
	case o.N == 0:
		return m
	case m.N == 0:
		return o
	}
	n := m.N + o.N
	d := o.Mean - m.Mean
	return Moments{
		N:    n,
		Mean: m.Mean + d*float64(o.N)/float64(n),
		M2:   m.M2 + o.M2 + d*d*float64(m.N)*float64(o.N)/float64(n),
	}
}

// Remove returns the moments of m without the sample o, which must be
// part of it.
func (m Moments) Remove(o Moments) Moments {
	if o.N == 0 {
		return m
	}
	n := m.N - o.N
	if n <= 0 {
		return Moments{}
	}
	mean := (m.Mean*float64(m.N) - o.Mean*float64(o.N)) / float64(n)
	d := o.Mean - mean
	m2 := m.M2 - o.M2 - d*d*float64(n)*float64(o.N)/float64(m.N)
	return Moments{N: n, Mean: mean, M2: math.Max(m2, 0)}
}

// SD returns the sample standard deviation (n-1 in the denominator), NaN
// below two values.
func (m Moments) SD() float64 {
	if m.N < 2 {
		return math.NaN()
	}
	return math.Sqrt(m.M2 / float64(m.N-1))
}

// NormalMarginal is the log marginal likelihood of a normal sample with
// moments m, its mean and variance unknown, under the Jeffreys prior
// p(mu, sigma^2) ∝ 1/sigma^2 (an improper prior: only ratios of it are
// densities, as between hypotheses that split the same values into
// samples with their own mean and variance):
//
//	-(n-1)/2 log(2π) - ½ log n + lgamma((n-1)/2) - (n-1)/2 log(M2/2).
//
// It is NaN below two values or without spread.
func NormalMarginal(m Moments) float64 {
	if m.N < 2 || !(m.M2 > 0) {
		return math.NaN()
	}
	n := float64(m.N)
	lg, _ := math.Lgamma((n - 1) / 2)
	return -(n-1)/2*math.Log(2*math.Pi) - 0.5*math.Log(n) + lg - (n-1)/2*math.Log(m.M2/2)
}

// NormalPredictive returns the log density of a new sample with moments
// x under a normal distribution whose mean and variance are known only
// through the reference sample ref: the posterior predictive of the
// Jeffreys prior, a multivariate Student t with ref.N-1 degrees of
// freedom (for one value, the t with location ref.Mean and scale
// SD·sqrt(1+1/ref.N)). The error of estimating the distribution from
// ref.N values is carried into the density: few reference values give
// heavy tails, and the density of x depends on both its mean and its
// spread. ref needs at least two distinct values (M2 > 0), else the
// result is NaN; x at least one value.
//
// It is the exact joint log density of the values of x, which it depends
// on only through their moments.
func NormalPredictive(x, ref Moments) float64 {
	if ref.N < 2 || !(ref.M2 > 0) || x.N < 1 {
		return math.NaN()
	}
	return NormalMarginal(ref.Merge(x)) - NormalMarginal(ref)
}

// NormalMarginalPooled is the log marginal likelihood of two normal
// samples with moments a and b, each with its own unknown mean, sharing
// one unknown variance, under the Jeffreys prior p(mu_a, mu_b, sigma^2)
// ∝ 1/sigma^2: with n = a.N + b.N and S = a.M2 + b.M2,
//
//	-(n-2)/2 log(2π) - ½ log(a.N·b.N) + lgamma((n-2)/2) - (n-2)/2 log(S/2).
//
// Ratios of it between two splits of the same values into a and b are
// the Bayes factors of the splits (contend bisect's posterior over the
// culprit). It is NaN when a side is empty, below three values in all,
// or without spread.
func NormalMarginalPooled(a, b Moments) float64 {
	n := float64(a.N + b.N)
	s := a.M2 + b.M2
	if a.N < 1 || b.N < 1 || n < 3 || !(s > 0) {
		return math.NaN()
	}
	lg, _ := math.Lgamma((n - 2) / 2)
	return -(n-2)/2*math.Log(2*math.Pi) - 0.5*math.Log(float64(a.N)*float64(b.N)) + lg - (n-2)/2*math.Log(s/2)
}
