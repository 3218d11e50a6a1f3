package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/units"
)

// Compare writes the comparison of sides[1:] against sides[0] to w in
// format (see CompareFormats).
func Compare(w io.Writer, sides []comparison.Side, opt comparison.Options, format string) error {
	r, err := comparison.Build(sides, opt)
	if err != nil {
		return err
	}
	return Write(w, r, format)
}

// CompareFormats are the formats Write accepts.
var CompareFormats = []string{"text", "markdown", "csv", "json", "bench"}

// Write renders r in format.
func Write(w io.Writer, r *comparison.Comparison, format string) error {
	switch format {
	case "", "text":
		return writeText(r, w)
	case "markdown":
		return writeMarkdown(r, w)
	case "csv":
		return writeCSV(r, w)
	case "json":
		return writeJSON(r, w)
	case "bench":
		return writeBench(r, w)
	}
	return fmt.Errorf("unknown format %q; one of %s", format, strings.Join(CompareFormats, ", "))
}

// VerdictWord is the verdict of row in one word or phrase: faster/slower
// for durations, better/worse, increase/decrease, "no significant
// change", "within noise", "too few runs", or "identical".
func VerdictWord(row comparison.MetricRow) string {
	if row.Identical {
		return "identical"
	}
	switch v := row.Cmp.Verdict; v {
	case analysis.VerdictBetter:
		if comparison.TimeLike(row.Metric) {
			return "faster"
		}
		return "better"
	case analysis.VerdictWorse:
		if comparison.TimeLike(row.Metric) {
			return "slower"
		}
		return "worse"
	default:
		return string(v)
	}
}

// TestName is the short name of the test for headlines.
func TestName(t analysis.Test) string {
	if t == analysis.TestWelch {
		return "Welch t"
	}
	return "U test"
}

// FormatP renders a p-value with two significant digits, "<0.001" below
// 0.001.
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.2g", p)
}

// PercentRange renders a relative interval as "[-47.1%, -38.0%]".
func PercentRange(lo, hi float64) string {
	return "[" + units.Percent(lo) + ", " + units.Percent(hi) + "]"
}

// ChangeCells returns the printed change of c, of a metric of unit, and
// its interval ("" when there is none): the Hodges-Lehmann relative
// change in percent, or, where every value is >= 0 and some is 0
// (analysis.RelAbsShift), the Hodges-Lehmann shift B-A in the metric's
// unit: no ratio is defined at 0, and the shift's interval over median(A)
// could fall below -100%, which a non-negative quantity cannot; or, for
// percentages (analysis.RelPoints: a profile's shares), the shift in
// percentage points, "+1.2 pp".
func ChangeCells(c *analysis.Comparison, unit string) (est, interval string) {
	if !c.ChangeMethod.Absolute() {
		if c.HasChangeCI {
			interval = PercentRange(c.ChangeLo, c.ChangeHi)
		}
		return units.Percent(c.Estimate), interval
	}
	if c.ChangeMethod == analysis.RelPoints {
		unit = "pp"
	}
	sc := rowScale(unit, c.SummaryA.Median, c.SummaryB.Median)
	if c.SummaryA.Median == 0 && c.SummaryB.Median == 0 {
		sc = units.ScaleFor(unit, c.Shift)
	}
	if c.HasShiftCI {
		interval = "[" + units.Signed(sc.Num(c.ShiftLo)) + ", " + units.Signed(sc.Num(c.ShiftHi)) + "]"
	}
	return units.Signed(sc.Format(c.Shift)), interval
}

// rowScale is the scale of a row of medians ma (of A) and mb: that of ma,
// or of mb where ma is 0 (a row of 0 ns against 35 ms is in ms).
func rowScale(unit string, ma, mb float64) units.Scale {
	if ma == 0 {
		return units.ScaleFor(unit, mb)
	}
	return units.ScaleFor(unit, ma)
}

