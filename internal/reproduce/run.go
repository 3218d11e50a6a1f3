package reproduce

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"contend/internal/campaign"
	"contend/internal/robotmail"
	"contend/internal/wisbuild"
	"contend/internal/workload"
)

// RunKind is what --run carries out.
type RunKind int

const (
	// RunAA runs the test A/A on this kernel: no kernels were given and
	// the block's sides are two commits (or a switch not set here).
	RunAA RunKind = iota
	// RunSwitch runs the block's switch as an interleaved ab on this
	// kernel (Plan.Switch).
	RunSwitch
	// RunKernels runs the plan's campaign of the user's two kernels, each
	// boot a fresh QEMU guest (CampaignOptions).
	RunKernels
)

// Kind returns what --run carries out for p: the campaign when kernels
// are given (refused for a block whose sides are one kernel with a
// switch), else the switch when it can be set here, else the A/A. Its
// errors are usage errors.
func (p *Plan) Kind(kernels bool) (RunKind, error) {
	switched := p.Switch != nil || p.SwitchWhy != ""
	switch {
	case kernels && switched:
		return 0, workload.Usagef("--a-kernel, --b-kernel: the report's sides are one kernel with a switch (%s), not two kernels; drop them: --run runs the switch here", p.Block.CompareKey)
	case kernels:
		return RunKernels, nil
	case p.Switch != nil:
		return RunSwitch, nil
	}
	return RunAA, nil
}

// CheckSwitch refuses a switch run whose test files are not there; its
// errors are usage errors.
func (p *Plan) CheckSwitch() error {
	for _, f := range p.SwitchFiles {
		if _, err := os.Stat(f); err != nil {
			return workload.Usagef("--run: the switch's test %s is not there (--tests)", f)
		}
	}
	return nil
}

// ABArgs are the arguments of the 'contend ab' of a --run of kind (RunAA
// or RunSwitch): runs a side, into the result file out, quiet.
func (p *Plan) ABArgs(kind RunKind, runs int, out string) []string {
	args := append([]string{"ab", "wis", "--aa"}, p.WisArgs...)
	if kind == RunSwitch {
		args = append([]string{"ab"}, p.Switch...)
	}
	return append(args, "-n", strconv.Itoa(runs), "--out", out, "-q")
}

// GuestDir is where the guests of a reproduce campaign find the test and
// its objects compiled on the host ($CONTEND_WIS_OBJECTS): they have no
// compiler.
const GuestDir = "/contend-wis"

// KernelRun is a --run with the user's two kernels.
type KernelRun struct {
	// Dir is the campaign directory (new).
	Dir string
	// Sides are the kernels (Kernel, Initrd, Append: --a-kernel,
	// --a-initrd, --a-append and B's).
	Sides [2]campaign.SideOptions
	// VM is the guests' (--vm-cpus ...).
	VM campaign.VMOptions
	// Boots a side: 0 is the plan's (Plan.Boots), else
	// campaign.DefaultBoots.
	Boots int
	// Runs a boot.
	Runs int
}

// Campaign is the campaign of a KernelRun: its options, the command it
// runs in every guest as the host would run it (the test's host path:
// for the check of the command before anything is written), and the
// boots a side with where they come from.
type Campaign struct {
	Options     campaign.Options
	HostCommand []string
	Boots       int
	BootsFrom   string
}

// CampaignOptions returns the campaign of k: 'run wis' of the plan's test
// in every guest, the test and its objects compiled here (wisbuild.Build)
// put into each guest under GuestDir. Its errors are usage errors.
func (p *Plan) CampaignOptions(k KernelRun) (*Campaign, error) {
	if p.WisArgs == nil {
		return nil, workload.Usagef("--run: testcase %s is not a will-it-scale test: contend runs only those here", p.Report.Testcase)
	}
	built, err := wisbuild.Build(p.TestFile)
	if err != nil {
		return nil, workload.Usagef("%v", err)
	}
	c := &Campaign{Boots: k.Boots, BootsFrom: "--boots"}
	if c.Boots == 0 {
		if c.Boots = p.Boots(); c.Boots > 0 {
			c.BootsFrom = fmt.Sprintf("the plan's: the runs the reported change takes at the noise measured here (CV %.1f%%), 2 to 10", 100*p.CV)
		} else {
			c.Boots = campaign.DefaultBoots
			c.BootsFrom = "the default: no noise measured (--noise FILE sets them from the reported change, --boots N)"
		}
	}
	guestTest := filepath.Join(GuestDir, filepath.Base(p.TestFile))
	command := func(test string) []string {
		args := []string{"run", "wis"}
		for i := 0; i+1 < len(p.WisArgs); i += 2 {
			v := p.WisArgs[i+1]
			if p.WisArgs[i] == "--test" {
				v = test
			}
			args = append(args, p.WisArgs[i], v)
		}
		return append(args, "-n", strconv.Itoa(k.Runs))
	}
	vmo := k.VM
	vmo.Files = append(vmo.Files,
		campaign.GuestFile{Host: p.TestFile, Guest: guestTest},
		campaign.GuestFile{Host: built.SO, Guest: filepath.Join(GuestDir, filepath.Base(built.SO))},
		campaign.GuestFile{Host: built.Exe, Guest: filepath.Join(GuestDir, filepath.Base(built.Exe))})
	vmo.Env = append(vmo.Env, wisbuild.ObjectsEnv+"="+GuestDir)
	c.Options = campaign.Options{Dir: k.Dir, Sides: k.Sides, Boots: c.Boots, Command: command(guestTest), VM: &vmo}
	c.HostCommand = command(p.TestFile)
	return c, nil
}

// DefaultCampaignDir is the campaign directory of a --run with kernels
// where --out is not given: results/reproduce-COMMIT-DATE (not created).
func DefaultCampaignDir(rep *robotmail.Report, stamp string) string {
	return filepath.Join("results", "reproduce-"+short(rep.Commit)+"-"+stamp)
}
