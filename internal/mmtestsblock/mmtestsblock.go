// Package mmtestsblock is the adapter of --format mmtests: it fills
// internal/mmtests' Table from internal/comparison's Comparison (the
// sides' names, each metric's values, the stars from contend's test or
// from mmtests' band rule) and writes the footer of what mmtests' columns
// cannot carry. internal/mmtests knows no comparison.
package mmtestsblock

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/esc"
	"contend/internal/evidence"
	"contend/internal/mmtests"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/units"
)

// Star rules: which cells of the mean rows get mmtests' star.
const (
	// StarContend: contend's own test of the row, Holm-adjusted, at the
	// comparison's alpha; in a campaign the boot is the unit.
	StarContend = "contend"
	// StarMmtests: mmtests' band rule (mmtests.BandsApart).
	StarMmtests = "mmtests"
)

// Stars are the values of --star.
var Stars = []string{StarContend, StarMmtests}

// Options say what the table shows.
type Options struct {
	// All shows every metric; by default the workload's own (not the
	// process's rusage, not the kernel evidence) with the headline.
	All bool
	// Star is StarContend (the default when empty) or StarMmtests.
	Star string
}

// Write writes r in mmtests' layout, with contend's footer.
func Write(w io.Writer, r *comparison.Comparison, opt Options) error {
	t, err := Build(r, opt)
	if err != nil {
		return err
	}
	return mmtests.Write(w, t)
}

// Build returns the table of r.
func Build(r *comparison.Comparison, opt Options) (mmtests.Table, error) {
	if opt.Star == "" {
		opt.Star = StarContend
	}
	var t mmtests.Table
	for i := range r.Sides {
		t.Names = append(t.Names, sideName(r, i))
	}
	rows := shownRows(r, opt.All)
	var starred []string
	for _, mi := range rows {
		m := r.Metrics[mi]
		higher := r.Pairs[0].Rows[mi].Direction == analysis.HigherIsBetter
		scale := scaleOf(m, r.Sides[0].Values(m.Name))
		row := mmtests.Row{Op: esc.Line(m.Name), Higher: higher, Star: make([]bool, len(r.Sides))}
		for si := range r.Sides {
			vals := r.Sides[si].Values(m.Name)
			sv := make([]float64, len(vals))
			for k, v := range vals {
				sv[k] = v / scale.Div
			}
			row.Values = append(row.Values, sv)
		}
		row.Precision = precision(r, m, row.Values[0])
		sums := make([]mmtests.Summary, len(row.Values))
		for si, v := range row.Values {
			sums[si] = mmtests.Summarise(v, higher)
		}
		for pi, p := range r.Pairs {
			mr := p.Rows[mi]
			if opt.Star == StarMmtests {
				row.Star[p.B] = mmtests.BandsApart(sums[p.A], sums[p.B])
			} else {
				row.Star[p.B] = contendStar(r, pi, mi, mr)
			}
			if row.Star[p.B] {
				starred = append(starred, starLine(r, pi, mi, mr, row, t.Names[p.B]))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	t.Footer = footer(r, opt, rows, starred)
	return t, nil
}

// shownRows are the indices into r.Metrics of the rows of the table.
func shownRows(r *comparison.Comparison, all bool) []int {
	var own, every []int
	for i, m := range r.Metrics {
		every = append(every, i)
		if m.Name == r.Headline || !(results.IsProcessMetric(m.Name) || evidence.IsEvidence(m.Name) || comparison.IsProfile(m.Name)) {
			own = append(own, i)
		}
	}
	if all || len(r.Options.Metrics) > 0 {
		return every
	}
	return own
}

// sideName is side i's run name: the mmtests name of an imported run, the
// kernel release where the sides' kernels differ, else the side's name
// (a file's without its directory and extension).
func sideName(r *comparison.Comparison, i int) string {
	env := func(i int, key string) string {
		parts := r.SideParts(i)
		if len(parts) == 0 {
			return ""
		}
		return comparison.PartEnv(parts[0])[key]
	}
	if n := env(i, mmtests.NameEnv); n != "" {
		return esc.Line(n)
	}
	if k := env(i, "kernel.release"); k != "" {
		differ := false
		for j := range r.Sides {
			differ = differ || env(j, "kernel.release") != k
		}
		if differ {
			return esc.Line(strings.ReplaceAll(k, " ", "_"))
		}
	}
	n := r.Sides[i].Name
	if strings.Contains(n, "/") || strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".json") {
		n = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(n), ".jsonl"), ".json")
	}
	return esc.Line(strings.ReplaceAll(n, " ", "_"))
}

