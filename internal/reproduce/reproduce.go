// Package reproduce maps a kernel test robot report (internal/robotmail)
// onto this machine: which contend commands reproduce it, with which sides,
// how many runs (or boots) the reported change takes at the noise measured
// here, and what cannot be mapped (Make), and the answer from an A/A run's
// file (Answer). It runs nothing; cmd/contend's reproduce prints the plan
// and, with --run, runs 'contend ab --aa' for Answer.
package reproduce

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"contend/analysis"
	"contend/internal/esc"
	"contend/internal/lazyre"
	"contend/internal/plural"
	"contend/internal/robotmail"
	"contend/internal/textfmt"
)

// Machine is what the plan needs of this machine.
type Machine struct {
	CPUs     int
	Governor string // "" or "none ..." without cpufreq
	Kernel   string // uname -r
}

// Options of a plan.
type Options struct {
	// Tests is will-it-scale's tests directory (TESTS/futex4.c); "" if
	// unknown.
	Tests string
	// Noise is the per-task ops of repetitions of the test here (an A/A
	// run or a noise file), for the number of runs; nil if not measured.
	Noise []float64
	// Alpha and Power of the planned comparison (0: 0.05 and 0.8).
	Alpha, Power float64
	// Duration of each repetition's measured interval ("5s").
	Duration string
	// Kernels are the user's two kernels (--a-kernel, --b-kernel), for
	// the plan's campaign in VMs; empty: none given.
	Kernels [2]string
	// Workloads are contend's workloads (workload.Names): a testcase
	// contend-WORKLOAD of one of them (contend's own --format lkml) is
	// planned as 'run WORKLOAD' with the block's parameters as flags.
	Workloads []string
}

// Plan is a report mapped onto this machine.
type Plan struct {
	Report *robotmail.Report
	Block  *robotmail.Block // the block of the headline's machine
	// Reported is the robot's row of the headline stat; ok false when the
	// block has none.
	Reported   robotmail.Row
	HasRow     bool
	Stat       string // will-it-scale.per_thread_ops
	Metric     string // contend's per_thread_ops
	Mode, Test string
	Tasks      int
	TestFile   string
	// WisArgs are the flags of 'contend run wis' for the test here.
	WisArgs []string
	// Workload and WorkloadArgs are contend's workload and its flags for
	// a testcase contend-WORKLOAD (contend's own block); "" otherwise.
	Workload     string
	WorkloadArgs []string
	// Unmapped says what of the report does not map onto this machine.
	Unmapped []string
	// Runs is the repetitions a side for the reported change at the
	// noise here (0 when the noise is unknown); CV that noise.
	Runs int
	CV   float64
	// Commands are the contend commands of the plan, in order, each with
	// a line saying what it is for.
	Commands []Command
	// Switch, for a block whose sides are one kernel with a switch (the
	// robot's compare key is not commit), is the arguments of 'contend
	// ab' that run it here, without -n, --out and --format; SwitchFiles
	// the test files it needs. Nil when the switch cannot be set here:
	// SwitchWhy says why.
	Switch      []string
	SwitchFiles []string
	SwitchWhy   string
	// Kernels are the two kernels the user gave (--a-kernel,
	// --b-kernel), booted in VMs by the plan's campaign; empty: the
	// plan names them A and B for the user to build.
	Kernels [2]string
	cpus    int
}

// Command is one step of the plan.
type Command struct{ Why, Line string }

