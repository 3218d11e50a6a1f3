package reproduce

import (
	"math"
	"os"
	"strings"
	"testing"

	"contend/internal/robotmail"
)

func mail(t *testing.T, name string) *robotmail.Report {
	t.Helper()
	b, err := os.ReadFile("../robotmail/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := robotmail.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPlanLinus maps the mainline futex4 report onto an 8-CPU machine
// without cpufreq: nr_task 100% is 8 tasks, the second test machine and
// the governor are said not to map, the plan is the noise run then a
// campaign of the two commits and its lkml report.
func TestPlanLinus(t *testing.T) {
	p, err := Make(mail(t, "linus-futex4.mail"), Machine{CPUs: 8, Governor: "none (no cpufreq)"}, Options{Tests: "/src/wis/tests"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tasks != 8 || p.Mode != "thread" || p.Test != "futex4" || p.Metric != "per_thread_ops" || p.TestFile != "/src/wis/tests/futex4.c" {
		t.Errorf("mapped %d tasks, %s, %s, %s, %s", p.Tasks, p.Mode, p.Test, p.Metric, p.TestFile)
	}
	if !p.HasRow || p.Reported.Change != -98.3 || p.Block.Machine != "lkp-cpl-4sp2" {
		t.Errorf("reported %+v on %s", p.Reported, p.Block.Machine)
	}
	un := strings.Join(p.Unmapped, "\n")
	for _, w := range []string{"2 test machines", "lkp-skl-fpga01 (futex3)", "cpufreq_governor performance: this machine has no cpufreq", "kconfig x86_64-rhel-9.4", "224 threads"} {
		if !strings.Contains(un, w) {
			t.Errorf("not mapped lacks %q:\n%s", w, un)
		}
	}
	if len(p.Commands) != 3 || !strings.Contains(p.Commands[0].Line, "contend ab wis --aa --test /src/wis/tests/futex4.c --mode thread --tasks 8") ||
		!strings.Contains(p.Commands[1].Line, "contend campaign init repro-7c4f75a21f") || !strings.Contains(p.Commands[1].Why, "b04e317b52") ||
		!strings.Contains(p.Commands[2].Line, "--format lkml") {
		t.Errorf("commands %+v", p.Commands)
	}
	var sb strings.Builder
	p.Write(&sb)
	if !strings.Contains(sb.String(), "8 tasks (nr_task 100%)") || !strings.Contains(sb.String(), "noise here: not measured yet") {
		t.Errorf("plan:\n%s", sb.String())
	}
}

// TestPlanPatch maps the mailing-list patch report: 50% of 2 CPUs is one
// task, process mode, the patch link in the campaign's sides; with noise
// measured, the runs a side.
func TestPlanPatch(t *testing.T) {
	noise := []float64{100, 102, 98, 101, 99, 100, 103, 97}
	p, err := Make(mail(t, "patch-page_fault1.mbox"), Machine{CPUs: 2, Governor: "performance"}, Options{Noise: noise})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tasks != 1 || p.Mode != "process" || p.Metric != "per_process_ops" {
		t.Errorf("mapped %d tasks, %s, %s", p.Tasks, p.Mode, p.Metric)
	}
	if !strings.Contains(p.Commands[0].Why, "lore.kernel.org/all/20250301020304.12345-1-jane@example.org") {
		t.Errorf("the campaign does not name the patch: %+v", p.Commands[0])
	}
	for _, u := range p.Unmapped {
		if strings.Contains(u, "cpufreq_governor") {
			t.Errorf("the governor is the same here, yet: %s", u)
		}
	}
	if p.CV < 0.01 || p.CV > 0.03 || p.Runs < 4 || p.Runs > 10 {
		t.Errorf("CV %.3f, runs %d for +12.4%%", p.CV, p.Runs)
	}
}

// TestRunsFor checks the runs: more for a smaller change or more noise,
// the fewest Mann-Whitney can decide with for a large one.
func TestRunsFor(t *testing.T) {
	big := RunsFor(-0.983, 0.05, 0.05, 0.8, 1000)
	small := RunsFor(-0.08, 0.05, 0.05, 0.8, 1000)
	noisy := RunsFor(-0.08, 0.10, 0.05, 0.8, 1000)
	if big != 4 || !(small > big) || !(noisy > small) {
		t.Errorf("runs: 98.3%% at CV 5%%: %d; 8%% at 5%%: %d; 8%% at 10%%: %d", big, small, noisy)
	}
	if RunsFor(-0.001, 0.5, 0.05, 0.8, 50) != 0 {
		t.Error("a change far below the noise got a number of runs")
	}
}

// TestJudge checks the three verdicts.
func TestJudge(t *testing.T) {
	if v := Judge(-0.983, -0.95, 0.001, 0.05, 0.1, 0.1); v.Word != "reproduced" {
		t.Errorf("same sign, significant: %+v", v)
	}
	if v := Judge(-0.983, 0.2, 0.001, 0.05, 0.1, 0.1); v.Word != "opposite" {
		t.Errorf("other sign, significant: %+v", v)
	}
	v := Judge(-0.983, -0.01, 0.6, 0.05, 0.08, 0.07)
	if v.Word != "not reproduced" || !strings.Contains(v.Line, "-7.0% or more") || !strings.Contains(v.Line, "within reach and is not here") {
		t.Errorf("not significant: %+v", v)
	}
	v = Judge(-0.02, -0.01, 0.6, 0.05, 0.08, 0.07)
	if !strings.Contains(v.Line, "below that: more runs") {
		t.Errorf("a small reported change: %+v", v)
	}
	if v := Judge(0.1, math.NaN(), math.NaN(), 0.05, math.NaN(), math.NaN()); v.Word != "not reproduced" {
		t.Errorf("no figures: %+v", v)
	}
}

// TestJudgeAA checks an A/A's two verdicts: significant (either sign) is
// the A/A differing, never the commit reproduced; not significant says
// whether the reported change is within these runs' reach.
func TestJudgeAA(t *testing.T) {
	for _, est := range []float64{-0.113, 0.113} {
		v := JudgeAA(-0.12, est, 0.041, 0.05, 0.1, 0.1)
		if v.Word != AADiffers || !strings.Contains(v.Line, "cannot test -12.0%") || !strings.Contains(v.Line, "p 0.041") {
			t.Errorf("estimate %g: %+v", est, v)
		}
	}
	if v := JudgeAA(-0.12, -0.01, 0.6, 0.05, 0.08, 0.07); v.Word != AASame || !strings.HasSuffix(v.Line, "-7.0% or more with power 0.8: the reported -12.0% is within reach of this machine's noise") {
		t.Errorf("within reach: %+v", v)
	}
	if v := JudgeAA(-0.02, -0.01, 0.6, 0.05, 0.08, 0.07); v.Word != AASame || !strings.HasSuffix(v.Line, "the reported -2.0% is below that: more runs") {
		t.Errorf("below reach: %+v", v)
	}
	if v := JudgeAA(-0.12, math.NaN(), math.NaN(), 0.05, math.NaN(), math.NaN()); v.Word != AASame {
		t.Errorf("no p: %+v", v)
	}
}

// TestPlanSwitch plans a block whose sides are one kernel with a switch
// (the robot's compare key nr_task): ab with the two task counts, no
// campaign.
func TestPlanSwitch(t *testing.T) {
	b, err := os.ReadFile("../robotmail/testdata/linus-futex4.mail")
	if err != nil {
		t.Fatal(err)
	}
	m := strings.Replace(string(b), "commit: \n  b04e317b52 (\"futex: Introduce futex_q_lockptr_lock()\")\n  7c4f75a21f (\"futex: Allow to resize the private local hash\")",
		"nr_task: \n  50%\n  100%", 1)
	rep, err := robotmail.Parse([]byte(m))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Make(rep, Machine{CPUs: 4}, Options{Tests: "/w/tests"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Commands) != 2 || !strings.Contains(p.Commands[1].Line, "contend ab wis --test /w/tests/futex4.c --mode thread --duration") ||
		!strings.Contains(p.Commands[1].Line, "--a '--tasks 2' --b '--tasks 4'") || strings.Contains(p.Commands[1].Line, "campaign") {
		t.Errorf("commands %+v", p.Commands)
	}
}
