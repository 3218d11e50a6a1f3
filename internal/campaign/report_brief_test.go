package campaign

import (
	"contend/internal/comparison"
	"contend/internal/report"
	"contend/internal/results"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// vmWarning, loadWarning and unstableWarning are environment warnings as
// env.Diagnose and run.UnstableWarnings write them.
const (
	vmWarning       = "running in a virtual machine (cpu flag hypervisor; TCG): steal time and hypervisor-bound faults add noise"
	loadWarning     = "load average %.2f on 2 CPUs: other work is running and will disturb the results"
	unstableWarning = "unstable: time varies by 12.5% over 3 runs (stdev/mean; above 10% the runs are noisier than a quiet machine gives): see 'contend check' and 'contend tune'"
)

// briefCampaign makes a campaign of 4 boots a side (ABBAABBA), all done,
// whose files hold three metrics: time (B 10% slower) and faults (B
// far more) change, rss does not; every file warns of the VM, three of
// them (one of A, two of B) of the load, with different figures, and one
// of B that its runs were unstable. ext names the boots' files (".json"
// as campaigns made them before result files were named .jsonl).
func briefCampaign(t *testing.T, ext string) string {
	t.Helper()
	load := map[int]float64{1: 2.31, 2: 5.1, 3: 3}
	return campaignDirWith(t, "ABBAABBA", 8, time.Minute, ext, func(path, boot string, s int, side byte, t0 time.Time) {
		warns := []string{vmWarning}
		if l, ok := load[s]; ok {
			warns = append(warns, fmt.Sprintf(loadWarning, l))
		}
		if s == 6 {
			warns = append(warns, unstableWarning)
		}
		timeBase, faults := 100.0, 50.0
		if side == 'B' {
			timeBase, faults = 110, 16384
		}
		f := &results.File{Format: results.FormatName, Version: results.FormatVersion, Workload: "faultme", Kind: "run", Primary: "time",
			Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "faults", Better: "lower"}, {Name: "rss", Unit: "B", Better: "lower"}},
			Configs: []results.Config{{}}, Start: t0.Add(time.Duration(s) * time.Hour), Warnings: warns}
		w, err := results.Create(path, f)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range []float64{-1, 0, 1} {
			m := map[string]float64{"time": timeBase + float64(s)/4 + d, "faults": faults + float64(s%3) + d, "rss": 1000 + float64((s*7+i)%5)}
			rep := results.Rep{Index: i, Status: results.StatusOK, BootID: boot, Start: f.Start.Add(time.Duration(i) * time.Second), Metrics: results.ValuesOf(m)}
			if err := w.Add(rep); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(f.Start.Add(time.Minute), true); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBriefReportCountsBoots: the brief campaign report of 4 boots a side
// is the headline, the sides (each one line: its kernel and its boots),
// the table of the metrics that changed, the files' warnings counted
// (not repeated per boot) and one line counting the rest, in at most 25
// lines; it listed every boot's file and repeated each file's warnings
// (146 lines for the README's VM campaign). --full still lists every file
// and every file's warnings.
func TestBriefReportCountsBoots(t *testing.T) {
	r, err := BuildReport(briefCampaign(t, ".jsonl"), comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if !r.BootUnit() {
		t.Fatalf("the boot is not the unit: %+v", r.Boots)
	}
	var b strings.Builder
	if err := report.WriteText(&b, r.Comparison, report.Brief); err != nil {
		t.Fatal(err)
	}
	brief := b.String()
	lines := strings.Split(strings.TrimRight(brief, "\n"), "\n")
	t.Logf("brief report, %d lines:\n%s", len(lines), brief)
	if len(lines) > 25 {
		t.Errorf("the brief report has %d lines, want at most 25:\n%s", len(lines), brief)
	}
	for _, want := range []string{"  A  release 6.1: 4 boots  ", "  B  release 6.2: 4 boots  "} {
		if !strings.Contains(brief, want) {
			t.Errorf("the brief report lacks %q:\n%s", want, brief)
		}
	}
	flat := strings.Join(strings.Fields(brief), " ") // the text, unwrapped
	for _, want := range []string{
		"warning: 8 of 8 boots: running in a virtual machine (cpu flag hypervisor; TCG) warning:",
		"warning: 3 of 8 boots (A 1 of 4, B 2 of 4): load average 2.31 to 5.10 on 2 CPUs warning:",
		"warning: 1 of 8 boots (A 0 of 4, B 1 of 4): unstable: time varies by 12.5% over 3 runs 1 of 3",
		"1 of 3 metrics did not change significantly",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the brief report lacks %q:\n%s", want, brief)
		}
	}
	for _, not := range []string{"boots/", "files pooled", "steal time"} {
		if strings.Contains(brief, not) {
			t.Errorf("the brief report says %q (each boot's file or warning):\n%s", not, brief)
		}
	}
	if n := strings.Count(brief, "\nrss "); n != 0 {
		t.Errorf("the unchanged rss is in the table:\n%s", brief)
	}

	b.Reset()
	if err := report.WriteText(&b, r.Comparison, report.Full); err != nil {
		t.Fatal(err)
	}
	full := b.String()
	if n := strings.Count(full, "running in a virtual machine"); n != 8 {
		t.Errorf("the full report says the VM warning %d times, want once per file (8)", n)
	}
	for s, l := range "ABBAABBA" {
		if name := fmt.Sprintf("boots/%02d-%c.jsonl", s+1, l); !strings.Contains(full, name) {
			t.Errorf("the full report does not list %s", name)
		}
	}
}

// TestReportOfOldBootNames: a campaign made before boots' files were
// named .jsonl (boots/NN-S.json, the names in its ledger) still reports.
func TestReportOfOldBootNames(t *testing.T) {
	dir := briefCampaign(t, ".json")
	r, err := BuildReport(dir, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Files) != 8 || filepath.Base(r.Files[0]) != "01-A.json" || !r.BootUnit() {
		t.Errorf("files %q, boot unit %v", r.Files, r.BootUnit())
	}
	if got := ResultName(0, 'A'); got != filepath.Join(BootsDir, "01-A.jsonl") {
		t.Errorf("a new boot's file is %s, want boots/01-A.jsonl", got)
	}
}