// Make maps rep onto m.
func Make(rep *robotmail.Report, m Machine, opt Options) (*Plan, error) {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if opt.Power == 0 {
		opt.Power = 0.8
	}
	if opt.Duration == "" {
		opt.Duration = "5s"
	}
	block, quoted, err := planBlock(rep)
	if err != nil {
		return nil, err
	}
	p := &Plan{Report: rep, Block: block, Stat: rep.Change.Stat, cpus: m.CPUs, Kernels: opt.Kernels}
	p.Reported, p.HasRow = p.Block.Row(p.Stat)
	if quoted != "" {
		p.Unmapped = append(p.Unmapped, quoted)
		if !p.HasRow {
			// The headline's change, without its means.
			p.Reported = robotmail.Row{Stat: p.Stat, Change: rep.Change.Percent}
		}
	}
	if !p.HasRow && len(p.Block.Rows) > 0 {
		p.Reported, p.HasRow, p.Stat = p.Block.Rows[0], true, p.Block.Rows[0].Stat
	}
	if len(rep.Blocks) > 1 {
		var others []string
		for _, b := range rep.Blocks[1:] {
			others = append(others, b.Machine+" ("+b.Axis("test")+")")
		}
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("the report has %d test machines: planned for the first, %s; also in it: %s", len(rep.Blocks), p.Block.Machine, strings.Join(others, ", ")))
	}
	param := func(k string) string {
		if v, ok := rep.Param(k); ok {
			return v
		}
		return p.Block.Axis(k)
	}
	switch w, ok := strings.CutPrefix(rep.Testcase, "contend-"); {
	case rep.Testcase == "will-it-scale":
		p.mapWis(param, m, opt)
	case ok && slices.Contains(opt.Workloads, w):
		p.mapContend(w)
	default:
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("testcase %s: contend runs will-it-scale tests (contend run wis); the campaign below needs your own command for it", rep.Testcase))
	}
	if g := param("cpufreq_governor"); g != "" {
		here := m.Governor
		switch {
		case here == "" || strings.HasPrefix(here, "none"):
			p.Unmapped = append(p.Unmapped, fmt.Sprintf("cpufreq_governor %s: this machine has no cpufreq governor to set", g))
		case here != g:
			p.Unmapped = append(p.Unmapped, fmt.Sprintf("cpufreq_governor %s: here it is %s; set it first (cpupower frequency-set -g %s)", g, here, g))
		}
	}
	for _, k := range []string{"kconfig", "rootfs", "compiler"} {
		if v := p.Block.Axis(k); v != "" {
			p.Unmapped = append(p.Unmapped, fmt.Sprintf("%s %s: the robot's; the kernels below are yours to build (%s)", k, v, materials(k)))
		}
	}
	if rep.Machine != "" {
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("test machine: %s; here %d CPUs: absolute figures differ, and a change that needs many CPUs contending may not show", rep.Machine, m.CPUs))
	}
	p.plan(m, opt)
	return p, nil
}

// planBlock returns the block a plan is made for: the report's first; for
// a reply that quotes the report without its details, one made of the
// quoted head (the testcase, the parameters, the commit against its
// parent), and the note that says so.
func planBlock(rep *robotmail.Report) (*robotmail.Block, string, error) {
	reply := "the reply"
	if rep.MessageID != "" {
		reply += " " + rep.MessageID
	}
	switch {
	case len(rep.Blocks) > 0 && rep.Quoted:
		return &rep.Blocks[0], fmt.Sprintf("read from the lines %s quotes: the rows it cut are not here", reply), nil
	case len(rep.Blocks) > 0:
		return &rep.Blocks[0], "", nil
	case !rep.Quoted:
		return nil, "", errors.New("the report has no comparison block")
	}
	b := &robotmail.Block{CompareKey: "commit", Machine: "the robot's machine",
		Axes:  append([]robotmail.Param{{Key: "testcase", Value: rep.Testcase}}, rep.Params...),
		Sides: []robotmail.Side{{ID: short(rep.Commit) + "^", Subject: "its parent"}, {ID: rep.Commit, Subject: rep.CommitSubject}}}
	return b, fmt.Sprintf("%s quotes the report without its comparison block: the base is taken as the commit's parent (%s^), the change as the headline's (%s %g%% %s), without the robot's means", reply, short(rep.Commit), rep.Change.Stat, rep.Change.Percent, rep.Change.Kind), nil
}

