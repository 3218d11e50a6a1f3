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
	rounds, pv := RoundsEquivalence(f, margin)
	if rounds > 0 {
		fmt.Fprintf(w, "within rounds, %s in each of %s:\n  %s\n", f.Primary, plural.N(rounds, "round", "rounds"), textfmt.WrapRest(pv.Text, 76, "  "))
		if pv.Kind != v.Kind && pv.Kind != VerdictNone && v.Kind != VerdictNone {
			fmt.Fprintln(w, textfmt.WrapRest("the verdicts differ: a change of the machine between rounds widens the first interval, not the rounds' (trust the rounds' then, unless a load came and went in step with the order AB BA); near the margin they can also differ by chance", 78, "  "))
		}
	}
	fmt.Fprintln(w, "ratio: contend / original, Hodges-Lehmann estimate on logs and its 95% CI;")
	fmt.Fprintln(w, "verdict: two one-sided tests at alpha 0.05 = the 90% CI inside 1 ± margin;")
	fmt.Fprintln(w, "within rounds: the same on the ratio within each round (its two runs a")
	fmt.Fprintln(w, "moment apart), the 90% CI of the Wilcoxon signed-rank test.")
	fmt.Fprintln(w, "maxrss: the original's is its own (started by a C launcher); contend's")
	fmt.Fprintln(w, "is at least the contend parent's RSS at exec ('contend help maxrss').")
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
	case analysis.WhyZeros:
		return Verdict{VerdictNone, "no verdict: some values are 0, and no ratio is defined at 0"}
	case analysis.WhyTooFew:
		return Verdict{VerdictNone, fmt.Sprintf("too few runs for a 90%% interval (have %d and %d); raise -n", len(a), len(b))}
	}
	return verdictWords(r, margin, "")
}

// RoundsEquivalence is analysis.PairedEquivalence of contend (config 0)
// against the original (config 1) on f's primary metric within each
// round that has both (File.PairDiffs), in words, and how many rounds
// there were (0: none, and no verdict).
func RoundsEquivalence(f *results.File, margin float64) (int, Verdict) {
	d, rel := f.PairDiffs(f.Primary)
	switch {
	case len(d) == 0:
		return 0, Verdict{VerdictNone, "no verdict: no round has a successful repetition of each side"}
	case !rel:
		return len(d), Verdict{VerdictNone, "no verdict: some values are 0 or below, and no ratio is defined there"}
	}
	for i := range d {
		d[i] = -d[i] // PairDiffs is ln(original/contend)
	}
	r := analysis.PairedEquivalence(d, margin)
	if r.Why == analysis.WhyTooFew {
		return len(d), Verdict{VerdictNone, fmt.Sprintf("too few rounds for a 90%% interval (have %d, need 5); raise -n", len(d))}
	}
	return len(d), verdictWords(r, margin, fmt.Sprintf(" (estimate %.3f)", r.Ratio))
}

// verdictWords says r, a verdict with an interval or an invalid input, in
// words; tail follows the interval.
func verdictWords(r analysis.EquivalenceResult, margin float64, tail string) Verdict {
	if r.Why == analysis.WhyInvalid {
		return Verdict{VerdictNone, "no verdict: " + r.Err.Error()}
	}
	in := fmt.Sprintf("90%% CI of the ratio [%.3f, %.3f]%s", r.Lo, r.Hi, tail)
	switch r.Verdict {
	case analysis.Equivalent:
		return Verdict{VerdictEquivalent, fmt.Sprintf("EQUIVALENT: the %s is inside [%.3f, %.3f]", in, 1-margin, 1+margin)}
	case analysis.NotEquivalent:
		return Verdict{VerdictDifferent, fmt.Sprintf("DIFFERENT: the %s is wholly outside [%.3f, %.3f]", in, 1-margin, 1+margin)}
	}
	return Verdict{VerdictNotEquivalent, fmt.Sprintf("NOT SHOWN EQUIVALENT: the %s crosses the margin [%.3f, %.3f]; more runs or a wider margin may settle it", in, 1-margin, 1+margin)}
}
