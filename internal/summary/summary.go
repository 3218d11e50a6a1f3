// Package summary writes what one result file says: the run summary of a
// configuration (Summary, SummaryOf: counts, every metric's median and its
// interval, the kernel evidence section, failures), the file's warnings,
// its outliers (WriteOutliers) and the verify report of contend against
// the original (WriteVerify, with analysis.Equivalence's verdict in words).
package summary

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/esc"
	"contend/internal/evidence"
	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// Summary prints the per-metric summaries of config c of f (c < 0: all
// reps pooled) to w: location, interval, spread, the count of repetitions
// by status, the notes the repetitions carried and warnings.
func Summary(w io.Writer, f *results.File, c int) { SummaryOf(w, f, f.Tally(c)) }

// Options say what a summary shows beyond its default.
type Options struct {
	// Detail is how much the summary says, as of a comparison
	// (report.WriteText): report.Full, the zero value, every metric's
	// median and interval, their spread and the kernel evidence;
	// report.Brief the headline (the primary metric's median and
	// interval), the table of the workload's own metrics and one line
	// counting the others with the flags that show them (run, exec and
	// show by default); report.BriefAll every metric's median and
	// interval and the evidence, without the spread.
	Detail report.Detail
	// All shows every symbol of a profile (the default: the ProfileTop
	// largest median self shares, and a line counting the others).
	All bool
}

// SummaryWith is Summary with opt.
func SummaryWith(w io.Writer, f *results.File, c int, opt Options) { summaryOf(w, f, f.Tally(c), opt) }

// logSource says where an import's samples come from, by the
// configuration's environment (log.path, log.lines, log.select): "log:
// mail.txt, lines 51..60, records 1..5"; "" when it names no log.
func logSource(e map[string]string) string {
	p, ok := e["log.path"]
	if !ok {
		return ""
	}
	s := "log: " + p
	if l := e["log.lines"]; l != "" {
		s += ", lines " + l
	}
	if r := e["log.select"]; r != "" {
		s += ", records " + r
	}
	return s
}

// SummaryOf is Summary of the repetitions t tallies (config t.Config of
// f): an import streams its records to the file and keeps only their
// Tally.
func SummaryOf(w io.Writer, f *results.File, t *results.Tally) { summaryOf(w, f, t, Options{}) }

