package summary

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/esc"
	"contend/internal/evidence"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/textfmt"
)

// ProfileTop is how many symbols of a profile a summary shows unless
// Options.All: the largest median self shares.
const ProfileTop = 10

// profileSymbol is one symbol's shares over the repetitions tallied.
type profileSymbol struct {
	name           string
	self, children analysis.Summary
}

// profileSymbols summarises every symbol of the profile shares tl holds.
// A symbol a repetition did not keep (below the collector's threshold)
// is 0 there: a file read back has those 0s already, a run's own
// tally lacks them, and they are added up to the most repetitions any
// symbol has.
func profileSymbols(tl *results.Tally) []profileSymbol {
	n := 0
	names := map[string]bool{}
	for k, xs := range tl.Values {
		for _, fam := range []string{evidence.ProfileSelf, evidence.ProfileChildren} {
			if s, ok := strings.CutPrefix(k, fam); ok && s != "*" {
				names[s] = true
				n = max(n, len(xs))
			}
		}
	}
	summarize := func(k string) analysis.Summary {
		xs := append([]float64{}, tl.Values[k]...)
		for len(xs) < n {
			xs = append(xs, 0)
		}
		s, err := analysis.Summarize(xs, comparison.Confidence)
		if err != nil {
			return analysis.Summary{}
		}
		return s
	}
	var out []profileSymbol
	for s := range names {
		out = append(out, profileSymbol{name: s, self: summarize(evidence.ProfileSelf + s), children: summarize(evidence.ProfileChildren + s)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.self.Median != b.self.Median {
			return a.self.Median > b.self.Median
		}
		if a.children.Median != b.children.Median {
			return a.children.Median > b.children.Median
		}
		return a.name < b.name
	})
	return out
}

// writeProfileSummary writes the profile of the repetitions tl tallies:
// a row per symbol (median self share with its interval, median children
// share, the symbol last, where a long name overflows only its own
// line), largest median self share first; the ProfileTop first unless
// all, then one line counting the others.
func writeProfileSummary(w io.Writer, f *results.File, tl *results.Tally, all bool) {
	syms := profileSymbols(tl)
	if len(syms) == 0 {
		return
	}
	event := "the"
	if m, ok := f.Metric(evidence.ProfileSelf + "*"); ok {
		if ev := evidence.ProfileEvent(m.Desc); ev != "" {
			event = "the " + ev
		}
	}
	shown := syms
	if !all && len(shown) > ProfileTop {
		shown = shown[:ProfileTop]
	}
	fmt.Fprintln(w)
	head := fmt.Sprintf("profile: median share of %s samples over %s", event, plural.N(syms[0].self.N, "repetition", "repetitions"))
	if len(shown) < len(syms) {
		head += fmt.Sprintf(" (top %d)", len(shown))
	}
	textfmt.WriteWrapped(w, head+":", "  ")
	t := &textfmt.Table{}
	t.AlignLeft(3)
	t.Row("self", "95% CI of median", "children", "symbol")
	// The first column is left-aligned (textfmt.Table): its shares are
	// padded to one width here.
	pct := func(x float64) string { return fmt.Sprintf("%5.1f%%", x) }
	for _, s := range shown {
		ci := "n too small"
		if s.self.HasCI {
			ci = fmt.Sprintf("[%.1f, %.1f]", s.self.MedianLo, s.self.MedianHi)
		}
		t.Row(pct(s.self.Median), ci, pct(s.children.Median), esc.Line(s.name))
	}
	t.Write(w)
	if rest := len(syms) - len(shown); rest > 0 {
		textfmt.WriteWrapped(w, fmt.Sprintf("%s (median self share %.1f%% or less): --all shows them",
			plural.N(rest, "more symbol", "more symbols"), syms[len(shown)].self.Median), "  ")
	}
}
