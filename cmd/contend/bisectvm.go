package main

import (
	"github.com/urfave/cli/v2"

	"contend/internal/bisect"
	"contend/internal/value"
)

// bisectVMFlags are the flags of a kernel search ('contend bisect
// --vm'): the guests, as a --vm campaign's, and the boots of a probe.
type bisectVMFlags struct {
	on                       bool
	guest                    guestFlags
	bootsPerProbe, runsInOne value.Int
	kernel                   kernelFlags
}

// bisectVMOnly are the flags that go with --vm.
var bisectVMOnly = []string{"vm-cpus", "vm-mem", "vm-timeout", "vm-accel", "boots-per-probe", "runs-per-boot", "kernel-tree"}

func newBisectVMFlags(f *bisectVMFlags) []cli.Flag {
	f.bootsPerProbe = value.Int{N: 3, Min: 1, Max: 1000}
	f.runsInOne = value.Int{N: 5, Min: 1, Max: 1000}
	return append(append(append([]cli.Flag{
		&cli.BoolFlag{Name: "vm", Destination: &f.on, Usage: "a kernel search: --build prints 'kernel: PATH' (and 'initrd: PATH', 'append: WORDS'), each repetition is a fresh QEMU guest of that kernel running the measurement (docs/bisect.md)"},
	}, newGuestFlags(&f.guest, "a hang is killed then and the commit skipped")...),
		newFlag("boots-per-probe", &f.bootsPerProbe, "with --vm: boots of one probe (a batch; --calibrate, --calibrate-max, --verify-runs and --budget-runs count boots too)"),
		newFlag("runs-per-boot", &f.runsInOne, "with --vm: repetitions in each boot; the boot's value is their geometric mean"),
	), newKernelFlags(&f.kernel, "each commit's kernel (instead of --build; the tree is the search's --repo)", "DIR/kbuild")...)
}

// request returns the guest of a kernel search (nil without --vm), or
// the first flag of bisectVMOnly given without --vm.
func (f *bisectVMFlags) request(c *cli.Context) (*bisect.VMRequest, string) {
	if !f.on {
		for _, n := range bisectVMOnly {
			if c.IsSet(n) {
				return nil, n
			}
		}
		return nil, ""
	}
	return &bisect.VMRequest{Machine: f.guest.machine(c),
		BootsPerProbe: f.bootsPerProbe.N, RunsPerBoot: f.runsInOne.N, RunsSet: c.IsSet("runs")}, ""
}

// kernelRequest puts the kernel build of a search into r (nil without
// --kernel-tree); the tree is the search's repository: r.Repo becomes it
// unless --repo names another, which Start refuses.
func (f *bisectVMFlags) kernelRequest(c *cli.Context, r *bisect.Request) {
	if f.kernel.tree == "" {
		r.KernelStray = f.kernel.stray(c)
		return
	}
	r.Kernel = &bisect.KernelRequest{Tree: f.kernel.tree, Config: f.kernel.config, Fragments: f.kernel.fragments.Value(), BuildDir: f.kernel.buildDir}
	if !c.IsSet("repo") {
		r.Repo = f.kernel.tree
	}
}
