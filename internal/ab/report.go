package ab

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/summary"
	"contend/internal/textfmt"
)

// Report says how an A/B run was made, for its report: the order (and
// the seed of OrderRandom), the significance level, and for an adaptive
// run its rule and last decision (nil for a fixed run).
type Report struct {
	Order    Order
	Seed     uint64
	Alpha    float64
	Rule     *analysis.Sequential
	Decision *analysis.Decision
	// Detail is how much of the comparison the report says (0: all of
	// it, report.Full).
	Detail report.Detail
	// WarningsShown says that the file's warnings were printed already
	// (on stderr, as the run started): the report does not repeat them.
	// Otherwise it prints them once, after the comparison, as the file
	// says them: not as side A's, which the comparison of one file's
	// two configurations would make them.
	WarningsShown bool
}

// WriteReport prints the report of the A/B run in f: each side, the
// order, the comparison of side B against side A (at ReportAlpha's
// level), the adaptive decision, the drift check of each side, and the
// file's warnings unless r.WarningsShown.
func WriteReport(w io.Writer, f *results.File, r Report) {
	for i := range f.Configs {
		fmt.Fprintf(w, "side %s: %s\n", strings.ToUpper(f.Configs[i].Name), describeSide(f, i))
	}
	fmt.Fprintf(w, "order: %s", r.Order)
	if r.Order == OrderRandom {
		fmt.Fprintf(w, " (seed %d)", r.Seed)
	}
	fmt.Fprint(w, "\n\n")
	opt := comparison.Options{Alpha: ReportAlpha(r.Alpha, r.Decision)}
	if r.Decision != nil {
		// The interval that matches the decision is the one at the
		// level of the look (a repeated confidence interval), not 95%.
		opt.Confidence = 1 - opt.Alpha
	}
	cmp, err := comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, opt)
	if err == nil {
		// The file's warnings are the run's, both sides': said once,
		// below or before the run, never under side A's name.
		cmp.DropFileWarnings()
		err = report.WriteText(w, cmp, r.Detail)
	}
	if err != nil {
		fmt.Fprintf(w, "no comparison: %v\n", err)
	}
	var pairsWarning string
	if err == nil && r.Decision == nil {
		var line string
		if line, pairsWarning = pairsText(f, r.Order, opt.Alpha, headlineP(cmp)); line != "" {
			fmt.Fprintln(w)
			textfmt.WriteWrapped(w, line, "  ")
		}
	}
	if r.Decision != nil {
		fmt.Fprintf(w, "\nadaptive stop: %s\n", StopText(r.Decision, r.Rule))
		textfmt.WriteWrapped(w, IntervalText(opt.Alpha), "  ")
	}
	if pairsWarning != "" {
		fmt.Fprintln(w, "warning: "+pairsWarning)
	}
	for _, d := range driftWarnings(f, r.Alpha) {
		fmt.Fprintln(w, "warning: "+d)
	}
	if !r.WarningsShown && len(f.Warnings) > 0 {
		fmt.Fprintln(w)
		for _, x := range f.Warnings {
			textfmt.WriteWrapped(w, "warning: "+x, "  ")
		}
	}
}

// describeSide is configuration i in one line: its parameters, events,
// prepare command and evidence.
func describeSide(f *results.File, i int) string {
	parts := []string{summary.ParamsText(f.Configs[i])}
	if e := f.Configs[i].Env; e != nil {
		if t := e["trace-events"]; t != "" {
			parts = append(parts, "events "+t)
		}
		if pr := e["prepare"]; pr != "" {
			parts = append(parts, "prepare '"+pr+"'")
		}
		if ev := e["evidence"]; ev != "" {
			parts = append(parts, "evidence "+ev)
		}
	}
	return strings.Join(parts, ", ")
}

// driftWarnings checks every configuration of f for a monotonic trend of
// the primary metric over run order (analysis.Drift at level alpha) and
// returns one sentence per drifting side: the machine changed during the
// run.
func driftWarnings(f *results.File, alpha float64) []string {
	var out []string
	for i := range f.Configs {
		mk, _, drifts := analysis.Drift(f.Values(i, f.Primary), alpha)
		if drifts {
			out = append(out, fmt.Sprintf("side %s drifts over run order (%s, Mann-Kendall tau %.2f, p=%.3g): the machine changed during the run", strings.ToUpper(f.Configs[i].Name), f.Primary, mk.Tau, mk.P))
		}
	}
	return out
}

// IntervalText says why the intervals of a sequential A/B report are at
// 1 - alpha, the level of the test at the last look, and not at 95%.
func IntervalText(alpha float64) string {
	return fmt.Sprintf("intervals at %s%%: the level of the test at this look (1 - its alpha %s: a repeated confidence interval), so that the headline's interval excludes no change when that test decides a change, and only then (exactly for the exact U test; nearly with ties)",
		strconv.FormatFloat(100*(1-alpha), 'g', 4, 64), analysis.FormatAlpha(alpha))
}

// headlineP is the adjusted p-value of the headline metric of cmp's
// first pair (NaN when it has none).
func headlineP(cmp *comparison.Comparison) float64 {
	if len(cmp.Pairs) == 0 {
		return math.NaN()
	}
	for _, row := range cmp.Pairs[0].Rows {
		if row.Metric.Name == cmp.Headline && row.Cmp != nil {
			return row.Cmp.AdjustedP
		}
	}
	return math.NaN()
}
