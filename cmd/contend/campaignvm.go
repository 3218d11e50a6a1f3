package main

import (
	"errors"
	"fmt"
	"runtime"
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
	on, skipFaults bool
	guest          guestFlags
}

// vmInitFlags returns the --vm flags of 'campaign init'; the side
// kernels fill o's sides.
func vmInitFlags(f *vmFlags, o *campaign.Options) []cli.Flag {
	return append(append([]cli.Flag{
		&cli.BoolFlag{Name: "vm", Destination: &f.on, Usage: "each boot is a fresh QEMU guest of --a-kernel or --b-kernel that 'contend campaign run DIR' starts (docs/vm.md)"},
		&cli.StringFlag{Name: "a-kernel", Destination: &o.Sides[0].Kernel, Usage: "with --vm: side A's kernel image (a bzImage: arch/x86/boot/bzImage, /boot/vmlinuz-...); --a-initrd and --a-append go with it"},
		&cli.StringFlag{Name: "b-kernel", Destination: &o.Sides[1].Kernel, Usage: "with --vm: side B's kernel image"},
	}, newGuestFlags(&f.guest, "a hang is killed then")...),
		&cli.BoolFlag{Name: "vm-skip-faults", Destination: &f.skipFaults, Usage: "with --vm: a boot whose guest panics, hangs or dies is recorded as skipped and the campaign goes on (default: it stops)"},
	)
}

// apply puts the --vm flags into o, refusing those that do not go
// together.
func (f *vmFlags) apply(c *cli.Context, o *campaign.Options) error {
	if !f.on {
		for _, n := range []string{"vm-cpus", "vm-mem", "vm-timeout", "vm-accel", "vm-skip-faults"} {
			if c.IsSet(n) {
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
	v := f.guest.options(c)
	v.SkipFaults = f.skipFaults
	o.VM = &v
	return nil
}

// guestFlags are the flags of the guests of 'campaign init --vm' and
// 'bisect --vm'.
type guestFlags struct {
	cpus    value.Int
	mem     memSize
	timeout value.Duration
	accel   value.Enum
}

// newGuestFlags returns the guest's flags; hang says what becomes of a
// guest that outlives --vm-timeout.
func newGuestFlags(g *guestFlags, hang string) []cli.Flag {
	g.cpus = value.Int{N: min(campaign.DefaultVMCPUs, runtime.NumCPU()), Min: 1, Max: runtime.NumCPU()}
	g.mem = memSize{MiB: vm.DefaultMemMiB}
	g.timeout = value.Duration{D: vm.DefaultTimeout, Min: vm.MinTimeout, Max: vm.MaxTimeout}
	g.accel = value.Enum{W: vm.AccelAuto, Words: []string{vm.AccelAuto, vm.AccelKVM, vm.AccelTCG}}
	return []cli.Flag{
		newFlag("vm-cpus", &g.cpus, "with --vm: the guest's vCPUs, 1 to the host's CPUs"),
		newFlag("vm-mem", &g.mem, "with --vm: the guest's memory, such as 1GiB, 256MiB to half the host's"),
		newFlag("vm-timeout", &g.timeout, "with --vm: the longest a boot may take, start to power-off ("+hang+")"),
		enumFlag("vm-accel", &g.accel, "with --vm: auto (KVM when it boots a kernel, else TCG), kvm or tcg"),
	}
}

// options returns the guest the flags ask for; --vm-cpus and --vm-mem
// unset (0) take the campaign's defaults, which fit the host.
func (g *guestFlags) options(c *cli.Context) campaign.VMOptions {
	v := campaign.VMOptions{Timeout: g.timeout.D, Accel: g.accel.W}
	if c.IsSet("vm-cpus") {
		v.CPUs = g.cpus.N
	}
	if c.IsSet("vm-mem") {
		v.MemMiB = g.mem.MiB
	}
	return v
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
		Name:        "run",
		Usage:       "run a --vm campaign's boots from this machine, each a fresh QEMU guest",
		ArgsUsage:   "DIR",
		Description: helpText("campaign-run"),
		Action:      campaignRun,
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
	code := exitFailure
	if err != nil && ctx.Err() != nil {
		code = exitInterrupted // Ctrl-C, SIGTERM, SIGHUP: as run and bisect
	}
	if errors.Is(err, campaign.ErrStopped) || errors.Is(err, campaign.ErrBusy) {
		return cli.Exit(fmt.Sprintf("%v (after %s)", err, time.Since(t).Round(time.Second)), code)
	}
	if err != nil && code == exitInterrupted {
		return cli.Exit(fmt.Sprintf("campaign run: interrupted: %v", err), code)
	}
	return err
}
