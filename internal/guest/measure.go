package guest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"contend/internal/lock"
	"contend/internal/results"
	"contend/internal/safefile"
	"contend/internal/vm"
)

// BootFunc boots one guest and runs its command (a vm.Runner's Boot; a
// fake in tests).
type BootFunc = func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error)

// Locked returns boot holding the machine-wide benchmark lock
// (internal/lock at lock.Path(): $CONTEND_LOCK, "off" for none) while
// each guest runs, as run.Do holds it for a host run: a guest and a host
// benchmark, or two guests (two --vm campaigns, a campaign and a bisect
// --vm), never run at once. A held lock is waited for (notice is told
// who holds it, once per holder) until ctx ends (ctx's error); a lock
// that cannot be opened is an error naming it. Both 'campaign run' and
// bisect --vm boot through it.
func Locked(boot BootFunc, notice func(string)) BootFunc {
	if notice == nil {
		notice = func(string) {}
	}
	var once sync.Once
	return func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
		path := lock.Path()
		if path == "" {
			return boot(ctx, g, c)
		}
		once.Do(func() {
			if note := lock.Note(path); note != "" {
				notice(note)
			}
		})
		l, err := lock.Acquire(ctx, path, os.Args, lock.Options{Waiting: func(h lock.Holder) {
			notice(fmt.Sprintf("waiting: another benchmark holds %s: %s (CONTEND_LOCK=off to boot beside it)", path, h))
		}})
		if err != nil {
			return nil, err
		}
		defer l.Release()
		return boot(ctx, g, c)
	}
}

// Run is one guest to measure: Machine and Kernel make it, Dir receives
// its console, port and QEMU logs, Command runs in it (its Out the
// result file's path in the guest, its Facts the kernel's Build), and
// File is the host path its result file is written to.
type Run struct {
	Machine Machine
	Kernel  Kernel
	Dir     string
	Command vm.Command
	File    string
}

// Measurement is what one measured guest gave: the boot (Result: the
// accelerator, the guest's report, its times), its result file read back
// from Run.File (File) and its successful repetitions, warm-ups aside
// (OK, at least 1).
type Measurement struct {
	*vm.Result
	File *results.File
	OK   int
}

// Kind says why a guest gave no measurement (Failure.Kind).
type Kind string

// The kinds of Failure, in the order Measure finds them.
const (
	// Faulted: the guest did not run the command to its end: a vm.Fault
	// other than QEMU's own (a panic, a hang, no console, no report, a
	// guest that died, a damaged transfer); Err is the *vm.Fault.
	Faulted Kind = "fault"
	// Refused: the command refused its arguments in the guest (exit 2,
	// a usage error): every guest would refuse them.
	Refused Kind = "refused"
	// Failed: the command ended with another status than 0 or 2.
	Failed Kind = "failed"
	// NoResult: the command ended well but no result file came back.
	NoResult Kind = "noresult"
	// BadResult: the result file that came back cannot be read; Err
	// says why.
	BadResult Kind = "badresult"
	// NoRuns: the result file holds no successful repetition; File is
	// the file.
	NoRuns Kind = "noruns"
)

// Failure is a guest that gave no measurement: Kind says why, Why in the
// guest's or the fault's words, Exit is the command's exit status (-1
// when it did not end), Report the guest's own account of its kernel
// (nil when it sent none: Faulted), File the result file (NoRuns), Err
// the error beneath (Faulted, BadResult).
type Failure struct {
	Kind   Kind
	Why    string
	Exit   int
	Report *vm.Report
	File   *results.File
	Err    error
}

func (f *Failure) Error() string {
	switch f.Kind {
	case Faulted:
		return f.Why
	case Refused:
		return fmt.Sprintf("the command was refused in the guest (exit %d: %s)", f.Exit, f.Why)
	case Failed:
		return fmt.Sprintf("the command failed in the guest (exit %d: %s)", f.Exit, f.Why)
	case NoResult:
		return fmt.Sprintf("the guest sent no result file (%s)", f.Why)
	case BadResult:
		return "the guest's result file: " + f.Why
	}
	return "no successful repetition in the guest's result file"
}

func (f *Failure) Unwrap() error { return f.Err }

// Measure boots r's guest through boot (Locked, for the benchmark lock)
// and keeps its measurement (Keep). A guest that gave none is a
// *Failure; QEMU's own failure, a lock that cannot be taken, a result
// file that cannot be written are errors as they are; a ctx that ended
// during the boot is ctx's error.
func Measure(ctx context.Context, boot BootFunc, r Run) (*Measurement, error) {
	res, err := Boot(ctx, boot, r)
	if err != nil {
		return nil, err
	}
	return Keep(res, r)
}

// Boot boots r's guest through boot, its command's Facts the kernel's
// Build, and returns what it brought back. A fault of the guest (a
// vm.Fault other than FaultQEMU) is a *Failure of kind Faulted; when ctx
// ended, ctx's error.
func Boot(ctx context.Context, boot BootFunc, r Run) (*vm.Result, error) {
	m, k := r.Machine, r.Kernel
	g := vm.Guest{Kernel: k.Kernel, Initrd: k.Initrd, Append: k.Cmdline, CPUs: m.CPUs, MemMiB: m.MemMiB, Timeout: m.Timeout, Dir: r.Dir}
	c := r.Command
	c.Facts = k.Build
	res, err := boot(ctx, g, c)
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var f *vm.Fault
	if errors.As(err, &f) && f.Kind != vm.FaultQEMU {
		return nil, &Failure{Kind: Faulted, Why: f.Msg, Exit: -1, Err: f}
	}
	return nil, err
}

// Keep keeps what a guest that booted and reported brought back: the
// command's exit status (2: Refused; another: Failed), its result file
// (none: NoResult) written to r.File, read back (BadResult), its
// successful repetitions counted (none: NoRuns).
func Keep(res *vm.Result, r Run) (*Measurement, error) {
	rep := &res.Report
	fail := func(k Kind, why string, err error) error {
		return &Failure{Kind: k, Why: why, Exit: rep.Exit, Report: rep, Err: err}
	}
	switch {
	case rep.Exit == 2:
		return nil, fail(Refused, rep.Error, nil)
	case rep.Exit != 0:
		return nil, fail(Failed, rep.Error, nil)
	case len(res.Output) == 0:
		return nil, fail(NoResult, rep.Error, nil)
	}
	if err := safefile.WriteFile(r.File, res.Output, 0o644); err != nil {
		return nil, err
	}
	f, err := results.Read(r.File)
	if err != nil {
		return nil, fail(BadResult, err.Error(), err)
	}
	ok := f.Counts(-1)[results.StatusOK]
	if ok == 0 {
		return nil, &Failure{Kind: NoRuns, Exit: rep.Exit, Report: rep, File: f}
	}
	return &Measurement{Result: res, File: f, OK: ok}, nil
}
