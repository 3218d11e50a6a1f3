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
	notes := t.Notes
	if len(notes) > 0 {
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