// scaleOf is the scale a metric's values are printed in: times and sizes
// in the unit that fits the baseline's median, others as they are.
func scaleOf(m results.Metric, base []float64) units.Scale {
	if (m.Unit == "ns" || m.Unit == "bytes") && len(base) > 0 {
		s := units.ScaleFor(m.Unit, analysis.Median(base))
		if !strings.HasPrefix(s.Unit, "e") {
			return s
		}
	}
	return units.Scale{Div: 1, Unit: m.Unit}
}

// precision is the digits after the point of a metric's values: an
// imported run's own (mmtests' DecimalPlaces), else enough for four
// significant digits of the baseline's median, 2 at least (mmtests'
// default) and 8 at most.
func precision(r *comparison.Comparison, m results.Metric, base []float64) int {
	if parts := r.SideParts(0); len(parts) > 0 {
		var p int
		if _, err := fmt.Sscanf(comparison.PartEnv(parts[0])[mmtests.PrecisionEnv], "%d", &p); err == nil && p >= 0 && p <= 12 {
			return p
		}
	}
	if len(base) == 0 {
		return 2
	}
	a := math.Abs(analysis.Median(base))
	if a == 0 || math.IsNaN(a) || math.IsInf(a, 0) {
		return 2
	}
	return min(max(3-int(math.Floor(math.Log10(a))), 2), 8)
}

// bootRow is the boot-level row of metric mi of pair pi, when the sides
// span two or more boots each (a campaign: the boot is the unit).
func bootRow(r *comparison.Comparison, pi, mi int) (comparison.BootRow, bool) {
	p := r.Pairs[pi]
	for _, b := range r.Boots {
		if b.A == p.A && b.B == p.B && !b.OneBoot() && mi < len(b.Rows) {
			return b.Rows[mi], true
		}
	}
	return comparison.BootRow{}, false
}

// contendStar is contend's verdict on metric mi of pair pi: its
// Holm-adjusted p-value below alpha, the boot-level one in a campaign.
func contendStar(r *comparison.Comparison, pi, mi int, mr comparison.MetricRow) bool {
	if br, ok := bootRow(r, pi, mi); ok {
		return br.Cmp != nil && br.AdjustedP < r.Options.Alpha
	}
	return mr.Cmp != nil && !math.IsNaN(mr.Cmp.AdjustedP) && mr.Cmp.AdjustedP < r.Options.Alpha
}

// starLine is the footer's line of a starred cell: contend's change with
// its interval and p-value, said as better or worse.
func starLine(r *comparison.Comparison, pi, mi int, mr comparison.MetricRow, row mmtests.Row, name string) string {
	stat := mmtests.StatMean.Name(row.Higher)
	head := fmt.Sprintf("*  %s %s, %s:", stat, row.Op, name)
	if br, ok := bootRow(r, pi, mi); ok {
		if br.Cmp == nil {
			return head + " no boot-level comparison (" + br.Reason + ")"
		}
		est, lo, hi := br.Change()
		return fmt.Sprintf("%s %s [%s, %s] (ratio of the per-boot means, %d%% interval), adjusted p %s%s",
			head, units.Percent(est), units.Percent(lo), units.Percent(hi), int(math.Round(br.Cmp.Confidence*100)),
			pval(br.AdjustedP), verdict(est, mr.Direction))
	}
	c := mr.Cmp
	if c == nil {
		return head + " identical values"
	}
	level := int(math.Round(r.Options.Level() * 100))
	if c.ChangeMethod.Absolute() {
		u := row.Op
		if mr.Metric.Unit != "" {
			u = mr.Metric.Unit
		}
		if !c.HasShiftCI {
			return fmt.Sprintf("%s shift %g %s (Hodges-Lehmann; too few runs for its interval), adjusted p %s%s", head, c.Shift, u, pval(c.AdjustedP), verdict(c.Shift, mr.Direction))
		}
		return fmt.Sprintf("%s shift %g %s [%g, %g] (Hodges-Lehmann, %d%% interval), adjusted p %s%s",
			head, c.Shift, u, c.ShiftLo, c.ShiftHi, level, pval(c.AdjustedP), verdict(c.Shift, mr.Direction))
	}
	if !c.HasChangeCI {
		return fmt.Sprintf("%s %s (Hodges-Lehmann change; too few runs for its interval), adjusted p %s%s", head, units.Percent(c.Estimate), pval(c.AdjustedP), verdict(c.Estimate, mr.Direction))
	}
	return fmt.Sprintf("%s %s [%s, %s] (Hodges-Lehmann change, %d%% interval), adjusted p %s%s",
		head, units.Percent(c.Estimate), units.Percent(c.ChangeLo), units.Percent(c.ChangeHi), level, pval(c.AdjustedP), verdict(c.Estimate, mr.Direction))
}