// HeadlineFor is the one-line summary of the headline metric of pair p, as
// a person would write it in a mail: the medians of A and B, the
// Hodges-Lehmann estimate of the change with its interval (one estimator,
// so the estimate lies inside its interval), the test and the verdict:
//
//	faultme time: 11.30 s -> 6.61 s, HL -41.4% [-64.8%, -39.5%], p=0.016 (U test, n=5+4): faster
//
// A side that varies by more than analysis.UnstableCV, or a load above
// the online CPUs, is said beside the verdict (InstabilityNote). When the
// change of the medians and the estimate or the test disagree (see
// analysis.Comparison.Disagreement), the headline ends saying so.
func HeadlineFor(r *comparison.Comparison, p comparison.PairReport) string {
	var row comparison.MetricRow
	for _, x := range p.Rows {
		if x.Metric.Name == r.Headline {
			row = x
		}
	}
	m := row.Metric
	ma, mb := row.MedianA, row.MedianB
	sc := rowScale(m.Unit, ma, mb)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s -> %s", r.Workload, m.Name, sc.Format(ma), sc.Format(mb))
	if row.Identical {
		fmt.Fprintf(&b, " (n=%d+%d): identical values", row.NA, row.NB)
		return b.String()
	}
	c := row.Cmp
	if est, ci := ChangeCells(c, m.Unit); c.ChangeMethod.Absolute() && !math.IsNaN(c.Shift) {
		fmt.Fprintf(&b, ", HL shift %s", est)
		if ci != "" {
			fmt.Fprintf(&b, " %s", ci)
		}
	} else if !math.IsNaN(c.Estimate) && !math.IsInf(c.Estimate, 0) {
		fmt.Fprintf(&b, ", HL %s", est)
		if ci != "" {
			fmt.Fprintf(&b, " %s", ci)
		}
	}
	if lv := r.Options.Level(); lv != comparison.Confidence && (c.HasChangeCI || c.HasShiftCI) {
		fmt.Fprintf(&b, " (%s CI)", levelText(lv))
	}
	p1 := "p=" + FormatP(c.AdjustedP)
	if strings.HasPrefix(FormatP(c.AdjustedP), "<") {
		p1 = "p" + FormatP(c.AdjustedP)
	}
	fmt.Fprintf(&b, ", %s (%s, n=%d+%d", p1, TestName(c.Test), c.SummaryA.N, c.SummaryB.N)
	if c.FamilySize > 1 {
		fmt.Fprintf(&b, ", Holm over %d", c.FamilySize)
	}
	b.WriteString("): ")
	b.WriteString(verdictPhrase(row))
	if n := InstabilityNote(r, p); n != "" {
		b.WriteString(", " + n)
	}
	if d := c.Disagreement(); d != "" {
		b.WriteString("; " + d)
	}
	return b.String()
}

// verdictPhrase is the verdict of row as the end of a headline.
func verdictPhrase(row comparison.MetricRow) string {
	c := row.Cmp
	switch c.Verdict {
	case analysis.VerdictNoChange:
		if !math.IsNaN(c.MDEUp) {
			return "no significant change (" + mdePhrase(c) + ")"
		}
		return "no significant change"
	case analysis.VerdictWithinNoise:
		return fmt.Sprintf("within noise (|change| < %s)", pctAbs(c.Threshold))
	case analysis.VerdictTooFewRuns:
		return "too few runs to tell"
	}
	return VerdictWord(row)
}

// mdePhrase says which changes the test of c would have found: the
// minimum detectable increase and decrease at its power, for its test and
// Holm family (a planning figure, see analysis.MinDetectableChange).
func mdePhrase(c *analysis.Comparison) string {
	up, down := !math.IsInf(c.MDEUp, 1), !math.IsInf(c.MDEDown, 1)
	switch {
	case up && down:
		return fmt.Sprintf("%.0f%% power to detect +%s or -%s", 100*c.Power, pctAbs(c.MDEUp), pctAbs(c.MDEDown))
	case up:
		return fmt.Sprintf("%.0f%% power to detect +%s, no decrease", 100*c.Power, pctAbs(c.MDEUp))
	case down:
		return fmt.Sprintf("%.0f%% power to detect -%s, no increase", 100*c.Power, pctAbs(c.MDEDown))
	}
	return fmt.Sprintf("too noisy to detect any change with %.0f%% power", 100*c.Power)
}

// pctAbs renders a positive fraction as a percentage with two significant
// digits: 0.123 -> "12%", 0.0123 -> "1.2%".
func pctAbs(x float64) string {
	v := 100 * math.Abs(x)
	if v >= 10 {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.2g%%", v)
}

// levelText renders a coverage as a percentage: 0.95 "95%", 0.995
// "99.5%", 0.99388 "99.39%".
func levelText(level float64) string {
	return strconv.FormatFloat(100*level, 'g', 4, 64) + "%"
}
