package comparison

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"contend/internal/evidence"
)

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
func (r *Comparison) oneSidedEvidence(sides []Side) []OneSided {
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
					if sr.Count(m.Name) > 0 {
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

// evidenceFamily describes the Holm family of the evidence metrics.
func evidenceFamily(n int) string {
	if n == 1 {
		return "kernel evidence: Holm over 1 test"
	}
	return fmt.Sprintf("kernel evidence: Holm over %d tests together", n)
}

// IsProfile tells whether metric name is one of the profile's shares
// (k.profile.self.SYMBOL, k.profile.children.SYMBOL): compared in
// percentage points, as a Holm family of their own.
func IsProfile(name string) bool {
	return strings.HasPrefix(name, evidence.ProfileSelf) || strings.HasPrefix(name, evidence.ProfileChildren)
}

// profileFamily describes the Holm family of the profile's shares.
func profileFamily(n int) string {
	if n == 1 {
		return "profile: Holm over 1 test"
	}
	return fmt.Sprintf("profile: Holm over %d tests together", n)
}

// pointsMoved is the size of a profile row's change in percentage
// points: |Hodges-Lehmann shift|, or |difference of the medians| where
// there is no shift; identical rows have none.
func pointsMoved(row MetricRow) float64 {
	if row.Identical || row.Cmp == nil {
		return -1
	}
	d := math.Abs(row.Cmp.Shift)
	if math.IsNaN(d) {
		d = math.Abs(row.Cmp.SummaryB.Median - row.Cmp.SummaryA.Median)
	}
	return d
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
// effect first, and the profile's rows last, largest change in points
// first; the other rows keep their order.
func sortEvidenceRows(rows []MetricRow) {
	rank := func(name string) int {
		switch {
		case IsProfile(name):
			return 2
		case evidence.IsEvidence(name):
			return 1
		}
		return 0
	}
	sort.SliceStable(rows, func(i, j int) bool {
		ri, rj := rank(rows[i].Metric.Name), rank(rows[j].Metric.Name)
		if ri != rj {
			return ri < rj
		}
		switch ri {
		case 0:
			return false
		case 2:
			return pointsMoved(rows[i]) > pointsMoved(rows[j])
		}
		di, li := effect(rows[i])
		dj, lj := effect(rows[j])
		if di != dj {
			return di > dj
		}
		return li > lj
	})
}

// HasEvidence tells whether side i has values of any evidence metric.
func (r *Comparison) HasEvidence(i int) bool {
	for k, m := range r.Sides[i].metrics {
		if evidence.IsEvidence(k) && len(m.vals) > 0 {
			return true
		}
	}
	return false
}
