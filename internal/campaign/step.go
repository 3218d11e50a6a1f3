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
	"contend/internal/esc"
	"contend/internal/results"
	"contend/internal/textfmt"
)

// Arm allows the steps of campaign dir to reboot.
func Arm(dir string) error { return arm(dir, env.BootID(), time.Time{}) }

// arm is Arm in boot bootID at time t (zero: now).
func arm(dir, bootID string, t time.Time) error {
	if err := writeSync(filepath.Join(dir, ArmedFile), []byte("armed: 'contend campaign step' may reboot this machine\n")); err != nil {
		return err
	}
	return Append(dir, Event{Time: t, Event: EvArm, Slot: -1, BootID: bootID})
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

// StepOptions configures Step. The fields after ExtraEnv are what a step
// reads of and does to the machine, for tests; nil is the machine's.
type StepOptions struct {
	// AtBoot: do nothing unless the campaign is armed (the unit's mode).
	AtBoot bool
	// Exe is the contend binary that runs the plan's command.
	Exe string
	// Log receives progress lines.
	Log io.Writer
	// ExtraEnv is added to the environment of the commands run.
	ExtraEnv []string

	// Kernel returns the running kernel and boot (env.RunningKernel).
	Kernel func() env.Kernel
	// Load returns the 1-minute load average (env.LoadAvg).
	Load func() float64
	// Pressure returns the CPU pressure, PSI some avg10 in %, and
	// whether the kernel has one (/proc/pressure/cpu).
	Pressure func() (float64, bool)
	// Now is the clock (time.Now); Sleep waits d, or until ctx ends
	// with ctx's error (a timer).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Run runs the contend command of a boot (args without the program
	// name) to its end: Exe in a process group of its own that holds
	// the step's lock (runChild).
	Run func(ctx context.Context, args []string) error
	// Shell runs c, a command that arranges the next boot, to its end,
	// with environment envv (/bin/sh -c, output to Log, killed when ctx
	// ends).
	Shell func(ctx context.Context, c string, envv []string) error
	// Reboot starts c, the reboot command, with environment envv and
	// returns the channel its end is sent on: /bin/sh -c in a session of
	// its own, output to Log, never killed by the step.
	Reboot func(c string, envv []string) (<-chan error, error)
}

// machine fills the nil fields of o with the machine's; run needs the
// step's lock.
func (o *StepOptions) machine(lock *stepLock) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Kernel == nil {
		o.Kernel = env.RunningKernel
	}
	if o.Load == nil {
		o.Load = env.LoadAvg
	}
	if o.Pressure == nil {
		o.Pressure = cpuPressure
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	log, exe, extra := o.Log, o.Exe, o.ExtraEnv
	if o.Run == nil {
		o.Run = func(ctx context.Context, args []string) error { return runChild(ctx, exe, args, extra, log, lock) }
	}
	if o.Shell == nil {
		o.Shell = func(ctx context.Context, c string, envv []string) error {
			sh := exec.CommandContext(ctx, "/bin/sh", "-c", c)
			sh.Stdout, sh.Stderr, sh.Env = log, log, envv
			return sh.Run()
		}
	}
	if o.Reboot == nil {
		o.Reboot = func(c string, envv []string) (<-chan error, error) { return startReboot(c, envv, log) }
	}
}

// sleep waits d, or until ctx ends (its error).
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ErrStopped wraps the errors after which a campaign stops (disarmed):
// a wrong kernel, a failed run, a failed reboot.
var ErrStopped = errors.New("campaign stopped")

// ResultName returns the result file of boot slot of side label,
// relative to the campaign directory: boots/NN-S.jsonl (JSON lines, as
// every result file is named by default).
func ResultName(slot int, label byte) string {
	return filepath.Join(BootsDir, fmt.Sprintf("%02d-%c.jsonl", slot+1, label))
}

// oldResultName is the name ResultName gave before result files were
// named .jsonl (boots/NN-S.json): a campaign begun by that version has
// them, in its ledger and on disk, and goes on with the new names.
func oldResultName(slot int, label byte) string {
	return strings.TrimSuffix(ResultName(slot, label), ".jsonl") + ".json"
}

// resultOnDisk returns the name of the result file of boot slot of side
// label that exists in dir, ResultName's or the old one, and false when
// neither does.
func resultOnDisk(dir string, slot int, label byte) (string, bool) {
	for _, name := range []string{ResultName(slot, label), oldResultName(slot, label)} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return name, true
		}
	}
	return ResultName(slot, label), false
}

