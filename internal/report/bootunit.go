package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/evidence"
	"contend/internal/plural"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// The boot as the unit of the verdict.
//
// When both sides of every pair span two or more boots (a campaign, or
// files from several boots), runs of one boot are not independent samples
// of a kernel, and a test that pools them rejects a true null hypothesis
// far more often than alpha (half of the time with a between-boot spread
// of 5% and a within-boot one of 2%). The report then takes the
// boot-level comparison (analysis.CompareBootMeans: Student's t on the
// per-boot means) as the headline and the verdict of every metric, in
// every format, and shows the pooled runs only as a description, said to
// treat runs as independent.

// bootHeading heads the boot-level table of b, naming its pair when the
// report has several.
func bootHeading(r *comparison.Comparison, b *comparison.BootLevel) string {
	pair := ""
	if len(r.Pairs) > 1 {
		pair = ", " + r.Sides[b.B].Label + " vs " + r.Sides[b.A].Label
	}
	return fmt.Sprintf("Boot level%s (the boot as the unit: %d+%d boots, %d+%d runs; the verdicts):", pair, b.Cmp.BootsA, b.Cmp.BootsB, b.Cmp.RunsA, b.Cmp.RunsB)
}

// bootVerdictWord is the verdict of a boot-level row in one word, as
// VerdictWord says it of pooled rows; "-" when it was not compared.
func bootVerdictWord(row *comparison.BootRow, timeLikeMetric bool) string {
	switch {
	case row == nil:
		return "-"
	case row.Identical:
		return "identical"
	case row.Cmp == nil:
		return "-"
	}
	switch row.Verdict {
	case analysis.VerdictBetter:
		if timeLikeMetric {
			return "faster"
		}
	case analysis.VerdictWorse:
		if timeLikeMetric {
			return "slower"
		}
	}
	return string(row.Verdict)
}

// FormatPAt renders "p=0.12" or "p<0.001".
func FormatPAt(p float64) string {
	if strings.HasPrefix(FormatP(p), "<") {
		return "p" + FormatP(p)
	}
	return "p=" + FormatP(p)
}

// bootMDEPhrase says which changes the boot-level test would have found.
func bootMDEPhrase(row *comparison.BootRow) string {
	if math.IsNaN(row.MDEUp) {
		return ""
	}
	if row.MDEUp >= 1 {
		// A doubling or more: percentages such as +172469% or -100%
		// say nothing; the factor does.
		return fmt.Sprintf("too few boots for this noise: %.0f%% power only against a factor of %.3g or more either way",
			100*comparison.BootPower, 1+row.MDEUp)
	}
	return fmt.Sprintf("%.0f%% power to detect +%s or -%s", 100*comparison.BootPower, pctAbs(row.MDEUp), pctAbs(row.MDEDown))
}

// bootHeadline is the one-line summary of pair p with the boot as the
// unit:
//
//	faultme time: 101 ms -> 99.8 ms, boot level -1.2% [-4.0%, +1.7%], p=0.35 (t on 4+4 boots, 40+40 runs): no significant change (80% power to detect +4.1% or -3.9%)
func bootHeadline(r *comparison.Comparison, p comparison.PairReport) string {
	row := r.BootRowOf(p, r.Headline)
	if row == nil || (row.Cmp == nil && !row.Identical) {
		return HeadlineFor(r, p)
	}
	m := r.Metric(r.Headline)
	b := r.BootLevelOf(p)
	ma, mb := row.MeanA, row.MeanB
	sc := units.ScaleFor(m.Unit, ma)
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s: %s -> %s, boot level", r.Workload, m.Name, sc.Format(ma), sc.Format(mb))
	if row.Identical {
		s.WriteString(": identical values")
		return s.String()
	}
	est, lo, hi := row.Change()
	fmt.Fprintf(&s, " %s %s, %s (t on %d+%d boots, %d+%d runs", units.Percent(est), PercentRange(lo, hi), FormatPAt(row.AdjustedP),
		len(b.BootsA), len(b.BootsB), row.Cmp.RunsA, row.Cmp.RunsB)
	if row.FamilySize > 1 {
		fmt.Fprintf(&s, ", Holm over %d", row.FamilySize)
	}
	s.WriteString("): ")
	switch row.Verdict {
	case analysis.VerdictNoChange:
		s.WriteString("no significant change")
		if ph := bootMDEPhrase(row); ph != "" {
			s.WriteString(" (" + ph + ")")
		}
	case analysis.VerdictWithinNoise:
		fmt.Fprintf(&s, "within noise (|change| < %s)", pctAbs(r.Options.Threshold))
	default:
		s.WriteString(bootVerdictWord(row, comparison.TimeLike(m)))
	}
	return s.String()
}

