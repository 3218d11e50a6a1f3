package comparison

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"contend/analysis"
	"contend/internal/results"
	"contend/internal/testsize"
)

// aaCampaign returns the sides of a synthetic A/A campaign in the order
// ABBA...: boots a side, each boot a file of its own boot id whose runs
// are exp(log(base) + boot offset + run noise), offsets of SD bootSD and
// noise of SD runSD in logs, for a workload metric (time) and an evidence
// metric (k.sys.pgfault) with the same structure, from a seeded
// generator.
func aaCampaign(seed uint64, boots, runs int, bootSD, runSD float64) []Side {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	sides := []Side{{Name: "A: release kA"}, {Name: "B: release kB"}}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for slot := 0; slot < 2*boots; slot++ {
		side := []int{0, 1, 1, 0}[slot%4]
		boot := fmt.Sprintf("%08x-%08x", rng.Uint32(), seed)
		offT, offE := rng.NormFloat64()*bootSD, rng.NormFloat64()*bootSD
		f := &results.File{Format: results.FormatName, Version: 1, Kind: "exec", Workload: "exec:true", Primary: "time", Complete: true,
			Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "k.sys.pgfault", Unit: "count", Better: "lower"}},
			Configs: []results.Config{{}}, Env: map[string]string{"kernel.release": "k" + "AB"[side:side+1]}, Start: t0}
		for r := 0; r < runs; r++ {
			tm := math.Exp(math.Log(1e8) + offT + rng.NormFloat64()*runSD)
			pf := math.Round(math.Exp(math.Log(5e4) + offE + rng.NormFloat64()*runSD))
			f.Reps = append(f.Reps, results.Rep{Index: r, Status: results.StatusOK, BootID: boot, LoadAvg: 0.5,
				Start:   t0.Add(time.Minute + time.Duration(r)*200*time.Millisecond),
				Metrics: results.ValuesOf(map[string]float64{"time": tm, "k.sys.pgfault": pf})})
		}
		sides[side].Parts = append(sides[side].Parts, Part{Name: fmt.Sprintf("boots/%02d-%c.json", slot, "AB"[side]), File: f, Configs: []int{0}})
		t0 = t0.Add(2 * time.Minute)
	}
	return sides
}

// TestBootLevelAAFalsePositives: 100 synthetic A/A campaigns (300 with
// CONTEND_FULL_SIM=1; 4+4 boots of 10 runs, each boot its own boot id and
// a log offset of SD 0.05, runs SD 0.02; a workload metric and an
// evidence metric). The boot level, the verdict of every metric of a
// campaign's report, calls a change at most as often as alpha allows (the
// count is not above the 99% quantile of Binomial(n, 0.05): 11 of 100, 24
// of 300), for the workload metric and for the evidence metric; the pooled
// runs, kept as a description, call one in about half of them. Before, the headline and the evidence verdicts were the pooled
// ones: 55 and 55 of 100. (Moved from cmd/contend's
// TestCampaignAAFalsePositives, which ran the same campaigns through
// files and the CLI; that test keeps the report's shape.)
func TestBootLevelAAFalsePositives(t *testing.T) {
	n := testsize.Pick(100, 300)
	bound := testsize.BinomialQuantile(n, 0.05, 0.99)
	var head, ev, pooled int
	for i := 0; i < n; i++ {
		c, err := Build(aaCampaign(uint64(i+1), 4, 10, 0.05, 0.02), Options{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Boots) != 1 || len(c.Boots[0].Rows) != 2 || len(c.Boots[0].BootsA) != 4 || len(c.Boots[0].BootsB) != 4 || len(c.Pairs) != 1 {
			t.Fatalf("campaign %d: not a boot-level comparison of 4+4 boots and 2 metrics: %+v", i, c.Boots)
		}
		rows, pr := c.Boots[0].Rows, c.Pairs[0].Rows
		if rows[0].Metric != "time" || rows[1].Metric != "k.sys.pgfault" || pr[0].Cmp == nil {
			t.Fatalf("campaign %d: rows %+v", i, rows)
		}
		if rows[0].Verdict != analysis.VerdictNoChange {
			head++
		}
		if rows[1].Verdict != analysis.VerdictNoChange {
			ev++
		}
		if pr[0].Cmp.Verdict != analysis.VerdictNoChange {
			pooled++
		}
	}
	t.Logf("A/A, %d campaigns of 4+4 boots x 10 runs: the boot level called a change in %d (%.1f%%), the evidence in %d, the pooled runs in %d (%.1f%%)",
		n, head, 100*float64(head)/float64(n), ev, pooled, 100*float64(pooled)/float64(n))
	if head > bound || ev > bound {
		t.Errorf("A/A boot level %d, evidence %d of %d: above %d, the 99%% quantile of Binomial(%d, 0.05)", head, ev, n, bound, n)
	}
	if pooled < n/4 {
		t.Errorf("the pooled runs called a change in only %d of %d: the simulation lacks the boot effect it is to show", pooled, n)
	}
}