// verdict says whether a change of the values is better or worse.
func verdict(change float64, d analysis.Direction) string {
	switch {
	case d == analysis.NoDirection || change == 0 || math.IsNaN(change):
		return ""
	case (change > 0) == (d == analysis.HigherIsBetter):
		return ", better"
	}
	return ", worse"
}

func pval(p float64) string {
	if p < 1e-4 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

// footer is what the columns cannot carry: each side's sample (runs, or
// boots and runs), the units, the rule of the stars and its family, and
// a line per starred cell.
func footer(r *comparison.Comparison, opt Options, rows []int, starred []string) []string {
	var f []string
	var sides []string
	for i, s := range r.Sides {
		n := plural.N(s.Count(r.Headline), "run", "runs")
		if k := sideBoots(r, i); k > 0 {
			n = fmt.Sprintf("%s (%s)", plural.N(k, "boot", "boots"), n)
		}
		sides = append(sides, fmt.Sprintf("%s %s", sideName(r, i), n))
	}
	f = append(f, "contend: n "+strings.Join(sides, ", ")+" of "+esc.Line(r.Headline))
	var us []string
	for _, mi := range rows {
		m := r.Metrics[mi]
		if u := scaleOf(m, r.Sides[0].Values(m.Name)).Unit; u != "" {
			us = append(us, esc.Line(m.Name)+" "+u)
		}
	}
	if len(us) > 0 {
		f = append(f, "units: "+strings.Join(us, ", "))
	}
	boots := false
	for _, b := range r.Boots {
		boots = boots || !b.OneBoot()
	}
	test := fmt.Sprintf("%s, Holm-adjusted (%s), alpha %g", r.Options.Test, strings.Join(r.Families, "; "), r.Options.Alpha)
	if boots {
		test = fmt.Sprintf("Student's t on the per-boot means (the boot is the unit), Holm-adjusted, alpha %g", r.Options.Alpha)
	}
	if opt.Star == StarMmtests {
		f = append(f, "star: mmtests' band rule, the bands mean ± 1.96·SD of single runs do not overlap (no test; contend's: --star contend); contend's test: "+test)
	} else {
		f = append(f, "star: contend's test, "+test+" (mmtests' band rule: --star mmtests)")
	}
	f = append(f, "change: positive is better, as mmtests prints it")
	if len(starred) == 0 {
		f = append(f, "no starred cell")
	}
	return append(f, starred...)
}

// sideBoots is the number of boots of side i where the boot is the unit
// of its comparison (both sides of a pair span two or more), else 0.
func sideBoots(r *comparison.Comparison, i int) int {
	for _, b := range r.Boots {
		switch {
		case b.OneBoot():
		case b.A == i:
			return len(b.BootsA)
		case b.B == i:
			return len(b.BootsB)
		}
	}
	return 0
}

// WriteAB writes the comparison of an ab file's sides a and b in mmtests'
// layout.
func WriteAB(w io.Writer, f *results.File, alpha float64, opt Options) error {
	sides := []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}
	r, err := comparison.Build(sides, comparison.Options{Alpha: alpha})
	if err != nil {
		return err
	}
	return Write(w, r, opt)
}
