package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/bisect"
	"contend/internal/campaign"
	"contend/internal/esc"
	"contend/internal/guest"
	"contend/internal/kbuild"
	"contend/internal/plural"
	"contend/internal/value"
	"contend/internal/vm"
	"contend/internal/workload"
)

// vmFlags are the flags of 'campaign init --vm': each side's kernel
// image and the virtual machine of every boot.
type vmFlags struct {
	on, skipFaults bool
	guest          guestFlags
	kernel         kernelFlags
	revs           [2]string // --a-rev, --b-rev: revisions of --kernel-tree
	patch          string    // --b-patch: side B is --a-rev with it
	// built are the sides' kernels built by buildSides, recorded in
	// the campaign's builds ledger once its plan is written.
	built [2]*kbuild.Kernel
}

// vmInitFlags returns the --vm flags of 'campaign init'; the side
// kernels fill o's sides.
func vmInitFlags(f *vmFlags, o *campaign.Options) []cli.Flag {
	return append(append(append([]cli.Flag{
		&cli.BoolFlag{Name: "vm", Destination: &f.on, Usage: "each boot is a fresh QEMU guest of --a-kernel or --b-kernel that 'contend campaign run DIR' starts (docs/vm.md)"},
		&cli.StringFlag{Name: "a-kernel", Destination: &o.Sides[0].Kernel, Usage: "with --vm: side A's kernel image (a bzImage: arch/x86/boot/bzImage, /boot/vmlinuz-...); --a-initrd and --a-append go with it"},
		&cli.StringFlag{Name: "b-kernel", Destination: &o.Sides[1].Kernel, Usage: "with --vm: side B's kernel image"},
	}, newGuestFlags(&f.guest, "a hang is killed then")...),
		&cli.BoolFlag{Name: "vm-skip-faults", Destination: &f.skipFaults, Usage: "with --vm: a boot whose guest panics, hangs or dies is recorded as skipped and the campaign goes on (default: it stops)"},
		&cli.StringFlag{Name: "a-rev", Destination: &f.revs[0], Usage: "with --kernel-tree: side A's revision of the tree (a commit, a tag, a branch)"},
		&cli.StringFlag{Name: "b-rev", Destination: &f.revs[1], Usage: "with --kernel-tree: side B's revision (the same as --a-rev: an A/A campaign)"},
		&cli.StringFlag{Name: "b-patch", Destination: &f.patch, Usage: "with --kernel-tree, instead of --b-rev: side B is --a-rev with this patch (git format-patch's or a unified diff, applied with git apply; one that does not apply is refused)"},
	), newKernelFlags(&f.kernel, "the sides' kernels at --a-rev and --b-rev (or --b-patch) at init (instead of --a-kernel, --b-kernel)", "DIR/kbuild")...)
}