// writeHeadlineText writes a headline in 80 columns, broken before the
// test's parenthesis when it is too long.
func writeHeadlineText(w io.Writer, h string) {
	if utf8.RuneCountInString(h) > textfmt.Width {
		if i := strings.LastIndex(h, " ("); i > 0 && utf8.RuneCountInString(h[:i]) <= textfmt.Width {
			fmt.Fprintln(w, h[:i])
			textfmt.WriteWrapped(w, "  "+h[i+1:], "  ")
			return
		}
	}
	textfmt.WriteWrapped(w, h, "  ")
}

// writeBootUnitText is the text report when the boot is the unit: the
// boot-level headline, the boot-level table of every metric (the
// verdicts), the variance components and the next campaign, the per-boot
// table, then the pooled runs as a description.
func writeBootUnitText(r *comparison.Comparison, w io.Writer) {
	for _, p := range r.Pairs {
		writeHeadlineText(w, bootHeadline(r, p))
	}
	writeParamNote(r, w)
	usedTilde := false
	for _, p := range r.Pairs {
		b := r.BootLevelOf(p)
		la, lb := r.Sides[p.A].Label, r.Sides[p.B].Label
		fmt.Fprintln(w)
		textfmt.WriteWrapped(w, bootHeading(r, b), "  ")
		var prim, ev []comparison.BootRow
		same := 0
		for _, row := range b.Rows {
			switch {
			case !evidence.IsEvidence(row.Metric):
				prim = append(prim, row)
			case row.Identical:
				same++
			default:
				ev = append(ev, row)
			}
		}
		usedTilde = writeBootTable(r, w, p, prim) || usedTilde
		if len(ev) > 0 || same > 0 {
			fmt.Fprintln(w)
			textfmt.WriteWrapped(w, evidence.Title+":", "  ")
			usedTilde = writeBootTable(r, w, p, ev) || usedTilde
			if same > 0 {
				textfmt.WriteWrapped(w, plural.N(same, "more evidence metric is", "more evidence metrics are")+" the same in every repetition on both sides (mostly 0): not shown", "  ")
			}
		}
		fmt.Fprintln(w)
		lines := bootLines(b, la, lb)
		for _, l := range lines[2:] {
			textfmt.WriteWrapped(w, strings.TrimPrefix(l, "  "), "    ")
		}
	}
	fmt.Fprintln(w)
	var legend []string
	if usedTilde {
		legend = append(legend, "~ no significant change.")
	}
	legend = append(legend, bootMethodNote(r))
	textfmt.WriteWrapped(w, strings.Join(legend, " "), "")
	writePerBoot(r, w)
	for _, p := range r.Pairs {
		fmt.Fprintln(w)
		textfmt.WriteWrapped(w, "Runs pooled (a description: it treats the runs as independent, which runs of one boot are not; not the verdict):", "  ")
		prim, _, _ := splitEvidence(p)
		writePairTable(r, w, prim)
	}
	fmt.Fprintln(w)
	textfmt.WriteWrapped(w, estimatorNote(r), "")
}

