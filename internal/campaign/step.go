package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"contend/internal/env"
	"contend/internal/results"
)

// Arm allows the steps of campaign dir to reboot.
func Arm(dir string) error {
	if err := writeSync(filepath.Join(dir, ArmedFile), []byte("armed: 'contend campaign step' may reboot this machine\n")); err != nil {
		return err
	}
	return Append(dir, Event{Event: EvArm, Slot: -1, BootID: env.BootID()})
}

// Disarm stops the steps of campaign dir from rebooting; message says why.
func Disarm(dir, message string) error {
	err := disarm(dir)
	if e := Append(dir, Event{Event: EvDisarm, Slot: -1, BootID: env.BootID(), Message: message}); err == nil {
		err = e
	}
	return err
}

func disarm(dir string) error {
	err := os.Remove(filepath.Join(dir, ArmedFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot disarm campaign %s: %w", dir, err)
	}
	syncDir(dir)
	return nil
}

// IsArmed reports whether campaign dir is armed.
func IsArmed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ArmedFile))
	return err == nil
}

// StepOptions configures Step; zero fields take the machine's.
type StepOptions struct {
	// AtBoot: do nothing unless the campaign is armed (the unit's mode).
	AtBoot bool
	// Exe is the contend binary that runs the plan's command.
	Exe string
	// Log receives progress lines.
	Log io.Writer
	// Kernel returns the running kernel (env.RunningKernel).
	Kernel func() env.Kernel
	// ExtraEnv is added to the environment of the commands run.
	ExtraEnv []string
}

// ErrStopped wraps the errors after which a campaign stops (disarmed):
// a wrong kernel, a failed run, a failed reboot.
var ErrStopped = errors.New("campaign stopped")

// ResultName returns the result file of boot slot of side label,
// relative to the campaign directory.
func ResultName(slot int, label byte) string {
	return filepath.Join(BootsDir, fmt.Sprintf("%02d-%c.json", slot+1, label))
}

