package main

import (
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliflag"
	"contend/internal/campaign"
	"contend/internal/lock"
	"contend/internal/reproduce"
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

func reproduceCommand() *cli.Command {
	f := &reproduceFlags{boots: value.Int{N: campaign.DefaultBoots, Min: campaign.MinBoots, Max: campaign.MaxBoots}}
	side := append(sideFlags("a", &f.opt.Sides[0]), sideFlags("b", &f.opt.Sides[1])...)
	var kernels []cli.Flag
	for _, fl := range append(vmInitFlags(&f.vm, &f.opt), side...) {
		if slices.Contains(reproduce.KernelFlags, fl.Names()[0]) {
			kernels = append(kernels, fl)
		}
	}
	// campaign init's words say "with --vm"; reproduce has no --vm: its
	// two kernels make the guests.
	for _, fl := range kernels {
		if d, ok := fl.(cli.DocGenerationFlag); ok && strings.HasPrefix(d.GetUsage(), "with --vm: ") {
			u := strings.TrimPrefix(d.GetUsage(), "with --vm: ")
			if n := fl.Names()[0]; n != "a-kernel" && n != "b-kernel" {
				u = "with --a-kernel and --b-kernel: " + u
			}
			cliflag.SetUsage(kernels, fl.Names()[0], u)
		}
	}
	for _, s := range []string{"a", "b"} { // nor a --S-kexec
		cliflag.SetUsage(kernels, s+"-initrd", "the initrd of --"+s+"-kernel, unpacked before contend's own")
		cliflag.SetUsage(kernels, s+"-append", "words added to the command line of --"+s+"-kernel")
	}
	boots := newFlag("boots", &f.boots, "with --a-kernel and --b-kernel: boots a side, 2 to 100")
	boots.DefaultText = "from the noise, --noise, else 3"
	return &cli.Command{
		Name:        "reproduce",
		Usage:       "map a kernel test robot report onto this machine: the plan, and with --run what can run here",
		ArgsUsage:   "MAIL",
		Description: helpText("reproduce"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "tests", Usage: "will-it-scale's tests directory (DIR/futex4.c; default $CONTEND_WIS_TESTS)"},
			&cli.StringFlag{Name: "noise", Usage: "a result file of the test here (contend run wis ...): its noise sets the runs of the plan"},
			&cli.BoolFlag{Name: "run", Usage: "run it and answer in --format lkml with the verdict: the two kernels in VMs (--a-kernel, --b-kernel), the switch of one kernel, else the test A/A"},
			newFlag("runs", &value.Int{N: 10, Min: 4, Max: 1000}, "with --run: repetitions a side (a boot with kernels), 4 to 1000", "n"),
			&cli.BoolFlag{Name: "no-wait", Usage: "with --run: when another benchmark holds the machine-wide lock, refuse (exit status 3) instead of waiting"},
			newFlag("duration", &value.Duration{D: 2 * time.Second, Min: 100 * time.Millisecond, Max: time.Hour}, "each repetition's measured interval, 100ms to 1h"),
			&cli.StringFlag{Name: "out", Usage: "with --run: the result file (default results/reproduce-COMMIT-DATE.jsonl), or with kernels the campaign directory (default results/reproduce-COMMIT-DATE)"},
			boots,
		}, kernels...),
		Action: func(c *cli.Context) error { return runReproduce(c, f) },
	}
}

