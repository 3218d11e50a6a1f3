package main

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/campaign"
	"contend/internal/value"
	"contend/internal/vm"
	"contend/internal/workload"
)

// vmFlags are the flags of 'campaign init --vm': each side's kernel
// image and the virtual machine of every boot.
type vmFlags struct {
	on         bool
	cpus       value.Int
	mem        memSize
	timeout    value.Duration
	accel      value.Enum
	skipFaults bool
}

// vmInitFlags returns the --vm flags of 'campaign init'; the side
// kernels fill o's sides.
func vmInitFlags(f *vmFlags, o *campaign.Options) []cli.Flag {
	f.cpus = value.Int{N: min(campaign.DefaultVMCPUs, runtime.NumCPU()), Min: 1, Max: runtime.NumCPU()}
	f.mem = memSize{MiB: vm.DefaultMemMiB}
	f.timeout = value.Duration{D: vm.DefaultTimeout, Min: vm.MinTimeout, Max: vm.MaxTimeout}
	f.accel = value.Enum{W: vm.AccelAuto, Words: []string{vm.AccelAuto, vm.AccelKVM, vm.AccelTCG}}
	return []cli.Flag{
		&cli.BoolFlag{Name: "vm", Destination: &f.on, Usage: "each boot is a fresh QEMU guest of --a-kernel or --b-kernel that 'contend campaign run DIR' starts (docs/vm.md)"},
		&cli.StringFlag{Name: "a-kernel", Destination: &o.Sides[0].Kernel, Usage: "with --vm: side A's kernel image (a bzImage: arch/x86/boot/bzImage, /boot/vmlinuz-...); --a-initrd and --a-append go with it"},
		&cli.StringFlag{Name: "b-kernel", Destination: &o.Sides[1].Kernel, Usage: "with --vm: side B's kernel image"},
		newFlag("vm-cpus", &f.cpus, "with --vm: the guest's vCPUs, 1 to the host's CPUs"),
		newFlag("vm-mem", &f.mem, "with --vm: the guest's memory, such as 1GiB, 256MiB to half the host's"),
		newFlag("vm-timeout", &f.timeout, "with --vm: the longest a boot may take, start to power-off (a hang is killed then)"),
		enumFlag("vm-accel", &f.accel, "with --vm: auto (KVM when it boots a kernel, else TCG), kvm or tcg"),
		&cli.BoolFlag{Name: "vm-skip-faults", Destination: &f.skipFaults, Usage: "with --vm: a boot whose guest panics, hangs or dies is recorded as skipped and the campaign goes on (default: it stops)"},
	}
}

// apply puts the --vm flags into o, refusing those that do not go
// together.
func (f *vmFlags) apply(c *cli.Context, o *campaign.Options) error {
	vmOnly := []string{"a-kernel", "b-kernel", "vm-cpus", "vm-mem", "vm-timeout", "vm-accel", "vm-skip-faults"}
	if !f.on {
		for _, n := range vmOnly {
			if c.IsSet(n) && !strings.HasSuffix(n, "-kernel") {
				return usagef("--%s goes with --vm", n)
			}
		}
		return nil
	}
	for _, n := range []string{"settle-min", "settle-max", "settle-load", "settle-psi"} {
		if c.IsSet(n) {
			return usagef("--%s: a --vm campaign does not settle (each guest starts fresh; the host's load at each boot is recorded); drop --%s", n, n)
		}
	}
	// Unset: the campaign's defaults, which fit the host.
	o.VM = &campaign.VMOptions{Timeout: f.timeout.D, Accel: f.accel.W, SkipFaults: f.skipFaults}
	if c.IsSet("vm-cpus") {
		o.VM.CPUs = f.cpus.N
	}
	if c.IsSet("vm-mem") {
		o.VM.MemMiB = f.mem.MiB
	}
	return nil
}

// memSize is a guest's memory, a size such as 1GiB, in whole MiB.
type memSize struct{ MiB int }

func (m *memSize) Set(s string) error {
	n, err := workload.ParseSize(s)
	if err != nil || n%(1<<20) != 0 || n <= 0 {
		return fmt.Errorf("%q is not accepted; accepted: a size in whole MiB such as 1GiB or 512MiB, from %d MiB to half the host's memory", s, vm.MinMemMiB)
	}
	m.MiB = int(n >> 20)
	return nil
}

func (m *memSize) String() string {
	if m == nil {
		return ""
	}
	if m.MiB%1024 == 0 {
		return fmt.Sprintf("%dGiB", m.MiB/1024)
	}
	return fmt.Sprintf("%dMiB", m.MiB)
}

func (m *memSize) Get() any { return m.MiB }

// campaignRunCommand is 'campaign run DIR': a --vm campaign's boots,
// from the host.
func campaignRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a --vm campaign's boots from this machine, each a fresh QEMU guest",
		ArgsUsage: "DIR",
		Description: `Boots, in the plan's order (ABBA...), a fresh QEMU guest for every boot of
a campaign made with 'campaign init --vm' that is not done yet: that side's
kernel with an initramfs contend builds (contend as /init, the libraries it
links), the plan's command run inside, its result file back over the second
serial port (ttyS1) as DIR/boots/NN-S.jsonl, the guest's kernel release and
boot id in the ledger, its console, port and QEMU logs in DIR/vm/NN-S/. KVM when it
boots a kernel, else TCG (said once; results and reports say which, and
under TCG that timings include the emulation). A guest that panics, hangs
(--vm-timeout) or dies, a kernel without a serial console, a guest running
another kernel than its side's, or a command that fails stops the
campaign in one line (with --vm-skip-faults a faulty boot is recorded as
skipped instead); 'campaign run' again goes on from there. No QEMU outlives
contend, not even a SIGKILLed one. Then: 'contend campaign report DIR'.`,
		Action: campaignRun,
	}
}

func campaignRun(c *cli.Context) error {
	dir, err := campaignDir(c)
	if err != nil {
		return err
	}
	ctx, stop := campaign.WithSignals(c.Context)
	defer stop()
	t := time.Now()
	err = campaign.RunVM(ctx, dir, campaign.RunVMOptions{Log: c.App.Writer})
	if errors.Is(err, campaign.ErrStopped) || errors.Is(err, campaign.ErrBusy) {
		return cli.Exit(fmt.Sprintf("%v (after %s)", err, time.Since(t).Round(time.Second)), exitFailure)
	}
	return err
}

// printVMInit is what 'campaign init --vm' says about its plan.
func printVMInit(c *cli.Context, p *campaign.Plan) {
	w := c.App.Writer
	fmt.Fprintf(w, "campaign %s: %d boots in the order %s, each a fresh guest (%d vCPUs, %d MiB, accelerator %s) running 'contend %s'\n",
		p.Dir, len(p.Order), p.Order, p.VM.CPUs, p.VM.MemMiB, p.VM.Accel, strings.Join(p.Command, " "))
	for _, s := range p.Sides {
		fmt.Fprintf(w, "  %s: %s (%s)\n", s.Label, s.Boot.VM.Kernel, s.Expect)
	}
	fmt.Fprintf(w, "next: 'contend campaign run %s', then 'contend campaign report %s'\n", p.Dir, p.Dir)
}