// Step does what is due after a boot of campaign dir: check the kernel,
// settle, run the plan's command, record it, and, when the campaign was
// armed, arrange the next boot and reboot. See the package comment for
// the safety rules and docs in 'contend campaign --help' for the rule on
// interrupted steps (redone).
func Step(ctx context.Context, dir string, o StepOptions) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Kernel == nil {
		o.Kernel = env.RunningKernel
	}
	p, err := ReadPlan(dir)
	if err != nil {
		return err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer lock.unlock()
	armed := IsArmed(dir)
	if o.AtBoot && !armed {
		fmt.Fprintf(o.Log, "campaign %s is not armed: nothing to do\n", dir)
		return nil
	}
	led, err := ReadLedger(dir)
	if err != nil {
		return err
	}
	// The result files on disk are facts a lost ledger line must not
	// contradict (reconcile.go).
	led, slot, err := reconcile(dir, p, led, o.Log)
	if err != nil {
		return err
	}
	if slot == len(p.Order) {
		fmt.Fprintf(o.Log, "campaign %s is complete (%d boots): 'contend campaign report %s'\n", dir, len(p.Order), dir)
		return nil
	}
	k := o.Kernel()
	for _, e := range led.Done() {
		if k.BootID != "" && e.BootID == k.BootID {
			// Nothing to do, and so the arming is left alone: this
			// boot's reboot may be pending, and the next boot's step
			// must find the campaign armed.
			if armed {
				fmt.Fprintf(o.Log, "this boot (%s) already ran boot %d of the campaign: nothing to do. The campaign stays armed: the step of the next boot runs boot %d (side %c); if the reboot the step started does not come, reboot into side %c yourself\n",
					short(k.BootID), e.Slot+1, slot+1, p.Order[slot], p.Order[slot])
			} else {
				fmt.Fprintf(o.Log, "this boot (%s) already ran boot %d of the campaign: nothing to do. Reboot into side %c for boot %d and run the step there (the campaign is not armed; 'contend campaign arm %s' first to let that step reboot)\n",
					short(k.BootID), e.Slot+1, p.Order[slot], slot+1, dir)
			}
			return nil
		}
	}
	// Consume the arming before anything is done: whatever goes wrong
	// from here on (including a kill or a power cut), the campaign stays
	// disarmed until this step finishes and arranges the next boot.
	if armed {
		if err := disarm(dir); err != nil {
			return err
		}
	}
	label := p.Order[slot]
	side := p.Side(label)
	// stopAt records a stop of boot at (side l) and returns it as the
	// step's error; stop records one of this boot.
	stopAt := func(at int, l byte, ev Event, format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		ev.Time, ev.Slot, ev.Side, ev.BootID, ev.Message = time.Now().UTC(), at, string(l), k.BootID, msg
		if err := Append(dir, ev); err != nil {
			return fmt.Errorf("%w: %s (and the ledger: %v)", ErrStopped, msg, err)
		}
		return fmt.Errorf("%w: %s", ErrStopped, msg)
	}
	stop := func(ev Event, format string, a ...any) error {
		return stopAt(slot, label, ev, format, a...)
	}
	if why := side.Expect.Mismatch(k); why != "" {
		return stop(Event{Event: EvMismatch, Kernel: &k},
			"boot %d of %d expects side %c (%s), but this kernel has %s; disarmed, no reboot: boot side %c and run 'contend campaign step %s'",
			slot+1, len(p.Order), label, side.Expect, why, label, dir)
	}
	begin := time.Now().UTC()
	result := ResultName(slot, label)
	if id, open := led.Started(slot); open {
		// Interrupted (killed, power cut): the slot is redone; the
		// partial result file, when there is one, is kept aside and
		// not analysed. The redo event names it only when it exists.
		aside := strings.TrimSuffix(result, ".json") + ".interrupted-" + strconv.Itoa(len(led.Events)) + ".json"
		msg := fmt.Sprintf("the step of boot %d started in boot %s did not finish: redone", slot+1, short(id))
		err := os.Rename(filepath.Join(dir, result), filepath.Join(dir, aside))
		switch {
		case err == nil:
			msg += "; its partial result file is kept aside as " + aside
		case errors.Is(err, os.ErrNotExist):
			aside = ""
			msg += "; it left no result file"
		default:
			return stop(Event{Event: EvFailed}, "cannot set aside the interrupted result file: %v", err)
		}
		fmt.Fprintln(o.Log, msg)
		if err := Append(dir, Event{Event: EvRedo, Slot: slot, Side: string(label), BootID: k.BootID, Result: aside, Message: msg}); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.Log, "boot %d of %d: side %c, kernel %s, boot %s\n", slot+1, len(p.Order), label, k.Release, short(k.BootID))
	st, err := settle(ctx, p.Settle, o.Log)
	if err != nil {
		return stop(Event{Event: EvFailed}, "boot %d: stopped by %s while settling; disarmed, no reboot: run 'contend campaign step %s' to do this boot",
			slot+1, interruption(ctx), dir)
	}
	if err := Append(dir, Event{Event: EvStart, Slot: slot, Side: string(label), BootID: k.BootID, Kernel: &k, Begin: begin, Settle: &st, Result: result}); err != nil {
		return err
	}
	args := RunArgs(p, slot, label, filepath.Join(dir, result))
	fmt.Fprintf(o.Log, "running: contend %s\n", strings.Join(args, " "))
	if err := runChild(ctx, o, args, lock); err != nil {
		if sig := interruption(ctx); sig != "" {
			return stop(Event{Event: EvFailed, Result: result}, "boot %d: stopped by %s while running 'contend %s' (the run ended: %v); disarmed, no reboot: run 'contend campaign step %s' to redo this boot",
				slot+1, sig, strings.Join(args, " "), err, dir)
		}
		return stop(Event{Event: EvFailed, Result: result}, "boot %d: 'contend %s' failed (%v); disarmed, no reboot: see %s, then run 'contend campaign step %s' to redo this boot",
			slot+1, strings.Join(args, " "), err, filepath.Join(dir, result), dir)
	}
	f, err := results.Read(filepath.Join(dir, result))
	if err != nil {
		return stop(Event{Event: EvFailed, Result: result}, "boot %d: %v; disarmed, no reboot", slot+1, err)
	}
	ok := f.Counts(-1)[results.StatusOK]
	if ok == 0 {
		return stop(Event{Event: EvFailed, Result: result}, "boot %d: no successful repetition in %s; disarmed, no reboot", slot+1, result)
	}
	if err := Append(dir, Event{Event: EvDone, Slot: slot, Side: string(label), BootID: k.BootID, Result: result, OK: ok}); err != nil {
		return err
	}
	next := slot + 1
	if next == len(p.Order) {
		fmt.Fprintf(o.Log, "campaign complete: 'contend campaign report %s'\n", dir)
		return Append(dir, Event{Event: EvComplete, Slot: slot})
	}
	nl := p.Order[next]
	if !armed {
		fmt.Fprintf(o.Log, "boot %d done. Not armed, so no reboot: boot side %c (%s) for boot %d and run the step again, or 'contend campaign arm %s' to let it reboot\n",
			slot+1, nl, p.Side(nl).Expect, next+1, dir)
		return nil
	}
	// From here on the events are those of the next boot: arranging it,
	// rebooting into it, a failure to.
	stopNext := func(format string, a ...any) error {
		return stopAt(next, nl, Event{Event: EvFailed}, format, a...)
	}
	cmds := BootCommands(p.Side(nl).Boot)
	envv := append(os.Environ(), o.ExtraEnv...)
	envv = append(envv, "CONTEND_CAMPAIGN_DIR="+dir, "CONTEND_CAMPAIGN_SLOT="+strconv.Itoa(next+1), "CONTEND_CAMPAIGN_SIDE="+string(nl))
	for _, c := range cmds[:len(cmds)-1] {
		fmt.Fprintf(o.Log, "running: %s\n", c)
		sh := exec.CommandContext(ctx, "/bin/sh", "-c", c)
		sh.Stdout, sh.Stderr, sh.Env = o.Log, o.Log, envv
		if err := sh.Run(); err != nil {
			if sig := interruption(ctx); sig != "" {
				return stopNext("arranging boot %d (side %c): stopped by %s while running %q; disarmed, no reboot: boot side %c yourself and run 'contend campaign step %s'",
					next+1, nl, sig, c, nl, dir)
			}
			return stopNext("arranging boot %d (side %c): %q failed (%v); disarmed, no reboot: boot side %c yourself and run 'contend campaign step %s'",
				next+1, nl, c, err, nl, dir)
		}
	}
	if sig := interruption(ctx); sig != "" {
		return stopNext("arranging boot %d (side %c): stopped by %s before the reboot; disarmed, no reboot: boot side %c yourself and run 'contend campaign step %s'",
			next+1, nl, sig, nl, dir)
	}
	return rebootInto(ctx, dir, cmds[len(cmds)-1], envv, o.Log, k.BootID, next, nl, stopNext)
}

