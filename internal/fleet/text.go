package fleet

import (
	"fmt"
	"io"
	"math"
	"strings"

	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// Write writes the fleet report in format: text (also for markdown) or
// json.
func (fr *Report) Write(w io.Writer, format string) error {
	if format == "json" {
		return fr.writeJSON(w)
	}
	if format != "text" {
		return incompatible("--format %s: a fleet comparison (--by) is written as text or json", format)
	}
	m := fr.Headline
	fmt.Fprintf(w, "Fleet: %s, B against A on %s (--by %s)\n", m.Name, plural.N(len(fr.Rows), "group", "groups"), fr.By)
	fmt.Fprintln(w, fr.acrossLine())
	if l := fr.betweenLine(); l != "" {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, fr.directionLine())
	if len(fr.Untested) > 0 {
		var ns []string
		for _, h := range fr.Untested {
			ns = append(ns, h.Name)
		}
		fmt.Fprintf(w, "Not tested (too few runs): %s\n", strings.Join(ns, ", "))
	}
	if len(fr.Missing) > 0 {
		var ns []string
		for _, h := range fr.Missing {
			ns = append(ns, h.Name)
		}
		fmt.Fprintf(w, "Missing: %s\n", strings.Join(ns, ", "))
	}
	fmt.Fprintln(w)
	t := &textfmt.Table{}
	t.AlignLeft(0, 6)
	t.Row(fr.groupWord(), "n A/B", "median A", "median B", "HL change [95% CI]", "adj p", "verdict")
	for _, r := range fr.Rows {
		nA, nB := len(r.Report.Sides[0].Values(m.Name)), len(r.Report.Sides[1].Values(m.Name))
		if r.Row.Identical || r.Row.Cmp == nil {
			t.Row(r.Key, fmt.Sprintf("%d/%d", nA, nB), "", "", "", "", "identical")
			continue
		}
		c := r.Row.Cmp
		sc := units.ScaleFor(m.Unit, math.Max(math.Abs(c.SummaryA.Median), math.Abs(c.SummaryB.Median)))
		ci, rng := report.ChangeCells(c, m.Unit)
		if rng != "" {
			ci += " " + rng
		}
		verdict, p := report.VerdictWord(r.Row), report.FormatP(c.AdjustedP)
		if !fr.tested(r.Key) {
			verdict, p = "not tested", "-"
		}
		if opposite(c) {
			verdict += " *"
		}
		t.Row(r.Key, fmt.Sprintf("%d/%d", nA, nB),
			sc.Format(c.SummaryA.Median), sc.Format(c.SummaryB.Median), ci, p, verdict)
	}
	t.Write(w)
	nt := len(fr.Rows) - len(fr.Untested)
	fmt.Fprintf(w, "\nadj p: Holm over the %s tested. Each group's full report: 'contend compare' on its files.\n", plural.N(nt, fr.groupWord(), fr.groupWord()+"s"))
	if fr.Fleet != nil {
		fmt.Fprintf(w, "Across %ss: random effects over the %s (hosts as a factor): each %s's log ratio of geometric means B/A, DerSimonian-Laird between-%s variance, interval and p from the modified Hartung-Knapp method on t(%d); between %ss: Welch's test of equal changes, I² the share of their variation beyond noise.\n",
			fr.groupWord(), plural.N(fr.Fleet.K, fr.groupWord(), fr.groupWord()+"s"), fr.groupWord(), fr.groupWord(), fr.Fleet.K-1, fr.groupWord())
	}
	for _, r := range fr.Rows {
		if r.Row.Cmp != nil && opposite(r.Row.Cmp) {
			textfmt.WriteWrapped(w, fmt.Sprintf("* %s: the medians moved %s, the HL change is %s: they point opposite ways (the samples differ in shape); look at its distributions before reading its verdict.",
				r.Key, units.Percent(r.Row.Cmp.Change), units.Percent(r.Row.Cmp.Estimate)), "  ")
		}
	}
	for _, d := range fr.Disagree {
		fmt.Fprintf(w, "\n%s goes the other way (%s); its environment against %s:\n", d.Key,
			fr.directionWord(fr.rowSign(d.Key)), d.Reference)
		if len(d.Diffs) == 0 {
			fmt.Fprintln(w, "  no difference recorded: suspect noise or the load of the machine")
		}
		for _, df := range d.Diffs {
			textfmt.WriteWrapped(w, fmt.Sprintf("  %s: %s | %s", df.Key, df.Values[0], df.Values[1]), "    ")
		}
	}
	if len(fr.Untested) > 0 {
		fmt.Fprintln(w, "\nNot tested, and not counted:")
		for _, h := range fr.Untested {
			textfmt.WriteWrapped(w, "  "+h.Name+": "+h.Reason, "    ")
		}
	}
	if len(fr.Partial) > 0 {
		fmt.Fprintln(w, "\nHosts with partial results (compared with what they finished):")
		for _, h := range fr.Partial {
			textfmt.WriteWrapped(w, "  "+strings.TrimSpace(fmt.Sprintf("%s: %s %s", h.Name, h.Status, h.Reason)), "    ")
		}
	}
	if len(fr.Missing) > 0 {
		fmt.Fprintln(w, "\nHosts without results:")
		for _, h := range fr.Missing {
			textfmt.WriteWrapped(w, "  "+strings.TrimSpace(fmt.Sprintf("%s: %s %s", h.Name, h.Status, h.Reason)), "    ")
		}
	}
	return nil
}

// acrossLine is the fleet estimate in one line.
func (fr *Report) acrossLine() string {
	if fr.Fleet == nil {
		return fmt.Sprintf("Across %ss: no estimate: %s", fr.groupWord(), fr.FleetWhy)
	}
	f := fr.Fleet
	word := "no significant change"
	if f.P < fr.Alpha {
		word = fr.directionWord(map[bool]int{true: 1, false: -1}[f.Estimate > 0])
	}
	l := fmt.Sprintf("Across %ss: %s %s, %s (random effects over %s, ratio of geometric means): %s",
		fr.groupWord(), units.Percent(math.Expm1(f.Estimate)), report.PercentRange(math.Expm1(f.Lo), math.Expm1(f.Hi)), report.FormatPAt(f.P),
		plural.N(f.K, fr.groupWord(), fr.groupWord()+"s"), word)
	if fr.FleetWhy != "" {
		l += "; " + fr.FleetWhy
	}
	return l
}

// betweenLine says whether the change differs between the groups.
func (fr *Report) betweenLine() string {
	f := fr.Fleet
	if f == nil {
		return ""
	}
	tau := units.Percent(math.Expm1(math.Sqrt(f.Tau2)))
	if f.HetP < fr.Alpha {
		return fmt.Sprintf("Between %ss: the change DIFFERS (%s, I² %.0f%%, SD of the change between %ss about %s)",
			fr.groupWord(), report.FormatPAt(f.HetP), 100*f.I2, fr.groupWord(), strings.TrimPrefix(tau, "+"))
	}
	return fmt.Sprintf("Between %ss: no evidence that the change differs (%s, I² %.0f%%)", fr.groupWord(), report.FormatPAt(f.HetP), 100*f.I2)
}

// directionLine counts the tested groups by the direction of their
// significant change.
func (fr *Report) directionLine() string {
	n := len(fr.Rows) - len(fr.Untested)
	up, down := fr.count(1), fr.count(-1)
	none := n - up - down
	g := fr.groupWord()
	switch {
	case up == 0 && down == 0:
		return fmt.Sprintf("Direction: no significant change on any of the %s tested", plural.N(n, g, g+"s"))
	case up > 0 && down > 0:
		return fmt.Sprintf("Direction: DISAGREES: %s on %d and %s on %d of %d tested %ss, no significant change on %d",
			fr.directionWord(1), up, fr.directionWord(-1), down, n, g, none)
	}
	s, k := 1, up
	if down > 0 {
		s, k = -1, down
	}
	l := fmt.Sprintf("Direction: %s on %d of %d tested %ss, none significant the other way", fr.directionWord(s), k, n, g)
	if none > 0 {
		l += fmt.Sprintf(", no significant change on %d", none)
	}
	if !math.IsInf(fr.Lo, 0) {
		l += fmt.Sprintf(" (HL change from %s to %s)", units.Percent(fr.Lo), units.Percent(fr.Hi))
	}
	return l
}

func (fr *Report) groupWord() string {
	if fr.By == "host" {
		return "host"
	}
	return fr.By
}
