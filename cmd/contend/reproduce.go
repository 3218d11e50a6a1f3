package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/comparison"
	"contend/internal/lkml"
	"contend/internal/lkmlblock"
	"contend/internal/reproduce"
	"contend/internal/results"
	"contend/internal/robotmail"
	"contend/internal/safefile"
	"contend/internal/value"
)

func reproduceCommand() *cli.Command {
	return &cli.Command{
		Name:      "reproduce",
		Usage:     "map a kernel test robot report onto this machine: the plan, and with --run what can run here",
		ArgsUsage: "MAIL",
		Description: `Reads a kernel test robot (0-day, LKP) report, a mail file or an mbox (its
first robot report): the subject, commit:, url:/base:/patch link: of a patch
from a mailing list, testcase:, parameters: (nr_task, mode, test,
cpufreq_governor) and the comparison blocks. Maps them onto this machine
(nr_task 100% is the CPUs here; what cannot be mapped is listed) and prints
the plan: the contend commands and their sides (two kernels: a campaign
across reboots), and the runs a side the reported change takes at the noise
measured here (--noise FILE, a result file of the test here, or --run).

--run carries out what this machine can: the test, A/A on the running kernel
(the commit is a kernel change, which contend does not build), and answers in
the robot's layout (docs/lkml.md) with the reported row quoted above
contend's, and the verdict: reproduced, not reproduced (with the change these
runs detect) or opposite. For will-it-scale the tests' directory is --tests
(will-it-scale/tests). See docs/will-it-scale.md.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tests", Usage: "will-it-scale's tests directory (DIR/futex4.c; default $CONTEND_WIS_TESTS)"},
			&cli.StringFlag{Name: "noise", Usage: "a result file of the test here (contend run wis ...): its noise sets the runs of the plan"},
			&cli.BoolFlag{Name: "run", Usage: "run the test here, A/A, and answer in --format lkml with the verdict"},
			newFlag("runs", &value.Int{N: 10, Min: 4, Max: 1000}, "with --run: repetitions a side, 4 to 1000 (-n)"),
			newFlag("duration", &value.Duration{D: 2 * time.Second, Min: 100 * time.Millisecond, Max: time.Hour}, "each repetition's measured interval, 100ms to 1h"),
			&cli.StringFlag{Name: "out", Usage: "with --run: the result file (default results/reproduce-COMMIT-DATE.json)"},
		},
		Action: runReproduce,
	}
}

func runReproduce(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("reproduce: give one MAIL (a robot report: a mail file or an mbox), got %d arguments", c.NArg())
	}
	path := c.Args().First()
	data, err := readMail(path)
	if err != nil {
		return err
	}
	rep, err := robotmail.Parse(data)
	if err != nil {
		return usagef("reproduce %s: %v", path, err)
	}
	tests := c.String("tests")
	if tests == "" {
		tests = os.Getenv("CONTEND_WIS_TESTS")
	}
	opt := reproduce.Options{Tests: tests, Duration: c.Value("duration").(time.Duration).String()}
	if f := c.String("noise"); f != "" {
		noise, err := reproduceNoise(f)
		if err != nil {
			return err
		}
		opt.Noise = noise
	}
	m := reproduce.Machine{CPUs: onlineCPUs(), Governor: readTrim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), Kernel: readTrim("/proc/sys/kernel/osrelease")}
	plan, err := reproduce.Make(rep, m, opt)
	if err != nil {
		return usagef("reproduce %s: %v", path, err)
	}
	if !c.Bool("run") {
		plan.Write(c.App.Writer)
		return nil
	}
	if plan.WisArgs == nil {
		return usagef("--run: testcase %s is not a will-it-scale test: contend runs only those here", rep.Testcase)
	}
	if tests == "" {
		return usagef("--run: which will-it-scale? give --tests DIR (will-it-scale/tests, with %s.c) or set CONTEND_WIS_TESTS", plan.Test)
	}
	if _, err := os.Stat(plan.TestFile); err != nil {
		return usagef("--tests %s: no %s.c there", tests, plan.Test)
	}
	return runReproduceAA(c, rep, plan, m)
}

// readMail reads MAIL, refusing a symbolic link or another user's file in
// a shared directory.
func readMail(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, usagef("reproduce: %s: no such file", path)
	case fi.IsDir():
		return nil, usagef("reproduce: %s is a directory, not a mail", path)
	case fi.Size() > robotmail.MaxSize:
		return nil, usagef("reproduce: %s has %d bytes: not a robot report (at most %d)", path, fi.Size(), robotmail.MaxSize)
	}
	if safefile.Shared(filepath.Dir(path)) {
		b, err := safefile.ReadFile(path, safefile.SelfOrRoot)
		if err != nil {
			return nil, usagef("reproduce: %v", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("reproduce: %v", err)
	}
	return b, nil
}

// reproduceNoise reads the per-task ops of the first configuration of a
// wis result file.
func reproduceNoise(path string) ([]float64, error) {
	f, err := results.Read(path)
	if err != nil {
		return nil, usagef("--noise %s: %v", path, err)
	}
	if f.Workload != "wis" {
		return nil, usagef("--noise %s: a result file of %q, not of wis", path, f.Workload)
	}
	var xs []float64
	for _, r := range f.Reps {
		if r.Config == 0 && r.Status == results.StatusOK && !r.Warmup {
			if v, ok := r.Metrics.Map()["per_task_ops"]; ok {
				xs = append(xs, v)
			}
		}
	}
	if len(xs) < 3 {
		return nil, usagef("--noise %s: %d successful repetitions, at least 3 needed", path, len(xs))
	}
	return xs, nil
}

// runReproduceAA runs the test A/A on this kernel through 'contend ab
// --aa' (its own lock, evidence and file), then answers in the robot's
// layout with the reported row quoted and the verdict.
func runReproduceAA(c *cli.Context, rep *robotmail.Report, plan *reproduce.Plan, m reproduce.Machine) error {
	out := c.String("out")
	if out == "" {
		os.MkdirAll("results", 0o755)
		id := rep.Commit
		if len(id) > 10 {
			id = id[:10]
		}
		out = filepath.Join("results", "reproduce-"+id+"-"+time.Now().Format("20060102-150405")+".json")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := append([]string{"ab", "wis", "--aa"}, plan.WisArgs...)
	args = append(args, "-n", strconv.Itoa(c.Value("runs").(int)), "--out", out, "-q")
	fmt.Fprintf(c.App.ErrWriter, "reproduce: contend %s\n", strings.Join(args, " "))
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reproduce: the A/A run failed (%v): see above; its file is %s", err, out)
	}
	f, err := results.Read(out)
	if err != nil {
		return err
	}
	sides := []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}
	r, err := comparison.Build(sides, comparison.Options{Alpha: 0.05})
	if err != nil {
		return err
	}
	b, err := lkmlblock.Build(sides, r, false)
	if err != nil {
		return err
	}
	stat, _ := lkml.RobotName("wis", plan.Metric)
	b.Base.Label, b.New.Label = "A/A: kernel "+m.Kernel, "A/A: kernel "+m.Kernel
	var cmpRow *comparison.MetricRow
	for i, row := range r.Pairs[0].Rows {
		if row.Metric.Name == plan.Metric {
			cmpRow = &r.Pairs[0].Rows[i]
		}
	}
	for i := range b.Rows {
		if b.Rows[i].Stat == stat {
			b.Rows[i].Keep = true
			if plan.HasRow && plan.Reported.Stat == stat {
				b.Rows[i].Quote = quotedRow(plan.Reported)
			}
		}
	}
	b.Notes = append(b.Notes, fmt.Sprintf("> the quoted row: the robot's, on %s (%s)", plan.Block.Machine, rep.Machine))
	if err := lkml.Write(c.App.Writer, b); err != nil {
		return err
	}
	if cmpRow == nil || cmpRow.Cmp == nil {
		fmt.Fprintf(c.App.Writer, "\nverdict: none: no comparison of %s (identical values?)\n", plan.Metric)
		return nil
	}
	cm := cmpRow.Cmp
	v := reproduce.Judge(plan.Reported.Change/100, cm.Estimate, cm.AdjustedP, 0.05, cm.MDEUp, cm.MDEDown)
	fmt.Fprintf(c.App.Writer, "\nverdict: %s: %s\n", v.Word, v.Line)
	fmt.Fprintf(c.App.Writer, "  A/A: both sides ran this kernel (%s); %s is a kernel change, which contend does not build here:\n  the plan's campaign (contend reproduce %s) runs the two kernels\n", m.Kernel, short10(rep.Commit), c.Args().First())
	var noise []float64
	for _, rr := range f.Reps {
		if rr.Status == results.StatusOK && !rr.Warmup {
			if x, ok := rr.Metrics.Map()["per_task_ops"]; ok {
				noise = append(noise, x)
			}
		}
	}
	if len(noise) >= 3 {
		p2, err := reproduce.Make(rep, m, reproduce.Options{Tests: plan.TestFile[:len(plan.TestFile)-len(filepath.Base(plan.TestFile))], Noise: noise})
		if err == nil && p2.Runs > 0 {
			fmt.Fprintf(c.App.Writer, "  at this noise (CV %.1f%% a run) %d runs a side detect the reported %+.1f%%\n", 100*p2.CV, p2.Runs, plan.Reported.Change)
		}
	}
	return nil
}

// quotedRow is the robot's row as lkml prints it: its means, its ± N%
// (the robot shows N truncated: N+0.5 keeps it), its own %change.
func quotedRow(r robotmail.Row) *lkml.Row {
	sd := func(mean, pc float64) float64 {
		if pc == 0 {
			return 0
		}
		return (pc + 0.5) / 100 * mean
	}
	return &lkml.Row{Stat: r.Stat, Base: lkml.Stats{Mean: r.Base, StdDev: sd(r.Base, r.BaseSD)}, New: lkml.Stats{Mean: r.New, StdDev: sd(r.New, r.NewSD)},
		Percent: r.AbsoluteChange, FixedChange: true, Change: r.Change}
}

func short10(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// onlineCPUs is the CPUs in /sys/devices/system/cpu/online.
func onlineCPUs() int {
	n := 0
	for _, part := range strings.Split(readTrim("/sys/devices/system/cpu/online"), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		z := a
		if isRange {
			if z, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		n += z - a + 1
	}
	if n == 0 {
		return 1
	}
	return n
}
