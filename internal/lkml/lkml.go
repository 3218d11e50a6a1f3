// Package lkml renders a comparison in the kernel test robot's layout: the
// block of its regression reports (lkp-tests' lib/compare.rb,
// show_group_header, show_perf_header and show_perf_change), column for
// column, so that a reply to a robot mail can quote contend's figures in the
// form the thread already reads. What the robot's block lacks (how many
// runs, which test, an error rate, an interval) follows in a footer below
// the block that leaves its columns alone.
//
// The package knows no result file: a Block is filled by an adapter
// (cmd/contend's lkml.go) from a comparison, and by contend reproduce with
// the rows of a robot mail.
package lkml

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"contend/internal/plural"
	"contend/internal/textfmt"
)

// The robot's column widths (lib/compare.rb): a mean is ABSWidth wide, its
// "± N%" ERRWidth, a change RELWidth (and a space).
const (
	ABSWidth = 10
	RELWidth = 10
	ERRWidth = 6
	// FirstWidth is the base side's column (its id is cut to it): 16.
	FirstWidth = ABSWidth + ERRWidth
	// Width is each other side's column (its id is cut to it): 27.
	Width = FirstWidth + RELWidth + 1
)

// Rule is the '=' line that opens a group.
var Rule = strings.Repeat("=", 89)

// Axis is one key of the axes line and its value ("nr_task", "100%").
type Axis struct{ Key, Value string }

// Side is one column of the block: its id (a commit, a kernel release, a
// file), what the commit: line says of it, and its sample's size and unit
// (runs or boots) for the footer.
type Side struct {
	ID    string
	Label string
	N     int
	Unit  string // "runs" or "boots"
}

// Stats are one side's figures of one row: the mean, the sample standard
// deviation (n-1, as contend's summaries have it) and the sample's size.
// The "± N%" column is the robot's: lkp-tests' standard_deviation divides
// by n (lib/statistics.rb), so the column converts (stddev).
type Stats struct {
	Mean, StdDev float64
	N            int
}

// Row is one stat of the block, base side first.
type Row struct {
	Stat string // the robot's name where it means the same (will-it-scale.per_thread_ops), else contend.NAME
	Base Stats
	New  Stats
	// Percent makes %change an absolute difference, as the robot does for
	// stats in percent (a name ending in %, perf-profile.*).
	Percent bool
	// Changed rows are shown; the others only with Block.All, or when
	// Keep is set (the headline metric of a comparison).
	Changed, Keep bool
	// contend's figures for the footer: the p-value before and after
	// Holm's adjustment, the Hodges-Lehmann change (a fraction, or an
	// absolute shift for Percent rows) and its interval.
	P, AdjustedP   float64
	HL, HLLo, HLHi float64
	HasCI          bool
	// FixedChange prints Change as the %change column instead of the
	// change of the means (a quoted robot row: the robot's own figure,
	// computed from means it rounded).
	FixedChange bool
	Change      float64
	// Quote, when set, is the robot's own row for this stat (reproduce):
	// printed above contend's as a mail quote, "> " and the robot's line.
	Quote *Row
}

// Block is one comparison in the robot's layout.
type Block struct {
	Axes []Axis // sorted by key when written, as the robot's are
	// CompareKey names what the sides differ in, the key of the lines
	// that name them: "commit" (the default), or the axes that differ
	// ("nr_task"), the sides' ids then their values.
	CompareKey string
	Base       Side
	New        Side
	Rows       []Row
	All        bool   // show unchanged rows too
	Test       string // "Mann-Whitney U"
	Alpha      float64
	// Family says over what the Holm adjustment ran ("over 3 tests").
	Family string
	// Notes are footer lines of their own (what could not be mapped).
	Notes []string
}

func (r Row) shown(all bool) bool { return r.Changed || r.Keep || all }

// PercentStat tells whether the robot shows stat's change as an absolute
// difference ($stat_absolute_changes: perf-profile.*, a name ending in %).
func PercentStat(stat string) bool {
	return strings.HasPrefix(stat, "perf-profile") || strings.HasSuffix(stat, "%")
}

// Write renders b: the rule, the axes line, the commit: lines, the id
// columns, the header, the rows, and contend's footer.
func Write(w io.Writer, b Block) error {
	var sb strings.Builder
	writeHeader(&sb, b)
	shown, hidden := 0, 0
	for _, r := range b.Rows {
		if !r.shown(b.All) {
			hidden++
			continue
		}
		if r.Quote != nil {
			sb.WriteString("> " + FormatRow(*r.Quote) + "\n")
		}
		sb.WriteString(FormatRow(r) + "\n")
		shown++
	}
	sb.WriteString("\n")
	writeFooter(&sb, b, hidden)
	_, err := io.WriteString(w, sb.String())
	return err
}

func writeHeader(sb *strings.Builder, b Block) {
	axes := append([]Axis(nil), b.Axes...)
	sort.SliceStable(axes, func(i, j int) bool { return axes[i].Key < axes[j].Key })
	keys, vals := make([]string, len(axes)), make([]string, len(axes))
	for i, a := range axes {
		keys[i], vals[i] = a.Key, a.Value
	}
	sb.WriteString(Rule + "\n")
	fmt.Fprintf(sb, "%s:\n  %s\n\n", strings.Join(keys, "/"), strings.Join(vals, "/"))
	key := b.CompareKey
	if key == "" {
		key = "commit"
	}
	sb.WriteString(key + ": \n")
	for _, s := range []Side{b.Base, b.New} {
		if s.Label != "" {
			fmt.Fprintf(sb, "  %s (\"%s\")\n", short(s.ID), s.Label)
		} else {
			fmt.Fprintf(sb, "  %s\n", s.ID)
		}
	}
	sb.WriteString("\n")
	fmt.Fprintf(sb, "%*s %*s \n", FirstWidth, textfmt.Cut(b.Base.ID, FirstWidth), Width, textfmt.Cut(b.New.ID, Width))
	fmt.Fprintf(sb, "%s %s \n", strings.Repeat("-", FirstWidth), strings.Repeat("-", Width))
	sb.WriteString("         %stddev     %change         %stddev\n")
	sb.WriteString("             \\          |                \\  \n")
}

