package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/campaign"
	"contend/internal/results"
)

// synthCampaign describes a synthetic campaign written straight to disk:
// the plan, a ledger of finished boots and one result file per boot, each
// with its own boot id, its runs drawn as exp(log(base) + side shift +
// boot offset + run noise) from a seeded generator.
type synthCampaign struct {
	BootsPerSide, Runs int
	BootSD, RunSD      float64 // of log values
	ShiftB             float64 // log shift of side B (0: A/A)
	Seed               uint64
}

// write creates the campaign in dir: order ABBA..., a workload metric
// "time" (ns, lower is better) and an evidence metric k.sys.pgfault
// (count) with the same structure.
func (s synthCampaign) write(t testing.TB, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	order, err := campaign.Order("abba", s.BootsPerSide)
	if err != nil {
		t.Fatal(err)
	}
	p := &campaign.Plan{Format: campaign.FormatName, Version: campaign.FormatVersion, Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		Order: order, Command: []string{"exec", "-n", fmt.Sprint(s.Runs), "--", "/bin/true"}, Contend: "/usr/bin/contend"}
	for i, l := range []string{"A", "B"} {
		p.Sides[i] = campaign.Side{Label: l, Boot: campaign.Boot{Command: "true"}, Expect: campaign.Expect{Release: "k" + l}}
	}
	// Written directly (campaign.WritePlan and Append fsync every
	// write: hundreds of campaigns would take seconds of syncs).
	if err := os.MkdirAll(filepath.Join(dir, campaign.BootsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	pb, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, campaign.PlanFile), pb, 0o644); err != nil {
		t.Fatal(err)
	}
	var ledger []byte
	add := func(e campaign.Event) {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		ledger = append(append(ledger, b...), '\n')
	}
	t0 := p.Created
	for slot := range order {
		side := order[slot]
		boot := fmt.Sprintf("%08x-%08x", rng.Uint32(), s.Seed)
		shift := 0.0
		if side == 'B' {
			shift = s.ShiftB
		}
		offT, offE := rng.NormFloat64()*s.BootSD, rng.NormFloat64()*s.BootSD
		f := &results.File{Format: results.FormatName, Version: 1, Kind: "exec", Workload: "exec:true", Primary: "time", Complete: true,
			Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "k.sys.pgfault", Unit: "count", Better: "lower"}},
			Configs: []results.Config{{}}, Env: map[string]string{"kernel.release": "k" + string(side)}, Start: t0}
		begin := t0.Add(time.Minute) // the boot took a minute (settling included)
		add(campaign.Event{Time: t0, Event: campaign.EvReboot, Slot: slot, Side: string(side)})
		for r := 0; r < s.Runs; r++ {
			tm := math.Exp(math.Log(1e8) + shift + offT + rng.NormFloat64()*s.RunSD)
			pf := math.Round(math.Exp(math.Log(5e4) + shift + offE + rng.NormFloat64()*s.RunSD))
			f.Reps = append(f.Reps, results.Rep{Index: r, Config: 0, Status: results.StatusOK, BootID: boot,
				Start: begin.Add(time.Duration(r) * 200 * time.Millisecond), LoadAvg: 0.5,
				Metrics: results.ValuesOf(map[string]float64{"time": tm, "k.sys.pgfault": pf})})
		}
		b, err := results.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		name := campaign.ResultName(slot, side)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		st := &campaign.SettleRecord{Waited: campaign.Duration(20 * time.Second), Load: 0.3, Settled: true}
		for _, e := range []campaign.Event{
			{Time: begin, Event: campaign.EvStart, Slot: slot, Side: string(side), BootID: boot, Begin: begin.Add(-20 * time.Second), Settle: st, Result: name},
			{Time: begin.Add(3 * time.Second), Event: campaign.EvDone, Slot: slot, Side: string(side), BootID: boot, Result: name, OK: s.Runs},
		} {
			add(e)
		}
		t0 = begin.Add(4 * time.Second)
	}
	if err := os.WriteFile(filepath.Join(dir, campaign.LedgerFile), ledger, 0o644); err != nil {
		t.Fatal(err)
	}
}

// aaReport is what the JSON report of a campaign says of its metrics.
type aaReport struct {
	UnitOfAnalysis string `json:"unit_of_analysis"`
	Pairs          []struct {
		Headline string `json:"headline"`
		Metrics  []struct {
			Metric  string `json:"metric"`
			Verdict string `json:"verdict"`
			Pooled  *struct {
				Verdict string `json:"verdict"`
			} `json:"pooled"`
		} `json:"metrics"`
	} `json:"pairs"`
	PerBoot []struct {
		Boot int    `json:"boot"`
		Side string `json:"side"`
		Runs int    `json:"runs"`
	} `json:"per_boot"`
}

// TestCampaignAAReports runs the report of 10 synthetic A/A campaigns
// (4+4 boots of 10 runs, each boot its own boot id and a log offset of SD
// 0.05, runs SD 0.02; a workload metric and an evidence metric), written
// to disk, through the CLI ('compare DIR' and 'campaign report DIR', JSON
// and text): each is a boot-level report of 8 boots whose headline is the
// boot level, with the pooled runs beside every metric, and the text
// report's headline is the JSON one. How often the boot level calls a
// change in A/A campaigns (at most as often as alpha allows, over 300 of
// these campaigns) is tested beside the model:
// internal/comparison's TestBootLevelAAFalsePositives.
func TestCampaignAAReports(t *testing.T) {
	// Beside the long parallel tests: reports of files in its own
	// directory, no repetition.
	t.Parallel()
	const n = 10
	root := t.TempDir()
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprint(i))
		synthCampaign{BootsPerSide: 4, Runs: 10, BootSD: 0.05, RunSD: 0.02, Seed: uint64(i + 1)}.write(t, dir)
		args := []string{"compare", "--format", "json", dir}
		if i%2 == 1 {
			args = []string{"campaign", "report", "--format", "json", dir}
		}
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		var rep aaReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.UnitOfAnalysis != "boot" || len(rep.Pairs) != 1 || len(rep.Pairs[0].Metrics) != 2 || len(rep.PerBoot) != 8 {
			t.Fatalf("campaign %d: not a boot-level report:\n%s", i, r.stdout)
		}
		ms := rep.Pairs[0].Metrics
		if ms[0].Metric != "time" || ms[0].Pooled == nil || ms[1].Pooled == nil || ms[0].Verdict == "" || ms[1].Verdict == "" {
			t.Fatalf("campaign %d: metrics %+v", i, ms)
		}
		if !strings.Contains(rep.Pairs[0].Headline, "boot level") {
			t.Fatalf("campaign %d: headline %q", i, rep.Pairs[0].Headline)
		}
		// The text report's headline says the same.
		txt := runCLI(t, "compare", dir)
		_, block, _ := strings.Cut(txt.stdout, "\nexec:true time:")
		block, _, _ = strings.Cut(block, "\n\n")
		got := strings.Join(strings.Fields("exec:true time:"+block), " ")
		if want := strings.Join(strings.Fields(rep.Pairs[0].Headline), " "); got != want {
			t.Errorf("campaign %d: text headline %q, JSON %q", i, got, want)
		}
	}
}
