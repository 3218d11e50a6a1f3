package comparison

import (
	"fmt"
	"strings"
)

// Replication is the unit of replication of a pair's comparison: what the
// boots its repetitions ran in let its p-value cover.
type Replication string

// Units of replication of Pair.Replication.
const (
	// ReplicationUnknown: a repetition records no boot (imported
	// numbers, old files); nothing is said.
	ReplicationUnknown Replication = ""
	// ReplicationOneBoot: both sides ran in one and the same boot (ab
	// always): the p-value covers this boot.
	ReplicationOneBoot Replication = "one_boot"
	// ReplicationTwoBoots: each side ran in one boot, not the same: the
	// difference includes the boot-to-boot variance, which the runs
	// cannot separate from the change.
	ReplicationTwoBoots Replication = "two_boots"
	// ReplicationUneven: one side ran in one boot, the other in more:
	// no boot-level comparison either.
	ReplicationUneven Replication = "uneven_boots"
	// ReplicationBoots: both sides span two or more boots: the boot
	// level compares the per-boot means (boots.go, bootunit.go).
	ReplicationBoots Replication = "boots"
)

// ReplicationOf returns the unit of replication of pair p, from the boots
// its sides' repetitions of the headline metric ran in (BootLevel), and
// the sentence that says it beside the headline: what the p-value covers
// and, where the boots cannot be separated from the change, what to do.
// The sentence is empty for ReplicationUnknown, and for ReplicationBoots
// when the boot level is the verdict (its headline says it).
func (r *Comparison) ReplicationOf(p PairReport) (Replication, string) {
	return r.ReplicationNamed(p, r.Sides[p.A].Label, r.Sides[p.B].Label)
}

// ReplicationNamed is ReplicationOf with the sides named la and lb in the
// sentence ("the base", "the new side").
func (r *Comparison) ReplicationNamed(p PairReport, la, lb string) (Replication, string) {
	b := r.BootLevelOf(p)
	if b == nil || len(b.BootsA) == 0 || len(b.BootsB) == 0 {
		return ReplicationUnknown, ""
	}
	na, nb := len(b.BootsA), len(b.BootsB)
	switch {
	case na == 1 && nb == 1 && b.BootsA[0].ID == b.BootsB[0].ID:
		return ReplicationOneBoot, fmt.Sprintf("%s and %s ran within one boot: the p-value covers this boot, not boot-to-boot variance", la, lb)
	case na == 1 && nb == 1:
		return ReplicationTwoBoots, fmt.Sprintf("%s and %s ran in different boots, one each: the difference includes boot-to-boot variance, which these runs cannot separate; run a campaign", la, lb)
	case na == 1 || nb == 1:
		one, other, n := la, lb, nb
		if nb == 1 {
			one, other, n = lb, la, na
		}
		return ReplicationUneven, fmt.Sprintf("%s ran in one boot, %s in %d: the difference includes boot-to-boot variance, which one boot of %s cannot separate; run a campaign (two or more boots a side)",
			one, other, n, one)
	case b.Cmp == nil:
		return ReplicationBoots, fmt.Sprintf("%s and %s ran in %d and %d boots, but the boot level was not analysed (%s): the p-value takes the runs of every boot as independent",
			la, lb, na, nb, strings.TrimPrefix(b.Reason, "analysis: "))
	case !r.BootUnit():
		return ReplicationBoots, fmt.Sprintf("%s and %s ran in %d and %d boots: the p-value takes the runs of every boot as independent (the full report has the boot level, the boot as the unit)",
			la, lb, na, nb)
	}
	return ReplicationBoots, ""
}