func materials(k string) string {
	switch k {
	case "kconfig":
		return "the config is among the robot's materials, the link in the mail"
	case "rootfs":
		return "contend runs in this machine's system"
	}
	return "the compiler of the kernels"
}

func (p *Plan) mapWis(param func(string) string, m Machine, opt Options) {
	p.Mode = param("mode")
	if m, ok := map[string]string{"will-it-scale.per_thread_ops": "thread", "will-it-scale.per_process_ops": "process"}[p.Stat]; p.Mode == "" && ok {
		// A reply that cut the parameters: the stat names the mode.
		p.Mode = m
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("mode: none quoted; %s, as the stat %s says", m, p.Stat))
	}
	if p.Mode != "thread" && p.Mode != "process" {
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("mode %q: will-it-scale runs thread or process", p.Mode))
		p.Mode = "thread"
	}
	p.Metric = "per_" + p.Mode + "_ops"
	if s := strings.TrimPrefix(p.Stat, "will-it-scale."); s != p.Stat && s != p.Metric && s != "workload" {
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("stat %s: contend's wis reports %s and workload", p.Stat, p.Metric))
	}
	nr := param("nr_task")
	switch {
	case strings.HasSuffix(nr, "%"):
		pc, err := strconv.ParseFloat(strings.TrimSuffix(nr, "%"), 64)
		if err != nil || pc <= 0 {
			p.Unmapped = append(p.Unmapped, fmt.Sprintf("nr_task %q: not a share of the CPUs; 100%% taken", nr))
			pc = 100
		}
		p.Tasks = max(1, int(math.Round(pc/100*float64(m.CPUs))))
	default:
		n, err := strconv.Atoi(nr)
		if err != nil || n < 1 {
			p.Unmapped = append(p.Unmapped, fmt.Sprintf("nr_task %q: not a count; the CPUs here taken", nr))
			n = m.CPUs
		}
		p.Tasks = n
		if n > m.CPUs {
			p.Unmapped = append(p.Unmapped, fmt.Sprintf("nr_task %d: more than the %d CPUs here: the tasks are time-sliced", n, m.CPUs))
		}
	}
	p.Test = param("test")
	if p.Test == "" || strings.ContainsAny(p.Test, "/\\ ") || strings.Contains(p.Test, "..") {
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("test %q: not a will-it-scale test name", p.Test))
		p.Test = "TEST"
	}
	dir := opt.Tests
	if dir == "" {
		dir = "WILL-IT-SCALE/tests"
	}
	p.TestFile = filepath.Join(dir, p.Test+".c")
	p.WisArgs = []string{"--test", p.TestFile, "--mode", p.Mode, "--tasks", strconv.Itoa(p.Tasks), "--duration", opt.Duration}
}

// robotAxes are the axes of a block that are not a workload's parameters.
var robotAxes = map[string]bool{"compiler": true, "cpufreq_governor": true, "tbox_group": true, "testcase": true, "kconfig": true, "rootfs": true}

var (
	reFlagName  = lazyre.New(`^[a-z][a-z0-9-]{0,40}$`)
	reFlagValue = lazyre.New(`^[A-Za-z0-9._%+:-]{1,100}$`)
)

// mapContend maps a block of contend's own (testcase contend-w) onto
// 'run w': each axis of its parameters a flag --KEY VALUE, as lkmlblock
// wrote them (a '/' of a value was made '-'); an axis that cannot be a
// flag is said.
func (p *Plan) mapContend(w string) {
	p.Workload, p.WorkloadArgs = w, []string{}
	for _, a := range p.Block.Axes {
		if robotAxes[a.Key] || a.Key == p.Block.CompareKey {
			continue
		}
		if !reFlagName().MatchString(a.Key) || !reFlagValue().MatchString(a.Value) {
			p.Unmapped = append(p.Unmapped, fmt.Sprintf("parameter %s=%s: not a flag of contend run %s", a.Key, a.Value, w))
			continue
		}
		p.WorkloadArgs = append(p.WorkloadArgs, "--"+a.Key, a.Value)
	}
	if s, ok := strings.CutPrefix(p.Stat, "contend."+w+"."); ok {
		p.Metric = s
	}
}

