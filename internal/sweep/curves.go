package sweep

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"contend/analysis"
	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// CurveOptions configures CompareCurves. The zero value compares the
// throughput (or, without one, the primary metric) with the defaults of
// analysis.Compare.
type CurveOptions struct {
	// Metric to compare point by point; "" means the throughput, or the
	// primary metric when the files have no throughput.
	Metric string
	// Compare holds the test, alpha, noise band and confidence; its Better
	// is taken from the metric.
	Compare analysis.CompareOptions
}

// PointChange is the comparison of one point present in both curves.
type PointChange struct {
	Name       string
	X          float64
	ConfA      int // config index in A
	ConfB      int // config index in B
	Comparison *analysis.Comparison
	Err        error // why there is no comparison (no successful repetition)
}

// ParamShift is the change of one fitted parameter from A to B.
type ParamShift struct {
	Name         string
	A, ASE       float64
	B, BSE       float64
	Diff, DiffSE float64 // B-A and sqrt(ASE^2+BSE^2), NaN when unknown
}

// CurveComparison is curve B against curve A.
type CurveComparison struct {
	Metric   results.Metric
	Points   []PointChange // points of A in A's order that B has too
	OnlyA    []string      // points of A missing in B
	OnlyB    []string      // points of B missing in A
	A, B     *Analysis
	USLShift []ParamShift // lambda, sigma, kappa, N*; nil without both USL fits
	// FitR2A and FitR2B are the R^2 of the two USL fits (with USLShift),
	// and PoorFit is true when either is below analysis.FitPoorR2 (or
	// unknown): a shift between poor fits describes neither curve.
	FitR2A, FitR2B float64
	PoorFit        bool
	Notes          []string
	Holm           bool // p-values adjusted across the points
	PointsUsed     int
}

// CompareCurveData compares sweep file b against sweep file a point by
// point (points matched by name, such as "threads=4"): the relative change
// of the metric's median with its interval and a p-value that is
// Holm-adjusted across the points, plus the shift of the fitted USL
// parameters and peak.
func CompareCurveData(a, b *results.File, opt CurveOptions) (*CurveComparison, error) {
	aa, err := Analyze(a)
	if err != nil {
		return nil, fmt.Errorf("side A: %w", err)
	}
	ab, err := Analyze(b)
	if err != nil {
		return nil, fmt.Errorf("side B: %w", err)
	}
	if a.Workload != b.Workload {
		return nil, fmt.Errorf("side A is a sweep of %s, side B of %s: not the same curve", a.Workload, b.Workload)
	}
	cc := &CurveComparison{A: aa, B: ab}
	name := opt.Metric
	if name == "" {
		name = aa.Throughput.Name
		if name == "" || aa.Throughput.Name != ab.Throughput.Name {
			name = a.Primary
		}
	}
	ma, okA := a.Metric(name)
	if _, okB := b.Metric(name); !okA || !okB {
		return nil, fmt.Errorf("metric %q is not in both files", name)
	}
	cc.Metric = ma
	copt := opt.Compare
	switch ma.Better {
	case "higher":
		copt.Better = analysis.HigherIsBetter
	case "lower":
		copt.Better = analysis.LowerIsBetter
	default:
		copt.Better = analysis.NoDirection
	}
	index := map[string]int{}
	for i := range b.Configs {
		index[b.ConfigName(i)] = i
	}
	seen := map[string]bool{}
	var live []*analysis.Comparison
	for i, p := range aa.Points {
		j, ok := index[p.Name]
		if !ok {
			cc.OnlyA = append(cc.OnlyA, p.Name)
			continue
		}
		seen[p.Name] = true
		pc := PointChange{Name: p.Name, X: p.X, ConfA: i, ConfB: j}
		xa, xb := a.Values(i, name), b.Values(j, name)
		c, err := analysis.Compare(xa, xb, copt)
		if err != nil {
			pc.Err = err
		} else {
			pc.Comparison = &c
			live = append(live, pc.Comparison)
		}
		cc.Points = append(cc.Points, pc)
	}
	for i := range b.Configs {
		if n := b.ConfigName(i); !seen[n] {
			cc.OnlyB = append(cc.OnlyB, n)
		}
	}
	if len(cc.Points) == 0 {
		return nil, errors.New("the two sweeps have no point in common")
	}
	if err := analysis.AdjustHolm(live); err != nil {
		return nil, err
	}
	cc.Holm = len(live) > 1
	cc.PointsUsed = len(live)
	if aa.USL != nil && ab.USL != nil && name == aa.Throughput.Name {
		u, v := aa.USL, ab.USL
		shift := func(n string, a, ase, b, bse float64) ParamShift {
			s := ParamShift{Name: n, A: a, ASE: ase, B: b, BSE: bse, Diff: b - a, DiffSE: math.Hypot(ase, bse)}
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				s.Diff, s.DiffSE = math.NaN(), math.NaN()
			}
			return s
		}
		cc.USLShift = []ParamShift{
			shift("lambda", u.Lambda, u.LambdaSE, v.Lambda, v.LambdaSE),
			shift("sigma", u.Sigma, u.SigmaSE, v.Sigma, v.SigmaSE),
			shift("kappa", u.Kappa, u.KappaSE, v.Kappa, v.KappaSE),
			shift("peak N*", u.PeakN, u.PeakNSE, v.PeakN, v.PeakNSE),
			shift("peak X*", u.PeakX, math.NaN(), v.PeakX, math.NaN()),
		}
		cc.FitR2A, cc.FitR2B = u.R2, v.R2
		cc.PoorFit = poorFit(u.R2) || poorFit(v.R2)
	} else if name == aa.Throughput.Name {
		for _, n := range aa.FitNotes {
			cc.Notes = append(cc.Notes, "A: "+n)
		}
		for _, n := range ab.FitNotes {
			cc.Notes = append(cc.Notes, "B: "+n)
		}
	}
	return cc, nil
}