func summaryOf(w io.Writer, f *results.File, t *results.Tally, opt Options) {
	c := t.Config
	counts := t.Counts
	total := 0
	for _, n := range counts {
		total += n
	}
	// A user's strings (a parameter, the label) on one line each, their
	// control characters escaped (esc.Line).
	head := esc.Line(f.Workload)
	if c >= 0 && f.ConfigName(c) != "" {
		head += "  " + esc.Line(f.ConfigName(c))
	}
	if utf8.RuneCountInString(head) <= textfmt.Width {
		fmt.Fprintln(w, head)
	} else {
		textfmt.WriteWrapped(w, head, "  ")
	}
	if c >= 0 && c < len(f.Configs) {
		if src := logSource(f.Configs[c].Env); src != "" {
			textfmt.WriteWrapped(w, src, "  ")
		}
	}
	if f.Label != "" {
		textfmt.WriteWrapped(w, "label: "+esc.Line(f.Label), "  ")
	}
	var st []string
	for _, s := range []string{results.StatusOK, results.StatusFailed, results.StatusTimeout, results.StatusInterrupted} {
		if counts[s] > 0 {
			st = append(st, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(st) == 0 {
		st = []string{"none"}
	}
	fmt.Fprintf(w, "repetitions: %d (%s)\n", total, strings.Join(st, ", "))
	if counts[results.StatusOK] == 0 {
		printFailures(w, t)
		return
	}
	fmt.Fprintln(w)
	if opt.Detail != report.Full {
		briefOf(w, f, t, opt)
		return
	}

	loc := &textfmt.Table{}
	loc.AlignLeft(1)
	loc.Row("metric", "unit", "n", "median", "95% CI of median", "min", "max")
	spread := &textfmt.Table{}
	spread.AlignLeft(1)
	spread.Row("metric", "unit", "mean", "stddev", "CV", "Q1", "Q3")
	var warns []string
	for _, m := range f.Metrics {
		xs := t.Values[m.Name]
		if len(xs) == 0 || evidence.IsEvidence(m.Name) {
			continue
		}
		s, err := analysis.Summarize(xs, comparison.Confidence)
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s: %v", m.Name, err))
			continue
		}
		sc := locationRow(loc, m, s)
		cv := "-"
		if s.N > 1 && s.Mean != 0 {
			cv = fmt.Sprintf("%.1f%%", s.CV*100)
		}
		spread.Row(m.Name, sc.Unit, sc.Num(s.Mean), sc.Num(s.StdDev), cv, sc.Num(s.Q1), sc.Num(s.Q3))
		if !s.HasCI && len(warns) == 0 {
			warns = append(warns, s.Warnings...)
		}
	}
	loc.Write(w)
	fmt.Fprintln(w)
	spread.Write(w)
	writeEvidenceSummary(w, f, t, opt.All)
	writeEnd(w, t, warns)
}

// writeEnd writes what ends a summary of the repetitions t tallies: their
// notes with their counts, the failures, and warns.
func writeEnd(w io.Writer, t *results.Tally, warns []string) {
	notes := t.Notes
	if len(notes) > 0 {
		total := 0
		for _, n := range t.Counts {
			total += n
		}
		fmt.Fprintln(w)
		var ks []string
		for k := range notes {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			textfmt.WriteWrapped(w, fmt.Sprintf("note (%d of %d): %s", notes[k], total, k), "  ")
		}
	}
	printFailures(w, t)
	for _, x := range warns {
		textfmt.WriteWrapped(w, "warning: "+x, "  ")
	}
}

// briefOf writes the brief summary (opt.Detail report.Brief or
// report.BriefAll) of the repetitions t tallies, after their count: the
// headline, the primary metric's median with its interval; a table of
// the metrics that matter (the primary and the workload's own metrics,
// without the process's rusage and the kernel evidence; every metric and
// the evidence with BriefAll); the notes, failures and warnings; then one
// line counting what is not shown and naming the flags that show it.
func briefOf(w io.Writer, f *results.File, t *results.Tally, opt Options) {
	var warns []string
	sums := map[string]analysis.Summary{}
	for _, m := range f.Metrics {
		if xs := t.Values[m.Name]; len(xs) > 0 && !evidence.IsEvidence(m.Name) {
			s, err := analysis.Summarize(xs, comparison.Confidence)
			if err != nil {
				warns = append(warns, fmt.Sprintf("%s: %v", m.Name, err))
				continue
			}
			sums[m.Name] = s
			if !s.HasCI && len(warns) == 0 {
				warns = append(warns, s.Warnings...)
			}
		}
	}
	if pm, ok := f.Metric(f.Primary); ok {
		if s, ok := sums[pm.Name]; ok {
			textfmt.WriteWrapped(w, headline(f.Workload, pm, s), "  ")
			fmt.Fprintln(w)
		}
	}
	// The rows that matter: the primary metric and the workload's own;
	// the primary and cpu when the workload has none (a program run by
	// exec without metrics of its own).
	own := func(m results.Metric) bool { return m.Name == f.Primary || !results.IsProcessMetric(m.Name) }
	n := 0
	for _, m := range f.Metrics {
		if _, ok := sums[m.Name]; ok && own(m) {
			n++
		}
	}
	if n <= 1 {
		own = func(m results.Metric) bool { return m.Name == f.Primary || m.Name == "cpu" }
	}
	loc := &textfmt.Table{}
	loc.AlignLeft(1)
	loc.Row("metric", "unit", "n", "median", "95% CI of median", "min", "max")
	hidden := 0
	for _, m := range f.Metrics {
		s, ok := sums[m.Name]
		if !ok {
			continue
		}
		if opt.Detail != report.BriefAll && !own(m) {
			hidden++
			continue
		}
		locationRow(loc, m, s)
	}
	loc.Write(w)
	ev := evidenceCount(f, t)
	if opt.Detail == report.BriefAll {
		writeEvidenceSummary(w, f, t, opt.All)
	}
	writeEnd(w, t, warns)
	fmt.Fprintln(w)
	textfmt.WriteWrapped(w, briefCountText(f, t.Config, opt.Detail, hidden, ev), "")
}

// headline is the first line of a brief summary: the primary metric m of
// workload with its median, interval and spread over the repetitions s
// summarises: "faultme time: median 661.8 ms, 95% CI [477.8, 864.3], n=6,
// CV 20.5%".
func headline(workload string, m results.Metric, s analysis.Summary) string {
	ref := s.Median
	if ref == 0 {
		ref = math.Max(math.Abs(s.Min), math.Abs(s.Max))
	}
	sc := units.ScaleFor(m.Unit, ref)
	h := esc.Line(workload) + " " + m.Name + ": median " + sc.Format(s.Median)
	if s.HasCI {
		h += fmt.Sprintf(", 95%% CI [%s, %s]", sc.Num(s.MedianLo), sc.Num(s.MedianHi))
	} else {
		h += " (no interval: too few repetitions)"
	}
	h += fmt.Sprintf(", n=%d", s.N)
	if s.N > 1 && s.Mean != 0 {
		h += fmt.Sprintf(", CV %.1f%%", s.CV*100)
	}
	return h
}

// evidenceCounts counts a configuration's kernel evidence for the line
// of a brief summary: the metrics with a value, those 0 in every
// repetition, and the profile's symbols.
type evidenceCounts struct{ rows, zero, symbols int }

// evidenceCount counts the evidence of the repetitions t tallies, as
// writeEvidenceSummary shows it.
func evidenceCount(f *results.File, t *results.Tally) evidenceCounts {
	var n evidenceCounts
	for _, m := range f.Metrics {
		if !evidence.IsEvidence(m.Name) || comparison.IsProfile(m.Name) || len(t.Values[m.Name]) == 0 {
			continue
		}
		s, err := analysis.Summarize(t.Values[m.Name], comparison.Confidence)
		switch {
		case err != nil:
		case s.Min == 0 && s.Max == 0:
			n.zero++
		default:
			n.rows++
		}
	}
	n.symbols = len(profileSymbols(t))
	return n
}

// briefCountText is the last line of a brief summary of configuration c
// of f at detail d: what it leaves out (hidden metrics, the evidence ev,
// the spread, the outliers) and the flags that show it.
func briefCountText(f *results.File, c int, d report.Detail, hidden int, ev evidenceCounts) string {
	var out []string
	if d == report.Brief {
		if hidden > 0 {
			out = append(out, plural.N(hidden, "process metric", "process metrics"))
		}
		switch {
		case ev.rows > 0 && ev.zero > 0:
			out = append(out, fmt.Sprintf("%s (%d more always 0)", plural.N(ev.rows, "kernel evidence metric", "kernel evidence metrics"), ev.zero))
		case ev.rows > 0:
			out = append(out, plural.N(ev.rows, "kernel evidence metric", "kernel evidence metrics"))
		case ev.zero > 0:
			out = append(out, plural.N(ev.zero, "kernel evidence metric", "kernel evidence metrics")+", always 0")
		}
		if ev.symbols > 0 {
			out = append(out, "a profile of "+plural.N(ev.symbols, "symbol", "symbols"))
		}
	}
	spread := "every metric's spread (mean, stddev, CV, Q1, Q3)"
	if len(out) > 0 {
		spread = "every metric's spread"
	}
	if c >= 0 && f.Counts(c)[results.StatusOK] >= comparison.OutlierMinN {
		if k := len(comparison.Outliers(f, c)); k > 0 {
			spread += " and " + plural.N(k, "outlier", "outliers")
		}
	}
	if len(out) == 0 {
		return "Not shown: " + spread + ". --full shows them."
	}
	return "Not shown: " + strings.Join(out, ", ") + ", " + spread + ". --all lists the metrics; --full all of it."
}

// printFailures prints each error of the failed repetitions with its
// count (an interrupted repetition did not fail: the count line says
// "1 interrupted", and Main says why).
func printFailures(w io.Writer, t *results.Tally) {
	for _, x := range t.Failures {
		textfmt.WriteWrapped(w, fmt.Sprintf("failed (%dx): %s", x.N, x.Error), "  ")
	}
}

// WriteFileWarnings prints the warnings of f (recorded by its run, or
// added when it was read, such as a torn last record), one line each.
func WriteFileWarnings(w io.Writer, f *results.File) {
	if len(f.Warnings) > 0 {
		fmt.Fprintln(w)
	}
	for _, x := range f.Warnings {
		textfmt.WriteWrapped(w, "warning: "+x, "  ")
	}
}

// locationRow adds m's row of median, its interval, minimum and maximum
// to t (show's table and its evidence section), in one unit: the
// median's, or the largest value's where the median is 0 (a count or time
// that is 0 in most repetitions), and returns that scale.
func locationRow(t *textfmt.Table, m results.Metric, s analysis.Summary) units.Scale {
	ref := s.Median
	if ref == 0 {
		ref = math.Max(math.Abs(s.Min), math.Abs(s.Max))
	}
	sc := units.ScaleFor(m.Unit, ref)
	ci := "n too small"
	if s.HasCI {
		ci = fmt.Sprintf("[%s, %s]", sc.Num(s.MedianLo), sc.Num(s.MedianHi))
	}
	t.Row(m.Name, sc.Unit, fmt.Sprint(s.N), sc.Num(s.Median), ci, sc.Num(s.Min), sc.Num(s.Max))
	return sc
}