// RunsFor returns the repetitions a side that detect a relative change of
// change (a fraction) with power at level alpha (Mann-Whitney U) when
// one repetition's coefficient of variation is cv: the smallest n whose
// minimal detectable shift (analysis.MinDetectableShift, in standard
// deviations) times cv is at most |change|; 0 when none up to max does.
func RunsFor(change, cv, alpha, power float64, max int) int {
	if cv <= 0 || math.IsNaN(cv) {
		return analysis.MinRunsForSignificance(alpha)
	}
	for n := analysis.MinRunsForSignificance(alpha); n <= max; n++ {
		if d, ok := analysis.MinDetectableShift(n, n, alpha, power, analysis.TestMannWhitney); ok && d*cv <= math.Abs(change) {
			return n
		}
	}
	return 0
}

func (p *Plan) plan(m Machine, opt Options) {
	change := p.Reported.Change / 100
	if p.Reported.AbsoluteChange && p.Reported.Base != 0 {
		change = p.Reported.Change / p.Reported.Base
	}
	if len(opt.Noise) >= 3 {
		s, _ := analysis.Summarize(opt.Noise, 0.95)
		p.CV = s.StdDev / math.Abs(s.Mean)
		p.Runs = RunsFor(change, p.CV, opt.Alpha, opt.Power, 1000)
	}
	runs := "N"
	if p.Runs > 0 {
		runs = strconv.Itoa(max(p.Runs, 6))
	}
	// inner is the command every boot runs: run wis, or the user's
	// command under 'contend exec' (-n before its --).
	inner := append(append([]string{"run", "wis"}, p.WisArgs...), "-n", runs)
	aa := "contend ab wis --aa " + strings.Join(p.WisArgs, " ") + " -n 10 --format lkml"
	switch {
	case p.Workload != "":
		inner = append(append([]string{"run", p.Workload}, p.WorkloadArgs...), "-n", runs)
		aa = strings.Join(append(append([]string{"contend", "ab", p.Workload, "--aa"}, p.WorkloadArgs...), "-n", "10", "--format", "lkml"), " ")
	case p.WisArgs == nil:
		inner = []string{"exec", "-n", runs, "--", "YOUR-COMMAND"}
		aa = "contend ab exec --aa -n 10 --format lkml -- YOUR-COMMAND"
	}
	sides := p.Block.Sides
	// The rows' change is of the second side against the first; the
	// further sides of a block of three or more are said, not planned.
	base, next := sides[0], sides[1]
	if len(sides) > 2 {
		var more []string
		for _, s := range sides[2:] {
			more = append(more, described(s))
		}
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("the block compares %d sides: planned for the first two; not planned: %s", len(sides), strings.Join(more, ", ")))
	}
	what := fmt.Sprintf("kernel %s against %s", described(base), described(next))
	if p.Report.PatchLink != "" {
		what += fmt.Sprintf("; the new one is the patch %s applied on %s", p.Report.PatchLink, p.Report.Base)
	}
	if len(opt.Noise) < 3 {
		why := "the noise of the test here (A/A, this kernel on both sides), which sets the runs (or: contend reproduce MAIL --run)"
		if p.Workload != "" {
			why = "the noise of the test here (A/A, this kernel on both sides): its CV and the reported change set the runs (--noise reads wis files only)"
		} else if p.WisArgs == nil {
			why = "the noise of your command here (A/A, this kernel on both sides): its CV and the reported change set the runs (--noise reads wis files only)"
		}
		p.Commands = append(p.Commands, Command{why, aa})
	}
	if key := p.Block.CompareKey; key != "" && key != "commit" && p.WisArgs != nil {
		p.switchPlan(key, base, next, runs)
		return
	}
	if key := p.Block.CompareKey; key != "" && key != "commit" && p.Workload != "" {
		p.workloadSwitch(key, base, next, runs)
		return
	}
	boots := "B"
	if b := p.Boots(); b > 0 {
		boots = strconv.Itoa(b)
	}
	name := "repro-" + safeName(short(next.ID))
	if p.Kernels[0] != "" {
		p.Commands = append(p.Commands,
			Command{"two kernels: " + what + "; yours, " + p.Kernels[0] + " and " + p.Kernels[1] + ", each booted in a fresh QEMU guest per boot, " + boots + " boots a side (or: contend reproduce MAIL --run with the same --a-kernel and --b-kernel)",
				fmt.Sprintf("contend campaign init %s --vm --a-kernel %s --b-kernel %s --boots %s -- %s",
					name, p.Kernels[0], p.Kernels[1], boots, strings.Join(inner, " "))},
			Command{"the boots", "contend campaign run " + name},
			Command{"the answer, in the robot's layout", "contend campaign report " + name + " --format lkml"},
		)
		return
	}
	p.Commands = append(p.Commands,
		Command{"two kernels: " + what + "; build both (" + cmp(p.Block.Axis("kconfig"), "your config") + "), install them, then a campaign across reboots (kexec; or in VMs, one guest boot per side's boot) of " + boots + " boots a side",
			fmt.Sprintf("contend campaign init %s --a-kexec /boot/vmlinuz-A --a-release A-RELEASE --b-kexec /boot/vmlinuz-B --b-release B-RELEASE --boots %s -- %s",
				name, boots, strings.Join(inner, " "))},
		Command{"the answer, in the robot's layout", "contend campaign report " + name + " --format lkml"},
	)
}

