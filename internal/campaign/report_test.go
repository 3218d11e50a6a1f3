package campaign

import (
	"contend/internal/comparison"
	"contend/internal/results"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// campaignDir makes a campaign of order whose first done boots finished,
// each with three repetitions of time ns: side A near 100, side B near
// 110; every boot's step settled for 30 s at load 0.5, the reboots took
// cost each.
func campaignDir(t *testing.T, order string, done int, cost time.Duration) string {
	t.Helper()
	return campaignDirWith(t, order, done, cost, ".jsonl", func(path, boot string, s int, side byte, t0 time.Time) {
		writeResult(t, path, boot, map[byte]float64{'A': 100, 'B': 110}[side]+float64(s)/4, t0)
	})
}

// campaignDirWith makes the campaign of campaignDir, its boots' files
// named boots/NN-S+ext and written by write (boot id, slot, side).
func campaignDirWith(t *testing.T, order string, done int, cost time.Duration, ext string, write func(path, boot string, slot int, side byte, t0 time.Time)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kc")
	p := &Plan{Format: FormatName, Version: FormatVersion, Order: order,
		Sides:   [2]Side{{Label: "A", Boot: Boot{Command: "boot-a"}, Expect: Expect{Release: "6.1"}}, {Label: "B", Boot: Boot{Command: "boot-b"}, Expect: Expect{Release: "6.2"}}},
		Command: []string{"run", "mutex", "-n", "3"}}
	if err := WritePlan(dir, p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, BootsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for s := 0; s < done; s++ {
		boot := fmt.Sprintf("boot%d", s)
		rel := filepath.Join(BootsDir, fmt.Sprintf("%02d-%c%s", s+1, order[s], ext))
		write(filepath.Join(dir, rel), boot, s, order[s], t0)
		start := t0.Add(time.Duration(s) * time.Hour)
		events := []Event{
			{Time: start.Add(cost), Event: EvStart, Slot: s, BootID: boot, Settle: &SettleRecord{Waited: Duration(30 * time.Second), Load: 0.5}},
			{Time: start.Add(cost + time.Minute), Event: EvDone, Slot: s, BootID: boot, Result: rel, OK: 3},
			{Time: start.Add(time.Hour), Event: EvReboot, Slot: s + 1, BootID: boot},
		}
		if s == 0 {
			events = events[:2]
			events = append([]Event{{Time: start, Event: EvReboot, Slot: 0}}, events...)
		}
		for _, e := range events {
			if err := Append(dir, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// writeResult writes a complete result file of three repetitions in boot.
func writeResult(t *testing.T, path, boot string, base float64, t0 time.Time) {
	t.Helper()
	f := &results.File{Format: results.FormatName, Version: results.FormatVersion, Workload: "w", Kind: "run", Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}}, Start: t0}
	w, err := results.Create(path, f)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range []float64{-1, 0, 1} {
		rep := results.Rep{Index: i, Status: results.StatusOK, BootID: boot, Start: t0.Add(time.Duration(i) * time.Second),
			Metrics: results.ValuesOf(map[string]float64{"time": base + d})}
		if err := w.Add(rep); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(time.Minute), true); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBuild: the finished boots are the parts of their sides in the
// order of the plan, the boot cost is the ledger's median, every boot has
// its slot and settling, and the boot-level test runs on the per-boot
// means.
func TestBuild(t *testing.T) {
	dir := campaignDir(t, "ABBAAB", 6, 90*time.Second)
	r, err := BuildReport(dir, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if r.Order != "ABBAAB" || len(r.Files) != 6 || filepath.Base(r.Files[1]) != "02-B.jsonl" {
		t.Errorf("order %q, files %q", r.Order, r.Files)
	}
	if got := []string{r.Sides[0].Name, r.Sides[1].Name}; !slices.Equal(got, []string{"A: release 6.1", "B: release 6.2"}) {
		t.Errorf("side names %q", got)
	}
	if want := []string{"boots/01-A.jsonl", "boots/04-A.jsonl", "boots/05-A.jsonl"}; !slices.Equal(r.Sides[0].Parts, want) {
		t.Errorf("side A parts %q, want %q", r.Sides[0].Parts, want)
	}
	if len(r.Boots) != 1 {
		t.Fatalf("boot levels: %d", len(r.Boots))
	}
	bl := r.Boots[0]
	if bl.CostBoot != 90 || !bl.CostBootMeasured || len(bl.BootsA) != 3 || len(bl.BootsB) != 3 || bl.Cmp == nil {
		t.Errorf("boot level: cost %v measured %v, boots %d %d, cmp %v", bl.CostBoot, bl.CostBootMeasured, len(bl.BootsA), len(bl.BootsB), bl.Cmp)
	}
	info := BootInfo(mustLedger(t, dir))
	if len(info) != 6 || info["boot3"] != (comparison.BootInfo{Slot: 3, Settle: 30 * time.Second, SettleLoad: 0.5, HasSettle: true}) {
		t.Errorf("boot info: %+v", info)
	}
}

// TestBuildRefuses: no plan, and a side without a finished boot, are the
// user's campaign (a ReportRefusal) with the text that says what to do.
func TestBuildRefuses(t *testing.T) {
	var rf *ReportRefusal
	if _, err := BuildReport(t.TempDir(), comparison.Options{}); !errors.As(err, &rf) {
		t.Errorf("no plan: %v", err)
	}
	dir := campaignDir(t, "ABBA", 1, time.Minute)
	_, err := BuildReport(dir, comparison.Options{})
	want := fmt.Sprintf("campaign %s: no finished boot of side B yet: nothing to compare ('contend campaign status %s')", dir, dir)
	if !errors.As(err, &rf) || err.Error() != want {
		t.Errorf("one side: %v\nwant %s", err, want)
	}
}

func mustLedger(t *testing.T, dir string) *Ledger {
	led, err := ReadLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	return led
}
