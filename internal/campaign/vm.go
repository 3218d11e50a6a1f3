package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"contend/internal/env"
	"contend/internal/guest"
	"contend/internal/plural"
	"contend/internal/safefile"
	"contend/internal/vm"
)

// VMOptions make a campaign whose boots are virtual machines that
// 'campaign run' starts itself (--vm): each side is a kernel image
// (SideOptions.Kernel, --a-kernel) booted in a fresh QEMU guest per boot
// of the plan, with contend as its init (internal/vm), on Machine
// (checked against Host by guest.Machine.Check).
type VMOptions struct {
	guest.Machine
	Host guest.Host
	// SkipFaults: a boot that goes wrong (a panic, a hang, a guest that
	// dies) is recorded as skipped and the campaign goes on
	// (--vm-skip-faults); false: it stops the campaign.
	SkipFaults bool
	// Files are files of the host every guest gets (a will-it-scale
	// test and its compiled objects: 'contend reproduce --run'): copied
	// into the campaign directory by WritePlan, put into each guest by
	// RunVM. Env are NAME=VALUE words added to the command's
	// environment in the guest.
	Files []GuestFile
	Env   []string
}

// GuestFile is a file of the host (Host) and its path in the guest
// (Guest, vm.CheckGuestPath).
type GuestFile struct{ Host, Guest string }

// FilesDir holds, in a campaign directory, the files its guests get
// (VMPlan.Files).
const FilesDir = "files"

// VMPlan is the virtual machine of every boot of a --vm plan.
type VMPlan struct {
	guest.Machine
	SkipFaults bool
	// Guest is what every guest gets beside the command (files, the
	// environment); nil: nothing. A pointer: a VMPlan stays comparable.
	Guest *GuestSetup
}

// vmPlanJSON is a VMPlan as plan.json holds it: the timeout a duration
// string, as every duration of the plan.
type vmPlanJSON struct {
	CPUs       int         `json:"cpus"`
	MemMiB     int         `json:"mem_mib"`
	Timeout    Duration    `json:"timeout"`
	Accel      string      `json:"accel"`
	SkipFaults bool        `json:"skip_faults,omitempty"`
	Guest      *GuestSetup `json:"guest,omitempty"`
}

// MarshalJSON writes p as plan.json holds it.
func (p VMPlan) MarshalJSON() ([]byte, error) {
	m := p.Machine
	return json.Marshal(vmPlanJSON{CPUs: m.CPUs, MemMiB: m.MemMiB, Timeout: Duration(m.Timeout), Accel: m.Accel, SkipFaults: p.SkipFaults, Guest: p.Guest})
}

// UnmarshalJSON reads p as plan.json holds it.
func (p *VMPlan) UnmarshalJSON(b []byte) error {
	var j vmPlanJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = VMPlan{Machine: guest.Machine{CPUs: j.CPUs, MemMiB: j.MemMiB, Timeout: time.Duration(j.Timeout), Accel: j.Accel}, SkipFaults: j.SkipFaults, Guest: j.Guest}
	return nil
}

// GuestSetup is what every guest of a plan gets beside its command:
// Files, each Name in the campaign directory (under FilesDir) at its
// Guest path; Env, words added to the command's environment.
type GuestSetup struct {
	Files []VMFile `json:"files,omitempty"`
	Env   []string `json:"env,omitempty"`
	// hosts are the host files of Files that WritePlan copies (NewPlan).
	hosts []string
}

// VMFile is a file every guest of a campaign gets: Name, relative to
// the campaign directory, at Guest.
type VMFile struct {
	Name  string `json:"name"`
	Guest string `json:"guest"`
}

// EvSkipped is a boot of a --vm plan that went wrong and was skipped
// (--vm-skip-faults): not measured, never redone.
const EvSkipped = "skipped"