// apply puts the --vm flags into o, refusing those that do not go
// together.
func (f *vmFlags) apply(c *cli.Context, o *campaign.Options) error {
	if n := f.kernel.stray(c); n != "" {
		return usagef("--%s goes with --kernel-tree", n)
	}
	if f.kernel.tree == "" {
		for _, n := range []string{"a-rev", "b-rev", "b-patch"} {
			if c.IsSet(n) {
				return usagef("--%s goes with --kernel-tree", n)
			}
		}
	}
	if !f.on {
		for _, n := range []string{"vm-cpus", "vm-mem", "vm-timeout", "vm-accel", "vm-skip-faults", "kernel-tree"} {
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
	o.VM = &campaign.VMOptions{Machine: f.guest.machine(c), SkipFaults: f.skipFaults}
	if f.kernel.tree != "" {
		return f.buildSides(c, o)
	}
	return nil
}

// buildSides builds the revisions of --kernel-tree that --a-rev and
// --b-rev name (or --a-rev, then --a-rev with --b-patch) into one build
// directory (internal/kbuild; B after A rebuilds what differs), and
// makes their images the sides' kernels, with their builds' facts; the
// options that change contention and differ between the two configs are
// said. A patch that does not apply to --a-rev is refused before
// anything is built.
func (f *vmFlags) buildSides(c *cli.Context, o *campaign.Options) error {
	if f.patch != "" && c.IsSet("b-rev") {
		return usagef("--b-rev: --b-patch makes side B from --a-rev and the patch; give --b-rev or --b-patch, not both")
	}
	if c.IsSet("b-patch") && f.patch == "" {
		return usagef("--b-patch: give a patch file (git format-patch's or a unified diff)")
	}
	if f.revs[0] == "" {
		return usagef("--a-rev: give side A's revision of --kernel-tree")
	}
	if f.revs[1] == "" && f.patch == "" {
		return usagef("--b-rev: give side B's revision of --kernel-tree, or --b-patch")
	}
	for _, n := range []string{"a", "b"} {
		if c.IsSet(n + "-kernel") {
			return usagef("--%s-kernel: --kernel-tree builds side %s's kernel from --%s-rev; give one of them", n, strings.ToUpper(n), n)
		}
	}
	if o.Dir == "" {
		return usagef("campaign init: give the campaign directory, then -- and the contend command to run in each boot")
	}
	bdir := f.kernel.buildDir
	if bdir == "" {
		bdir = filepath.Join(o.Dir, "kbuild")
	}
	bdir, err := filepath.Abs(bdir)
	if err != nil {
		return err
	}
	ko := kbuild.Options{Tree: f.kernel.tree, Dir: bdir, Base: f.kernel.config, Fragments: f.kernel.fragments.Value(),
		Require: bisect.EvidenceNeeds(o.Command)}
	if o.VM.CPUs != 1 {
		ko.Require = append(ko.Require, "SMP")
	}
	if _, err := kbuild.Check(ko); err != nil {
		return usagef("%v", err)
	}
	if f.patch != "" {
		if _, err := kbuild.CheckPatch(f.kernel.tree, f.revs[0], f.patch); err != nil {
			return usagef("--b-patch: %v", err)
		}
		f.revs[1] = f.revs[0]
	}
	warns, err := kbuild.Prepare(ko)
	if err != nil {
		return err
	}
	log := c.App.ErrWriter
	for _, w := range warns {
		fmt.Fprintf(log, "campaign init: warning: %s\n", w)
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ks := &f.built
	for i, rev := range f.revs {
		tail := &kbuild.Tail{}
		ko.Log = tail
		if i == 1 {
			ko.Patch = f.patch
		}
		k, err := kbuild.Build(ctx, ko, rev)
		if ctx.Err() != nil {
			return cli.Exit(fmt.Sprintf("campaign init: interrupted while building side %c's kernel (%s): nothing written; the build directory %s is kept for the next try", 'A'+i, rev, bdir), exitInterrupted)
		}
		if err != nil {
			return cli.Exit(fmt.Sprintf("campaign init: side %c's kernel (%s): %v", 'A'+i, esc.Line(rev), err), exitFailure)
		}
		cc, what := "", esc.Line(rev)+" ("+k.Revision[:12]+")"
		if k.CCache {
			cc = ", ccache"
		}
		if k.Patch != "" {
			what += " with " + esc.Line(k.Patch) + " (" + k.PatchSHA256[:12] + ")"
		}
		if k.Cached {
			fmt.Fprintf(log, "kernel %c: %s kept from an earlier build; config %s\n", 'A'+i, what, k.ConfigSHA256[:12])
		} else {
			fmt.Fprintf(log, "kernel %c: %s built in %.1f s, %s rebuilt%s; config %s\n", 'A'+i, what, k.BuildSeconds, plural.N(k.Rebuilt, "object", "objects"), cc, k.ConfigSHA256[:12])
		}
		ks[i] = k
		o.Sides[i].Kernel, o.Sides[i].Build = k.Image, k.Env()
	}
	if d := kbuild.Diff(ks[0].Options, ks[1].Options); len(d) > 0 {
		fmt.Fprintf(log, "campaign init: warning: the sides' configs differ in options that change contention: %s\n", strings.Join(d, ", "))
	}
	return nil
}

// record appends the sides' builds (buildSides) to the builds ledger of
// the campaign in dir (kbuild.BuildsFile).
func (f *vmFlags) record(dir string) error {
	for i, k := range f.built {
		if k != nil {
			if err := kbuild.Append(filepath.Join(dir, kbuild.BuildsFile), k, string(rune('A'+i))); err != nil {
				return err
			}
		}
	}
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
	g.cpus = value.Int{N: min(guest.DefaultCPUs, runtime.NumCPU()), Min: 1, Max: runtime.NumCPU()}
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

// machine returns the guest the flags ask for; --vm-cpus and --vm-mem
// unset (0) take guest.Machine.Check's defaults, which fit the host.
func (g *guestFlags) machine(c *cli.Context) guest.Machine {
	v := guest.Machine{Timeout: g.timeout.D, Accel: g.accel.W}
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
