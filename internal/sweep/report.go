package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"contend/analysis"
	"contend/internal/evidence"
	"contend/internal/export"
	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// Report prints a sweep's per-point tables, fits and warnings to w, at
// a.Detail, in the width of the terminal w is (textfmt.Columns: 80 when
// w is none): a table wider than that is split into groups of columns,
// each starting with the points again (Table.WriteWidth), and text is
// wrapped between words.
func Report(w io.Writer, a *Analysis) {
	f := a.File
	width := textfmt.Columns(w, textfmt.Width)
	wrapped := func(text, indent string) {
		for _, l := range textfmt.Wrap(text, width, indent) {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "%s sweep over %s\n", f.Workload, strings.Join(a.Swept, ", "))
	if fixed := fixedParams(a); fixed != "" {
		fmt.Fprintf(w, "fixed: %s\n", fixed)
	}
	if f.Label != "" {
		fmt.Fprintf(w, "label: %s\n", f.Label)
	}
	if s := f.Sweep; s != nil {
		order := "in the points' order"
		if s.Order == OrderShuffled {
			order = fmt.Sprintf("shuffled (seed %d)", s.Seed)
		}
		fmt.Fprintf(w, "rounds: %d measured + %d warm-up, every point once per round\n", s.Rounds, s.WarmupRounds)
		fmt.Fprintf(w, "order within a round: %s\n", order)
	}
	if k := f.Env["kernel.release"]; k != "" {
		fmt.Fprintf(w, "kernel: %s, %s online CPUs\n", k, f.Env["cpu.online"])
	}
	fmt.Fprintln(w)

	head := "point"
	if len(a.Swept) == 1 {
		head = a.Swept[0]
	}
	name := func(p PointStat) string {
		if len(a.Swept) == 1 {
			return strings.TrimPrefix(p.Name, a.Swept[0]+"=")
		}
		return p.Name
	}

	// Primary metric.
	pm, _ := f.Metric(f.Primary)
	t := &textfmt.Table{}
	sc := scaleOf(a, pm)
	t.Row(head, "n", pm.Name+unitText(sc), "95% CI", "CV")
	for _, p := range a.Points {
		s, ok := p.Summaries[pm.Name]
		if !ok {
			t.Row(name(p), countText(p.Counts), "-", "-", "-")
			continue
		}
		t.Row(name(p), countText(p.Counts), bare(sc, s.Median), ciText(sc, s), cvText(s))
	}
	t.WriteWidth(w, width)

	// Throughput and speedup.
	if a.Throughput.Name != "" && a.Throughput.Name != pm.Name {
		fmt.Fprintln(w)
		t = &textfmt.Table{}
		sc := scaleOf(a, a.Throughput)
		cols := []string{head, a.Throughput.Name + unitText(sc), "95% CI", "speedup"}
		if a.Concurrency {
			cols = append(cols, "per "+singular(a.XParam.Unit))
		}
		t.Row(cols...)
		for _, p := range a.Points {
			if !p.HasThroughput {
				t.Row(name(p), "-", "-", "-")
				continue
			}
			row := []string{name(p), bare(sc, p.Throughput.Median), ciText(sc, p.Throughput), fmt.Sprintf("%.2fx", p.Speedup)}
			if a.Concurrency && p.X > 0 {
				row = append(row, bare(sc, p.Throughput.Median/p.X))
			}
			t.Row(row...)
		}
		t.WriteWidth(w, width)
		wrapped(fmt.Sprintf("medians; %s: %s", a.Throughput.Name, a.Throughput.Desc), "  ")
		wrapped(fmt.Sprintf("speedup: median throughput over that of %s", smallestName(a)), "  ")
	} else if a.Throughput.Name != "" && a.Smallest >= 0 {
		fmt.Fprintf(w, "throughput is %s; speedup against %s:", pm.Name, smallestName(a))
		for _, p := range a.Points {
			fmt.Fprintf(w, " %.2fx", p.Speedup)
		}
		fmt.Fprintln(w)
	}

	// Medians of the other metrics, then of the kernel evidence, columns
	// split to fit the width.
	var others, ev []results.Metric
	for _, m := range f.Metrics {
		if m.Name == pm.Name || m.Name == a.Throughput.Name || allZero(a, m.Name) {
			continue
		}
		if evidence.IsEvidence(m.Name) {
			ev = append(ev, m)
		} else {
			others = append(others, m)
		}
	}
	if a.Detail != report.Brief {
		writeMedians(w, a, head, name, "medians of the other metrics (all intervals: --format csv):", others, width)
		writeMedians(w, a, head, name, "kernel evidence per point, medians (k.sys.*: the whole machine):", ev, width)
	}

	fmt.Fprintln(w)
	if a.Detail == report.Full {
		WriteFits(w, a)
	} else {
		writeBriefFits(w, a, width)
	}
	if !a.WarningsShown {
		for _, x := range f.Warnings {
			wrapped("warning: "+x, "  ")
		}
	}
	printFailures(w, f)
	if a.Detail != report.Full {
		fmt.Fprintln(w)
		wrapped(briefCountText(a, len(others), len(ev)), "")
	}
}

// briefCountText is the last line of a brief sweep report: what it left
// out (the medians of others and of ev evidence metrics per point, the
// fits in full) and the flags that show it.
func briefCountText(a *Analysis, others, ev int) string {
	var s string
	if a.Detail == report.Brief && others+ev > 0 {
		var what []string
		if others > 0 {
			what = append(what, plural.N(others, "other metric", "other metrics"))
		}
		if ev > 0 {
			what = append(what, plural.N(ev, "kernel evidence metric", "kernel evidence metrics"))
		}
		s = "Not shown: the medians per point of " + strings.Join(what, " and ") + ". --all lists them; "
	}
	full := "--full adds"
	if a.Detail == report.Brief && others+ev > 0 {
		full += " them and"
	}
	if a.USL != nil || a.Amdahl != nil {
		full += " the fits in full (parameters with their standard errors, warnings)"
	} else {
		full += " nothing more"
	}
	if s == "" {
		return "With " + full + "."
	}
	return s + full + "."
}

// writeBriefFits writes each fit of a in one line (the USL's peak, or
// Amdahl's limit without a USL fit, and R^2), and why a fit is missing.
func writeBriefFits(w io.Writer, a *Analysis, width int) {
	wrapped := func(text, indent string) {
		for _, l := range textfmt.Wrap(text, width, indent) {
			fmt.Fprintln(w, l)
		}
	}
	poor := func(r2 float64, warns []string) string {
		s := fmt.Sprintf("R^2 = %.2f", r2)
		if math.IsNaN(r2) || r2 < analysis.FitPoorR2 {
			s += " (poor fit)"
		}
		if len(warns) > 0 {
			s += ", " + plural.N(len(warns), "warning", "warnings") + " (--full)"
		}
		return s
	}
	x := a.XParam.Name
	if u := a.USL; u != nil {
		var peak string
		switch {
		case u.Flat:
			peak = "flat, throughput does not depend on " + x
		case math.IsInf(u.PeakX, 1):
			peak = "no peak, grows in proportion to " + x
		case math.IsInf(u.PeakN, 1):
			peak = "no peak, rises towards " + units.Human(a.Throughput.Unit, u.PeakX)
		default:
			peak = fmt.Sprintf("peak %s at %s = %.3g", units.Human(a.Throughput.Unit, u.PeakX), x, u.PeakN)
		}
		wrapped(fmt.Sprintf("USL fit: %s (sigma %.3g, kappa %.3g); %s", peak, u.Sigma, u.Kappa, poor(u.R2, u.Warnings)), "  ")
	} else if m := a.Amdahl; m != nil {
		limit := "flat, throughput does not depend on " + x
		if !m.Flat {
			limit = "limit " + units.Human(a.Throughput.Unit, m.Asymptote)
		}
		wrapped(fmt.Sprintf("Amdahl fit: %s (serial fraction %.3g); %s", limit, m.Sigma, poor(m.R2, m.Warnings)), "  ")
	}
	for _, n := range a.FitNotes {
		wrapped("note: "+n, "  ")
	}
}

// writeMedians prints the medians of metrics per point under title, in
// groups of as many metrics as fit width (Table.WriteWidth).
func writeMedians(w io.Writer, a *Analysis, head string, name func(PointStat) string, title string, metrics []results.Metric, width int) {
	if len(metrics) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, title)
	t := &textfmt.Table{}
	row := []string{head}
	for _, m := range metrics {
		row = append(row, m.Name)
	}
	t.Row(row...)
	for _, p := range a.Points {
		row := []string{name(p)}
		for _, m := range metrics {
			s, ok := p.Summaries[m.Name]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, units.Human(m.Unit, s.Median))
		}
		t.Row(row...)
	}
	t.WriteWidth(w, width)
}

