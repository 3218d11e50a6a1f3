package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"contend/internal/comparison"
	"contend/internal/evidence"
	"contend/internal/plural"
	"contend/internal/textfmt"
)

// splitEvidence splits the rows of p into the primary and workload
// metrics, the evidence rows that differ, and the number of evidence rows
// left out because every value is the same.
func splitEvidence(p comparison.PairReport) (prim, ev comparison.PairReport, same int) {
	prim, ev = comparison.PairReport{A: p.A, B: p.B}, comparison.PairReport{A: p.A, B: p.B}
	for _, row := range p.Rows {
		switch {
		case !evidence.IsEvidence(row.Metric.Name):
			prim.Rows = append(prim.Rows, row)
		case row.Identical:
			same++
		default:
			ev.Rows = append(ev.Rows, row)
		}
	}
	return prim, ev, same
}

// pairOneSided returns, for pair p, the evidence metrics only its side
// A has and those only its side B has.
func pairOneSided(r *comparison.Comparison, p comparison.PairReport) (onlyA, onlyB []string) {
	for _, o := range r.OneSided {
		a, b := slices.Contains(o.Sides, p.A), slices.Contains(o.Sides, p.B)
		switch {
		case a && !b:
			onlyA = append(onlyA, o.Metric)
		case b && !a:
			onlyB = append(onlyB, o.Metric)
		}
	}
	return onlyA, onlyB
}

// oneSidedLines says, for pair p, which evidence metrics only one side
// has: they are left out of the comparison, not a defect.
func oneSidedLines(r *comparison.Comparison, p comparison.PairReport) []string {
	onlyA, onlyB := pairOneSided(r, p)
	var out []string
	for _, x := range []struct {
		side, other int
		names       []string
	}{{p.A, p.B, onlyA}, {p.B, p.A, onlyB}} {
		if len(x.names) == 0 {
			continue
		}
		if !r.HasEvidence(x.other) {
			// The other side collected nothing (--evidence none):
			// the names would list the whole set.
			out = append(out, fmt.Sprintf("side %s has no evidence values (it collected none, or its collectors failed): the %d evidence metrics of side %s are not compared",
				r.Sides[x.other].Label, len(x.names), r.Sides[x.side].Label))
			continue
		}
		what := fmt.Sprintf("%d evidence metrics have", len(x.names))
		if len(x.names) == 1 {
			what = "1 evidence metric has"
		}
		out = append(out, fmt.Sprintf("%s values on side %s only (side %s collected other evidence, or its collector failed), not compared: %s",
			what, r.Sides[x.side].Label, r.Sides[x.other].Label, strings.Join(x.names, ", ")))
	}
	return out
}

// writeEvidenceTable writes the kernel evidence section of a pair: the
// same columns as the metrics table, largest effect first, then the
// evidence metrics only one side has; and the profile's shares in a
// section of their own, largest change in points first.
func writeEvidenceTable(r *comparison.Comparison, w io.Writer, ev comparison.PairReport, same int) (tilde, dash bool) {
	one := oneSidedLines(r, ev)
	kern, prof := comparison.PairReport{A: ev.A, B: ev.B}, comparison.PairReport{A: ev.A, B: ev.B}
	for _, row := range ev.Rows {
		if comparison.IsProfile(row.Metric.Name) {
			prof.Rows = append(prof.Rows, row)
		} else {
			kern.Rows = append(kern.Rows, row)
		}
	}
	if len(kern.Rows) > 0 || same > 0 || len(one) > 0 {
		fmt.Fprintln(w)
		textfmt.WriteWrapped(w, evidence.Title+", largest effect first:", "  ")
		if len(kern.Rows) > 0 {
			tilde, dash = writePairTable(r, w, kern)
		}
		if same > 0 {
			textfmt.WriteWrapped(w, plural.N(same, "more evidence metric is", "more evidence metrics are")+" the same in every repetition on both sides (mostly 0): not shown", "  ")
		}
		for _, x := range one {
			textfmt.WriteWrapped(w, x, "  ")
		}
	}
	if len(prof.Rows) > 0 {
		fmt.Fprintln(w)
		textfmt.WriteWrapped(w, ProfileTitle+":", "  ")
		t, d := writePairTable(r, w, prof)
		tilde, dash = tilde || t, dash || d
	}
	return tilde, dash
}

// ProfileTitle heads the profile's rows of a comparison.
const ProfileTitle = "profile (share of the samples in each symbol; change B-A in percentage points, a Holm family of its own), largest change first"