// short is a commit id as the commit: lines give it (10 hex digits), other
// ids as they are.
func short(id string) string {
	if len(id) > 10 && strings.Trim(id, "0123456789abcdef") == "" {
		return id[:10]
	}
	return id
}

// FormatRow is one row as show_perf_change prints it, with the stat's name
// after two spaces.
func FormatRow(r Row) string {
	var sb strings.Builder
	sb.WriteString(mean(r.Base.Mean))
	sb.WriteString(stddev(r.Base))
	var ch float64
	if r.FixedChange {
		ch = r.Change
	} else if r.Percent {
		ch = r.New.Mean - r.Base.Mean
	} else {
		base := r.Base.Mean
		if base == 0 {
			base = 1e-100
		}
		ch = 100 * (r.New.Mean - r.Base.Mean) / base
	}
	f := "%+*.1f"
	if math.Abs(ch) >= 100000 {
		f = "%+*.2g"
	}
	s := fmt.Sprintf(f, RELWidth, ch)
	if r.Percent {
		s += "  "
	} else {
		s += "% "
	}
	sb.WriteString(s)
	sb.WriteString(mean(r.New.Mean))
	sb.WriteString(stddev(r.New))
	sb.WriteString("  " + r.Stat)
	return sb.String()
}

// mean is a mean as the robot prints it: two decimals below 1000, four
// significant digits above 1e8, else an integer (Ruby's %d: truncated).
func mean(v float64) string {
	switch {
	case math.Abs(v) < 1000:
		return fmt.Sprintf("%*.2f", ABSWidth, v)
	case math.Abs(v) > 100_000_000:
		return fmt.Sprintf("%*.4g", ABSWidth, v)
	}
	return fmt.Sprintf("%*d", ABSWidth, int64(v))
}

// stddev is " ± N%" of s when its relative standard deviation is above 2%,
// else ERRWidth spaces. The deviation is lkp-tests' (lib/statistics.rb):
// divided by n, not n-1, so StdDev (n-1) is scaled by sqrt((n-1)/n) where
// N is known (0: a figure taken as it is, a quoted robot row); a side of
// one run has none (lkp-tests: many? false). lkp-tests prints it with
// " ±%3d%%": from 100% on there is no space after ±.
func stddev(s Stats) string {
	sd := s.StdDev
	switch {
	case s.N == 1 || math.IsNaN(sd):
		return strings.Repeat(" ", ERRWidth)
	case s.N >= 2:
		sd *= math.Sqrt(float64(s.N-1) / float64(s.N))
	}
	if s.Mean != 0 {
		sd = 100 * sd / s.Mean
	}
	if sd > 2 {
		return fmt.Sprintf(" ±%*d%%", ERRWidth-3, int64(sd))
	}
	return strings.Repeat(" ", ERRWidth)
}

func writeFooter(sb *strings.Builder, b Block, hidden int) {
	unit := func(s Side) string {
		u := s.Unit
		if u == "" {
			u = "runs"
		}
		if s.N == 1 {
			u = strings.TrimSuffix(u, "s")
		}
		return fmt.Sprintf("%d %s", s.N, u)
	}
	test := b.Test
	if test == "" {
		test = "Mann-Whitney U"
	}
	fmt.Fprintf(sb, "contend: n %s vs %s; %s; p Holm-adjusted\n", unit(b.Base), unit(b.New), test)
	if b.Family != "" {
		fmt.Fprintf(sb, "  (%s)\n", b.Family)
	}
	sb.WriteString("  HL: the Hodges-Lehmann change of the new side, with its 95% interval\n")
	width := 0
	for _, r := range b.Rows {
		if r.shown(b.All) {
			width = max(width, len(r.Stat))
		}
	}
	for _, r := range b.Rows {
		if !r.shown(b.All) {
			continue
		}
		fmt.Fprintf(sb, "  %-*s  p %-8s HL %s\n", width, r.Stat, pval(r.AdjustedP), hl(r))
	}
	if hidden > 0 {
		alpha := b.Alpha
		if alpha == 0 {
			alpha = 0.05
		}
		fmt.Fprintf(sb, "  %s not changed at p < %g, not shown (--all shows them)\n", plural.N(hidden, "row", "rows"), alpha)
	}
	for _, n := range b.Notes {
		sb.WriteString("  " + n + "\n")
	}
}

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.0001:
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

func hl(r Row) string {
	if math.IsNaN(r.HL) {
		return "-"
	}
	f := func(x float64) string {
		if r.Percent {
			return fmt.Sprintf("%+.2f", x)
		}
		return fmt.Sprintf("%+.1f%%", 100*x)
	}
	if !r.HasCI {
		return f(r.HL) + " (too few runs for an interval)"
	}
	return fmt.Sprintf("%s [%s, %s]", f(r.HL), f(r.HLLo), f(r.HLHi))
}
