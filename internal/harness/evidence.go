package harness

import (
	"contend/internal/evidence"
	"contend/internal/results"
)

// AddEvidence stops the evidence collectors of a repetition (after its
// child's process group is reaped) and adds their metrics and notes to
// rep. Spawn calls it, with the evidence.Rep that started the child, once
// per repetition.
func AddEvidence(rep *results.Rep, ev *evidence.Rep) {
	m, notes := ev.Stop()
	rep.Metrics.Merge(m)
	rep.Notes = append(rep.Notes, notes...)
}