// writeBootTable writes the boot-level rows of pair p: the centres of A
// and B, the change with its interval, p and the verdict. It reports
// whether a "~" was written.
func writeBootTable(r *comparison.Comparison, w io.Writer, p comparison.PairReport, rows []comparison.BootRow) (tilde bool) {
	if len(rows) == 0 {
		return false
	}
	a, b := r.Sides[p.A], r.Sides[p.B]
	type line = namedRow
	lines := []line{{"metric", []string{a.Label, b.Label, "change", "p", "verdict"}}}
	for _, row := range rows {
		m := r.Metric(row.Metric)
		switch {
		case row.Identical:
			sc := units.ScaleFor(m.Unit, row.Value)
			lines = append(lines, line{row.Metric, []string{sc.Format(row.Value), sc.Format(row.Value), "0", "-", "identical"}})
		case row.Cmp == nil:
			lines = append(lines, line{row.Metric, []string{"-", "-", "-", "-", "not compared: " + row.Reason}})
		default:
			ma, mb := row.MeanA, row.MeanB
			sc := units.ScaleFor(m.Unit, ma)
			v := bootVerdictWord(&row, comparison.TimeLike(m))
			if row.Verdict == analysis.VerdictNoChange {
				v, tilde = "~", true
			}
			est, lo, hi := row.Change()
			lines = append(lines, line{row.Metric, []string{sc.Format(ma), sc.Format(mb), units.Percent(est), FormatP(row.AdjustedP), v}},
				line{"", []string{"", "", PercentRange(lo, hi), "", ""}})
		}
	}
	width := make([]int, 5)
	for _, l := range lines {
		for i, c := range l.cells {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	budget := textfmt.Width
	for _, x := range width {
		budget -= x + 2
	}
	writeNamedRows(w, lines, budget)
	return tilde
}

// bootMethodNote says how the boot-level table was made.
func bootMethodNote(r *comparison.Comparison) string {
	var fams []string
	count := map[int]int{}
	for _, b := range r.Boots {
		for _, row := range b.Rows {
			if row.Cmp == nil {
				continue
			}
			switch {
			case r.Options.OneFamily:
				count[1]++
			case row.Metric == r.Headline:
				count[0]++
			case evidence.IsEvidence(row.Metric):
				count[2]++
			default:
				count[1]++
			}
		}
	}
	tests := func(n int) string { return plural.N(n, "test", "tests") }
	if n := count[0]; n > 0 {
		fams = append(fams, fmt.Sprintf("%s: Holm over %s", r.Headline, tests(n)))
	}
	if n := count[1]; n > 0 {
		what := "other metrics"
		if r.Options.OneFamily {
			what = "all metrics"
		}
		fams = append(fams, fmt.Sprintf("%s: Holm over %s together", what, tests(n)))
	}
	if n := count[2]; n > 0 {
		fams = append(fams, fmt.Sprintf("kernel evidence: Holm over %s together", tests(n)))
	}
	s := fmt.Sprintf("Boot level: each boot summarised by the mean of its log values; A, B: geometric means of the per-boot geometric means; change: their ratio -1 with its %.0f%% interval; p: two-sided Student's t on the per-boot means (boots_A + boots_B - 2 df; the REML mixed model's estimate for balanced boots); metrics with values <= 0: means of values, change over |mean of A|", comparison.Confidence*100)
	if len(fams) > 0 {
		s += "; " + strings.Join(fams, "; ")
	}
	s += "; alpha " + analysis.FormatAlpha(r.Options.Alpha)
	if r.Options.Threshold > 0 {
		s += fmt.Sprintf(", noise band %s", pctAbs(r.Options.Threshold))
	}
	return s + "."
}

// writePerBoot writes the per-boot table of the headline metric.
func writePerBoot(r *comparison.Comparison, w io.Writer) {
	rows := r.PerBoot
	if len(rows) == 0 {
		return
	}
	m := r.Metric(r.Headline)
	sc := units.ScaleFor(m.Unit, rows[0].Median)
	fmt.Fprintln(w)
	textfmt.WriteWrapped(w, fmt.Sprintf("Per boot (%s; spread: standard deviation over the mean; load: median 1-minute load average at its runs' starts):", r.Headline), "  ")
	t := &textfmt.Table{}
	t.AlignLeft(1, 2, 3)
	t.Row("boot", "side", "id", "kernel", "runs", "median", "spread", "settled", "load")
	for _, x := range rows {
		settle := "-"
		if x.Info != nil && x.Info.HasSettle {
			settle = fmt.Sprintf("%s at %.2f", seconds(x.Info.Settle.Seconds()), x.Info.SettleLoad)
		}
		spread, load := "-", "-"
		if !math.IsNaN(x.Spread) {
			spread = pctAbout(x.Spread)
		}
		if !math.IsNaN(x.Boot.Load) {
			load = fmt.Sprintf("%.2f", x.Boot.Load)
		}
		kernel := x.Boot.Kernel
		if kernel == "" {
			kernel = "-"
		}
		t.Row(fmt.Sprint(x.Number), x.Side, shortBootID(x.Boot.ID), kernel, fmt.Sprint(len(x.Boot.Values)), sc.Format(x.Median), spread, settle, load)
	}
	t.Write(w)
}

func shortBootID(id string) string { return textfmt.Cut(id, 8) }

// writeParamNote writes the note on differing parameters next to the
// headline.
func writeParamNote(r *comparison.Comparison, w io.Writer) {
	if len(r.ParamDiffs) == 0 {
		return
	}
	var ds []string
	for i, d := range r.ParamDiffs {
		if i == 3 {
			ds = append(ds, "...")
			break
		}
		var vs []string
		for j, v := range d.Values {
			vs = append(vs, r.Sides[j].Label+" "+v)
		}
		ds = append(ds, d.Key+": "+strings.Join(vs, ", "))
	}
	textfmt.WriteWrapped(w, "  note: the parameters differ ("+strings.Join(ds, "; ")+"): the change is partly theirs", "  ")
}

// jsonBootMetric is the boot-level part of a metric in the JSON format.
type jsonBootMetric struct {
	BootsA     int    `json:"boots_a"`
	BootsB     int    `json:"boots_b"`
	Scale      string `json:"scale"` // "log" or "shift"
	MeanA      Num    `json:"mean_a"`
	MeanB      Num    `json:"mean_b"`
	DF         Num    `json:"df"`
	SE         Num    `json:"se"`
	VarWithin  Num    `json:"var_within"`
	VarBetween Num    `json:"var_between"`
	Reason     string `json:"reason,omitempty"`
}

// jsonPooled is what the pooled runs said of a metric, in the JSON format
// of a boot-level report: it treats runs as independent.
type jsonPooled struct {
	Note      string   `json:"note"`
	Change    Num      `json:"change"`
	ChangeLo  Num      `json:"change_lo"`
	ChangeHi  Num      `json:"change_hi"`
	Estimator string   `json:"change_estimator"`
	P         Num      `json:"p"`
	PAdjusted Num      `json:"p_adjusted"`
	Method    string   `json:"method"`
	MDEUp     Num      `json:"mde_up"`
	MDEDown   Num      `json:"mde_down"`
	Verdict   string   `json:"verdict"`
	Warnings  []string `json:"warnings"`
}

const pooledNote = "runs pooled: treats the runs as independent, which runs of one boot are not; not the verdict"

// bootMetricData turns the metric j of pair p, as rowData made it from
// the pooled runs, into the boot-level one: change, p, MDE and verdict
// from the boot level, the pooled ones under "pooled".
func bootMetricData(r *comparison.Comparison, p comparison.PairReport, j MetricJSON) MetricJSON {
	row := r.BootRowOf(p, j.Metric)
	if row == nil {
		return j
	}
	j.Pooled = &jsonPooled{Note: pooledNote, Change: j.Change, ChangeLo: j.ChangeLo, ChangeHi: j.ChangeHi, Estimator: j.Estimator,
		P: j.P, PAdjusted: j.PAdjusted, Method: j.Method, MDEUp: j.MDEUp, MDEDown: j.MDEDown, Verdict: j.Verdict, Warnings: j.Warnings}
	j.Warnings = []string{}
	j.UnitOfAnalysis = "boot"
	b := r.BootLevelOf(p)
	bm := &jsonBootMetric{BootsA: len(b.BootsA), BootsB: len(b.BootsB), Reason: row.Reason}
	j.Boot = bm
	j.Verdict = bootVerdictWord(row, comparison.TimeLike(r.Metric(j.Metric)))
	nan := Num(math.NaN())
	j.CliffsDelta = nan
	if row.Identical {
		j.P, j.PAdjusted, j.MDE, j.MDEUp, j.MDEDown, j.FamilySize = nan, nan, nan, nan, nan, 0
		j.Method, j.Estimator = "", ""
		return j
	}
	c := row.Cmp
	if c == nil {
		j.Change, j.ChangeLo, j.ChangeHi, j.P, j.PAdjusted, j.MDE, j.MDEUp, j.MDEDown = nan, nan, nan, nan, nan, nan, nan, nan
		j.Method, j.Estimator, j.FamilySize = "", "", 0
		return j
	}
	bm.BootsA, bm.BootsB = c.BootsA, c.BootsB
	bm.Scale = "log"
	j.Estimator = "ratio of geometric means of per-boot geometric means"
	if c.Shift {
		bm.Scale = "shift"
		j.Estimator = "difference of means of per-boot means over |mean(A)|"
	}
	ma, mb := row.MeanA, row.MeanB
	bm.MeanA, bm.MeanB, bm.DF, bm.SE = Num(ma), Num(mb), Num(c.DF), Num(c.SE)
	bm.VarWithin, bm.VarBetween = Num(c.Components.Within), Num(c.Components.Between)
	est, lo, hi := row.Change()
	j.Change, j.ChangeLo, j.ChangeHi = Num(est), Num(lo), Num(hi)
	j.P, j.PAdjusted, j.FamilySize = Num(c.P), Num(row.AdjustedP), row.FamilySize
	j.Method = "Student t on per-boot means"
	j.MDEUp, j.MDEDown = Num(row.MDEUp), Num(row.MDEDown)
	j.MDE = Num(math.Max(row.MDEUp, row.MDEDown))
	return j
}

// jsonPerBoot is one boot of the per-boot table in the JSON format.
type jsonPerBoot struct {
	Boot       int    `json:"boot"`
	Side       string `json:"side"`
	BootID     string `json:"boot_id"`
	Kernel     string `json:"kernel,omitempty"`
	File       string `json:"file"`
	Runs       int    `json:"runs"`
	Metric     string `json:"metric"`
	Median     Num    `json:"median"`
	Spread     Num    `json:"spread"`
	Load       Num    `json:"load"`
	SettleS    Num    `json:"settle_s"`
	SettleLoad Num    `json:"settle_load"`
}

func perBootJSON(r *comparison.Comparison) []jsonPerBoot {
	var out []jsonPerBoot
	for _, x := range r.PerBoot {
		j := jsonPerBoot{Boot: x.Number, Side: x.Side, BootID: x.Boot.ID, Kernel: x.Boot.Kernel, File: x.Boot.Part,
			Runs: len(x.Boot.Values), Metric: r.Headline, Median: Num(x.Median), Spread: Num(x.Spread), Load: Num(x.Boot.Load),
			SettleS: Num(math.NaN()), SettleLoad: Num(math.NaN())}
		if x.Info != nil && x.Info.HasSettle {
			j.SettleS, j.SettleLoad = Num(x.Info.Settle.Seconds()), Num(x.Info.SettleLoad)
		}
		out = append(out, j)
	}
	return out
}

// bootCSVHeader is appended to the CSV header of a boot-level report.
var bootCSVHeader = []string{"unit_of_analysis", "boots_a", "boots_b", "pooled_change", "pooled_change_lo", "pooled_change_hi", "pooled_p", "pooled_p_adjusted", "pooled_verdict"}

// bootCSVCells are the cells of bootCSVHeader for metric j (made by
// bootMetricData).
func bootCSVCells(j MetricJSON) []string {
	if j.Pooled == nil {
		return make([]string, len(bootCSVHeader))
	}
	ba, bb := "", ""
	if j.Boot != nil {
		ba, bb = fmt.Sprint(j.Boot.BootsA), fmt.Sprint(j.Boot.BootsB)
	}
	p := j.Pooled
	return []string{"boot", ba, bb, csvNum(p.Change), csvNum(p.ChangeLo), csvNum(p.ChangeHi), csvNum(p.P), csvNum(p.PAdjusted), p.Verdict}
}

// writeBootMarkdown writes the Markdown report's body when the boot is
// the unit: the boot-level headline and table, the variance components
// and the plan, then the pooled runs as a description.
func writeBootMarkdown(r *comparison.Comparison, w io.Writer) {
	for _, p := range r.Pairs {
		fmt.Fprintf(w, "- **%s**\n", mdCell(bootHeadline(r, p)))
	}
	for _, p := range r.Pairs {
		a, b := r.Sides[p.A], r.Sides[p.B]
		bl := r.BootLevelOf(p)
		fmt.Fprintf(w, "\n%s\n", bootHeading(r, bl))
		fmt.Fprintf(w, "\n| metric | %s | %s | change | p | verdict |\n", a.Label, b.Label)
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|---|")
		evHead := false
		for _, row := range bl.Rows {
			m := r.Metric(row.Metric)
			if evidence.IsEvidence(m.Name) && !evHead {
				evHead = true
				fmt.Fprintf(w, "| **%s** | | | | | |\n", evidence.Title)
			}
			if row.Identical {
				if !evidence.IsEvidence(m.Name) {
					sc := units.ScaleFor(m.Unit, row.Value)
					fmt.Fprintf(w, "| %s | %s | %s | 0 | - | identical |\n", m.Name, sc.Format(row.Value), sc.Format(row.Value))
				}
				continue
			}
			if row.Cmp == nil {
				fmt.Fprintf(w, "| %s | - | - | - | - | not compared: %s |\n", m.Name, mdCell(row.Reason))
				continue
			}
			ma, mb := row.MeanA, row.MeanB
			sc := units.ScaleFor(m.Unit, ma)
			est, lo, hi := row.Change()
			fmt.Fprintf(w, "| %s | %s | %s | %s %s | %s | %s |\n", m.Name, sc.Format(ma), sc.Format(mb), units.Percent(est), PercentRange(lo, hi),
				FormatP(row.AdjustedP), bootVerdictWord(&row, comparison.TimeLike(m)))
		}
		fmt.Fprintln(w)
		for _, l := range bootLines(bl, a.Label, b.Label)[2:] {
			fmt.Fprintf(w, "- %s\n", mdCell(strings.TrimSpace(l)))
		}
	}
	fmt.Fprintf(w, "\n%s\n", bootMethodNote(r))
	for _, p := range r.Pairs {
		a, b := r.Sides[p.A], r.Sides[p.B]
		fmt.Fprintf(w, "\nRuns pooled (a description: it treats the runs as independent, which runs of one boot are not; not the verdict):\n")
		fmt.Fprintf(w, "\n| metric | %s | %s | HL change |\n", a.Label, b.Label)
		fmt.Fprintln(w, "|---|--:|--:|--:|")
		prim, _, _ := splitEvidence(p)
		for _, row := range prim.Rows {
			m := row.Metric
			ma, mb := row.MedianA, row.MedianB
			sc := units.ScaleFor(m.Unit, ma)
			if row.Identical {
				fmt.Fprintf(w, "| %s | %s | %s | 0 |\n", m.Name, sc.Format(ma), sc.Format(mb))
				continue
			}
			c := row.Cmp
			ci := func(s analysis.Summary) string {
				if !s.HasCI {
					return ""
				}
				return " " + numRange(sc, s.MedianLo, s.MedianHi)
			}
			chg := units.Percent(c.Estimate)
			if c.HasChangeCI {
				chg += " " + PercentRange(c.ChangeLo, c.ChangeHi)
			}
			fmt.Fprintf(w, "| %s | %s%s | %s%s | %s |\n", m.Name, sc.Format(ma), ci(c.SummaryA), sc.Format(mb), ci(c.SummaryB), chg)
		}
	}
	fmt.Fprintf(w, "\n%s\n", estimatorNote(r))
}
