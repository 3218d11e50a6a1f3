package summary

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/evidence"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/textfmt"
)

// writeEvidenceSummary writes the evidence metrics of f, tallied in tl, as a
// table of its own after the workload's metrics, leaving out metrics
// that are 0 in every repetition, then the profile's symbols (every one
// with all, else the top ProfileTop), and says which collectors were
// not available.
func writeEvidenceSummary(w io.Writer, f *results.File, tl *results.Tally, all bool) {
	t := &textfmt.Table{}
	t.AlignLeft(1)
	t.Row("evidence", "unit", "n", "median", "95% CI of median", "min", "max")
	rows, zero := 0, 0
	for _, m := range f.Metrics {
		if !evidence.IsEvidence(m.Name) || comparison.IsProfile(m.Name) {
			continue
		}
		xs := tl.Values[m.Name]
		if len(xs) == 0 {
			continue
		}
		s, err := analysis.Summarize(xs, comparison.Confidence)
		if err != nil {
			continue
		}
		if s.Min == 0 && s.Max == 0 {
			zero++
			continue
		}
		locationRow(t, m, s)
		rows++
	}
	var na []string
	for k, v := range f.Evidence {
		if strings.HasPrefix(v, "not available") {
			na = append(na, k+" "+v)
		}
	}
	sort.Strings(na)
	profile := len(profileSymbols(tl)) > 0
	if rows == 0 && zero == 0 && len(na) == 0 && !profile {
		return
	}
	fmt.Fprintln(w)
	textfmt.WriteWrapped(w, evidence.Title+":", "  ")
	if rows > 0 {
		t.Write(w)
	}
	if zero > 0 {
		textfmt.WriteWrapped(w, plural.N(zero, "more evidence metric is", "more evidence metrics are")+" 0 in every repetition: not shown", "  ")
	}
	writeProfileSummary(w, f, tl, all)
	for _, x := range na {
		textfmt.WriteWrapped(w, "evidence "+x, "  ")
	}
}