// switchPlan is the plan of a block whose sides are one kernel with a
// switch (the robot's compare key is not commit): ab, the two values of a
// will-it-scale parameter as its sides' flags, any other key set by the
// sides' prepare commands.
func (p *Plan) switchPlan(key string, a, b robotmail.Side, runs string) {
	flag := map[string]string{"mode": "--mode", "test": "--test", "nr_task": "--tasks"}[key]
	var shared []string // the flags both sides share: not the switched one
	for i := 0; i+1 < len(p.WisArgs); i += 2 {
		if p.WisArgs[i] != flag {
			shared = append(shared, p.WisArgs[i], p.WisArgs[i+1])
		}
	}
	base := "contend ab wis " + strings.Join(shared, " ")
	var line, va, vb string
	switch {
	case flag == "--tasks":
		va, vb = "--tasks "+tasksFor(a.ID, p), "--tasks "+tasksFor(b.ID, p)
	case flag == "--test":
		dir := filepath.Dir(p.TestFile)
		fa, fb := filepath.Join(dir, a.ID+".c"), filepath.Join(dir, b.ID+".c")
		va, vb = "--test "+fa, "--test "+fb
		p.SwitchFiles = []string{fa, fb}
	case flag != "":
		va, vb = flag+" "+a.ID, flag+" "+b.ID
	}
	if va != "" {
		line = fmt.Sprintf("%s --a '%s' --b '%s' -n %s --format lkml", base, va, vb, runs)
		p.Switch = append(append([]string{"wis"}, shared...), "--a", va, "--b", vb)
	} else {
		line = fmt.Sprintf("%s --a-prepare 'SET %s=%s' --b-prepare 'SET %s=%s' -n %s --format lkml", base, key, a.ID, key, b.ID, runs)
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("%s: the sides differ in it; write the commands that set it (SET ...)", key))
		p.SwitchWhy = fmt.Sprintf("the sides differ in %s (%s against %s), which contend cannot set here", key, a.ID, b.ID)
	}
	p.Commands = append(p.Commands, Command{fmt.Sprintf("one kernel, a switch (%s: %s against %s): an A/B run, interleaved, in one boot", key, a.ID, b.ID), line})
}