// vmPlan checks o.VM against the host and returns the plan's VMPlan.
func (o *Options) vmPlan() (*VMPlan, error) {
	if o.Reboot != "" {
		return nil, refuse("--reboot-command: a --vm campaign boots guests, not this machine; drop --reboot-command")
	}
	return o.VM.Check()
}

// Check checks the virtual machine against the host
// (guest.Machine.Check) and the guests' files and environment, and
// returns the plan's VMPlan with the defaults filled in; each refusal is
// an *OptionError of one line naming its flag.
func (v VMOptions) Check() (*VMPlan, error) {
	m, err := v.Machine.Check(v.Host)
	if err != nil {
		return nil, refuse("%v", err)
	}
	p := &VMPlan{Machine: m, SkipFaults: v.SkipFaults}
	if len(v.Files) > 0 || len(v.Env) > 0 {
		p.Guest = &GuestSetup{}
		if err := p.Guest.add(v.Files, v.Env); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// add checks the files and environment words of the guests (each a
// regular file of the host, at a distinct guest path outside what the
// guest's init owns; NAME=VALUE words) and adds them to p.
func (p *GuestSetup) add(files []GuestFile, env []string) error {
	seen := map[string]bool{}
	for i, f := range files {
		host, err := regularFile(f.Host)
		if err != nil {
			return refuse("a file for the guests: %q is not a regular file", f.Host)
		}
		if err := vm.CheckGuestPath(f.Guest); err != nil {
			return refuse("a file for the guests: %v", err)
		}
		if seen[f.Guest] {
			return refuse("a file for the guests: two files for %s", f.Guest)
		}
		seen[f.Guest] = true
		p.Files = append(p.Files, VMFile{Name: filepath.Join(FilesDir, fmt.Sprintf("%02d-%s", i+1, filepath.Base(f.Guest))), Guest: f.Guest})
		p.hosts = append(p.hosts, host)
	}
	for _, e := range env {
		if k, _, ok := strings.Cut(e, "="); !ok || !envName(k) {
			return refuse("an environment word for the guests: %q is not NAME=VALUE", e)
		}
	}
	p.Env = slices.Clone(env)
	return nil
}

// envName tells whether k is a variable's name: letters, digits and _,
// not starting with a digit.
func envName(k string) bool {
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// copyFiles copies the host files of p's guests into the campaign
// directory dir (WritePlan).
func (p *GuestSetup) copyFiles(dir string) error {
	if p == nil || len(p.hosts) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, FilesDir), 0o755); err != nil {
		return err
	}
	for i, f := range p.Files {
		b, err := os.ReadFile(p.hosts[i])
		if err != nil {
			return fmt.Errorf("a file for the guests: %v", err)
		}
		fi, err := os.Stat(p.hosts[i])
		if err != nil {
			return fmt.Errorf("a file for the guests: %v", err)
		}
		if err := safefile.WriteFile(filepath.Join(dir, f.Name), b, fi.Mode().Perm()|0o400); err != nil {
			return fmt.Errorf("a file for the guests: %v", err)
		}
	}
	return nil
}

// env returns the environment words of p's guests.
func (p *GuestSetup) env() []string {
	if p == nil {
		return nil
	}
	return p.Env
}

// guestFiles returns the files of p's guests as vm.Command's, in the
// campaign directory dir.
func (p *GuestSetup) guestFiles(dir string) []vm.File {
	var out []vm.File
	if p == nil {
		return nil
	}
	for _, f := range p.Files {
		out = append(out, vm.File{Host: filepath.Join(dir, f.Name), Guest: f.Guest})
	}
	return out
}

// vmSide returns side i of a --vm plan: its kernel image (a bzImage),
// the release it must run (read from the image; --a-release, when given,
// must agree).
func (o *Options) vmSide(i int) (Side, error) {
	so, s, l := o.Sides[i], string(rune('a'+i)), string(rune('A'+i))
	side := Side{Label: l}
	if so.Grub != "" || so.Kexec != "" || so.BootCommand != "" {
		return side, refuse("--%s-grub, --%s-kexec, --%s-boot-command: a --vm campaign boots side %s's --%s-kernel in a guest; drop them", s, s, s, l, s)
	}
	if so.Kernel == "" {
		return side, refuse("--%s-kernel: give side %s's kernel image (a bzImage such as arch/x86/boot/bzImage or /boot/vmlinuz-...) for --vm", s, l)
	}
	kernel, err := regularFile(so.Kernel)
	if err != nil {
		return side, refuse("--%s-kernel: %q is not a kernel image file", s, so.Kernel)
	}
	release, err := vm.KernelRelease(kernel)
	if err != nil {
		return side, refuse("--%s-kernel: %v", s, err)
	}
	k := &guest.Kernel{Kernel: kernel, Cmdline: so.Append, Build: so.Build}
	if so.Initrd != "" {
		if k.Initrd, err = regularFile(so.Initrd); err != nil {
			return side, refuse("--%s-initrd: %q is not a file", s, so.Initrd)
		}
	}
	if so.Expect.Release != "" && so.Expect.Release != release {
		return side, refuse("--%s-release: %q, but the image of --%s-kernel is release %q; drop --%s-release or give the right image", s, so.Expect.Release, s, release, s)
	}
	side.Boot.VM = k
	side.Expect = so.Expect
	side.Expect.Release = release
	return side, nil
}

// RunVMOptions configures RunVM.
type RunVMOptions struct {
	// Log receives progress lines.
	Log io.Writer
	// Boot boots one guest (a vm.Runner's Boot); nil: a Runner of
	// Config.
	Boot func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error)
	// Config is the vm.Runner's, when Boot is nil (its Accel is the
	// plan's).
	Config vm.Config
	// Load is the host's 1-minute load average (env.LoadAvg), recorded
	// at each boot's start.
	Load func() float64
}

