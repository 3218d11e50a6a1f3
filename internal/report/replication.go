package report

import (
	"io"

	"contend/internal/comparison"
	"contend/internal/textfmt"
)

// writeReplication writes, under the headline of pair p, what its
// p-value covers: the unit of replication (comparison.ReplicationOf, in
// p.ReplicationNote), nothing when the repetitions record no boot or the
// boot is the unit.
func writeReplication(w io.Writer, p comparison.PairReport) {
	if p.ReplicationNote != "" {
		textfmt.WriteWrapped(w, "  "+p.ReplicationNote, "  ")
	}
}
