package ab

import (
	"fmt"
	"strings"

	"contend/analysis"
)

// Sequential returns the stopping rule of an adaptive A/B run (--until
// precision, a relative half-width): the group-sequential Mann-Whitney
// test at level alpha over looks from minRuns to maxRuns pairs; nil for a
// fixed run (precision 0).
func Sequential(alpha float64, minRuns, maxRuns int, precision float64) (*analysis.Sequential, error) {
	if precision <= 0 {
		return nil, nil
	}
	return analysis.NewSequential(alpha, minRuns, maxRuns, precision)
}

// ReportAlpha is the level at which the comparison of an A/B run decides:
// alpha for a fixed run; after an adaptive one (its last decision d),
// the level of the last look, as the rule did. A look that could not
// decide anything (a stop for precision before the first testable look)
// gets a level no p-value of its sample sizes reaches: "too few runs".
func ReportAlpha(alpha float64, d *analysis.Decision) float64 {
	if d == nil {
		return alpha
	}
	if d.NominalAlpha != 0 {
		return d.NominalAlpha
	}
	return analysis.MannWhitneyMinP(max(d.NA, 1), max(d.NB, 1), analysis.TwoSided) / 2
}

// StopText is the adaptive decision d of rule seq in a few lines: why
// the run stopped, after how many pairs and values, and the design.
func StopText(d *analysis.Decision, seq *analysis.Sequential) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  (after %d of at most %d pairs", d.Reason, d.N, seq.MaxRuns)
	if d.NA != d.N || d.NB != d.N {
		fmt.Fprintf(&b, ", %d+%d successful runs", d.NA, d.NB)
	}
	fmt.Fprintf(&b, ";\n  %s,\n  keeping the false-positive rate at or below %s)", seq.Describe(), analysis.FormatAlpha(seq.Alpha))
	return b.String()
}