// ConsoleDir holds the logs of each boot of a --vm campaign: vm/NN-S/
// console.log (ttyS0), port.log (ttyS1: the frames) and qemu.log.
const ConsoleDir = "vm"

// RunVM drives a --vm campaign from the host: for every boot of the
// plan not yet done (nor skipped), in the plan's order, a fresh guest
// with that side's kernel runs the plan's command; its result file comes
// back as boots/NN-S.jsonl and the ledger records the guest's kernel and
// boot id. A guest that runs another kernel than its side's, a command
// that fails, or (without SkipFaults) a boot that goes wrong stops the
// campaign (ErrStopped, one line); 'campaign run' again goes on from the
// boot that stopped. Each guest runs holding the machine-wide benchmark
// lock (guest.Locked).
func RunVM(ctx context.Context, dir string, o RunVMOptions) error {
	p, err := ReadPlan(dir)
	if err != nil {
		return err
	}
	if p.VM == nil {
		return fmt.Errorf("campaign %s boots this machine, not virtual machines: its steps run at boot ('contend campaign step %s'); 'campaign run' is for plans made with --vm", dir, dir)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer lock.unlock()
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Load == nil {
		o.Load = env.LoadAvg
	}
	if o.Boot == nil {
		cfg := o.Config
		cfg.Accel = p.VM.Accel
		if cfg.Contend == "" {
			cfg.Contend = p.Contend
		}
		if cfg.Log == nil {
			cfg.Log = o.Log
		}
		r, err := vm.NewRunner(ctx, cfg)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w: stopped by %s before the first boot; 'contend campaign run %s' goes on", ErrStopped, interruptionOr(ctx), dir)
			}
			return fmt.Errorf("%w: %v", ErrStopped, err)
		}
		defer r.Close()
		o.Boot = r.Boot
	}
	o.Boot = guest.Locked(o.Boot, func(s string) { fmt.Fprintln(o.Log, s) })
	if err := os.MkdirAll(filepath.Join(dir, ConsoleDir), 0o755); err != nil {
		return err
	}
	led, err := ReadLedger(dir)
	if err != nil {
		return err
	}
	skipped := map[int]bool{}
	for _, e := range led.Events {
		if e.Event == EvSkipped {
			skipped[e.Slot] = true
		}
	}
	done := led.Done()
	ran := 0
	begin := time.Now()
	for slot := range p.Order {
		if _, ok := done[slot]; ok || skipped[slot] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: stopped by %s before boot %d; 'contend campaign run %s' goes on from it", ErrStopped, interruptionOr(ctx), slot+1, dir)
		}
		if id, open := led.Started(slot); open {
			msg := fmt.Sprintf("the run of boot %d started (host boot %s) did not finish: redone", slot+1, short(id))
			fmt.Fprintln(o.Log, msg)
			if err := Append(dir, Event{Event: EvRedo, Slot: slot, Side: string(p.Order[slot]), Message: msg}); err != nil {
				return err
			}
		}
		skip, err := runVMBoot(ctx, dir, p, slot, o)
		if err != nil {
			return err
		}
		if skip {
			skipped[slot] = true
		}
		ran++
	}
	nd, ns := 0, len(skipped)
	if led, err = ReadLedger(dir); err == nil {
		nd = len(led.Done())
	}
	if ran > 0 || ns > 0 {
		fmt.Fprintf(o.Log, "campaign complete: %s done", plural.N(nd, "boot", "boots"))
		if ns > 0 {
			fmt.Fprintf(o.Log, ", %s skipped (faults, in the ledger)", plural.N(ns, "boot", "boots"))
		}
		fmt.Fprintf(o.Log, " in %s; 'contend campaign report %s'\n", time.Since(begin).Round(time.Second), dir)
		return Append(dir, Event{Event: EvComplete, Slot: len(p.Order) - 1})
	}
	fmt.Fprintf(o.Log, "campaign %s is complete (%d boots): 'contend campaign report %s'\n", dir, len(p.Order), dir)
	return nil
}