// asideName is the name a result file is set aside under: NN-S.WHY-K.EXT,
// with result's extension.
func asideName(result, why string, k int) string {
	ext := filepath.Ext(result)
	return strings.TrimSuffix(result, ext) + "." + why + "-" + strconv.Itoa(k) + ext
}

// Step does what is due after a boot of campaign dir: check the kernel,
// settle, run the plan's command, record it, and, when the campaign was
// armed, arrange the next boot and reboot. See the package comment for
// the safety rules and docs in 'contend campaign --help' for the rule on
// interrupted steps (redone).
func Step(ctx context.Context, dir string, o StepOptions) error {
	p, err := ReadPlan(dir)
	if err != nil {
		return err
	}
	if p.VM != nil {
		return fmt.Errorf("campaign %s boots virtual machines: 'contend campaign run %s' runs its boots, not a step", dir, dir)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer lock.unlock()
	o.machine(lock)
	armed := IsArmed(dir)
	if o.AtBoot && !armed {
		fmt.Fprintf(o.Log, "campaign %s is not armed: nothing to do\n", dir)
		return nil
	}
	led, err := ReadLedger(dir)
	if err != nil {
		return err
	}
	k := o.Kernel()
	// The result files on disk are facts a lost ledger line must not
	// contradict (reconcile.go).
	led, slot, err := reconcile(dir, p, led, k.BootID, o.Log)
	if err != nil {
		return err
	}
	if slot == len(p.Order) {
		fmt.Fprintf(o.Log, "campaign %s is complete (%d boots): 'contend campaign report %s'\n", dir, len(p.Order), dir)
		return nil
	}
	if e, ran := ranIn(led, k.BootID); ran {
		// Nothing to do, and so the arming is left alone: this boot's
		// reboot may be pending, and the next boot's step must find
		// the campaign armed.
		if armed {
			fmt.Fprintf(o.Log, "this boot (%s) already ran boot %d of the campaign: nothing to do. The campaign stays armed: the step of the next boot runs boot %d (side %c); if the reboot the step started does not come, reboot into side %c yourself\n",
				short(k.BootID), e.Slot+1, slot+1, p.Order[slot], p.Order[slot])
		} else {
			fmt.Fprintf(o.Log, "this boot (%s) already ran boot %d of the campaign: nothing to do. Reboot into side %c for boot %d and run the step there (the campaign is not armed; 'contend campaign arm %s' first to let that step reboot)\n",
				short(k.BootID), e.Slot+1, p.Order[slot], slot+1, dir)
		}
		return nil
	}
	// Consume the arming before anything is done: whatever goes wrong
	// from here on (including a kill or a power cut), the campaign stays
	// disarmed until this step finishes and arranges the next boot.
	if armed {
		if err := disarm(dir); err != nil {
			return err
		}
	}
	s := &step{dir: dir, o: o, p: p, k: k, slot: slot, label: p.Order[slot]}
	if err := s.measure(ctx, led); err != nil {
		return err
	}
	return s.next(ctx, armed)
}

// ranIn returns the done event of a boot of the plan that ran in boot
// bootID (unknown: none).
func ranIn(led *Ledger, bootID string) (Event, bool) {
	for _, e := range led.Done() {
		if bootID != "" && e.BootID == bootID {
			return e, true
		}
	}
	return Event{}, false
}

// step is one step that measures boot slot (side label) of plan p in
// boot k of the machine.
type step struct {
	dir   string
	o     StepOptions
	p     *Plan
	k     env.Kernel
	slot  int
	label byte
}

// append writes e to the ledger, at the step's clock's time when e has
// none.
func (s *step) append(e Event) error {
	if e.Time.IsZero() {
		e.Time = s.o.Now().UTC()
	}
	return Append(s.dir, e)
}

// stopAt records a stop of boot at (side l) and returns it as the step's
// error (ErrStopped).
func (s *step) stopAt(at int, l byte, ev Event, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	ev.Slot, ev.Side, ev.BootID, ev.Message = at, string(l), s.k.BootID, msg
	if err := s.append(ev); err != nil {
		return fmt.Errorf("%w: %s (and the ledger: %v)", ErrStopped, msg, err)
	}
	return fmt.Errorf("%w: %s", ErrStopped, msg)
}

// stop records a stop of this step's boot.
func (s *step) stop(ev Event, format string, a ...any) error {
	return s.stopAt(s.slot, s.label, ev, format, a...)
}

// measure checks the kernel, redoes an interrupted boot, settles, runs
// the plan's command and records the boot done.
func (s *step) measure(ctx context.Context, led *Ledger) error {
	p, slot, label, dir, k, log := s.p, s.slot, s.label, s.dir, s.k, s.o.Log
	side := p.Side(label)
	if why := side.Expect.Mismatch(k); why != "" {
		return s.stop(Event{Event: EvMismatch, Kernel: &k},
			"boot %d of %d expects side %c (%s), but this kernel has %s; disarmed, no reboot: boot side %c and run 'contend campaign step %s'",
			slot+1, len(p.Order), label, side.Expect, why, label, dir)
	}
	begin := s.o.Now().UTC()
	if err := s.redo(led); err != nil {
		return err
	}
	result := ResultName(slot, label)
	fmt.Fprintf(log, "boot %d of %d: side %c, kernel %s, boot %s\n", slot+1, len(p.Order), label, k.Release, short(k.BootID))
	st, err := s.settle(ctx)
	if err != nil {
		return s.stop(Event{Event: EvFailed}, "boot %d: stopped by %s while settling; disarmed, no reboot: run 'contend campaign step %s' to do this boot",
			slot+1, interruption(ctx), dir)
	}
	if err := s.append(Event{Event: EvStart, Slot: slot, Side: string(label), BootID: k.BootID, Kernel: &k, Begin: begin, Settle: &st, Result: result}); err != nil {
		return err
	}
	args := RunArgs(p, slot, label, filepath.Join(dir, result))
	fmt.Fprintf(log, "running: contend %s\n", strings.Join(args, " "))
	if err := s.o.Run(ctx, args); err != nil {
		if sig := interruption(ctx); sig != "" {
			return s.stop(Event{Event: EvFailed, Result: result}, "boot %d: stopped by %s while running 'contend %s' (the run ended: %v); disarmed, no reboot: run 'contend campaign step %s' to redo this boot",
				slot+1, sig, strings.Join(args, " "), err, dir)
		}
		return s.stop(Event{Event: EvFailed, Result: result}, "boot %d: 'contend %s' failed (%v); disarmed, no reboot: see %s, then run 'contend campaign step %s' to redo this boot",
			slot+1, strings.Join(args, " "), err, filepath.Join(dir, result), dir)
	}
	f, err := results.Read(filepath.Join(dir, result))
	if err != nil {
		return s.stop(Event{Event: EvFailed, Result: result}, "boot %d: %v; disarmed, no reboot", slot+1, err)
	}
	ok := f.Counts(-1)[results.StatusOK]
	if ok == 0 {
		return s.stop(Event{Event: EvFailed, Result: result}, "boot %d: no successful repetition in %s; disarmed, no reboot", slot+1, result)
	}
	return s.append(Event{Event: EvDone, Slot: slot, Side: string(label), BootID: k.BootID, Result: result, OK: ok})
}

// redo records the redo of a boot whose step was interrupted (killed, a
// power cut: a start without its done) and keeps its partial result
// file aside, not analysed (under its own name's extension: a step of an
// older contend wrote NN-S.json); the redo event names it only when it
// exists.
func (s *step) redo(led *Ledger) error {
	id, open := led.Started(s.slot)
	if !open {
		return nil
	}
	result, _ := resultOnDisk(s.dir, s.slot, s.label)
	aside := asideName(result, "interrupted", len(led.Events))
	msg := fmt.Sprintf("the step of boot %d started in boot %s did not finish: redone", s.slot+1, short(id))
	err := os.Rename(filepath.Join(s.dir, result), filepath.Join(s.dir, aside))
	switch {
	case err == nil:
		msg += "; its partial result file is kept aside as " + aside
	case errors.Is(err, os.ErrNotExist):
		aside = ""
		msg += "; it left no result file"
	default:
		return s.stop(Event{Event: EvFailed}, "cannot set aside the interrupted result file: %v", err)
	}
	fmt.Fprintln(s.o.Log, msg)
	return s.append(Event{Event: EvRedo, Slot: s.slot, Side: string(s.label), BootID: s.k.BootID, Result: aside, Message: msg})
}

// next does what follows a boot done: the campaign complete, no reboot
// when it was not armed, else arranging the next boot and rebooting into
// it.
func (s *step) next(ctx context.Context, armed bool) error {
	p, dir, log := s.p, s.dir, s.o.Log
	next := s.slot + 1
	if next == len(p.Order) {
		fmt.Fprintf(log, "campaign complete: 'contend campaign report %s'\n", dir)
		return s.append(Event{Event: EvComplete, Slot: s.slot})
	}
	nl := p.Order[next]
	if !armed {
		fmt.Fprintf(log, "boot %d done. Not armed, so no reboot: boot side %c (%s) for boot %d and run the step again, or 'contend campaign arm %s' to let it reboot\n",
			s.slot+1, nl, p.Side(nl).Expect, next+1, dir)
		return nil
	}
	// From here on the events are those of the next boot: arranging it,
	// rebooting into it, a failure to.
	stopNext := func(format string, a ...any) error {
		return s.stopAt(next, nl, Event{Event: EvFailed}, format, a...)
	}
	cmds := BootCommands(p.Side(nl).Boot)
	envv := append(os.Environ(), s.o.ExtraEnv...)
	envv = append(envv, "CONTEND_CAMPAIGN_DIR="+dir, "CONTEND_CAMPAIGN_SLOT="+strconv.Itoa(next+1), "CONTEND_CAMPAIGN_SIDE="+string(nl))
	for _, c := range cmds[:len(cmds)-1] {
		fmt.Fprintf(log, "running: %s\n", c)
		if err := s.o.Shell(ctx, c, envv); err != nil {
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
	return s.rebootInto(ctx, cmds[len(cmds)-1], envv, next, nl, stopNext)
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
func (s *step) rebootInto(ctx context.Context, c string, envv []string, next int, nl byte, stopNext func(string, ...any) error) error {
	dir, log, bootID := s.dir, s.o.Log, s.k.BootID
	if err := arm(dir, bootID, s.o.Now().UTC()); err != nil {
		disarm(dir)
		return stopNext("arranging boot %d (side %c): cannot arm for it: %v; disarmed, no reboot", next+1, nl, err)
	}
	if err := s.append(Event{Event: EvReboot, Slot: next, Side: string(nl), BootID: bootID, Message: c}); err != nil {
		disarm(dir)
		return err
	}
	if sig := interruption(ctx); sig != "" {
		disarm(dir)
		return stopNext("arranging boot %d (side %c): stopped by %s before the reboot command %q started; disarmed, no reboot: boot side %c yourself and run 'contend campaign step %s'",
			next+1, nl, sig, c, nl, dir)
	}
	fmt.Fprintf(log, "running: %s\n", c)
	ended, err := s.o.Reboot(c, envv)
	if err != nil {
		disarm(dir)
		return stopNext("the reboot into boot %d (side %c): %q did not start (%v); disarmed: boot side %c yourself and run 'contend campaign step %s'",
			next+1, nl, c, err, nl, dir)
	}
	underWay := func(why string) error {
		msg := fmt.Sprintf("the reboot into boot %d (side %c) is under way: %s; the campaign stays armed for the step of boot %d (if the machine does not reboot: 'contend campaign disarm %s', or reboot into side %c yourself)",
			next+1, nl, why, next+1, dir, nl)
		// The ledger first: the terminal may be gone.
		err := s.append(Event{Event: EvRebooting, Slot: next, Side: string(nl), BootID: bootID, Message: msg})
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

// startReboot starts the reboot command c in a session of its own, its
// output to log, and returns the channel its end is sent on.
func startReboot(c string, envv []string, log io.Writer) (<-chan error, error) {
	sh := exec.Command("/bin/sh", "-c", c)
	sh.Stdout, sh.Stderr, sh.Env = log, log, envv
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sh.Start(); err != nil {
		return nil, err
	}
	ended := make(chan error, 1)
	go func() { ended <- sh.Wait() }()
	return ended, nil
}

// runChild runs the contend command of a boot in a process group of its
// own, with PR_SET_PDEATHSIG = SIGTERM: a killed step takes its run (which
// cleans up on SIGTERM) with it. On the step's other exit paths (a
// signal, the run's end) the group is killed. The run inherits the lock,
// which stays held until it is gone.
func runChild(ctx context.Context, exe string, args, extraEnv []string, log io.Writer, lock *stepLock) error {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), extraEnv...)
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
		return []string{"grub-reboot " + esc.ShellQuote(b.GrubEntry), reboot}
	case b.Kexec != nil:
		if reboot == "" {
			reboot = "systemctl kexec"
		}
		load := "kexec -l " + esc.ShellQuote(b.Kexec.Kernel)
		if b.Kexec.Initrd != "" {
			load += " --initrd=" + esc.ShellQuote(b.Kexec.Initrd)
		}
		if b.Kexec.Cmdline != "" {
			load += " --command-line=" + esc.ShellQuote(b.Kexec.Cmdline)
		} else {
			load += " --reuse-cmdline"
		}
		return []string{load, reboot}
	}
	return []string{b.Command}
}

func short(id string) string {
	if id == "" {
		return "(unknown)"
	}
	return textfmt.Cut(id, 8)
}
