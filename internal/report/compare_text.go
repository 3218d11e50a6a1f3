package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// countsText renders repetition counts: "5 ok, 1 failed".
func countsText(counts map[string]int) string {
	var st []string
	for _, s := range []string{results.StatusOK, results.StatusFailed, results.StatusTimeout, results.StatusInterrupted} {
		if counts[s] > 0 {
			st = append(st, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(st) == 0 {
		return "no repetitions"
	}
	return strings.Join(st, ", ")
}

// comparedWith says which sides are compared with which, as the text and
// Markdown reports head them.
func comparedWith(r *comparison.Comparison) string {
	if len(r.Sides) == 2 {
		return "B compared with A (the baseline)"
	}
	return fmt.Sprintf("each of B..%s compared with A (the baseline)", r.Sides[len(r.Sides)-1].Label)
}

// writeText renders r for people, in 80 columns.
func writeText(r *comparison.Comparison, w io.Writer) error {
	writeHead(r, w, Full)
	if r.BootUnit() {
		writeBootUnitText(r, w)
	} else {
		writeRunsText(r, w)
	}
	writeTextNotes(r, w)
	return nil
}

// writeHead writes what heads the text report in every detail: what is
// compared with what, the sides and their counts (at Full, the files a
// side pools, one a line; else one line a side), and the warnings that
// change how the rest reads (a different build, a known cause).
func writeHead(r *comparison.Comparison, w io.Writer, d Detail) {
	fmt.Fprintf(w, "%s: %s\n", r.Workload, comparedWith(r))
	t := &textfmt.Table{}
	t.AlignLeft(1, 2)
	failed := false
	for i, s := range r.Sides {
		name := s.Name
		switch {
		case len(s.Parts) > 1 && d != Full:
			name = pooledName(r, i)
		case len(s.Parts) > 1:
			name = fmt.Sprintf("%d files pooled", len(s.Parts))
		}
		t.Row("  "+s.Label, name, countsText(s.Counts))
		if len(s.Parts) > 1 && d == Full {
			for _, p := range s.Parts {
				t.Row("", "  "+p, "")
			}
		}
		if s.Counts[results.StatusOK] != total(s.Counts) {
			failed = true
		}
	}
	writeTable(w, t)
	if failed {
		fmt.Fprintln(w, "failed, timed-out and interrupted repetitions are counted, not compared")
	}
	if len(r.BuildDiffs) > 0 {
		textfmt.WriteWrapped(w, fmt.Sprintf("warning: contend was built differently for the sides: %s",
			strings.Join(r.BuildDiffs, ", ")), "  ")
	}
	for _, c := range r.Causes {
		textfmt.WriteWrapped(w, "warning: "+c, "  ")
	}
	fmt.Fprintln(w)
}

// writeTextNotes writes what follows the tables of the full text report:
// the warnings of the tests, outliers, the warnings of the comparison and
// the differences of parameters and environment.
func writeTextNotes(r *comparison.Comparison, w io.Writer) {
	if !r.BootUnit() {
		// With the boot as the unit, the warnings of the pooled tests
		// are of tests not shown (JSON keeps them under "pooled"), and
		// the boots that differ are in the per-boot table and the
		// variance components.
		for _, p := range r.Pairs {
			writePairWarnings(r, w, p)
		}
		writeWithin(r, w)
	}
	if len(r.Outliers) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Outliers (modified z-score above %g, 1%% or more from the median; kept):\n", analysis.OutlierThreshold)
		for i, o := range r.Outliers {
			if i == comparison.OutlierListMax {
				fmt.Fprintf(w, "  ... and %d more (--format json lists them all)\n", len(r.Outliers)-i)
				break
			}
			s := r.Sides[o.Side]
			m := r.Metric(o.Metric)
			textfmt.WriteWrapped(w, fmt.Sprintf("  %s %s %s: repetition %d of %s, z = %.1f",
				s.Label, o.Metric, units.Human(m.Unit, o.Value), o.Ord, o.Part, o.Z), "    ")
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
		for _, x := range r.Warnings {
			textfmt.WriteWrapped(w, "warning: "+x, "  ")
		}
	}
	if len(r.ParamDiffs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "warning: the parameters differ:")
		writeDiffs(r, w, r.ParamDiffs)
	}
	fmt.Fprintln(w)
	if len(r.EnvDiffs) == 0 {
		fmt.Fprintln(w, "Environment: no differences.")
	} else {
		fmt.Fprintln(w, "Environment differences:")
		writeDiffs(r, w, r.EnvDiffs)
	}
}

// writeRunsText writes the headlines, the boot lines and the tables of
// the report whose unit is the run (one boot a side, or files without
// boots), with their legend.
func writeRunsText(r *comparison.Comparison, w io.Writer) {
	for _, p := range r.Pairs {
		writeHeadlineText(w, HeadlineFor(r, p))
		writeReplication(w, p)
	}
	// Next to the headline, so that "+867.5% slower" is read with
	// "threads A 40, B 400" in view.
	writeParamNote(r, w)
	writeBoots(r, w)
	usedTilde, usedDash := false, false
	for _, p := range r.Pairs {
		fmt.Fprintln(w)
		prim, ev, same := splitEvidence(p)
		tilde, dash := writePairTable(r, w, prim)
		if t, d := writeEvidenceTable(r, w, ev, same); t || d {
			tilde, dash = tilde || t, dash || d
		}
		usedTilde = usedTilde || tilde
		usedDash = usedDash || dash
	}
	fmt.Fprintln(w)
	var legend []string
	if usedTilde {
		legend = append(legend, "~ no significant change.")
	}
	legend = append(legend, methodNote(r))
	legend = append(legend, estimatorNote(r))
	if usedDash {
		legend = append(legend, fmt.Sprintf("-: too few runs for an interval (the median needs %d).", r.MedianCIMin))
	}
	textfmt.WriteWrapped(w, strings.Join(legend, " "), "")

}

func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// writeTable writes t, cutting nothing: its callers keep it narrow.
func writeTable(w io.Writer, t *textfmt.Table) { t.Write(w) }

// methodNote says which test ran, how, and how p was adjusted.
func methodNote(r *comparison.Comparison) string {
	methods := map[string]bool{}
	var order []string
	for _, p := range r.Pairs {
		for _, row := range p.Rows {
			if row.Cmp != nil && !methods[row.Cmp.Method] {
				methods[row.Cmp.Method] = true
				order = append(order, row.Cmp.Method)
			}
		}
	}
	test := "Mann-Whitney U"
	if r.Options.Test == analysis.TestWelch {
		test = "Welch's t"
		order = nil
	}
	s := "p: two-sided " + test
	switch {
	case len(order) == 1:
		s += " (" + order[0] + ")"
	case len(order) > 1:
		s += " (exact; normal approximation where values tie)"
	}
	if len(r.Families) > 0 {
		s += "; " + strings.Join(r.Families, "; ")
	}
	s += "; alpha " + analysis.FormatAlpha(r.Options.Alpha)
	if r.Options.Threshold > 0 {
		s += fmt.Sprintf(", noise band %s", pctAbs(r.Options.Threshold))
	}
	return s + "."
}

// tableVerdict is the verdict in a table cell.
func tableVerdict(row comparison.MetricRow) string {
	if row.Cmp != nil && row.Cmp.Verdict == analysis.VerdictNoChange {
		return "~"
	}
	return VerdictWord(row)
}

// numRange renders [lo, hi] in scale s without the unit.
func numRange(s units.Scale, lo, hi float64) string {
	return "[" + s.Num(lo) + ", " + s.Num(hi) + "]"
}

// writePairTable writes the table of one pair: per metric a line of
// medians, change, p and verdict, and a line of their intervals. Metric
// names too long for the first column get a line of their own, so that
// the table fits textfmt.Width.
func writePairTable(r *comparison.Comparison, w io.Writer, p comparison.PairReport) (tilde, dash bool) {
	a, b := r.Sides[p.A], r.Sides[p.B]
	type line = namedRow
	var lines []line
	head := "metric"
	if len(r.Pairs) > 1 {
		head = b.Label + " vs " + a.Label
	}
	lines = append(lines, line{head, []string{a.Label, b.Label, "HL change", "p", "verdict"}})
	// With the boot as the unit the pooled runs are a description: their
	// p and verdict would treat the runs as independent (bootunit.go).
	describe := r.BootUnit()
	for _, row := range p.Rows {
		m := row.Metric
		ma, mb := row.MedianA, row.MedianB
		sc := rowScale(m.Unit, ma, mb)
		if row.Identical {
			lines = append(lines, line{m.Name, []string{sc.Format(ma), sc.Format(mb), "0", "-", "identical"}})
			continue
		}
		c := row.Cmp
		v := tableVerdict(row)
		tilde = tilde || v == "~"
		est, chg := ChangeCells(c, m.Unit)
		lines = append(lines, line{m.Name, []string{sc.Format(ma), sc.Format(mb), est, FormatP(c.AdjustedP), v}})
		ci := func(s analysis.Summary) string {
			if !s.HasCI {
				dash = true
				return "-"
			}
			return numRange(sc, s.MedianLo, s.MedianHi)
		}
		if chg == "" {
			chg = "-"
			dash = true
		}
		lines = append(lines, line{"", []string{ci(c.SummaryA), ci(c.SummaryB), chg, "", ""}})
	}
	if describe {
		for i := range lines {
			lines[i].cells = lines[i].cells[:3]
		}
	}
	width := make([]int, 5)
	for _, l := range lines {
		for i, c := range l.cells {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	rest := 0
	for _, x := range width {
		rest += x + 2
	}
	budget := textfmt.Width - rest
	writeNamedRows(w, lines, budget)
	return tilde, dash
}

// A namedRow is a table row whose first cell is a metric's name.
type namedRow struct {
	name  string
	cells []string
}

// writeNamedRows writes rows as a table whose first column is at most
// budget characters wide: a longer name gets a line of its own above its
// row, which then starts with an empty cell (the verdict column, the
// sixth, aligned left).
func writeNamedRows(w io.Writer, rows []namedRow, budget int) {
	t := &textfmt.Table{}
	t.AlignLeft(5)
	var own []string // names printed on a line of their own, by row
	for _, l := range rows {
		name := l.name
		if utf8.RuneCountInString(name) > budget {
			own = append(own, name)
			name = ""
		} else {
			own = append(own, "")
		}
		t.Row(append([]string{name}, l.cells...)...)
	}
	var buf bytes.Buffer
	t.Write(&buf)
	for i, text := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if own[i] != "" {
			fmt.Fprintln(w, own[i])
		}
		fmt.Fprintln(w, text)
	}
}

// writePairWarnings prints the warnings of the headline metric of p.
func writePairWarnings(r *comparison.Comparison, w io.Writer, p comparison.PairReport) {
	seen := map[string]bool{}
	for _, row := range p.Rows {
		if row.Cmp == nil {
			continue
		}
		if row.Metric.Name != r.Headline {
			// Of the other metrics, only a disagreement between the
			// medians and the printed estimate.
			if d := row.Cmp.Disagreement(); d != "" && !seen[d] {
				if len(seen) == 0 {
					fmt.Fprintln(w)
				}
				seen[d] = true
				textfmt.WriteWrapped(w, pairWarningPrefix(r, p, row)+d, "  ")
			}
			continue
		}
		c := row.Cmp
		disagree := c.Disagreement()
		for _, x := range c.Warnings {
			// A missing interval is shown as "-" and explained there;
			// the headline says when the medians disagree.
			if seen[x] || strings.Contains(x, "confidence interval") && (!c.SummaryA.HasCI || !c.SummaryB.HasCI || !c.HasChangeCI && !c.HasShiftCI) {
				continue
			}
			if x == disagree && row.Metric.Name == r.Headline {
				continue
			}
			if len(seen) == 0 {
				fmt.Fprintln(w)
			}
			seen[x] = true
			textfmt.WriteWrapped(w, pairWarningPrefix(r, p, row)+x, "  ")
		}
	}
}

// pairWarningPrefix starts a warning about row of pair p.
func pairWarningPrefix(r *comparison.Comparison, p comparison.PairReport, row comparison.MetricRow) string {
	if len(r.Pairs) > 1 {
		return fmt.Sprintf("warning: %s vs %s %s: ", r.Sides[p.B].Label, r.Sides[p.A].Label, row.Metric.Name)
	}
	return "warning: " + row.Metric.Name + ": "
}

// estimatorNote names the estimators behind the printed numbers and
// intervals: the medians by order statistics, the change by
// Hodges-Lehmann on log values, for metrics with values >= 0 and some 0
// the Hodges-Lehmann shift B-A in the metric's unit, and for metrics with
// negative values the Hodges-Lehmann shift over |median(A)|.
func estimatorNote(r *comparison.Comparison) string {
	var logMetrics, absMetrics, shiftMetrics, pointMetrics []string
	seen := map[string]bool{}
	for _, p := range r.Pairs {
		for _, row := range p.Rows {
			if row.Cmp == nil || seen[row.Metric.Name] {
				continue
			}
			seen[row.Metric.Name] = true
			switch row.Cmp.ChangeMethod {
			case analysis.RelShiftOverMedian:
				shiftMetrics = append(shiftMetrics, row.Metric.Name)
			case analysis.RelAbsShift:
				absMetrics = append(absMetrics, row.Metric.Name)
			case analysis.RelPoints:
				pointMetrics = append(pointMetrics, row.Metric.Name)
			default:
				logMetrics = append(logMetrics, row.Metric.Name)
			}
		}
	}
	s := fmt.Sprintf("A, B: medians, %s intervals by order statistics. HL change: Hodges-Lehmann estimate of B/A-1 and its %s interval", levelText(r.Options.Level()), levelText(r.Options.Level()))
	const abs = "the Hodges-Lehmann shift B-A and its interval, in the metric's unit (no ratio is defined at 0; a shift over median(A) could reach below -100%)"
	const shift = "the Hodges-Lehmann shift B-A over |median(A)|, median(A) taken as exact"
	var others []string
	if len(absMetrics) > 0 {
		others = append(others, "for "+strings.Join(absMetrics, ", ")+" (values >= 0, some 0): "+abs)
	}
	if len(shiftMetrics) > 0 {
		others = append(others, "for "+strings.Join(shiftMetrics, ", ")+" (values < 0): "+shift)
	}
	if len(pointMetrics) > 0 {
		others = append(others, "for "+pointsList(pointMetrics)+" (shares in %): the Hodges-Lehmann shift B-A and its interval in percentage points (pp), not a ratio")
	}
	switch {
	case len(others) == 0:
		s += ", on log values."
	default:
		if len(logMetrics) > 0 {
			s += ", on log values"
		}
		s += "; " + strings.Join(others, "; ") + "."
	}
	return s
}

// writeWithin prints the checks between the files of pooled sides.
func writeWithin(r *comparison.Comparison, w io.Writer) {
	first := true
	sep := func() {
		if first {
			fmt.Fprintln(w)
			first = false
		}
	}
	for _, c := range r.Within {
		m := r.Metric(c.Metric)
		sc := units.ScaleFor(m.Unit, c.MedianA)
		s := r.Sides[c.Side]
		switch {
		case c.Differ:
			sep()
			textfmt.WriteWrapped(w, fmt.Sprintf(
				"warning: side %s: %s differs between its files more than their noise allows (a between-boot effect?): median %s in %s, %s in %s, p=%s (U test, Holm over %d); pooling hides it",
				s.Label, c.Metric, sc.Format(c.MedianA), c.PartA, sc.Format(c.MedianB), c.PartB,
				FormatP(c.AdjustedP), len(r.Within)), "  ")
		case !c.CanTest && c.Separated && c.Metric == r.Headline:
			sep()
			textfmt.WriteWrapped(w, fmt.Sprintf(
				"note: side %s: the %s values of %s and %s do not overlap (medians %s and %s); too few runs per file to test whether the files differ",
				s.Label, c.Metric, c.PartA, c.PartB, sc.Format(c.MedianA), sc.Format(c.MedianB)), "  ")
		}
	}
}

// writeDiffs prints parameter or environment differences key by key: on
// one line when it fits, else one line per side.
func writeDiffs(r *comparison.Comparison, w io.Writer, diffs []comparison.Diff) {
	one := func(d comparison.Diff) string {
		var b strings.Builder
		for i, v := range d.Values {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(r.Sides[i].Label + " " + v)
		}
		return b.String()
	}
	keyw := 0
	for _, d := range diffs {
		if 2+len(d.Key)+2+utf8.RuneCountInString(one(d)) <= textfmt.Width {
			keyw = max(keyw, len(d.Key))
		}
	}
	for _, d := range diffs {
		l := "  " + d.Key + strings.Repeat(" ", max(0, keyw-len(d.Key))) + "  " + one(d)
		if utf8.RuneCountInString(l) <= textfmt.Width && len(d.Key) <= keyw {
			fmt.Fprintln(w, l)
			continue
		}
		fmt.Fprintln(w, "  "+d.Key)
		for i, v := range d.Values {
			textfmt.WriteWrapped(w, "    "+r.Sides[i].Label+" "+v, "      ")
		}
	}
}

// pointsList names the metrics compared in percentage points: all of
// them up to three, else the first two and how many more (a profile has
// hundreds of symbols).
func pointsList(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, %s and %d more", names[0], names[1], len(names)-2)
}
