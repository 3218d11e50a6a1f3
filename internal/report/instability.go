package report

import (
	"fmt"
	"strings"

	"contend/internal/comparison"
	"contend/internal/plural"
)

// InstabilityNote is what makes pair p's headline doubtful, in the words
// the headline prints beside its verdict ("unstable: CV 52% on A; check
// with an A/A, ab --aa"; no parenthesis, so that a long headline still
// breaks before its test's), or "" when nothing does: a side whose headline
// metric varies by more than analysis.UnstableCV, a load average above
// the online CPUs (comparison.Instability, in p.Instability).
func InstabilityNote(r *comparison.Comparison, p comparison.PairReport) string {
	in := p.Instability
	if !in.Any() {
		return ""
	}
	var parts, cvs []string
	for k, s := range [2]int{p.A, p.B} {
		if in.Unstable[k] {
			cvs = append(cvs, fmt.Sprintf("%s on %s", pctAbs(in.CV[k]), r.Sides[s].Label))
		}
	}
	if len(cvs) > 0 {
		parts = append(parts, "CV "+strings.Join(cvs, ", "))
	}
	if in.Loaded {
		parts = append(parts, fmt.Sprintf("load %.1f on %s", in.Load, plural.N(in.CPUs, "CPU", "CPUs")))
	}
	return "unstable: " + strings.Join(parts, ", ") + "; check with an A/A, ab --aa"
}