// workloadSwitch is the plan of contend's own block whose sides differ in
// a parameter (ab --a '--KEY A' --b '--KEY B'): that ab again.
func (p *Plan) workloadSwitch(key string, a, b robotmail.Side, runs string) {
	base := strings.Join(append([]string{"contend", "ab", p.Workload}, p.WorkloadArgs...), " ")
	why := fmt.Sprintf("one kernel, a switch (%s: %s against %s): an A/B run, interleaved, in one boot", key, a.ID, b.ID)
	if !reFlagName().MatchString(key) || !reFlagValue().MatchString(a.ID) || !reFlagValue().MatchString(b.ID) {
		p.Unmapped = append(p.Unmapped, fmt.Sprintf("%s: the sides differ in it (%s against %s); write the commands that set it (SET ...)", key, a.ID, b.ID))
		p.Commands = append(p.Commands, Command{why, fmt.Sprintf("%s --a-prepare 'SET A' --b-prepare 'SET B' -n %s --format lkml", base, runs)})
		return
	}
	p.Commands = append(p.Commands, Command{why, fmt.Sprintf("%s --a '--%s %s' --b '--%s %s' -n %s --format lkml", base, key, a.ID, key, b.ID, runs)})
}

// Boots is the boots a side of the plan's campaign: from the runs the
// reported change takes at the noise measured here (2 to 10), 0 when the
// noise is not known.
func (p *Plan) Boots() int {
	if p.Runs <= 0 {
		return 0
	}
	return max(2, min(p.Runs, 10))
}

// tasksFor maps an nr_task value onto the CPUs the plan mapped for.
func tasksFor(nr string, p *Plan) string {
	if pc, err := strconv.ParseFloat(strings.TrimSuffix(nr, "%"), 64); err == nil && strings.HasSuffix(nr, "%") {
		cpus := p.cpus
		return strconv.Itoa(max(1, int(math.Round(pc/100*float64(cpus)))))
	}
	return nr
}

// described is a side as the commit: lines give it: its id and, where it
// has one, its subject ("v6.12-rc1" alone: a tag has none).
func described(s robotmail.Side) string {
	if s.Subject == "" {
		return s.ID
	}
	return s.ID + " (" + s.Subject + ")"
}

