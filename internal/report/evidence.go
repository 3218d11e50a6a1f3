package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"contend/analysis"
	"contend/internal/evidence"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/textfmt"
)

// evidenceTitle heads the kernel evidence section of reports.
const evidenceTitle = "kernel evidence (k.sys.*: the whole machine over the repetition)"

// evidenceFamily describes the Holm family of the evidence metrics.
func evidenceFamily(n int) string {
	if n == 1 {
		return "kernel evidence: Holm over 1 test"
	}
	return fmt.Sprintf("kernel evidence: Holm over %d tests together", n)
}

// effect is the size of a row's difference: |Cliff's delta|, then the
// size of the log ratio of the medians; identical rows have none.
func effect(row MetricRow) (float64, float64) {
	if row.Identical || row.Cmp == nil {
		return -1, -1
	}
	lr := math.Abs(math.Log1p(row.Cmp.Change))
	if math.IsNaN(lr) || math.IsInf(lr, 0) {
		lr = math.MaxFloat64
	}
	return math.Abs(row.Cmp.CliffsDelta), lr
}

// sortEvidenceRows puts the evidence rows after the others, largest
// effect first; the other rows keep their order.
func sortEvidenceRows(rows []MetricRow) {
	sort.SliceStable(rows, func(i, j int) bool {
		ei, ej := evidence.IsEvidence(rows[i].Metric.Name), evidence.IsEvidence(rows[j].Metric.Name)
		if ei != ej {
			return !ei
		}
		if !ei {
			return false
		}
		di, li := effect(rows[i])
		dj, lj := effect(rows[j])
		if di != dj {
			return di > dj
		}
		return li > lj
	})
}

// splitEvidence splits the rows of p into the primary and workload
// metrics, the evidence rows that differ, and the number of evidence rows
// left out because every value is the same.
func splitEvidence(p PairReport) (prim, ev PairReport, same int) {
	prim, ev = PairReport{A: p.A, B: p.B}, PairReport{A: p.A, B: p.B}
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

// OneSided is an evidence metric that some sides have values of and
// others have none: the sides collected different evidence (ab
// --a-evidence/--b-evidence, files run with different --evidence), or a
// collector failed on some side. It is not compared.
type OneSided struct {
	Metric string
	Sides  []int // indexes of the sides with values
}

// oneSidedEvidence lists the evidence metrics of any part's file that
// have values on some sides but not on all, in the order of the files'
// metrics (none when the user chose the metrics).
func (r *CompareReport) oneSidedEvidence(sides []Side) []OneSided {
	if len(r.Options.Metrics) > 0 {
		return nil
	}
	var out []OneSided
	seen := map[string]bool{}
	for _, s := range sides {
		for _, p := range s.Parts {
			for _, m := range p.File.Metrics {
				if seen[m.Name] || !evidence.IsEvidence(m.Name) {
					continue
				}
				seen[m.Name] = true
				var with []int
				for i, sr := range r.Sides {
					if sr.count(m.Name) > 0 {
						with = append(with, i)
					}
				}
				if len(with) > 0 && len(with) < len(r.Sides) {
					out = append(out, OneSided{Metric: m.Name, Sides: with})
				}
			}
		}
	}
	return out
}

// pairOneSided returns, for pair p, the evidence metrics only its side
// A has and those only its side B has.
func (r *CompareReport) pairOneSided(p PairReport) (onlyA, onlyB []string) {
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
func (r *CompareReport) oneSidedLines(p PairReport) []string {
	onlyA, onlyB := r.pairOneSided(p)
	var out []string
	for _, x := range []struct {
		side, other int
		names       []string
	}{{p.A, p.B, onlyA}, {p.B, p.A, onlyB}} {
		if len(x.names) == 0 {
			continue
		}
		if !r.hasEvidence(x.other) {
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

// hasEvidence tells whether side i has values of any evidence metric.
func (r *CompareReport) hasEvidence(i int) bool {
	for k, m := range r.Sides[i].metrics {
		if evidence.IsEvidence(k) && len(m.vals) > 0 {
			return true
		}
	}
	return false
}

// writeEvidenceTable writes the kernel evidence section of a pair: the
// same columns as the metrics table, largest effect first, then the
// evidence metrics only one side has.
func (r *CompareReport) writeEvidenceTable(w io.Writer, ev PairReport, same int) (tilde, dash bool) {
	one := r.oneSidedLines(ev)
	if len(ev.Rows) == 0 && same == 0 && len(one) == 0 {
		return false, false
	}
	fmt.Fprintln(w)
	writeWrapped(w, evidenceTitle+", largest effect first:", "  ")
	if len(ev.Rows) > 0 {
		tilde, dash = r.writePairTable(w, ev)
	}
	if same > 0 {
		writeWrapped(w, plural.N(same, "more evidence metric is", "more evidence metrics are")+" the same in every repetition on both sides (mostly 0): not shown", "  ")
	}
	for _, x := range one {
		writeWrapped(w, x, "  ")
	}
	return tilde, dash
}

// writeEvidenceSummary writes the evidence metrics of f, tallied in tl, as a
// table of its own after the workload's metrics, leaving out metrics
// that are 0 in every repetition, and says which collectors were not
// available.
func writeEvidenceSummary(w io.Writer, f *results.File, tl *results.Tally) {
	t := &textfmt.Table{}
	t.AlignLeft(1)
	t.Row("evidence", "unit", "n", "median", "95% CI of median", "min", "max")
	rows, zero := 0, 0
	for _, m := range f.Metrics {
		if !evidence.IsEvidence(m.Name) {
			continue
		}
		xs := tl.Values[m.Name]
		if len(xs) == 0 {
			continue
		}
		s, err := analysis.Summarize(xs, Confidence)
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
	if rows == 0 && zero == 0 && len(na) == 0 {
		return
	}
	fmt.Fprintln(w)
	writeWrapped(w, evidenceTitle+":", "  ")
	if rows > 0 {
		t.Write(w)
	}
	if zero > 0 {
		writeWrapped(w, plural.N(zero, "more evidence metric is", "more evidence metrics are")+" 0 in every repetition: not shown", "  ")
	}
	for _, x := range na {
		writeWrapped(w, "evidence "+x, "  ")
	}
}