// interruptionOr names the signal that ended ctx, or its error.
func interruptionOr(ctx context.Context) string {
	if s := interruption(ctx); s != "" {
		return s
	}
	return ctx.Err().Error()
}

// runVMBoot runs boot slot of plan p in a guest and records it (the
// measurement: guest.Boot, guest.Keep); skip reports a fault recorded
// as skipped (SkipFaults).
func runVMBoot(ctx context.Context, dir string, p *Plan, slot int, o RunVMOptions) (skip bool, err error) {
	label := p.Order[slot]
	side := p.Side(label)
	result := ResultName(slot, label)
	hostBoot := env.BootID()
	if err := Append(dir, Event{Event: EvStart, Slot: slot, Side: string(label), BootID: "host:" + hostBoot, Result: result}); err != nil {
		return false, err
	}
	fmt.Fprintf(o.Log, "boot %d of %d: side %c, kernel %s in a guest (%d vCPUs, %d MiB)\n", slot+1, len(p.Order), label, side.Expect.Release, p.VM.CPUs, p.VM.MemMiB)
	// The boot's console (ttyS0), port (ttyS1) and QEMU logs stay in
	// vm/NN-S/.
	gdir := filepath.Join(dir, ConsoleDir, fmt.Sprintf("%02d-%c", slot+1, label))
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return false, err
	}
	consoleKeep := filepath.Join(gdir, "console.log")
	load := o.Load()
	args := RunArgs(p, slot, label, vm.GuestOut)
	run := guest.Run{Machine: p.VM.Machine, Kernel: *side.Boot.VM, Dir: gdir, File: filepath.Join(dir, result),
		Command: vm.Command{Args: args, Out: vm.GuestOut, Files: p.VM.Guest.guestFiles(dir), Env: p.VM.Guest.env()}}
	booted := time.Now().UTC()
	res, berr := guest.Boot(ctx, o.Boot, run)
	stop := func(ev Event, format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		ev.Slot, ev.Side, ev.Message = slot, string(label), msg
		if ev.Event == "" {
			ev.Event = EvFailed
		}
		if err := Append(dir, ev); err != nil {
			return fmt.Errorf("%w: %s (and the ledger: %v)", ErrStopped, msg, err)
		}
		return fmt.Errorf("%w: %s", ErrStopped, msg)
	}
	var f *guest.Failure
	switch {
	case berr != nil && ctx.Err() != nil:
		return false, stop(Event{}, "boot %d: stopped by %s; 'contend campaign run %s' redoes it", slot+1, interruptionOr(ctx), dir)
	case errors.As(berr, &f) && p.VM.SkipFaults:
		msg := fmt.Sprintf("boot %d (side %c): %v; skipped (--vm-skip-faults)", slot+1, label, berr)
		fmt.Fprintln(o.Log, msg)
		return true, Append(dir, Event{Event: EvSkipped, Slot: slot, Side: string(label), Message: msg})
	case berr != nil:
		return false, stop(Event{}, "boot %d (side %c): %v", slot+1, label, berr)
	}
	gk := env.Kernel{Release: res.Report.Release, Version: res.Report.Version, Cmdline: res.Report.Cmdline, BootID: res.Report.BootID}
	if why := side.Expect.Mismatch(gk); why != "" {
		return false, stop(Event{Event: EvMismatch, Kernel: &gk, BootID: gk.BootID}, "boot %d expects side %c (%s), but the guest's kernel has %s: stopped", slot+1, label, side.Expect, why)
	}
	m, err := guest.Keep(res, run)
	if errors.As(err, &f) {
		ev := Event{BootID: gk.BootID, Kernel: &gk}
		switch f.Kind {
		case guest.Refused, guest.Failed:
			return false, stop(ev, "boot %d (side %c): 'contend %s' failed in the guest (exit %d: %s); see %s", slot+1, label, strings.Join(args, " "), f.Exit, f.Why, consoleKeep)
		case guest.NoResult:
			return false, stop(ev, "boot %d (side %c): the guest sent no result file (%s); see %s", slot+1, label, f.Why, consoleKeep)
		case guest.BadResult:
			ev.Result = result
			return false, stop(ev, "boot %d: %s", slot+1, f.Why)
		default:
			ev.Result = result
			return false, stop(ev, "boot %d: no successful repetition in %s", slot+1, result)
		}
	}
	if err != nil {
		return false, err
	}
	// The guest's start as the reboot into this boot and the command's
	// start in it as the step's start: the boot's cost (BootCosts) is
	// the time from QEMU's start to the command's. Then the start of the
	// measurement with the guest's kernel and boot id (what the report's
	// per-boot table reads), then its end.
	if err := Append(dir, Event{Time: booted, Event: EvReboot, Slot: slot, Side: string(label), BootID: "host:" + hostBoot, Message: "QEMU started the guest"}); err != nil {
		return false, err
	}
	st := &SettleRecord{Load: load, Settled: true}
	if err := Append(dir, Event{Time: booted.Add(res.StartedAfter), Event: EvStart, Slot: slot, Side: string(label), BootID: gk.BootID, Kernel: &gk, Settle: st, Result: result,
		Message: fmt.Sprintf("in a VM (%s, %d vCPUs, %d MiB, QEMU %s): the command started %s after QEMU", strings.ToUpper(res.Accel), res.CPUs, res.MemMiB, res.QEMU, res.StartedAfter.Round(10*time.Millisecond))}); err != nil {
		return false, err
	}
	fmt.Fprintf(o.Log, "  kernel %s, boot %s, %s; the command started %.1f s after QEMU, QEMU ended after %.1f s (%s)\n",
		gk.Release, short(gk.BootID), plural.N(m.OK, "run", "runs"), res.StartedAfter.Seconds(), res.Elapsed.Seconds(), strings.ToUpper(res.Accel))
	return false, Append(dir, Event{Event: EvDone, Slot: slot, Side: string(label), BootID: gk.BootID, Result: result, OK: m.OK})
}
