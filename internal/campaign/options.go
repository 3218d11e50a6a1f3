package campaign

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"contend/internal/esc"
	"contend/internal/plural"
	"contend/internal/value"
)

// The ranges of a campaign's numbers, shared by the flags of 'campaign
// init' and NewPlan.
const (
	MinBoots     = 2   // boots per side: the boot-level test needs two a side
	MaxBoots     = 100 // boots per side
	DefaultBoots = 3
	MaxSettleMin = time.Hour
	MaxSettleMax = 24 * time.Hour
	MaxPSI       = 100.0 // a percentage
)

// DefaultSettle is the settling of a campaign whose options name none.
var DefaultSettle = Settle{Min: Duration(time.Minute), Max: Duration(10 * time.Minute), Load: 1, PSI: 10}

// Options are what a campaign is made from (the flags of 'campaign
// init'); NewPlan checks them and makes the plan. Every string is as the
// user gave it; an empty one is not given.
type Options struct {
	// Dir is the campaign directory, new, on a disk (not tmpfs or
	// ramfs); relative to the working directory or absolute.
	Dir string
	// Sides are A (the baseline) and B.
	Sides [2]SideOptions
	// Reboot is the reboot after grub-reboot or kexec -l (--reboot-command;
	// empty: systemctl reboot, systemctl kexec).
	Reboot string
	// Order is abba, abab (empty: abba) or an explicit sequence of A and
	// B with at least two of each (--order).
	Order string
	// Boots is the boots per side of abba and abab, MinBoots to MaxBoots
	// (--boots); 0 is not given: DefaultBoots. An explicit Order sets the
	// boots itself and takes no Boots.
	Boots int
	// Settle is how each step waits for the machine to settle
	// (--settle-min, --settle-max, --settle-load, --settle-psi), such as
	// DefaultSettle.
	Settle Settle
	// Command is the contend command every boot runs: "run WORKLOAD ..."
	// or "exec ...", without --out, -o or --label (the step sets them).
	Command []string
	// Workloads are the workload names a 'run' accepts.
	Workloads []string
	// Contend is the contend binary the unit runs (absolute).
	Contend string
	// Volatile tells whether a directory is on a file system a reboot
	// empties; nil: the package's Volatile.
	Volatile func(dir string) (fs string, volatile bool, err error)
	// CheckCommand, when set, checks the plan's command as the step will
	// run it (the last check); its error is returned as it is.
	CheckCommand func(*Plan) error
	// Now is the plan's creation time; zero: the time NewPlan runs.
	Now time.Time
	// VM: the boots are virtual machines (vm.go, --vm); each side's
	// Kernel is booted in them.
	VM *VMOptions
}

// SideOptions says how to boot a side and what its kernel must look like:
// exactly one of Grub, Kexec and BootCommand, and at least one field of
// Expect.
type SideOptions struct {
	Grub        string // a grub menu entry (--a-grub): 'grub-reboot ENTRY', then Options.Reboot
	Kexec       string // a kernel image (--a-kexec): 'kexec -l', then Options.Reboot
	Initrd      string // the initrd of Kexec (--a-initrd)
	Append      string // the command line of Kexec (--a-append; empty: the running one's)
	BootCommand string // a shell command that arranges the boot and reboots (--a-boot-command)
	Kernel      string // a kernel image booted in a virtual machine (--a-kernel, with --vm)
	// Build are the facts of Kernel's build when contend built it from a
	// tree (--kernel-tree: internal/kbuild's Kernel.Env, kbuild.* keys):
	// each boot's result file records them.
	Build  map[string]string
	Expect Expect // --a-release, --a-version, --a-cmdline
}

// OptionError is an option NewPlan refuses: one line naming the flag and
// what is accepted.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return e.Msg }

func refuse(format string, a ...any) error { return &OptionError{fmt.Sprintf(format, a...)} }

// NewPlan checks o, as 'campaign init' does, and returns the plan it
// describes, with Dir set to the absolute campaign directory. A refused
// option is an *OptionError whose text names the flag; CheckCommand's
// error is returned as it is. Nothing is written.
func NewPlan(o Options) (*Plan, error) {
	if o.Dir == "" {
		return nil, refuse("campaign init: give the campaign directory, then -- and the contend command to run in each boot")
	}
	if err := o.checkText(); err != nil {
		return nil, err
	}
	dir, err := o.dir()
	if err != nil {
		return nil, err
	}
	created := o.Now
	if created.IsZero() {
		created = time.Now()
	}
	p := &Plan{Format: FormatName, Version: FormatVersion, Created: created.UTC(), Dir: dir}
	if o.VM != nil {
		if p.VM, err = o.vmPlan(); err != nil {
			return nil, err
		}
	}
	if p.Sides, err = o.sides(); err != nil {
		return nil, err
	}
	if p.Order, err = o.order(); err != nil {
		return nil, err
	}
	if p.Settle, err = o.settle(); err != nil {
		return nil, err
	}
	if p.Command, err = o.command(); err != nil {
		return nil, err
	}
	if o.CheckCommand != nil {
		if err := o.CheckCommand(p); err != nil {
			return nil, err
		}
	}
	if err := esc.Check("campaign init: the contend binary (os.Executable)", o.Contend); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(o.Contend) {
		return nil, fmt.Errorf("campaign init: the contend binary %q is not an absolute path: the unit could not run it", o.Contend)
	}
	p.Contend = o.Contend
	return p, nil
}

