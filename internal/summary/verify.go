package summary

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/evidence"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// WriteVerify prints the comparison of config 0 (contend) against config
// 1 (original) of f, and the equivalence verdict on the primary metric.
func WriteVerify(w io.Writer, f *results.File, margin float64) {
	fmt.Fprintf(w, "verify %s\n", f.Workload)
	for i, name := range []string{"contend", "original"} {
		counts := f.Counts(i)
		fmt.Fprintf(w, "  %-9s %s\n", name+":", ParamsText(f.Configs[i]))
		fmt.Fprintf(w, "  %-9s %d ok, %d failed, %d timed out\n", "", counts[results.StatusOK], counts[results.StatusFailed], counts[results.StatusTimeout])
	}
	fmt.Fprintln(w)
	t := &textfmt.Table{}
	t.Row("metric", "contend", "original", "ratio", "95% CI", "p")
	// The primary metric, then every metric both sides measured: the
	// original's own output (through the preset) and the process metrics.
	names := []string{f.Primary}
	for _, m := range f.Metrics {
		if m.Name != f.Primary {
			names = append(names, m.Name)
		}
	}
	var approx []string // metrics whose interval is not a ratio's (values below 0)
	var shifts []string // metrics whose interval is the difference's (values >= 0, some 0)
	zero := 0           // evidence metrics that are 0 in every repetition
	for _, n := range names {
		a, b := f.Values(1, n), f.Values(0, n)
		if len(a) == 0 || len(b) == 0 {
			continue
		}
		if evidence.IsEvidence(n) && allZero(a) && allZero(b) {
			zero++ // a collector that saw nothing (no lock events)
			continue
		}
		m, _ := f.Metric(n)
		ma, mb := analysis.Median(a), analysis.Median(b)
		ref := ma
		if ref == 0 {
			ref = mb // the original's 0 user time: contend's 17.60 ms, not 1.760e+07 ns
		}
		sc := units.ScaleFor(m.Unit, ref)
		ratio, ci, p := "-", "-", "-"
		if rc, err := analysis.RelativeChange(a, b, comparison.Confidence); err == nil && !math.IsNaN(rc.Estimate) {
			ratio = fmt.Sprintf("%.3f", 1+rc.Estimate)
			switch {
			case rc.HasCI:
				ci = fmt.Sprintf("[%.3f, %.3f]", 1+rc.Lo, 1+rc.Hi)
				if rc.Method == analysis.RelShiftOverMedian {
					ci += "*"
					approx = append(approx, n)
				}
			case rc.Method.Absolute() && rc.HasShiftCI:
				ci = "[" + units.Signed(sc.Num(rc.ShiftLo)) + ", " + units.Signed(sc.Num(rc.ShiftHi)) + "]†"
				shifts = append(shifts, n)
			}
		}
		if mw, err := analysis.MannWhitney(a, b, analysis.TwoSided); err == nil {
			p = fmt.Sprintf("%.3g", mw.P)
		}
		t.Row(n, sc.Format(mb), sc.Format(ma), ratio, ci, p)
	}
	t.Write(w)
	if zero > 0 {
		fmt.Fprintln(w, textfmt.WrapRest(plural.N(zero, "more evidence metric is", "more evidence metrics are")+" 0 in every repetition on both sides: not shown", 78, "  "))
	}
	if len(shifts) > 0 {
		fmt.Fprintln(w, textfmt.WrapRest("†: "+strings.Join(shifts, ", ")+" had values of 0, where no ratio is defined: the interval is of the difference contend - original (Hodges-Lehmann), in the unit of the row's medians", 78, "  "))
	}
	if len(approx) > 0 {
		fmt.Fprintln(w, textfmt.WrapRest("*: "+strings.Join(approx, ", ")+" had values below 0, so the interval is of the shift divided by the original's median, not of a ratio: it can reach below 0 and is only a rough guide (a bound below 0 means: unknown)", 78, "  "))
	}
	fmt.Fprintln(w)
	v := Equivalence(f.Values(1, f.Primary), f.Values(0, f.Primary), margin)
	fmt.Fprintf(w, "verdict on %s, margin ±%s:\n  %s\n", f.Primary, trimPct(margin), textfmt.WrapRest(v.Text, 76, "  "))
	fmt.Fprintln(w, "ratio: contend / original, Hodges-Lehmann estimate on logs and its 95% CI;")
	fmt.Fprintln(w, "verdict: two one-sided tests at alpha 0.05 = the 90% CI inside 1 ± margin.")
	fmt.Fprintln(w, "maxrss: the original's is its own (started by a C launcher); contend's")
	fmt.Fprintln(w, "includes its Go runtime and the parent's RSS at exec ('contend help maxrss').")
}

// allZero says whether every value of xs is 0.
func allZero(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}

// ParamsText is the parameters of c as NAME=VALUE words (Display forms).
func ParamsText(c results.Config) string {
	var ps []string
	for _, p := range c.Params {
		d := p.Shown()
		ps = append(ps, p.Name+"="+d)
	}
	return strings.Join(ps, " ")
}

func trimPct(x float64) string { return strconv.FormatFloat(x*100, 'g', 4, 64) + "%" }

// Verdicts of the verify report: the first words of Verdict.Text.
const (
	VerdictNone          = "no verdict"
	VerdictEquivalent    = "EQUIVALENT"
	VerdictDifferent     = "DIFFERENT"
	VerdictNotEquivalent = "NOT SHOWN EQUIVALENT"
)

// Verdict is analysis.Equivalence's decision in words: Kind is one of the
// Verdict constants, Text says it in a sentence with the interval.
type Verdict struct {
	Kind string
	Text string
}

// Equivalence is analysis.Equivalence of b (contend) against a (the
// original) within ±margin, in words.
func Equivalence(a, b []float64, margin float64) Verdict {
	r := analysis.Equivalence(a, b, margin)
	switch r.Why {
	case analysis.WhyNoData:
		return Verdict{VerdictNone, "no verdict: a side has no successful repetition"}
	case analysis.WhyInvalid:
		return Verdict{VerdictNone, "no verdict: " + r.Err.Error()}
	case analysis.WhyZeros:
		return Verdict{VerdictNone, "no verdict: some values are 0, and no ratio is defined at 0"}
	case analysis.WhyTooFew:
		return Verdict{VerdictNone, fmt.Sprintf("too few runs for a 90%% interval (have %d and %d); raise -n", len(a), len(b))}
	}
	in := fmt.Sprintf("90%% CI of the ratio [%.3f, %.3f]", r.Lo, r.Hi)
	switch r.Verdict {
	case analysis.Equivalent:
		return Verdict{VerdictEquivalent, fmt.Sprintf("EQUIVALENT: the %s is inside [%.3f, %.3f]", in, 1-margin, 1+margin)}
	case analysis.NotEquivalent:
		return Verdict{VerdictDifferent, fmt.Sprintf("DIFFERENT: the %s is wholly outside [%.3f, %.3f]", in, 1-margin, 1+margin)}
	}
	return Verdict{VerdictNotEquivalent, fmt.Sprintf("NOT SHOWN EQUIVALENT: the %s crosses the margin [%.3f, %.3f]; more runs or a wider margin may settle it", in, 1-margin, 1+margin)}
}
