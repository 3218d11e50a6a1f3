package report

import (
	"fmt"
	"io"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/lazyre"
	"contend/internal/plural"
	"contend/internal/textfmt"
)

// Detail is how much of a comparison WriteText says.
type Detail int

// Details of WriteText.
const (
	// Full is the whole text report (Write's "text"): every metric with
	// its intervals, the method, the warnings of the tests, outliers, the
	// differences of parameters and environment.
	Full Detail = iota
	// Brief is the first answer: the sides, the headline, the table of
	// the metrics that changed significantly and one line counting the
	// others (the default of compare, ab and campaign report).
	Brief
	// BriefAll is Brief with every metric in the table (--all).
	BriefAll
)

// WriteText writes r as text at detail d.
func WriteText(w io.Writer, r *comparison.Comparison, d Detail) error {
	if d == Full {
		return writeText(r, w)
	}
	writeHead(r, w, d)
	var n briefCount
	if r.BootUnit() {
		n = writeBootBrief(r, w, d)
	} else {
		n = writeRunsBrief(r, w, d)
	}
	writeBriefWarnings(r, w)
	fmt.Fprintln(w)
	textfmt.WriteWrapped(w, n.text(r, d), "")
	return nil
}

// Changed tells whether row is a significant change beyond the noise
// band: faster, slower, better, worse, increase or decrease.
func Changed(v analysis.Verdict) bool {
	switch v {
	case analysis.VerdictBetter, analysis.VerdictWorse, analysis.VerdictIncrease, analysis.VerdictDecrease:
		return true
	}
	return false
}

// briefCount counts the metric comparisons of a brief report by what
// became of them.
type briefCount struct {
	rows, changed     int
	identical, tooFew int
}

// add counts one row of verdict v.
func (n *briefCount) add(v analysis.Verdict, identical bool) {
	n.rows++
	switch {
	case identical:
		n.identical++
	case Changed(v):
		n.changed++
	case v == analysis.VerdictTooFewRuns:
		n.tooFew++
	}
}

// text is the last line of a brief report: how many metrics did not
// change, and how to see more.
func (n briefCount) text(r *comparison.Comparison, d Detail) string {
	what := "metrics"
	if len(r.Pairs) > 1 {
		what = "metric comparisons"
	}
	var s string
	switch rest := n.rows - n.changed; {
	case n.rows == 0:
		s = "No metric compared."
	case rest == 0 && n.rows == 1:
		s = "The one metric changed significantly."
	case rest == 0:
		s = fmt.Sprintf("All %d %s changed significantly.", n.rows, what)
	default:
		s = fmt.Sprintf("%d of %d %s did not change significantly", rest, n.rows, what)
		var of []string
		if n.identical > 0 {
			of = append(of, fmt.Sprintf("%d identical", n.identical))
		}
		if n.tooFew > 0 {
			of = append(of, fmt.Sprintf("%d with too few runs to tell", n.tooFew))
		}
		if len(of) > 0 {
			s += " (" + strings.Join(of, ", ") + ")"
		}
		s += "."
	}
	var more []string
	if d == Brief && n.rows > n.changed {
		more = append(more, "--all lists every metric")
	}
	full := "--full gives the full report (intervals, method, warnings"
	if len(r.Outliers) > 0 {
		full += ", " + plural.N(len(r.Outliers), "outlier", "outliers")
	}
	if len(r.EnvDiffs) > 0 {
		full += ", " + plural.N(len(r.EnvDiffs), "environment difference", "environment differences")
	}
	more = append(more, full+")")
	return s + " " + strings.Join(more, "; ") + "."
}

// writeRunsBrief writes the headlines and the table of the rows that
// changed (every row with BriefAll) of a report whose unit is the run.
func writeRunsBrief(r *comparison.Comparison, w io.Writer, d Detail) briefCount {
	var n briefCount
	for _, p := range r.Pairs {
		writeHeadlineText(w, HeadlineFor(r, p))
		writeReplication(w, p)
	}
	writeParamNote(r, w)
	tilde := false
	for _, p := range r.Pairs {
		shown := comparison.PairReport{A: p.A, B: p.B}
		for _, row := range p.Rows {
			v := analysis.Verdict("")
			if row.Cmp != nil {
				v = row.Cmp.Verdict
			}
			n.add(v, row.Identical)
			if d == BriefAll || (!row.Identical && Changed(v)) {
				shown.Rows = append(shown.Rows, row)
			}
		}
		if len(shown.Rows) > 0 {
			fmt.Fprintln(w)
			t, _ := writePairTable(r, w, shown)
			tilde = tilde || t
		}
	}
	if tilde {
		fmt.Fprintln(w, "~ no significant change")
	}
	// A pooled side whose files differ: the verdict above hides it.
	writeWithin(r, w)
	return n
}

// writeBootBrief writes the boot-level headlines and the boot-level table
// of the rows that changed (every row with BriefAll): the verdicts when
// the boot is the unit.
func writeBootBrief(r *comparison.Comparison, w io.Writer, d Detail) briefCount {
	var n briefCount
	for _, p := range r.Pairs {
		writeHeadlineText(w, bootHeadline(r, p))
		writeReplication(w, p)
	}
	writeParamNote(r, w)
	tilde := false
	for _, p := range r.Pairs {
		b := r.BootLevelOf(p)
		if b == nil {
			continue
		}
		var rows []comparison.BootRow
		for _, row := range b.Rows {
			n.add(row.Verdict, row.Identical)
			if d == BriefAll || (!row.Identical && row.Cmp != nil && Changed(row.Verdict)) {
				rows = append(rows, row)
			}
		}
		if len(rows) > 0 {
			fmt.Fprintln(w)
			textfmt.WriteWrapped(w, bootHeading(r, b), "  ")
			tilde = writeBootTable(r, w, p, rows) || tilde
		}
	}
	if tilde {
		fmt.Fprintln(w, "~ no significant change")
	}
	return n
}

// Colours of Colour: SGR sequences.
const (
	colourGood  = "\x1b[32m" // green
	colourBad   = "\x1b[31m" // red
	colourReset = "\x1b[0m"
)

var (
	// verdictAtEnd is the verdict that ends a table row.
	verdictAtEnd = lazyre.New(`  (faster|better|slower|worse)(\s*)$`)
	// verdictOfHeadline is the verdict after a headline's test.
	verdictOfHeadline = lazyre.New(`\): (faster|better|slower|worse)\b`)
)

// Colour colours the verdicts of a line of a text comparison for a
// terminal: faster and better green, slower and worse red (the verdict
// that ends a table row, and the one after a headline's test). line must
// hold no control characters of its own (esc.Line it first).
func Colour(line string) string {
	paint := func(word string) string {
		c := colourGood
		if word == "slower" || word == "worse" {
			c = colourBad
		}
		return c + word + colourReset
	}
	line = verdictAtEnd().ReplaceAllStringFunc(line, func(m string) string {
		sub := verdictAtEnd().FindStringSubmatch(m)
		return "  " + paint(sub[1]) + sub[2]
	})
	return verdictOfHeadline().ReplaceAllStringFunc(line, func(m string) string {
		return "): " + paint(verdictOfHeadline().FindStringSubmatch(m)[1])
	})
}
