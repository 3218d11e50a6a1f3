package reproduce

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/campaign"
	"contend/internal/guest"
	"contend/internal/results"
	"contend/internal/robotmail"
	"contend/internal/wisbuild"
)

// switchMail is the mainline futex4 report with its block's sides one
// kernel at two values of key (a and b).
func switchMail(t *testing.T, key, a, b string) *robotmail.Report {
	t.Helper()
	raw, err := os.ReadFile("../robotmail/testdata/linus-futex4.mail")
	if err != nil {
		t.Fatal(err)
	}
	m := strings.Replace(string(raw), "commit: \n  b04e317b52 (\"futex: Introduce futex_q_lockptr_lock()\")\n  7c4f75a21f (\"futex: Allow to resize the private local hash\")",
		fmt.Sprintf("%s: \n  %s\n  %s", key, a, b), 1)
	rep, err := robotmail.Parse([]byte(m))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestKind checks what --run carries out: the campaign with kernels, the
// switch when it can be set here, else the A/A (saying why for a switch
// it cannot set); kernels for a switched block are refused.
func TestKind(t *testing.T) {
	m := Machine{CPUs: 4}
	commits, err := Make(mail(t, "linus-futex4.mail"), m, Options{Tests: "/w/tests"})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := Make(switchMail(t, "nr_task", "50%", "100%"), m, Options{Tests: "/w/tests"})
	if err != nil {
		t.Fatal(err)
	}
	tests, err := Make(switchMail(t, "test", "futex3", "futex4"), m, Options{Tests: "/w/tests"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Make(switchMail(t, "thp_enabled", "never", "always"), m, Options{Tests: "/w/tests"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		p       *Plan
		kernels bool
		want    RunKind
		refused string
	}{
		{"commits", commits, false, RunAA, ""},
		{"commits, kernels", commits, true, RunKernels, ""},
		{"nr_task", tasks, false, RunSwitch, ""},
		{"test", tests, false, RunSwitch, ""},
		{"another key", other, false, RunAA, ""},
		{"nr_task, kernels", tasks, true, 0, "--a-kernel, --b-kernel: the report's sides are one kernel with a switch (nr_task)"},
		{"another key, kernels", other, true, 0, "one kernel with a switch (thp_enabled)"},
	} {
		k, err := c.p.Kind(c.kernels)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%s: %v, %v; want refused with %q", c.name, k, err, c.refused)
			}
			continue
		}
		if err != nil || k != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, k, err, c.want)
		}
	}
	if got := strings.Join(tasks.ABArgs(RunSwitch, 8, "o.json"), " "); got != "ab wis --test /w/tests/futex4.c --mode thread --duration 5s --a --tasks 2 --b --tasks 4 -n 8 --out o.json -q" {
		t.Errorf("the switch's ab: %s", got)
	}
	if got := strings.Join(commits.ABArgs(RunAA, 8, "o.json"), " "); got != "ab wis --aa --test /w/tests/futex4.c --mode thread --tasks 4 --duration 5s -n 8 --out o.json -q" {
		t.Errorf("the A/A: %s", got)
	}
	if strings.Join(tests.SwitchFiles, " ") != "/w/tests/futex3.c /w/tests/futex4.c" {
		t.Errorf("the test switch's files: %v", tests.SwitchFiles)
	}
	if err := tests.CheckSwitch(); err == nil || !strings.Contains(err.Error(), "futex3.c is not there") {
		t.Errorf("a missing test of the switch: %v", err)
	}
	if other.Switch != nil || !strings.Contains(other.SwitchWhy, "the sides differ in thp_enabled (never against always), which contend cannot set here") {
		t.Errorf("another key: %v, %q", other.Switch, other.SwitchWhy)
	}
}