// CompareCurves prints curve b against curve a (two sweep files) to w: per
// point the change of the throughput with its 95% interval and the
// Holm-adjusted p-value, then the shift of the USL parameters and of the
// peak. 'contend compare A B' calls it when both files are sweeps.
func CompareCurves(w io.Writer, a, b *results.File, opt CurveOptions) error {
	cc, err := CompareCurveData(a, b, opt)
	if err != nil {
		return err
	}
	m := cc.Metric
	fmt.Fprintf(w, "%s curve, B against A: %s (%s)\n", a.Workload, m.Name, m.Unit)
	fmt.Fprintf(w, "A: %s\n", fileTitle(a))
	fmt.Fprintf(w, "B: %s\n", fileTitle(b))
	fmt.Fprintln(w)
	// One scale for the whole table, named in the header, keeps rows short.
	ref := 0.0
	for _, p := range cc.Points {
		if p.Comparison != nil {
			ref = math.Max(ref, p.Comparison.SummaryA.Median)
		}
	}
	tsc := units.ScaleFor(m.Unit, ref)
	unit := strings.TrimSpace(tsc.Unit)
	num := func(v float64) string { return fmt.Sprintf("%.4g", v/tsc.Div) }
	t := &textfmt.Table{}
	t.AlignLeft(6)
	t.Row("point", "A "+unit, "B "+unit, "HL change", "95% CI", "p (Holm)", "verdict")
	var warn []string
	for _, p := range cc.Points {
		c := p.Comparison
		if c == nil {
			t.Row(p.Name, "-", "-", "-", "-", "-", p.Err.Error())
			continue
		}
		est, ci := report.ChangeCells(c, m.Unit)
		if ci == "" {
			ci = "-"
		}
		t.Row(p.Name, num(c.SummaryA.Median), num(c.SummaryB.Median), est, ci,
			fmt.Sprintf("%.3g", c.AdjustedP), string(c.Verdict))
		if c.Verdict == analysis.VerdictTooFewRuns && len(warn) == 0 {
			warn = append(warn, fmt.Sprintf("%s: %d and %d repetitions cannot reach significance; run more (-n)", p.Name, c.SummaryA.N, c.SummaryB.N))
		}
	}
	width := textfmt.Columns(w, textfmt.Width)
	wrapped := func(text string) {
		for _, l := range textfmt.Wrap(text, width, "  ") {
			fmt.Fprintln(w, l)
		}
	}
	t.WriteWidth(w, width)
	fmt.Fprintln(w, "A, B: medians; HL change: Hodges-Lehmann estimate of B/A-1 and its 95% CI")
	if cc.Holm {
		fmt.Fprintf(w, "p: %s, Holm-adjusted over %s\n", cc.Points[0].method(), plural.N(cc.PointsUsed, "point", "points"))
	}
	for _, n := range cc.OnlyA {
		fmt.Fprintf(w, "only in A: %s\n", n)
	}
	for _, n := range cc.OnlyB {
		fmt.Fprintf(w, "only in B: %s\n", n)
	}
	if len(cc.USLShift) > 0 {
		fmt.Fprintln(w)
		sc := units.ScaleFor(m.Unit, cc.USLShift[0].A)
		fmt.Fprintf(w, "USL fit shift (± one standard error; N* by the delta method; lambda\nand X* in %s):\n", strings.TrimSpace(sc.Unit))
		t := &textfmt.Table{}
		t.Row("parameter", "A", "±", "B", "±", "B-A", "±", "change")
		num := func(name string, v float64) string {
			if math.IsNaN(v) {
				return "-"
			}
			if name == "lambda" || name == "peak X*" {
				return fmt.Sprintf("%.4g", v/sc.Div)
			}
			return fmt.Sprintf("%.4g", v)
		}
		for _, s := range cc.USLShift {
			rel := "-"
			if s.A != 0 && !math.IsNaN(s.Diff) {
				rel = units.Percent(s.Diff / math.Abs(s.A))
			}
			t.Row(s.Name, num(s.Name, s.A), num(s.Name, s.ASE), num(s.Name, s.B), num(s.Name, s.BSE), num(s.Name, s.Diff), num(s.Name, s.DiffSE), rel)
		}
		t.Row("fit R^2", fmt.Sprintf("%.2f", cc.FitR2A), "", fmt.Sprintf("%.2f", cc.FitR2B), "", "", "", "")
		t.WriteWidth(w, width)
		if s := cc.USLShift[3]; !math.IsNaN(s.DiffSE) && s.DiffSE > 0 {
			fmt.Fprintf(w, "peak shift: %.2f standard errors\n", s.Diff/s.DiffSE)
		}
		if cc.PoorFit {
			wrapped("warning: " + poorFitText(cc))
		}
	}
	for _, n := range cc.Notes {
		wrapped("note: " + n)
	}
	for _, x := range warn {
		wrapped("warning: " + x)
	}
	return nil
}

