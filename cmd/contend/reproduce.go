package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/campaign"
	"contend/internal/reproduce"
	"contend/internal/results"
	"contend/internal/robotmail"
	"contend/internal/value"
	"contend/internal/vm"
	"contend/internal/workload"
)

// reproduceFlags are what reproduce's flags fill: the kernels' sides
// (campaign init's --a-kernel, --a-initrd, --a-append and B's) and the
// guests' (its --vm-* flags), as 'campaign init --vm' takes them.
type reproduceFlags struct {
	opt   campaign.Options
	vm    vmFlags
	boots value.Int
}

// kernelFlags are the flags of campaign init that reproduce takes.
var kernelFlags = []string{"a-kernel", "a-initrd", "a-append", "b-kernel", "b-initrd", "b-append", "vm-cpus", "vm-mem", "vm-timeout", "vm-accel", "vm-skip-faults"}

// pickFlags returns the flags of fl named in names.
func pickFlags(fl []cli.Flag, names []string) []cli.Flag {
	var out []cli.Flag
	for _, f := range fl {
		if slices.Contains(names, f.Names()[0]) {
			out = append(out, f)
		}
	}
	return out
}

func reproduceCommand() *cli.Command {
	f := &reproduceFlags{boots: value.Int{N: campaign.DefaultBoots, Min: campaign.MinBoots, Max: campaign.MaxBoots}}
	side := append(sideFlags("a", &f.opt.Sides[0]), sideFlags("b", &f.opt.Sides[1])...)
	kernels := pickFlags(append(vmInitFlags(&f.vm, &f.opt), side...), kernelFlags)
	return &cli.Command{
		Name:        "reproduce",
		Usage:       "map a kernel test robot report onto this machine: the plan, and with --run what can run here",
		ArgsUsage:   "MAIL",
		Description: helpText("reproduce"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "tests", Usage: "will-it-scale's tests directory (DIR/futex4.c; default $CONTEND_WIS_TESTS)"},
			&cli.StringFlag{Name: "noise", Usage: "a result file of the test here (contend run wis ...): its noise sets the runs of the plan"},
			&cli.BoolFlag{Name: "run", Usage: "run it and answer in --format lkml with the verdict: the two kernels in VMs (--a-kernel, --b-kernel), the switch of one kernel, else the test A/A"},
			newFlag("runs", &value.Int{N: 10, Min: 4, Max: 1000}, "with --run: repetitions a side (a boot with kernels), 4 to 1000 (-n)"),
			newFlag("duration", &value.Duration{D: 2 * time.Second, Min: 100 * time.Millisecond, Max: time.Hour}, "each repetition's measured interval, 100ms to 1h"),
			&cli.StringFlag{Name: "out", Usage: "with --run: the result file (default results/reproduce-COMMIT-DATE.jsonl), or with kernels the campaign directory (default results/reproduce-COMMIT-DATE)"},
			newFlag("boots", &f.boots, "with --a-kernel and --b-kernel: boots a side, 2 to 100 (default: from the noise, --noise, else 3)"),
		}, kernels...),
		Action: func(c *cli.Context) error { return runReproduce(c, f) },
	}
}

func runReproduce(c *cli.Context, f *reproduceFlags) error {
	if c.NArg() != 1 {
		return usagef("reproduce: give one MAIL (a robot report: a mail file or an mbox), got %d arguments", c.NArg())
	}
	path := c.Args().First()
	data, err := reproduce.ReadMail(path)
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
	if n := c.String("noise"); n != "" {
		noise, err := reproduce.ReadNoise(n)
		if err != nil {
			return err
		}
		opt.Noise = noise
	}
	m := reproduce.ThisMachine()
	kernels, err := f.kernels(c, &m)
	if err != nil {
		return err
	}
	if kernels {
		opt.Kernels = [2]string{f.opt.Sides[0].Kernel, f.opt.Sides[1].Kernel}
	}
	plan, err := reproduce.Make(rep, m, opt)
	if err != nil {
		return usagef("reproduce %s: %v", path, err)
	}
	kind, err := plan.Kind(kernels)
	if err != nil {
		return err
	}
	if !c.Bool("run") {
		for _, n := range append([]string{"runs", "out", "boots"}, kernelFlags...) {
			if c.IsSet(n) && !strings.HasSuffix(n, "-kernel") {
				return usagef("--%s goes with --run (without it the plan is printed, naming only the kernels)", n)
			}
		}
		plan.Write(c.App.Writer)
		return nil
	}
	if err := plan.CheckRun(rep, tests); err != nil {
		return err
	}
	if kind == reproduce.RunKernels {
		return runReproduceKernels(c, f, rep, plan)
	}
	if kind == reproduce.RunSwitch {
		if err := plan.CheckSwitch(); err != nil {
			return err
		}
	} else if plan.SwitchWhy != "" {
		fmt.Fprintf(c.App.ErrWriter, "reproduce: %s: the A/A of the test instead\n", plan.SwitchWhy)
	}
	return runReproduceAB(c, rep, plan, m, kind)
}

