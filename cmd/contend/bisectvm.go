package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/bisect"
	"contend/internal/campaign"
	"contend/internal/value"
	"contend/internal/vm"
)

// bisectVMFlags are the flags of a kernel search ('contend bisect
// --vm'): the guests, as a --vm campaign's, and the boots of a probe.
type bisectVMFlags struct {
	on                       bool
	cpus                     value.Int
	mem                      memSize
	timeout                  value.Duration
	accel                    value.Enum
	bootsPerProbe, runsInOne value.Int
}

// bisectVMOnly are the flags that go with --vm.
var bisectVMOnly = []string{"vm-cpus", "vm-mem", "vm-timeout", "vm-accel", "boots-per-probe", "runs-per-boot"}

func newBisectVMFlags(f *bisectVMFlags) []cli.Flag {
	f.cpus = value.Int{N: min(campaign.DefaultVMCPUs, runtime.NumCPU()), Min: 1, Max: runtime.NumCPU()}
	f.mem = memSize{MiB: vm.DefaultMemMiB}
	f.timeout = value.Duration{D: vm.DefaultTimeout, Min: vm.MinTimeout, Max: vm.MaxTimeout}
	f.accel = value.Enum{W: vm.AccelAuto, Words: []string{vm.AccelAuto, vm.AccelKVM, vm.AccelTCG}}
	f.bootsPerProbe = value.Int{N: 3, Min: 1, Max: 1000}
	f.runsInOne = value.Int{N: 5, Min: 1, Max: 1000}
	return []cli.Flag{
		&cli.BoolFlag{Name: "vm", Destination: &f.on, Usage: "a kernel search: --build prints 'kernel: PATH' (and 'initrd: PATH', 'append: WORDS'), each repetition is a fresh QEMU guest of that kernel running the measurement (docs/bisect.md)"},
		newFlag("vm-cpus", &f.cpus, "with --vm: the guest's vCPUs, 1 to the host's CPUs"),
		newFlag("vm-mem", &f.mem, "with --vm: the guest's memory, such as 1GiB, 256MiB to half the host's"),
		newFlag("vm-timeout", &f.timeout, "with --vm: the longest a boot may take, start to power-off (a hang is killed then and the commit skipped)"),
		enumFlag("vm-accel", &f.accel, "with --vm: auto (KVM when it boots a kernel, else TCG), kvm or tcg"),
		newFlag("boots-per-probe", &f.bootsPerProbe, "with --vm: boots of one probe (a batch; --calibrate, --calibrate-max, --verify-runs and --budget-runs count boots too)"),
		newFlag("runs-per-boot", &f.runsInOne, "with --vm: repetitions in each boot; the boot's value is their geometric mean"),
	}
}

// plan checks the --vm flags and returns the search's VMPlan (nil
// without --vm); opt.Runs becomes the boots of a probe.
func (f *bisectVMFlags) plan(c *cli.Context, opt *bisect.Options) (*bisect.VMPlan, error) {
	if !f.on {
		for _, n := range bisectVMOnly {
			if c.IsSet(n) {
				return nil, usagef("--%s goes with --vm", n)
			}
		}
		return nil, nil
	}
	if c.IsSet("runs") {
		return nil, usagef("--runs: with --vm the repetitions are boots: give --boots-per-probe N (boots of a probe) and --runs-per-boot N (runs in each)")
	}
	if p := c.String("contend"); p != "" && !filepath.IsAbs(p) {
		return nil, usagef("--contend: %q: with --vm the guest runs this contend or one given by an absolute path, not one built in the worktree", p)
	}
	if c.String("build") == "" {
		return nil, usagef("--build: a --vm search needs a build command that prints the kernel to boot, such as --build 'make -j8 bzImage && echo kernel: arch/x86/boot/bzImage'")
	}
	if m := c.Args().Slice(); len(m) > 0 && m[0] == "exec" {
		return nil, usagef("bisect --vm: the guest has no files but contend's: measure with '-- run WORKLOAD ...', not exec")
	}
	v := campaign.VMOptions{Timeout: f.timeout.D, Accel: f.accel.W}
	if c.IsSet("vm-cpus") {
		v.CPUs = f.cpus.N
	}
	if c.IsSet("vm-mem") {
		v.MemMiB = f.mem.MiB
	}
	p, err := v.Check()
	if err != nil {
		return nil, usagef("%v", err)
	}
	opt.Runs = f.bootsPerProbe.N
	return &bisect.VMPlan{CPUs: p.CPUs, MemMiB: p.MemMiB, Timeout: time.Duration(p.Timeout), Accel: p.Accel, RunsPerBoot: f.runsInOne.N}, nil
}

// vmProber returns the VM prober of a kernel search in dir and the
// function that ends its runner.
func vmProber(c *cli.Context, dir string, plan *bisect.Plan, progress func(string)) (*bisect.VM, func(), error) {
	work := filepath.Join(dir, bisect.WorkDir)
	if err := bisect.RemoveWorktrees(plan.Repo, work); err != nil {
		return nil, nil, err
	}
	consoles := filepath.Join(dir, bisect.VMDir)
	if err := os.MkdirAll(consoles, 0o755); err != nil {
		return nil, nil, err
	}
	log := c.App.ErrWriter
	if progress == nil {
		log = nil
	}
	r, err := vm.NewRunner(c.Context, vm.Config{Accel: plan.VM.Accel, Contend: plan.Contend, Log: prefixed{log, "bisect: "}})
	if err != nil {
		return nil, nil, fmt.Errorf("--vm: %v", err)
	}
	p := &bisect.VM{Repo: plan.Repo, Work: work, Runs: filepath.Join(dir, bisect.RunsDir), Logs: filepath.Join(dir, bisect.LogsDir), Consoles: consoles,
		BuildCmd: plan.Build, Measure: plan.Measure, Metric: plan.Metric, Plan: *plan.VM, Boot: r.Boot, Progress: progress}
	return p, func() { r.Close() }, nil
}

// prefixed writes each line to W (nil: nowhere) after Prefix.
type prefixed struct {
	W      interface{ Write([]byte) (int, error) }
	Prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	if p.W == nil {
		return len(b), nil
	}
	s := strings.TrimRight(string(b), "\n")
	for _, l := range strings.Split(s, "\n") {
		fmt.Fprintf(p.W, "%s%s\n", p.Prefix, l)
	}
	return len(b), nil
}

// bisectUnit says in res what a repetition of plan's search is: a boot, in
// a VM under the accelerator its result files record.
func bisectUnit(res *bisect.Result, dir string, plan *bisect.Plan) {
	if plan.VM == nil {
		return
	}
	res.Unit = "boots"
	res.Where = bisect.WhereOf(filepath.Join(dir, bisect.RunsDir))
}

// bisectProber returns the prober of plan: a VM prober for a kernel
// search, else the worktree's Command; done ends it.
func bisectProber(c *cli.Context, dir string, plan *bisect.Plan, progress func(string)) (bisect.Prober, func(), error) {
	if plan.VM != nil {
		return vmProber(c, dir, plan, progress)
	}
	p, err := prober(c, dir, plan)
	return p, func() {}, err
}