// safeName makes id a campaign directory's name: letters, digits, '.',
// '_' and '-'; anything else '_'.
func safeName(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return strings.Trim(string(b), ".")
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// short is a commit's or a campaign's id cut to 10 bytes.
func short(id string) string { return textfmt.Cut(id, 10) }

// Write prints the plan.
func (p *Plan) Write(w io.Writer) {
	r := p.Report
	switch {
	case r.Bare:
		fmt.Fprintf(w, "report: a block without its mail (contend's --format lkml, or a quoted block): testcase %s\n", r.Testcase)
	default:
		fmt.Fprintf(w, "report: %s\n", r.Subject)
	}
	if r.PatchLink != "" {
		fmt.Fprintf(w, "  patch %s\n  (%s, on %s)\n", r.PatchLink, r.URL, r.Base)
	}
	fmt.Fprintf(w, "  commit %s\n", described(robotmail.Side{ID: r.Commit, Subject: r.CommitSubject}))
	if p.HasRow {
		on := ""
		if p.Block.Machine != "" {
			on = " on " + p.Block.Machine // contend's own block has no machine
		}
		fmt.Fprintf(w, "  reported%s: %s %s (%s -> %s)\n", on, p.Stat, Change(p.Reported.Change, !p.Reported.AbsoluteChange), num(p.Reported.Base), num(p.Reported.New))
	}
	for _, im := range r.Also {
		fmt.Fprintf(w, "  also reported: %s, on %s (%s)\n", im.Change, im.Machine, paramList(im.Params))
	}
	for i, n := range r.Skipped {
		if i == maxSkippedShown {
			fmt.Fprintf(w, "  and %d more rows skipped\n", len(r.Skipped)-i)
			break
		}
		fmt.Fprintf(w, "  note: %s\n", esc.Line(n))
	}
	for i, b := range others(r.Blocks) {
		if i == 0 {
			fmt.Fprintf(w, "  the blocks of the other tests (not planned here; a smaller machine may map one of them better):\n")
		}
		fmt.Fprintf(w, "    %s: testcase %s%s\n", b.Machine, b.Axis("testcase"), axesOf(b))
	}
	fmt.Fprintf(w, "\nhere: ")
	if p.WisArgs != nil {
		fmt.Fprintf(w, "will-it-scale %s, %s mode, %s (nr_task %s); contend's metric %s\n", p.Test, p.Mode, plural.N(p.Tasks, "task", "tasks"), p.paramOr("nr_task"), p.Metric)
	} else if p.Workload != "" {
		fmt.Fprintf(w, "contend run %s %s; its metric %s\n", p.Workload, strings.Join(p.WorkloadArgs, " "), cmp(p.Metric, p.Stat))
	} else {
		fmt.Fprintf(w, "testcase %s is not mapped\n", r.Testcase)
	}
	switch {
	case p.Runs > 0:
		fmt.Fprintf(w, "  noise here: CV %.1f%% a run: %d runs a side detect the reported change (Mann-Whitney U, alpha 0.05, power 0.8)\n", 100*p.CV, p.Runs)
	case p.CV > 0:
		fmt.Fprintf(w, "  noise here: CV %.1f%% a run: no number of runs up to 1000 detects the reported change\n", 100*p.CV)
	case p.WisArgs != nil:
		fmt.Fprintf(w, "  noise here: not measured yet (the first command): the runs follow from it (--noise FILE)\n")
	case p.Workload != "":
		fmt.Fprintf(w, "  noise here: not measured yet (the first command): choose the runs from its CV\n")
	default:
		fmt.Fprintf(w, "  noise here: not measured yet (the first command, with your command): choose the runs from its CV\n")
	}
	if len(p.Unmapped) > 0 {
		fmt.Fprintf(w, "\nnot mapped:\n")
		for _, u := range p.Unmapped {
			fmt.Fprintf(w, "  - %s\n", u)
		}
	}
	fmt.Fprintf(w, "\nplan:\n")
	for i, c := range p.Commands {
		fmt.Fprintf(w, "  %d. %s:\n       %s\n", i+1, c.Why, c.Line)
	}
}

// maxSkippedShown is how many notes of skipped rows the plan prints.
const maxSkippedShown = 5

// Change prints a change in percent (pct) or points with one decimal, in
// at most 8 significant digits: 1e308% is "+1e+308%", not 309 digits.
func Change(v float64, pct bool) string {
	unit := ""
	if pct {
		unit = "%"
	}
	if math.Abs(v) >= 1e7 || math.IsInf(v, 0) || math.IsNaN(v) {
		g := strconv.FormatFloat(v, 'g', 4, 64)
		if v > 0 && !math.IsInf(v, 1) {
			g = "+" + g
		}
		return g + unit
	}
	return fmt.Sprintf("%+.1f%s", v, unit)
}

func paramList(ps []robotmail.Param) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Key+"="+p.Value)
	}
	return strings.Join(s, " ")
}

func axesOf(b robotmail.Block) string {
	var s []string
	for _, a := range b.Axes {
		switch a.Key {
		case "testcase", "tbox_group", "rootfs", "kconfig", "compiler":
			continue
		}
		s = append(s, a.Key+"="+a.Value)
	}
	if len(s) == 0 {
		return ""
	}
	return ", " + strings.Join(s, " ")
}