// WriteFits prints the USL and Amdahl fits of a, or why there are none,
// wrapped to the width of w's terminal (80 when none: textfmt.Columns).
func WriteFits(w io.Writer, a *Analysis) {
	var b strings.Builder
	writeFits(&b, a)
	io.WriteString(w, textfmt.Rewrap(b.String(), textfmt.Columns(w, textfmt.Width)))
}

// writeFits is WriteFits before its lines are wrapped.
func writeFits(w io.Writer, a *Analysis) {
	unit := a.Throughput.Unit
	hum := func(v float64) string {
		if math.IsInf(v, 1) {
			return "unbounded"
		}
		return units.Human(unit, v)
	}
	pm := func(v, se float64, f func(float64) string) string {
		if math.IsNaN(se) {
			return f(v) + " (no SE)"
		}
		return f(v) + " ± " + f(se)
	}
	// A throughput and its SE in the value's scale: "771.7 ± 129.4 k pages/s".
	pmu := func(v, se float64) string {
		if math.IsInf(v, 1) {
			return "unbounded"
		}
		sc := units.ScaleFor(unit, v)
		val := strings.TrimSuffix(sc.Format(v), " "+sc.Unit)
		if math.IsNaN(se) {
			return sc.Format(v) + " (no SE)"
		}
		return val + " ± " + sc.Format(se)
	}
	g := func(v float64) string { return fmt.Sprintf("%.4g", v) }
	x := a.XParam.Name
	if u := a.USL; u != nil {
		fmt.Fprintf(w, "USL fit, %d repetitions at %d values of %s (± one standard error):\n", u.Points, u.Levels, x)
		fmt.Fprintf(w, "  X(N) = lambda*N / (1 + sigma*(N-1) + kappa*N*(N-1)), N = %s\n", x)
		fmt.Fprintf(w, "  lambda  %s  throughput of one without contention\n", pmu(u.Lambda, u.LambdaSE))
		fmt.Fprintf(w, "  sigma   %s  contention (serialised fraction)\n", pm(u.Sigma, u.SigmaSE, g))
		fmt.Fprintf(w, "  kappa   %s  coherency (crosstalk)\n", pm(u.Kappa, u.KappaSE, g))
		switch {
		case u.Flat:
			fmt.Fprintf(w, "  peak    none: flat at %s, throughput does not depend on %s\n", hum(u.Lambda), x)
		case math.IsInf(u.PeakX, 1):
			fmt.Fprintf(w, "  peak    none (sigma = kappa = 0): grows in proportion to %s\n", x)
		case math.IsInf(u.PeakN, 1):
			fmt.Fprintf(w, "  peak    none (kappa = 0): rises towards %s\n", hum(u.PeakX))
		default:
			fmt.Fprintf(w, "  peak    N* = sqrt((1-sigma)/kappa) = %s, X(N*) = %s\n", pm(u.PeakN, u.PeakNSE, g), hum(u.PeakX))
		}
		fmt.Fprintf(w, "  fit     R^2 = %.4f (log throughput), residual SE %.1f%%\n", u.R2, u.ResidualSE*100)
		for _, s := range u.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", s)
		}
	}
	if m := a.Amdahl; m != nil {
		fmt.Fprintf(w, "Amdahl fit, X(N) = lambda*N / (1 + sigma*(N-1)):\n")
		fmt.Fprintf(w, "  lambda  %s\n", pmu(m.Lambda, m.LambdaSE))
		fmt.Fprintf(w, "  sigma   %s  serial fraction\n", pm(m.Sigma, m.SigmaSE, g))
		if m.Flat {
			fmt.Fprintf(w, "  limit   none: flat at %s, throughput does not depend on %s\n", hum(m.Lambda), x)
		} else {
			fmt.Fprintf(w, "  limit   lambda/sigma = %s\n", pmu(m.Asymptote, m.AsymptoteSE))
		}
		fmt.Fprintf(w, "  fit     R^2 = %.4f (log throughput), residual SE %.1f%%\n", m.R2, m.ResidualSE*100)
		for _, s := range m.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", s)
		}
	}
	for _, n := range a.FitNotes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// WriteCSV writes the per-point table of a as CSV: one row per point with