// rebootInto is the point of no return of a step: it arms the campaign
// again, records the reboot into boot next (side nl) and runs the reboot
// command c. From the moment c starts, the step's end by a signal
// (SIGTERM from a stopped unit, SIGHUP from a stopped getty or session,
// SIGINT) and c's own end by one are the shutdown that c started: they
// are recorded as the reboot under way (EvRebooting) and leave the
// campaign armed for the next boot's step. Only c's failure by itself (a
// non-zero exit status) disarms the campaign, filed under boot next.
//
// c runs in a session of its own (setsid: no terminal's SIGHUP or SIGINT
// reaches it) and is never killed by the step: a step stopped after c
// started leaves c to finish the reboot.
func rebootInto(ctx context.Context, dir, c string, envv []string, log io.Writer, bootID string, next int, nl byte, stopNext func(string, ...any) error) error {
	if err := Arm(dir); err != nil {
		disarm(dir)
		return stopNext("arranging boot %d (side %c): cannot arm for it: %v; disarmed, no reboot", next+1, nl, err)
	}
	if err := Append(dir, Event{Event: EvReboot, Slot: next, Side: string(nl), BootID: bootID, Message: c}); err != nil {
		disarm(dir)
		return err
	}
	if sig := interruption(ctx); sig != "" {
		disarm(dir)
		return stopNext("arranging boot %d (side %c): stopped by %s before the reboot command %q started; disarmed, no reboot: boot side %c yourself and run 'contend campaign step %s'",
			next+1, nl, sig, c, nl, dir)
	}
	fmt.Fprintf(log, "running: %s\n", c)
	sh := exec.Command("/bin/sh", "-c", c)
	sh.Stdout, sh.Stderr, sh.Env = log, log, envv
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sh.Start(); err != nil {
		disarm(dir)
		return stopNext("the reboot into boot %d (side %c): %q did not start (%v); disarmed: boot side %c yourself and run 'contend campaign step %s'",
			next+1, nl, c, err, nl, dir)
	}
	ended := make(chan error, 1)
	go func() { ended <- sh.Wait() }()
	underWay := func(why string) error {
		msg := fmt.Sprintf("the reboot into boot %d (side %c) is under way: %s; the campaign stays armed for the step of boot %d (if the machine does not reboot: 'contend campaign disarm %s', or reboot into side %c yourself)",
			next+1, nl, why, next+1, dir, nl)
		// The ledger first: the terminal may be gone.
		err := Append(dir, Event{Event: EvRebooting, Slot: next, Side: string(nl), BootID: bootID, Message: msg})
		fmt.Fprintln(log, msg)
		return err
	}
	select {
	case err := <-ended:
		if err == nil {
			fmt.Fprintf(log, "the reboot into boot %d (side %c) is under way\n", next+1, nl)
			return nil
		}
		if sig := killedBy(err); sig != nil {
			return underWay(fmt.Sprintf("the reboot command %q ended by %s (the shutdown it started)", c, SignalName(sig)))
		}
		disarm(dir)
		return stopNext("the reboot into boot %d (side %c): %q failed (%v); disarmed: boot side %c yourself and run 'contend campaign step %s'",
			next+1, nl, c, err, nl, dir)
	case <-ctx.Done():
		return underWay(fmt.Sprintf("the step got %s after the reboot command %q started (the shutdown it started)", interruption(ctx), c))
	}
}