func (p *Plan) paramOr(k string) string {
	if v, ok := p.Report.Param(k); ok {
		return v
	}
	return p.Block.Axis(k)
}

func num(v float64) string {
	if math.Abs(v) >= 1000 && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// Verdict compares contend's change with the reported one.
type Verdict struct {
	Word string // "reproduced", "not reproduced", "opposite"; of an A/A, AASame or AADiffers
	Line string // one line of reasons
}

// Judge returns the verdict on the reported change (a fraction, signed as
// in the block) given contend's: its estimate, adjusted p-value, and the
// smallest increase and decrease its runs detect (analysis' MDE).
func Judge(reported, estimate, p, alpha, mdeUp, mdeDown float64) Verdict {
	sig := !math.IsNaN(p) && p < alpha
	same := (reported < 0) == (estimate < 0)
	switch {
	case sig && same:
		return Verdict{"reproduced", fmt.Sprintf("contend's change %s (p %.2g) has the reported sign (%s)", Change(100*estimate, true), p, Change(100*reported, true))}
	case sig:
		return Verdict{"opposite", fmt.Sprintf("contend's change %s (p %.2g) goes against the reported %s", Change(100*estimate, true), p, Change(100*reported, true))}
	}
	mde := mdeUp
	if reported < 0 {
		mde = mdeDown
	}
	line := fmt.Sprintf("no significant change (p %.2g, estimate %s)", p, Change(100*estimate, true))
	if !math.IsNaN(mde) && mde > 0 {
		line += fmt.Sprintf("; these runs detect a change of %s%.1f%% or more with power 0.8", map[bool]string{true: "-", false: "+"}[reported < 0], 100*mde)
		if math.Abs(reported) >= mde {
			line += ": the reported one is within reach and is not here"
		} else {
			line += ": the reported one is below that: more runs"
		}
	}
	return Verdict{"not reproduced", line}
}

// The words of an A/A's verdict (JudgeAA): an A/A cannot reproduce a
// commit, only show whether the machine's noise lets a run test it.
const (
	AASame    = "no change here (as expected of an A/A)"
	AADiffers = "the A/A itself differs"
)

// JudgeAA returns the verdict of an A/A (this kernel against itself) on
// the reported change (a fraction, signed as in the block) given the A/A's
// change: its estimate, adjusted p-value and the smallest increase and
// decrease its runs detect. A significant A/A is a false positive or a
// machine too noisy for the test, never the commit: AADiffers says that
// this noise cannot test the reported change; otherwise AASame with the
// change these runs detect and whether the reported one is within it.
func JudgeAA(reported, estimate, p, alpha, mdeUp, mdeDown float64) Verdict {
	if !math.IsNaN(p) && p < alpha {
		return Verdict{AADiffers, fmt.Sprintf("this machine's noise (the kernel against itself: %+.1f%%, p %.2g) cannot test %+.1f%%; "+
			"quiet the machine ('contend check') and run the A/A again", 100*estimate, p, 100*reported)}
	}
	mde := mdeUp
	if reported < 0 {
		mde = mdeDown
	}
	line := fmt.Sprintf("p %.2g, estimate %+.1f%%", p, 100*estimate)
	if !math.IsNaN(mde) && mde > 0 {
		line += fmt.Sprintf("; these runs detect a change of %s%.1f%% or more with power 0.8", map[bool]string{true: "-", false: "+"}[reported < 0], 100*mde)
		if math.Abs(reported) >= mde {
			line += fmt.Sprintf(": the reported %+.1f%% is within reach of this machine's noise", 100*reported)
		} else {
			line += fmt.Sprintf(": the reported %+.1f%% is below that: more runs", 100*reported)
		}
	}
	return Verdict{AASame, line}
}

// others are the blocks after the first (none of a report without
// blocks: a reply that quotes none).
func others(bs []robotmail.Block) []robotmail.Block {
	if len(bs) < 2 {
		return nil
	}
	return bs[1:]
}