func runReproduce(c *cli.Context, f *reproduceFlags) error {
	if c.NArg() != 1 {
		return usagef("reproduce: give one MAIL (a robot report: a mail file or an mbox), got %d arguments", c.NArg())
	}
	rep, err := reproduce.ReadReport(c.Args().First())
	if err != nil {
		return err
	}
	opt, err := reproduce.NewOptions(c.String("tests"), c.Value("duration").(time.Duration), c.String("noise"))
	if err != nil {
		return err
	}
	opt.Workloads = workload.Names()
	m := reproduce.ThisMachine()
	kernels, err := f.kernels(c, &m, &opt)
	if err != nil {
		return err
	}
	plan, err := reproduce.Make(rep, m, opt)
	if err != nil {
		return usagef("reproduce %s: %v", c.Args().First(), err)
	}
	kind, err := plan.Kind(kernels)
	if err != nil {
		return err
	}
	if !c.Bool("run") {
		err := reproduce.CheckPlanOnly(c.IsSet)
		if err == nil {
			writeWrapped(c.App.Writer, plan.Write)
		}
		return err
	}
	if err := plan.CheckRun(rep, opt.Tests); err != nil {
		return err
	}
	if kind == reproduce.RunKernels {
		if c.IsSet("no-wait") {
			return usagef("--no-wait: with --a-kernel and --b-kernel the runs are in the guests, not under this machine's lock; drop it")
		}
		return runReproduceKernels(c, f, rep, plan)
	}
	return runReproduceAB(c, rep, plan, m, kind)
}

// kernels checks the kernel and guest flags: both kernels or none, the
// others only with them, the guests' options as 'campaign init --vm'
// checks them; with kernels, they are opt's and m's CPUs become the
// guest's vCPUs (what nr_task maps onto).
func (f *reproduceFlags) kernels(c *cli.Context, m *reproduce.Machine, opt *reproduce.Options) (bool, error) {
	if given, err := reproduce.CheckKernelFlags(c.IsSet); !given || err != nil {
		return false, err
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
	opt.Kernels = [2]string{f.opt.Sides[0].Kernel, f.opt.Sides[1].Kernel}
	return true, nil
}

// runReproduceAB runs the test A/A on this kernel, or the block's switch,
// through 'contend ab' (reproduce.RunAB), then answers in the robot's
// layout with the reported row quoted and the verdict (reproduce.Answer).
func runReproduceAB(c *cli.Context, rep *robotmail.Report, plan *reproduce.Plan, m reproduce.Machine, kind reproduce.RunKind) error {
	if err := plan.CheckAB(kind, c.App.ErrWriter); err != nil {
		return err
	}
	out := c.String("out")
	if out == "" {
		out = reproduce.DefaultOut(rep.Commit, time.Now())
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := plan.ABArgs(kind, c.Value("runs").(int), out)
	if c.Bool("no-wait") {
		args = append(args, "--no-wait")
	}
	f, err := reproduce.RunAB(exe, args, out, lock.Path(), c.App.ErrWriter)
	if errors.Is(err, reproduce.ErrBusy) {
		return cli.Exit(err.Error(), exitBusy)
	} else if err != nil {
		return err
	}
	return reproduce.Answer(c.App.Writer, f, rep, plan, m, c.Args().First(), kind)
}

// runReproduceKernels runs the plan's campaign of the two kernels in VMs
// (reproduce.RunKernels), then answers from its boot-level comparison
// (reproduce.AnswerBoots). Every refusal comes before the campaign
// directory is made.
func runReproduceKernels(c *cli.Context, f *reproduceFlags, rep *robotmail.Report, plan *reproduce.Plan) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	k := reproduce.KernelRun{Dir: c.String("out"), Sides: f.opt.Sides, VM: *f.opt.VM, Runs: c.Value("runs").(int)}
	if k.Dir == "" {
		k.Dir = reproduce.DefaultCampaignDir(rep, time.Now().Format("20060102-150405"))
	}
	if c.IsSet("boots") {
		k.Boots = f.boots.N
	}
	ctx, stop := campaign.WithSignals(c.Context)
	defer stop()
	dir, err := plan.RunKernels(ctx, k, reproduce.KernelEnv{Contend: exe, Workloads: workload.Names(), Volatile: volatileFS, Log: c.App.ErrWriter,
		CheckCommand: func(p *campaign.Plan) error { return validatePlanCommand(c, p) }})
	if errors.Is(err, campaign.ErrStopped) || errors.Is(err, campaign.ErrBusy) {
		return cli.Exit(err.Error(), exitFailure)
	} else if err != nil {
		return optionUsage(err)
	}
	return reproduce.AnswerBoots(c.App.Writer, dir, rep, plan)
}