// runChild runs the contend command of a boot in a process group of its
// own, with PR_SET_PDEATHSIG = SIGTERM: a killed step takes its run (which
// cleans up on SIGTERM) with it. On the step's other exit paths (a
// signal, the run's end) the group is killed. The run inherits the lock,
// which stays held until it is gone.
func runChild(ctx context.Context, o StepOptions, args []string, lock *stepLock) error {
	cmd := exec.CommandContext(ctx, o.Exe, args...)
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	cmd.Env = append(os.Environ(), o.ExtraEnv...)
	cmd.ExtraFiles = []*os.File{lock.f}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	// The death signal follows the thread that forked: keep it until
	// the run is waited for.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return err
	}
	lock.note(fmt.Sprintf("step pid %d (its run: pid %d)", os.Getpid(), cmd.Process.Pid))
	err := cmd.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the run left in its group
	lock.note(fmt.Sprintf("step pid %d", os.Getpid()))
	return err
}

// RunArgs returns the contend arguments of boot slot: the plan's command
// with --out FILE and --label inserted after its first word.
func RunArgs(p *Plan, slot int, label byte, out string) []string {
	args := []string{p.Command[0], "--out", out, "--label", fmt.Sprintf("%c boot %d", label, slot+1)}
	return append(args, p.Command[1:]...)
}

// BootCommands returns the shell commands that boot b, the last one the
// reboot.
func BootCommands(b Boot) []string {
	reboot := b.Reboot
	switch {
	case b.GrubEntry != "":
		if reboot == "" {
			reboot = "systemctl reboot"
		}
		return []string{"grub-reboot " + shellQuote(b.GrubEntry), reboot}
	case b.Kexec != nil:
		if reboot == "" {
			reboot = "systemctl kexec"
		}
		load := "kexec -l " + shellQuote(b.Kexec.Kernel)
		if b.Kexec.Initrd != "" {
			load += " --initrd=" + shellQuote(b.Kexec.Initrd)
		}
		if b.Kexec.Cmdline != "" {
			load += " --command-line=" + shellQuote(b.Kexec.Cmdline)
		} else {
			load += " --reuse-cmdline"
		}
		return []string{load, reboot}
	}
	return []string{b.Command}
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	if id == "" {
		return "(unknown)"
	}
	return id
}