// the swept parameters, the repetition counts, the throughput (median, 95%
// CI, speedup) and for every metric its median, interval, mean, standard
// deviation, min and max, all in base units. Missing values are empty.
func WriteCSV(w io.Writer, a *Analysis) error {
	cw := csv.NewWriter(w)
	f := a.File
	head := []string{"point"}
	head = append(head, a.Swept...)
	head = append(head, "n", "ok")
	if a.Throughput.Name != "" {
		head = append(head, "throughput_unit", "throughput_median", "throughput_ci_lo", "throughput_ci_hi", "speedup")
	}
	var ms []results.Metric
	for _, m := range f.Metrics {
		if m.Name == a.Throughput.Name && a.Throughput.Name == ThroughputName {
			continue // already in the throughput columns
		}
		ms = append(ms, m)
	}
	for _, m := range ms {
		u := csvUnit(m.Unit)
		for _, s := range []string{"median", "ci_lo", "ci_hi", "mean", "stddev", "min", "max"} {
			head = append(head, m.Name+"_"+s+u)
		}
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	num := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for _, p := range a.Points {
		total := 0
		for _, n := range p.Counts {
			total += n
		}
		row := []string{p.Name}
		for _, s := range a.Swept {
			v, _ := f.ParamValue(p.Config, s)
			row = append(row, v)
		}
		row = append(row, strconv.Itoa(total), strconv.Itoa(p.Counts[results.StatusOK]))
		if a.Throughput.Name != "" {
			if p.HasThroughput {
				s := p.Throughput
				row = append(row, a.Throughput.Unit, num(s.Median), num(s.MedianLo), num(s.MedianHi), num(p.Speedup))
			} else {
				row = append(row, a.Throughput.Unit, "", "", "", "")
			}
		}
		for _, m := range ms {
			s, ok := p.Summaries[m.Name]
			if !ok {
				row = append(row, "", "", "", "", "", "", "")
				continue
			}
			row = append(row, num(s.Median), num(s.MedianLo), num(s.MedianHi), num(s.Mean), num(s.StdDev), num(s.Min), num(s.Max))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvUnit(u string) string {
	switch u {
	case "", "count", "ratio":
		return ""
	}
	return "_" + strings.NewReplacer("/", "_per_", " ", "_").Replace(u)
}

func fixedParams(a *Analysis) string {
	f := a.File
	var out []string
	for _, p := range f.Configs[0].Params {
		if contains(a.Swept, p.Name) {
			continue
		}
		d := p.Shown()
		out = append(out, p.Name+"="+d)
	}
	return strings.Join(out, " ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func smallestName(a *Analysis) string {
	if a.Smallest < 0 {
		return "-"
	}
	return a.Points[a.Smallest].Name
}

func allZero(a *Analysis, name string) bool {
	for _, p := range a.Points {
		if s, ok := p.Summaries[name]; ok && (s.Max != 0 || s.Min != 0) {
			return false
		}
	}
	return true
}

func countText(c map[string]int) string {
	total := 0
	for _, n := range c {
		total += n
	}
	if c[results.StatusOK] == total {
		return strconv.Itoa(total)
	}
	return fmt.Sprintf("%d/%d", c[results.StatusOK], total)
}

func ciText(sc units.Scale, s analysis.Summary) string {
	if !s.HasCI {
		return "n too small"
	}
	return "[" + bare(sc, s.MedianLo) + ", " + bare(sc, s.MedianHi) + "]"
}

// scaleOf picks one scale for metric m over all points (by the largest
// median), so that a column shares its unit.
func scaleOf(a *Analysis, m results.Metric) units.Scale {
	ref := 0.0
	for _, p := range a.Points {
		if s, ok := p.Summaries[m.Name]; ok {
			ref = math.Max(ref, math.Abs(s.Median))
		}
	}
	return units.ScaleFor(m.Unit, ref)
}

// bare formats v in scale sc without the unit.
func bare(sc units.Scale, v float64) string {
	return strings.TrimSuffix(sc.Format(v), " "+sc.Unit)
}

func unitText(sc units.Scale) string {
	if sc.Unit == "" {
		return ""
	}
	return " (" + sc.Unit + ")"
}

func cvText(s analysis.Summary) string {
	if s.N < 2 || s.Mean == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", s.CV*100)
}

func printFailures(w io.Writer, f *results.File) {
	seen := map[string]int{}
	var order []string
	for _, r := range f.Reps {
		if r.Status == results.StatusOK || r.Warmup {
			continue
		}
		key := f.ConfigName(r.Config) + ": " + r.Status + " " + r.Error
		if seen[key] == 0 {
			order = append(order, key)
		}
		seen[key]++
	}
	for _, e := range order {
		fmt.Fprintf(w, "failed (%dx) %s\n", seen[e], e)
	}
}

// singular turns a unit such as "threads" or "processes" into "thread" or
// "process".
func singular(unit string) string {
	if u, ok := strings.CutSuffix(unit, "sses"); ok {
		return u + "ss"
	}
	return strings.TrimSuffix(unit, "s")
}

// WriteFormat writes the sweep of f in format: the file as show --format
// json prints it (json), the per-point table (csv), else the report of
// its analysis at detail d, with its warnings unless quiet.
func WriteFormat(w io.Writer, f *results.File, format string, d report.Detail, quiet bool) error {
	a, err := Analyze(f)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		b, err := export.Marshal(f) // the document show --format json prints
		if err != nil {
			return err
		}
		w.Write(b)
	case "csv":
		return WriteCSV(w, a)
	default:
		a.WarningsShown, a.Detail = !quiet, d
		Report(w, a)
	}
	return nil
}