// checkText refuses a control character in every string of o (the
// directory, each word of the command, each flag): they reach a systemd
// unit, a shell command run as root at boot, or the terminal of 'campaign
// status', where a newline or an escape sequence would be read as
// something else.
func (o *Options) checkText() error {
	if err := esc.Check("campaign init: the directory", o.Dir); err != nil {
		return &OptionError{err.Error()}
	}
	for i, a := range o.Command {
		if err := esc.Check(fmt.Sprintf("campaign init: word %d of the command", i+1), a); err != nil {
			return &OptionError{err.Error()}
		}
	}
	var texts []struct{ flag, s string }
	for i, s := range o.Sides {
		f := "--" + string(rune('a'+i)) + "-"
		texts = append(texts, []struct{ flag, s string }{
			{f + "grub", s.Grub}, {f + "kexec", s.Kexec}, {f + "initrd", s.Initrd}, {f + "append", s.Append},
			{f + "boot-command", s.BootCommand}, {f + "kernel", s.Kernel}, {f + "release", s.Expect.Release}, {f + "version", s.Expect.Version}, {f + "cmdline", s.Expect.Cmdline},
		}...)
	}
	texts = append(texts, []struct{ flag, s string }{{"--reboot-command", o.Reboot}, {"--order", o.Order}}...)
	for _, t := range texts {
		if err := esc.Check(t.flag, t.s); err != nil {
			return &OptionError{err.Error()}
		}
	}
	return nil
}

// dir returns the absolute campaign directory: a new one, not on a file
// system a reboot empties.
func (o *Options) dir() (string, error) {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return "", refuse("campaign init: %v", err)
	}
	if IsCampaign(dir) {
		return "", refuse("campaign init: %s already holds a campaign: choose a new directory", o.Dir)
	}
	volatile := o.Volatile
	if volatile == nil {
		volatile = Volatile
	}
	if fs, v, _ := volatile(dir); v {
		return "", refuse("campaign init: %s is on %s, which a reboot empties: the plan and the ledger would be gone after the first boot; accepted: a directory on a disk (such as under /var/lib)", o.Dir, fs)
	}
	return dir, nil
}

// sides returns the two sides of the plan: each booted one way, the
// reboot command used by one at least, the two kernels told apart.
func (o *Options) sides() ([2]Side, error) {
	var sides [2]Side
	for i := range o.Sides {
		var err error
		if o.VM != nil {
			sides[i], err = o.vmSide(i)
		} else {
			sides[i], err = o.side(i)
		}
		if err != nil {
			return sides, err
		}
	}
	if o.VM != nil {
		// The host boots each side's image itself: the same kernel on
		// both sides is an A/A campaign, not a boot that cannot be
		// told from a wrong one.
		return sides, nil
	}
	if o.Reboot != "" && sides[0].Boot.Command != "" && sides[1].Boot.Command != "" {
		return sides, refuse("--reboot-command: no side is booted with --a-grub, --b-grub, --a-kexec or --b-kexec, after which it runs (a --a-boot-command or --b-boot-command reboots by itself); drop --reboot-command")
	}
	if sides[0].Expect == sides[1].Expect {
		return sides, refuse("--a-release/--b-release (and -version, -cmdline): the two sides expect the same kernel (%s): a wrong boot could not be told from a right one", sides[0].Expect)
	}
	return sides, nil
}

// side returns side i (0: A) of the plan.
func (o *Options) side(i int) (Side, error) {
	so, s, l := o.Sides[i], string(rune('a'+i)), string(rune('A'+i))
	side := Side{Label: l}
	if so.Kernel != "" {
		return side, refuse("--%s-kernel goes with --vm (a kernel booted in a virtual machine); to boot this machine into it, give --%s-kexec", s, s)
	}
	n := 0
	if so.Grub != "" {
		side.Boot.GrubEntry, n = so.Grub, n+1
	}
	if so.Kexec != "" {
		k, err := kexecOf(s, so)
		if err != nil {
			return side, err
		}
		side.Boot.Kexec, n = k, n+1
	} else if so.Initrd != "" || so.Append != "" {
		return side, refuse("--%s-initrd and --%s-append go with --%s-kexec", s, s, s)
	}
	if so.BootCommand != "" {
		side.Boot.Command, n = so.BootCommand, n+1
	}
	if n != 1 {
		return side, refuse("--%s-grub, --%s-kexec, --%s-boot-command: give exactly one way to boot side %s, got %d", s, s, s, l, n)
	}
	if side.Boot.Command == "" {
		side.Boot.Reboot = o.Reboot
	}
	side.Expect = so.Expect
	if side.Expect == (Expect{}) {
		return side, refuse("--%s-release, --%s-version, --%s-cmdline: say what side %s's kernel looks like (at least one), so that a wrong boot is caught", s, s, s, l)
	}
	return side, nil
}

