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

// TestPlanRealMails writes the plans of real mails: a tag as the base is
// named alone ("v6.5-rc1", once "v6.5-rc1 ()"); the other tests of "In
// addition to that" are named with their machines and parameters, and
// the other blocks' machines; a test other than will-it-scale has the
// A/A of the user's command as its noise step, and its campaign runs
// 'exec -n N -- YOUR-COMMAND'.
func TestPlanRealMails(t *testing.T) {
	m := Machine{CPUs: 2, Governor: "performance"}
	p, err := Make(mail(t, "real/stress-ng-seek-3d04e89a11.mail"), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	p.Write(&sb)
	out := sb.String()
	if strings.Contains(out, "()") || !strings.Contains(out, "kernel v6.5-rc1 against 3d04e89a11 (file: don't optimize for f_count equal 1)") {
		t.Errorf("a tag as the base:\n%s", out)
	}
	if len(p.Commands) != 3 || p.Commands[0].Line != "contend ab exec --aa -n 10 --format lkml -- YOUR-COMMAND" ||
		!strings.HasSuffix(p.Commands[1].Line, " -- exec -n N -- YOUR-COMMAND") || !strings.Contains(out, "noise here: not measured yet (the first command, with your command)") {
		t.Errorf("commands %q\n%s", p.Commands, out)
	}
	p, err = Make(mail(t, "real/aim7-disk_src-f4818881c4.mail"), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sb.Reset()
	p.Write(&sb)
	out = sb.String()
	for _, w := range []string{
		"also reported: netperf: netperf.Throughput_Mbps  1.8% regression, on 128 threads 2 sockets Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz (Ice Lake) with 256G memory (cluster=cs-localhost cpufreq_governor=performance ip=ipv4 nr_threads=200% runtime=300s test=UDP_STREAM)",
		"    lkp-icl-2sp2: testcase netperf, cluster=cs-localhost cpufreq_governor=performance ip=ipv4 nr_threads=200% runtime=300s test=UDP_STREAM",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}
}

// TestChangeBounded prints changes: one decimal, and at most a few
// significant digits for huge ones (a 1e308% change once printed 309
// digits).
func TestChangeBounded(t *testing.T) {
	for _, c := range []struct {
		v    float64
		pct  bool
		want string
	}{{-98.3, true, "-98.3%"}, {2.5, false, "+2.5"}, {1e308, true, "+1e+308%"}, {-1.2345678e9, true, "-1.235e+09%"}, {math.Inf(1), true, "+Inf%"}} {
		if got := Change(c.v, c.pct); got != c.want {
			t.Errorf("Change(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	r := mail(t, "linus-futex4.mail")
	r.Blocks[0].Rows[0].Change = 1e308
	for i := range r.Blocks[0].Rows {
		if r.Blocks[0].Rows[i].Stat == r.Change.Stat {
			r.Blocks[0].Rows[i].Change = 1e308
		}
	}
	p, err := Make(r, Machine{CPUs: 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	p.Write(&sb)
	for _, l := range strings.Split(sb.String(), "\n") {
		if len(l) > 400 || strings.Contains(l, "00000000000000000000") {
			t.Errorf("an unbounded line: %.120s...", l)
		}
	}
	v := Judge(1e306, 1e306, 0.001, 0.05, 0.1, 0.1)
	if len(v.Line) > 200 {
		t.Errorf("verdict %d bytes: %.120s", len(v.Line), v.Line)
	}
}

// contendBlock is a block of contend's --format lkml of workload faultme,
// its sides differing in key (commit: two files).
func contendBlock(key, a, b, threads string) string {
	axes, vals := "mem/stride/tbox_group/testcase/threads", "10GiB/4KiB/host/contend-faultme/"+threads
	if threads == "" {
		axes, vals = "mem/stride/tbox_group/testcase", "10GiB/4KiB/host/contend-faultme"
	}
	return "=========================================================================================\n" +
		axes + ":\n  " + vals + "\n\n" +
		key + ": \n  " + a + "\n  " + b + "\n\n" +
		"               a                           b \n---------------- --------------------------- \n" +
		"         %stddev     %change         %stddev\n             \\          |                \\  \n" +
		"     11.29           -46.9%       6.00 ± 19%  contend.faultme.time\n\n"
}

// TestPlanContendBlock plans contend's own block as the workload it came
// from: its parameters run's flags (one that cannot be a flag is said),
// an ab of the parameter its sides differ in.
func TestPlanContendBlock(t *testing.T) {
	plan := func(block string) (*Plan, string) {
		t.Helper()
		r, err := robotmail.Parse([]byte(block))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Make(r, Machine{CPUs: 2}, Options{Workloads: []string{"faultme", "wis"}})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		p.Write(&sb)
		return p, sb.String()
	}
	p, out := plan(contendBlock("commit", "a.json", "b.json", "400"))
	if p.Workload != "faultme" || strings.Join(p.WorkloadArgs, " ") != "--mem 10GiB --stride 4KiB --threads 400" || p.Metric != "time" ||
		!strings.HasSuffix(p.Commands[1].Line, "-- run faultme --mem 10GiB --stride 4KiB --threads 400 -n N") {
		t.Errorf("workload %q %q metric %q\n%s", p.Workload, p.WorkloadArgs, p.Metric, out)
	}
	_, out = plan(contendBlock("commit", "a.json", "b.json", "4;reboot"))
	if strings.Contains(out, "reboot -n") || !strings.Contains(out, "parameter threads=4;reboot: not a flag of contend run faultme") {
		t.Errorf("a value that is no flag's:\n%s", out)
	}
	p, out = plan(contendBlock("threads", "1", "2", ""))
	if len(p.Commands) != 2 || p.Commands[1].Line != "contend ab faultme --mem 10GiB --stride 4KiB --a '--threads 1' --b '--threads 2' -n N --format lkml" {
		t.Errorf("the sides' switch: %q\n%s", p.Commands, out)
	}
}

// TestPlanNotesSkippedRows: a detail row the parse skipped is a note of
// the plan, which goes on.
func TestPlanNotesSkippedRows(t *testing.T) {
	block := strings.Replace(contendBlock("commit", "a.json", "b.json", "400"), "  contend.faultme.time\n",
		"  contend.faultme.time\n      1.00 ± x%      +1.0%       1.01        contend.faultme.pages\n", 1)
	r, err := robotmail.Parse([]byte(block))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Make(r, Machine{CPUs: 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	p.Write(&sb)
	if !strings.Contains(sb.String(), "  note: line 14 skipped: ") || !strings.Contains(sb.String(), "contend.faultme.pages") || !strings.Contains(sb.String(), "\nplan:\n") {
		t.Errorf("no note of the skipped row:\n%s", sb.String())
	}
}

// TestPlanReplies plans real replies (robotmail's testdata/replies): one
// quoting only the head of a will-it-scale report has a plan, its base
// the commit's parent and its mode from the stat, each said; one quoting
// a whole report says it was read from the quote; a reply's own table of
// three commits is planned for the first two, the third said.
func TestPlanReplies(t *testing.T) {
	m := Machine{CPUs: 4, Governor: "performance"}
	p, err := Make(mail(t, "replies/reply-head-only-will-it-scale-9bd0e337c6.mail"), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	un := strings.Join(p.Unmapped, "\n")
	if p.HasRow || p.Reported.Change != -4.8 || p.Mode != "process" || p.Metric != "per_process_ops" || len(p.Commands) != 3 ||
		!strings.Contains(p.Commands[1].Why, "kernel 9bd0e337c6^ (its parent) against 9bd0e337c6") ||
		!strings.Contains(un, "quotes the report without its comparison block") || !strings.Contains(un, "mode: none quoted; process") {
		t.Errorf("head only: row %v %+v, mode %s, commands %+v\n%s", p.HasRow, p.Reported, p.Mode, p.Commands, un)
	}
	var sb strings.Builder
	p.Write(&sb)
	if !strings.Contains(sb.String(), "report: Re: [iov_iter] 9bd0e337c6: will-it-scale.per_process_ops -4.8% regression") {
		t.Errorf("plan:\n%s", sb.String())
	}
	p, err = Make(mail(t, "replies/reply-fsmark-39d432fc76.mail"), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasRow || p.Reported.Change != -100 || !strings.Contains(strings.Join(p.Unmapped, "\n"), "read from the lines the reply ZOdZ7DiQ4jqhoj0i@tissot.1015granger.net quotes") {
		t.Errorf("quoted report: %+v\n%s", p.Reported, strings.Join(p.Unmapped, "\n"))
	}
	p, err = Make(mail(t, "replies/reply-base64-aim7-92a8f471fa.mail"), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Reported.Change != -5.6 || !strings.Contains(p.Commands[1].Why, "against 32678f1513 (xfs: detect self referencing btree sibling pointers)") ||
		!strings.Contains(strings.Join(p.Unmapped, "\n"), "the block compares 3 sides: planned for the first two; not planned: 92a8f471fa (fixup-for-32678f1513)") {
		t.Errorf("three sides: %+v %+v\n%s", p.Reported, p.Commands, strings.Join(p.Unmapped, "\n"))
	}
}
