// Package mmtests renders a comparison in the layout of mmtests'
// compare-mmtests.pl (the tables of compare-kernels.sh that mm and
// scheduler developers paste into their cover letters), column for column:
// the two header lines of run names, a row per summary statistic and
// operation, each side's value and its change against the baseline in
// parentheses, a star in place of the parentheses where the change is
// significant. The statistics of a row are mmtests' Multiops summary (Min,
// Hmean for a metric where higher is better and Amean otherwise, their
// standard deviations and coefficients of variation, Max, the mean of the
// best 95%), computed here as mmtests computes them, so that the same
// values give the same table.
//
// The package knows no comparison: a Table is filled by an adapter
// (internal/mmtestsblock) or by a test with mmtests' own data. Which cells
// get a star is the adapter's choice: contend's own test, or mmtests' band
// rule (BandsApart).
package mmtests

import (
	"math"
	"slices"
)

// zq is the standard normal's 97.5% quantile, R's qnorm(1-0.05/2): mmtests'
// interval of a mean is mean ± zq·SD.
const zq = 1.959963984540054

// Stat is one of the summary statistics of a Multiops table, in its
// order: each is a block of rows, one per operation.
type Stat int

// The statistics of mmtests' Multiops summary (setSummaryMultiops), in
// the order it prints them.
const (
	StatMin Stat = iota
	StatMean
	StatStddev
	StatCoeffVar
	StatMax
	StatBestMean // the mean of the best 95% of the values
	nStats
)

// Name is the statistic's row name, as mmtests names it for a metric where
// higher is better (higher) or not.
func (s Stat) Name(higher bool) string {
	h := map[bool]string{true: "H", false: "A"}[higher]
	switch s {
	case StatMin:
		return "Min"
	case StatMean:
		return h + "mean"
	case StatStddev:
		if higher {
			return "HStddev"
		}
		return "Stddev"
	case StatCoeffVar:
		if higher {
			return "HCoeffVar"
		}
		return "CoeffVar"
	case StatMax:
		return "Max"
	}
	return "B" + h + "mean.95"
}

// lowerIsBetterStat tells whether the statistic's change is computed as
// an improvement when it falls, whatever the metric's direction (spread).
func (s Stat) lowerIsBetterStat() bool { return s == StatStddev || s == StatCoeffVar }

// Summary is one side's statistics of one operation, by Stat.
type Summary [nStats]float64

// Summarise computes mmtests' Multiops statistics of values: the mean is
// the harmonic one where higher is better (NaN when a value is not
// positive), the arithmetic one otherwise; the standard deviation is the
// sample one (n-1) around the arithmetic mean, and around the harmonic one
// sqrt(Σ(1/x - 1/H)² · H⁴ / n) as mmtests has it; NaN with fewer than two
// values. The coefficient of variation is 0 where the mean or the
// deviation is not a number. The best 95% are the lowest values where
// lower is better, the highest otherwise (at least one).
func Summarise(values []float64, higher bool) Summary {
	var s Summary
	for i := range s {
		s[i] = math.NaN()
	}
	if len(values) == 0 {
		return s
	}
	x := slices.Clone(values)
	slices.Sort(x)
	if higher {
		slices.Reverse(x) // best first, as mmtests sorts them
	}
	s[StatMin], s[StatMax] = slices.Min(x), slices.Max(x)
	s[StatMean] = mean(x, higher)
	s[StatStddev] = stddev(x, s[StatMean], higher)
	sd, m := s[StatStddev], s[StatMean]
	if math.IsNaN(sd) {
		sd = 0
	}
	if math.IsNaN(m) {
		m = 0
	}
	s[StatCoeffVar] = 0
	if m != 0 {
		s[StatCoeffVar] = sd * 100 / m
	}
	k := max(len(x)*95/100, 1)
	s[StatBestMean] = mean(x[:k], higher)
	return s
}

func mean(x []float64, higher bool) float64 {
	sum := 0.0
	for _, v := range x {
		if higher {
			if v <= 0 {
				return math.NaN()
			}
			sum += 1 / v
		} else {
			sum += v
		}
	}
	if higher {
		return float64(len(x)) / sum
	}
	return sum / float64(len(x))
}

func stddev(x []float64, m float64, higher bool) float64 {
	n := float64(len(x))
	if math.IsNaN(m) || len(x) <= 1 {
		return math.NaN()
	}
	d := 0.0
	for _, v := range x {
		if higher {
			d += (1/v - 1/m) * (1/v - 1/m)
		} else {
			d += (v - m) * (v - m)
		}
	}
	if higher {
		return math.Sqrt(d * m * m * m * m / n)
	}
	return math.Sqrt(d / (n - 1))
}

// Change is mmtests' change of v against the baseline b in percent,
// positive where v is better: (v/b - 1)·100 where higher is better
// (pdiff), (1 - v/b)·100 otherwise (pndiff), with mmtests' conventions
// for zeros (0 where they are equal, 100 or -99 where one is 0).
func Change(v, b float64, higherBetter bool) float64 {
	if higherBetter {
		switch {
		case v == b || v == 0:
			return 0
		case b == 0:
			return 100
		}
		return v*100/b - 100
	}
	switch {
	case v == b:
		return 0
	case v == 0:
		return 100
	case b == 0:
		return -99
	}
	return 100 - v*100/b
}

// BandsApart is mmtests' significance rule (Compare.pm's cidiff since
// December 2024): the bands mean ± 1.96·SD of the two sides, SD the
// standard deviation of single values (not of the mean), do not overlap;
// where both deviations are 0 the means must differ by more than 1. A side
// whose band is not a number (fewer than two values) never differs. The
// band's half-width is rounded to 7 significant digits, as R prints the
// qnorm mmtests asks it for.
func BandsApart(base, next Summary) bool {
	qb, qn := halfBand(base[StatStddev]), halfBand(next[StatStddev])
	if math.IsNaN(qb) || math.IsNaN(qn) || math.IsNaN(base[StatMean]) || math.IsNaN(next[StatMean]) {
		return false
	}
	diff := next[StatMean] - base[StatMean]
	if qb+qn == 0 {
		return math.Abs(diff) > 1
	}
	return math.Abs(diff/(qb+qn)) > 1
}

func halfBand(sd float64) float64 {
	q := zq * sd
	if q == 0 || math.IsNaN(q) || math.IsInf(q, 0) {
		return q
	}
	e := math.Pow(10, 6-math.Floor(math.Log10(math.Abs(q))))
	return math.Round(q*e) / e
}