// TestPlanKernels checks the plan with the user's kernels: the campaign
// in VMs names them, with its run and its report.
func TestPlanKernels(t *testing.T) {
	p, err := Make(mail(t, "linus-futex4.mail"), Machine{CPUs: 2}, Options{Tests: "/w/tests", Kernels: [2]string{"/k/base", "/k/new"}, Noise: []float64{100, 102, 98, 101, 99, 100}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Commands) != 3 || p.Boots() != 4 ||
		p.Commands[0].Line != "contend campaign init repro-7c4f75a21f --vm --a-kernel /k/base --b-kernel /k/new --boots 4 -- run wis --test /w/tests/futex4.c --mode thread --tasks 2 --duration 5s -n 6" ||
		p.Commands[1].Line != "contend campaign run repro-7c4f75a21f" || !strings.Contains(p.Commands[2].Line, "--format lkml") {
		t.Errorf("boots %d, commands %+v", p.Boots(), p.Commands)
	}
}

// TestCampaignOptions checks the campaign of two kernels: the plan's
// 'run wis' with the test at its guest path (and at its host path for
// the check), the test and its objects compiled here as the guests'
// files, $CONTEND_WIS_OBJECTS, and the boots from --boots, the noise or
// the default; and the campaign package takes it.
func TestCampaignOptions(t *testing.T) {
	t.Cleanup(wisbuild.Cleanup)
	tests := t.TempDir()
	src := "#include <sched.h>\nchar *testcase_description = \"yield\";\nvoid testcase(unsigned long long *it, unsigned long nr) { for (;;) { sched_yield(); (*it)++; } }\n"
	if err := os.WriteFile(filepath.Join(tests, "futex4.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := mail(t, "linus-futex4.mail")
	p, err := Make(rep, Machine{CPUs: 2}, Options{Tests: tests, Duration: "200ms"})
	if err != nil {
		t.Fatal(err)
	}
	k := KernelRun{Dir: filepath.Join(t.TempDir(), "c"), Runs: 4, VM: campaign.VMOptions{Host: guest.Host{CPUs: 2, MemMiB: 4096}}}
	c, err := p.CampaignOptions(k)
	if err != nil {
		t.Fatal(err)
	}
	o := c.Options
	if got := strings.Join(o.Command, " "); got != "run wis --test /contend-wis/futex4.c --mode thread --tasks 2 --duration 200ms -n 4" {
		t.Errorf("the guests' command: %s", got)
	}
	if got := strings.Join(c.HostCommand, " "); got != "run wis --test "+filepath.Join(tests, "futex4.c")+" --mode thread --tasks 2 --duration 200ms -n 4" {
		t.Errorf("the host's command: %s", got)
	}
	key := wisbuild.Key([]byte(src))
	want := []string{"/contend-wis/futex4.c", "/contend-wis/" + key + ".so", "/contend-wis/" + key + ".run"}
	if len(o.VM.Files) != 3 {
		t.Fatalf("files %+v", o.VM.Files)
	}
	for i, f := range o.VM.Files {
		if f.Guest != want[i] {
			t.Errorf("file %d in the guest: %s, want %s", i, f.Guest, want[i])
		}
		if fi, err := os.Stat(f.Host); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("file %d on the host: %v", i, err)
		}
	}
	if strings.Join(o.VM.Env, " ") != "CONTEND_WIS_OBJECTS=/contend-wis" || c.Boots != campaign.DefaultBoots || !strings.Contains(c.BootsFrom, "the default: no noise measured") {
		t.Errorf("env %v, boots %d (%s)", o.VM.Env, c.Boots, c.BootsFrom)
	}
	k.Boots = 5
	if c, err := p.CampaignOptions(k); err != nil || c.Boots != 5 || c.Options.Boots != 5 || c.BootsFrom != "--boots" {
		t.Errorf("--boots 5: %+v, %v", c, err)
	}
	pn, err := Make(rep, Machine{CPUs: 2}, Options{Tests: tests, Noise: []float64{100, 130, 70, 110, 90, 100}})
	if err != nil {
		t.Fatal(err)
	}
	k.Boots = 0
	if c, err := pn.CampaignOptions(k); err != nil || c.Boots != pn.Boots() || !strings.Contains(c.BootsFrom, "the plan's") {
		t.Errorf("from the noise: %+v, %v (plan %d)", c, err, pn.Boots())
	}
	// The campaign package takes it and copies the files.
	o.Sides = [2]campaign.SideOptions{{Kernel: bzImage(t, "6.1.0-base")}, {Kernel: bzImage(t, "6.1.0-new")}}
	o.Contend, o.Workloads = "/usr/bin/contend", []string{"wis"}
	o.Volatile = func(string) (string, bool, error) { return "", false, nil }
	cp, err := campaign.NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := campaign.WritePlan(cp.Dir, cp); err != nil {
		t.Fatal(err)
	}
	for _, f := range cp.VM.Guest.Files {
		if _, err := os.Stat(filepath.Join(cp.Dir, f.Name)); err != nil {
			t.Errorf("%s not copied: %v", f.Guest, err)
		}
	}
	// A test that does not compile is refused before anything.
	os.WriteFile(filepath.Join(tests, "futex4.c"), []byte("void testcase(int {"), 0o644)
	if _, err := p.CampaignOptions(k); err == nil || !strings.Contains(err.Error(), "does not compile") {
		t.Errorf("a broken test: %v", err)
	}
}

// bzImage writes a file with an x86 boot header naming release r (what
// the campaign reads a side's release from).
func bzImage(t *testing.T, r string) string {
	t.Helper()
	b := make([]byte, 0x1000)
	copy(b[0x202:], "HdrS")
	b[0x20e], b[0x20f] = 0x00, 0x03
	copy(b[0x500:], r+" (test) #1 SMP\x00")
	p := filepath.Join(t.TempDir(), "vmlinuz-"+r)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wisCampaign writes a finished campaign of order whose boots ran wis,
// per_thread_ops near a[i] (side A's i-th boot) or b[i], three runs a
// boot at -1%, 0, +1%; and returns its directory.
func wisCampaign(t *testing.T, order string, a, b []float64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "c")
	p := &campaign.Plan{Format: campaign.FormatName, Version: campaign.FormatVersion, Order: order,
		Sides: [2]campaign.Side{{Label: "A", Boot: campaign.Boot{Command: "boot-a"}, Expect: campaign.Expect{Release: "6.1.0-base"}},
			{Label: "B", Boot: campaign.Boot{Command: "boot-b"}, Expect: campaign.Expect{Release: "6.1.0-new"}}},
		Command: []string{"run", "wis", "-n", "3"}}
	if err := campaign.WritePlan(dir, p); err != nil {
		t.Fatal(err)
	}
	na, nb := 0, 0
	for s := range order {
		boot := fmt.Sprintf("boot-%d", s)
		v, release := 0.0, ""
		if order[s] == 'A' {
			v, release, na = a[na], "6.1.0-base", na+1
		} else {
			v, release, nb = b[nb], "6.1.0-new", nb+1
		}
		f := &results.File{Kind: "run", Workload: "wis", Complete: true, Primary: "ops_per_sec",
			Metrics: []results.Metric{{Name: "ops_per_sec", Unit: "ops/s", Better: "higher"}, {Name: "per_task_ops", Unit: "ops/s", Better: "higher"}, {Name: "per_thread_ops", Unit: "ops/s", Better: "higher"}},
			Configs: []results.Config{{Params: []results.Param{{Name: "test", Value: "/w/futex4.c"}, {Name: "mode", Value: "thread"}, {Name: "tasks", Value: "2"}}}},
			Env:     map[string]string{"kernel.release": release, "kernel.boot_id": boot, "cpu.online": "2"}}
		for i, d := range []float64{0.99, 1, 1.01} {
			x := v * d
			f.Reps = append(f.Reps, results.Rep{Index: i, Status: results.StatusOK, BootID: boot,
				Metrics: results.ValuesOf(map[string]float64{"ops_per_sec": 2 * x, "per_task_ops": x, "per_thread_ops": x})})
		}
		raw, err := results.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		name := campaign.ResultName(s, order[s])
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, e := range []campaign.Event{{Event: campaign.EvStart, Slot: s, BootID: boot}, {Event: campaign.EvDone, Slot: s, BootID: boot, Result: name, OK: 3}} {
			if err := campaign.Append(dir, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestAnswerBoots checks the answer from a campaign of two kernels: the
// robot's row quoted above contend's per_thread_ops, n in boots, and the
// verdict of the boot-level comparison: reproduced (B 50% lower, as the
// robot's -98.3% in sign), opposite (B 50% higher), not reproduced (B as
// A: the reported change within reach).
func TestAnswerBoots(t *testing.T) {
	rep := mail(t, "linus-futex4.mail")
	plan, err := Make(rep, Machine{CPUs: 2}, Options{Tests: "/w", Kernels: [2]string{"/k/a", "/k/b"}})
	if err != nil {
		t.Fatal(err)
	}
	a := []float64{1000, 1010, 990}
	for _, c := range []struct {
		b    []float64
		word string
		line string
	}{
		{[]float64{500, 505, 495}, "reproduced", "has the reported sign (-98.3%)"},
		{[]float64{1500, 1515, 1485}, "opposite", "goes against the reported -98.3%"},
		{[]float64{1005, 995, 1000}, "not reproduced", "the reported one is within reach and is not here"},
	} {
		dir := wisCampaign(t, "ABBAAB", a, c.b)
		var sb strings.Builder
		if err := AnswerBoots(&sb, dir, rep, plan); err != nil {
			t.Fatal(err)
		}
		out := sb.String()
		lines := strings.Split(out, "\n")
		quoted := -1
		for i, l := range lines {
			if strings.HasPrefix(l, ">   21428413") && strings.HasSuffix(l, "will-it-scale.per_thread_ops") {
				quoted = i
			}
		}
		if quoted < 0 || quoted+1 >= len(lines) || !strings.HasSuffix(lines[quoted+1], "  will-it-scale.per_thread_ops") || strings.HasPrefix(lines[quoted+1], ">") {
			t.Errorf("%s: no robot row quoted above contend's:\n%s", c.word, out)
		}
		for _, w := range []string{"contend: n 3 boots vs 3 boots", "verdict: " + c.word + ": ", c.line, "boots as the unit: 3 boots and 3 boots (9 runs and 9 runs in all)",
			"the headline: Student's t on the per-boot means", "(per_thread_ops: Holm over 1 test",
			"  6.1.0-base (\"for b04e317b52: ", "> the quoted row: the robot's, on lkp-cpl-4sp2"} {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in:\n%s", c.word, w, out)
			}
		}
	}
}

// TestAnswerAB checks the answer from an ab file: the A/A says what it
// means (the noise here, not the commit, and how to run the kernels) in an
// A/A's words whatever its outcome (no change here; the A/A itself
// differs, of either sign: never "reproduced" or "opposite"); the switch
// says it ran the switch; both quote the robot's row.
func TestAnswerAB(t *testing.T) {
	abFile := func(scale float64) *results.File {
		f := &results.File{Kind: "ab", Workload: "wis", Complete: true, Primary: "ops_per_sec",
			Metrics: []results.Metric{{Name: "ops_per_sec", Unit: "ops/s", Better: "higher"}, {Name: "per_task_ops", Unit: "ops/s", Better: "higher"}, {Name: "per_thread_ops", Unit: "ops/s", Better: "higher"}},
			Configs: []results.Config{{Name: "a", Params: []results.Param{{Name: "tasks", Value: "2"}}}, {Name: "b", Params: []results.Param{{Name: "tasks", Value: "2"}}}},
			Env:     map[string]string{"cpu.online": "2"}}
		for i := 0; i < 16; i++ {
			x := 1000 + float64(i%4)*5
			if i%2 == 1 {
				x *= scale
			}
			f.Reps = append(f.Reps, results.Rep{Index: i, Config: i % 2, Status: results.StatusOK,
				Metrics: results.ValuesOf(map[string]float64{"ops_per_sec": 2 * x, "per_task_ops": x, "per_thread_ops": x})})
		}
		return f
	}
	rep := mail(t, "linus-futex4.mail")
	plan, err := Make(rep, Machine{CPUs: 2}, Options{Tests: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	m := Machine{CPUs: 2, Kernel: "6.18.0-test"}
	for _, c := range []struct {
		name  string
		scale float64 // of side b
		want  []string
	}{
		{"no change", 1, []string{"verdict: no change here (as expected of an A/A): p 0.093, estimate +0.5%; these runs detect a change of -0.9% or more with power 0.8: the reported -98.3% is within reach of this machine's noise\n"}},
		{"differs, the reported sign", 0.89, []string{"verdict: the A/A itself differs: this machine's noise (the kernel against itself: -10.6%, p 0.00", "cannot test -98.3%; quiet the machine"}},
		{"differs, the other sign", 1.12, []string{"verdict: the A/A itself differs: this machine's noise (the kernel against itself: +12.6%, p 0.00", "cannot test -98.3%"}},
	} {
		var sb strings.Builder
		if err := Answer(&sb, abFile(c.scale), rep, plan, m, "r.mail", RunAA); err != nil {
			t.Fatal(err)
		}
		out := sb.String()
		for _, w := range append(c.want, "A/A: kernel 6.18.0-test", ">   21428413", "the run measures the noise here, not the\n  commit",
			"'contend reproduce r.mail --run --a-kernel BASE --b-kernel NEW'", "runs a side detect the reported -98.3%") {
			if !strings.Contains(out, w) {
				t.Errorf("A/A, %s: no %q in:\n%s", c.name, w, out)
			}
		}
		if strings.Count(out, "verdict: ") != 1 || strings.Contains(out, "reproduced") || strings.Contains(out, "opposite") {
			t.Errorf("A/A, %s: not one verdict in an A/A's words:\n%s", c.name, out)
		}
	}
	tasks, err := Make(switchMail(t, "nr_task", "50%", "100%"), Machine{CPUs: 2}, Options{Tests: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := Answer(&sb, abFile(1), tasks.Report, tasks, m, "r.mail", RunSwitch); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	if !strings.Contains(out, "the switch (nr_task: 50% against 100%) ran here as an A/B, interleaved, on one kernel (6.18.0-test)") || strings.Contains(out, "A/A") || !strings.Contains(out, ">   21428413") {
		t.Errorf("switch:\n%s", out)
	}
}
