package report

import (
	"io"

	"contend/internal/comparison"
	"contend/internal/textfmt"
)

// writeReplication writes, under the headline of pair p, what its
// p-value covers: the unit of replication (comparison.ReplicationOf),
// nothing when the repetitions record no boot or the boot is the unit.
func writeReplication(r *comparison.Comparison, w io.Writer, p comparison.PairReport) {
	if _, note := r.ReplicationOf(p); note != "" {
		textfmt.WriteWrapped(w, "  "+note, "  ")
	}
}