// kernels checks the kernel and guest flags: both kernels or none, the
// others only with them, the guests' options as 'campaign init --vm'
// checks them; with kernels, m's CPUs become the guest's vCPUs (what
// nr_task maps onto).
func (f *reproduceFlags) kernels(c *cli.Context, m *reproduce.Machine) (bool, error) {
	a, b := c.IsSet("a-kernel"), c.IsSet("b-kernel")
	if a != b {
		return false, usagef("--a-kernel and --b-kernel go together: give both, the base kernel and the new one (such as the robot's parent commit and the commit, built)")
	}
	if !a {
		for _, n := range append(kernelFlags, "boots") {
			if c.IsSet(n) {
				return false, usagef("--%s goes with --a-kernel and --b-kernel (the two kernels, booted in VMs)", n)
			}
		}
		return false, nil
	}
	for i, s := range []string{"a", "b"} {
		if _, err := vm.KernelRelease(f.opt.Sides[i].Kernel); err != nil {
			return false, usagef("--%s-kernel: %q is not a kernel image (%v)", s, f.opt.Sides[i].Kernel, err)
		}
	}
	f.vm.on = true
	if err := f.vm.apply(c, &f.opt); err != nil {
		return false, err
	}
	vp, err := f.opt.VM.Check()
	if err != nil {
		return false, optionUsage(err)
	}
	m.CPUs = vp.CPUs
	return true, nil
}

// runReproduceAB runs the test A/A on this kernel, or the block's switch,
// through 'contend ab' (its own lock, evidence and file), then answers in
// the robot's layout with the reported row quoted and the verdict
// (reproduce.Answer).
func runReproduceAB(c *cli.Context, rep *robotmail.Report, plan *reproduce.Plan, m reproduce.Machine, kind reproduce.RunKind) error {
	out := c.String("out")
	if out == "" {
		out = reproduce.DefaultOut(rep.Commit, time.Now())
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := plan.ABArgs(kind, c.Value("runs").(int), out)
	fmt.Fprintf(c.App.ErrWriter, "reproduce: contend %s\n", strings.Join(args, " "))
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reproduce: the run failed (%v): see above; its file is %s", err, out)
	}
	f, err := results.Read(out)
	if err != nil {
		return err
	}
	return reproduce.Answer(c.App.Writer, f, rep, plan, m, c.Args().First(), kind)
}

// runReproduceKernels runs the plan's campaign of the two kernels, each
// boot a fresh QEMU guest ('campaign init --vm' and 'campaign run' in one),
// then answers from its boot-level comparison (reproduce.AnswerBoots).
// Every refusal comes before the campaign directory is made.
func runReproduceKernels(c *cli.Context, f *reproduceFlags, rep *robotmail.Report, plan *reproduce.Plan) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dir := c.String("out")
	if dir == "" {
		dir = reproduce.DefaultCampaignDir(rep, time.Now().Format("20060102-150405"))
	}
	k := reproduce.KernelRun{Dir: dir, Sides: f.opt.Sides, VM: *f.opt.VM, Runs: c.Value("runs").(int)}
	if c.IsSet("boots") {
		k.Boots = f.boots.N
	}
	cr, err := plan.CampaignOptions(k)
	if err != nil {
		return err
	}
	o := cr.Options
	o.Contend, o.Workloads, o.Volatile = exe, workload.Names(), volatileFS
	// The command as the host would run it (the test at its host path):
	// what the guests run, checked before anything is written.
	o.CheckCommand = func(p *campaign.Plan) error {
		hp := *p
		hp.Command = cr.HostCommand
		return validatePlanCommand(c, &hp)
	}
	p, err := campaign.NewPlan(o)
	if err != nil {
		return optionUsage(err)
	}
	if err := campaign.WritePlan(p.Dir, p); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "reproduce: campaign %s: %d boots (%s), %d a side (%s), each a fresh guest (%d vCPUs, %d MiB) running 'contend %s'\n",
		p.Dir, len(p.Order), p.Order, cr.Boots, cr.BootsFrom, p.VM.CPUs, p.VM.MemMiB, strings.Join(p.Command, " "))
	ctx, stop := campaign.WithSignals(c.Context)
	defer stop()
	t := time.Now()
	err = campaign.RunVM(ctx, p.Dir, campaign.RunVMOptions{Log: c.App.ErrWriter})
	if errors.Is(err, campaign.ErrStopped) || errors.Is(err, campaign.ErrBusy) {
		return cli.Exit(fmt.Sprintf("%v (after %s; the campaign is %s: 'contend campaign run %s' goes on, 'contend campaign report %s --format lkml' answers)", err, time.Since(t).Round(time.Second), p.Dir, p.Dir, p.Dir), exitFailure)
	} else if err != nil {
		return err
	}
	return reproduce.AnswerBoots(c.App.Writer, p.Dir, rep, plan)
}