func (p PointChange) method() string {
	if p.Comparison == nil {
		return ""
	}
	return p.Comparison.Test.String() + " (" + p.Comparison.Method + ")"
}

func fileTitle(f *results.File) string {
	var parts []string
	if f.Label != "" {
		parts = append(parts, f.Label)
	}
	if k := f.Env["kernel.release"]; k != "" {
		parts = append(parts, "kernel "+k)
	}
	parts = append(parts, f.Start.Format("2006-01-02 15:04"))
	return strings.Join(parts, ", ")
}

// poorFit tells whether a fit's R^2 is below analysis.FitPoorR2 or unknown.
func poorFit(r2 float64) bool { return math.IsNaN(r2) || r2 < analysis.FitPoorR2 }

// poorFitText says which fits are poor and what that makes of the shift.
func poorFitText(cc *CurveComparison) string {
	a, b := poorFit(cc.FitR2A), poorFit(cc.FitR2B)
	if a && b {
		return fmt.Sprintf("both fits are poor (R^2 %.2f and %.2f, below %g): the USL describes neither curve, so the shift of its parameters and peak says little; read the change point by point above", cc.FitR2A, cc.FitR2B, analysis.FitPoorR2)
	}
	side, r2 := "A", cc.FitR2A
	if b {
		side, r2 = "B", cc.FitR2B
	}
	return fmt.Sprintf("the fit of %s is poor (R^2 %.2f, below %g): the USL does not describe that curve, so the shift of its parameters and peak says little; read the change point by point above", side, r2, analysis.FitPoorR2)
}