// kexecOf returns the kexec boot of side s (a or b): its kernel image
// and initrd files, absolute.
func kexecOf(s string, so SideOptions) (*Kexec, error) {
	kernel, err := regularFile(so.Kexec)
	if err != nil {
		return nil, refuse("--%s-kexec: %q is not a kernel image file", s, so.Kexec)
	}
	k := &Kexec{Kernel: kernel, Cmdline: so.Append}
	if so.Initrd != "" {
		if k.Initrd, err = regularFile(so.Initrd); err != nil {
			return nil, refuse("--%s-initrd: %q is not a file", s, so.Initrd)
		}
	}
	return k, nil
}

// regularFile returns the absolute path of a file that exists and is not
// a directory.
func regularFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory", path)
	}
	return filepath.Abs(path)
}

// order returns the order of boots: at least two of each side.
func (o *Options) order() (string, error) {
	pattern, boots := o.Order, o.Boots
	if pattern == "" {
		pattern = "abba"
	}
	if boots == 0 {
		boots = DefaultBoots
	}
	if boots < MinBoots {
		return "", refuse("--boots: %d is not accepted: the boot-level test needs two boots a side (the variance between boots is measured from them); accepted: %d to %d", boots, MinBoots, MaxBoots)
	}
	if boots > MaxBoots {
		return "", refuse("--boots: %d is not accepted; accepted: %d to %d", boots, MinBoots, MaxBoots)
	}
	order, err := Order(pattern, boots)
	if err != nil {
		return "", refuse("--order: %v", err)
	}
	if na, nb := strings.Count(order, "A"), strings.Count(order, "B"); na < 2 || nb < 2 {
		return "", refuse("--order: %q boots A %s and B %s: the boot-level test needs two boots a side; accepted: a sequence with at least two of each, such as ABBA", pattern, plural.N(na, "time", "times"), plural.N(nb, "time", "times"))
	}
	if o.Boots != 0 && !strings.EqualFold(pattern, "abba") && !strings.EqualFold(pattern, "abab") {
		return "", refuse("--order: an explicit sequence sets the boots itself; drop --boots")
	}
	return order, nil
}

// settle returns the settling of the plan, each bound in its range.
func (o *Options) settle() (Settle, error) {
	s := o.Settle
	smin, smax := time.Duration(s.Min), time.Duration(s.Max)
	switch {
	case smin < 0 || smin > MaxSettleMin:
		return s, refuse("--settle-min: %s is not accepted; accepted: a duration from 0 to %s", value.Short(smin), value.Short(MaxSettleMin))
	case smax < 0 || smax > MaxSettleMax:
		return s, refuse("--settle-max: %s is not accepted; accepted: a duration from 0 to %s", value.Short(smax), value.Short(MaxSettleMax))
	case !(s.Load >= 0) || math.IsInf(s.Load, 1):
		return s, refuse("--settle-load: %v is not accepted; accepted: a load average, 0 or more, such as 1", s.Load)
	case !(s.PSI >= 0 && s.PSI <= MaxPSI):
		return s, refuse("--settle-psi: %v is not accepted; accepted: a percentage from 0 to 100", s.PSI)
	case smax < smin:
		return s, refuse("--settle-max: %v is not accepted: from --settle-min (%v) to %s", value.Short(smax), value.Short(smin), value.Short(MaxSettleMax))
	}
	return s, nil
}

// command returns the command every boot runs: a 'run' of a known
// workload or an 'exec', which does not set what the step sets.
func (o *Options) command() ([]string, error) {
	c := o.Command
	if len(c) == 0 {
		return nil, refuse("campaign init: give the command to run in each boot after --, such as: -- run mutex -n 10")
	}
	if c[0] != "run" && c[0] != "exec" {
		return nil, refuse("campaign init: the command to run in each boot is a 'run' or an 'exec', not %q", c[0])
	}
	if c[0] == "run" {
		if len(c) < 2 || strings.HasPrefix(c[1], "-") {
			return nil, refuse("campaign init: 'run' needs a workload, such as: -- run mutex -n 10")
		}
		if !slices.Contains(o.Workloads, c[1]) {
			return nil, refuse("campaign init: no workload %q; the workloads: %s", c[1], strings.Join(o.Workloads, ", "))
		}
	}
	for _, a := range c {
		if a == "--" {
			break
		}
		for _, f := range []string{"--out", "-o", "--label"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return nil, refuse("campaign init: the command must not set %s: each boot's step sets it", f)
			}
		}
	}
	return slices.Clone(c), nil
}

// Init is 'campaign init': the plan of o (NewPlan), written to its
// directory. A directory that cannot be made (a file in the way, a
// parent that does not exist on a read-only or virtual file system) is
// the user's path, refused as an *OptionError.
func Init(o Options) (*Plan, error) {
	p, err := NewPlan(o)
	if err != nil {
		return nil, err
	}
	if err := WritePlan(p.Dir, p); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "mkdir" {
			return nil, refuse("campaign init: %v; accepted: a new directory in a writable place", err)
		}
		return nil, err
	}
	return p, nil
}
