// Package run owns the life of a command that runs repetitions (run, ab,
// ab exec, sweep, exec, verify): a command describes what to run as a Job
// and hands it to Do, which takes the machine-wide lock, opens the
// evidence collectors, captures the environment and its warnings, writes
// the result file's header, runs the planned repetitions, finishes the
// file with its end record, lets the job report, and gives back
// everything it took, in reverse order, on every path.
package run

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"time"

	"contend/internal/env"
	"contend/internal/evidence"
	"contend/internal/harness"
	"contend/internal/ipcown"
	"contend/internal/lock"
	"contend/internal/plural"
	"contend/internal/results"
)

// Slot is a planned repetition as a Runner gets it: the slot of the plan,
// the evidence collectors of its configuration (nil: none), and what the
// hooks' Before steps printed (prepare commands).
type Slot struct {
	harness.Slot
	Evidence *evidence.Set
	Prepared string
}

// A Runner runs the repetition of one slot. It never fails: a failed,
// timed-out or interrupted repetition is a Rep with that status.
type Runner func(ctx context.Context, s Slot) harness.Outcome

// A Hook is something a job sets up for its repetitions and gives back at
// the end: the tracefs switch, prepare commands, a cleanup command. Every
// field may be nil.
type Hook struct {
	// Open runs after the lock is taken and the collectors are open,
	// before the result file is created; it may add warnings and
	// configuration settings to the file's header. A hook whose Open
	// failed is not closed.
	Open func(f *results.File) error
	// Before runs before each repetition; its output goes to
	// Slot.Prepared, an error stops the run.
	Before func(ctx context.Context, s harness.Slot) (string, error)
	// Close runs once at the end, however the run ended (after the
	// report, before the collectors close and the lock is released).
	Close func(ui UI) error
}

// Lock says how a job takes the machine-wide lock (internal/lock).
type Lock struct {
	Path   string // "": no lock
	NoWait bool   // refuse when it is held
	Argv   []string
}

// Job is one command that runs repetitions.
type Job struct {
	// File is the result file's header: configurations, metrics, the
	// command's own warnings. Do adds the environment, its warnings,
	// the evidence collectors and the start time.
	File *results.File
	// Name is the base of the default result file's name
	// (results/NAME-DATE-TIME.jsonl); Out, when set, is the file and
	// Mode says what to do when it exists.
	Name string
	Out  string
	Mode results.Mode
	Lock Lock
	// Env captures the environment (nil: none is recorded); Threads
	// (the largest thread or task count, 0: none) and Oversubscribe
	// (the workload cares about more threads than CPUs) are what
	// env.Diagnose needs to warn about it.
	Env           func() env.Fingerprint
	Threads       int64
	Oversubscribe bool
	// SideThreads, when set, is the thread count of each configuration
	// of an A/B run, in place of Threads: the oversubscription warning
	// names the side it concerns ("side B: 8 threads on 2 online CPUs").
	SideThreads []int64
	// Evidence is the collectors opened for the run; ConfigEvidence,
	// when set, the collectors of each configuration (views of the set,
	// which is then their union).
	Evidence       []string
	ConfigEvidence [][]string
	// Plan returns the next slot, given the file so far, or false when
	// the run is done.
	Plan   func(f *results.File) (harness.Slot, bool)
	Runner Runner
	Hooks  []Hook
	// Derive, when set, may add derived metrics to a repetition before
	// it is recorded (a sweep's throughput).
	Derive func(rep *results.Rep)
	// After is told about each recorded repetition, after the UI (the
	// original program's output of --format original).
	After func(rep results.Rep)
	// Report, when set, is called once the file is finished, with the
	// hooks still open; its error is Do's.
	Report func(o Outcome) error
}

// Outcome is a finished run: its result file (finished), the error
// that ended the repetitions (nil, harness.ErrInterrupted, a write or a
// hook's error), and the folded-stack files written beside the result
// file (the profile collector's, one per configuration that has one:
// FoldedPath).
type Outcome struct {
	Out    *results.Writer
	Err    error
	Folded []string
}

// UI is what a run tells its user. Notice lines are for the user (quiet
// runs drop them), Problem lines are said always; Rep is called after
// each recorded repetition and Done when the repetitions are over.
type UI interface {
	Notice(line string)
	Problem(line string)
	Rep(rep results.Rep)
	Done()
}

// LockError is a failure to take the machine-wide lock: a
// *lock.BusyError with NoWait, or context.Canceled while waiting.
type LockError struct{ Err error }

func (e *LockError) Error() string { return e.Err.Error() }
func (e *LockError) Unwrap() error { return e.Err }

// OutError is a result file that cannot be created (it exists, another
// contend writes it, or the path cannot be written).
type OutError struct{ Err error }

func (e *OutError) Error() string { return e.Err.Error() }
func (e *OutError) Unwrap() error { return e.Err }

// Stale returns a warning about semaphore sets left by killed runs, or
// "" (tests replace it).
var Stale = staleWarning

// openEvidence opens the collectors for a run of the size given (tests
// replace it).
var openEvidence = evidence.OpenFor

// evidenceRun is the size of job's run the collectors are opened for:
// its largest thread or task count (of either side), 0 when unknown.
func evidenceRun(job Job) evidence.Run {
	r := evidence.Run{Tasks: job.Threads}
	for _, n := range job.SideThreads {
		r.Tasks = max(r.Tasks, n)
	}
	return r
}

// Do runs job. It returns the outcome and the error of the report (or,
// without a report, of the run), or the error that kept the run from
// starting (a *LockError, an *OutError, a hook's Open error). Whatever
// it took is given back on every path, a panic of a hook included (the
// panic goes on after).
func Do(ctx context.Context, job Job, ui UI) (Outcome, error) {
	var taken stack
	defer taken.unwind()
	wr, views, err := start(ctx, job, ui, &taken)
	if err != nil {
		return Outcome{}, err
	}
	finished := false
	taken.push(func() {
		if !finished { // a panic: the file still gets its end record
			wr.Finish(time.Now(), false)
		}
	})
	for _, x := range wr.File.Warnings {
		ui.Notice("warning: " + x)
	}
	// ctx (from the command's) is cancelled by SIGINT and SIGTERM.
	stacks := foldedStacks{}
	runErr := session(ctx, job, wr, views, ui, stacks)
	ui.Done()
	finished = true
	if ferr := wr.Finish(time.Now(), runErr == nil); ferr != nil && runErr == nil {
		runErr = ferr
	}
	o := Outcome{Out: wr, Err: runErr}
	folded, ferr := stacks.write(wr.Path(), wr.File, job.Mode)
	o.Folded = folded
	if ferr != nil {
		ui.Problem(fmt.Sprintf("contend: folded stacks: %v", ferr))
	}
	if job.Report != nil {
		return o, job.Report(o)
	}
	return o, runErr
}

// stack is what Do took, to be given back in reverse order.
type stack []func()

func (s *stack) push(f func()) { *s = append(*s, f) }

// unwind gives back what was taken, last first (a pointer receiver: a
// deferred call sees what was pushed after the defer).
func (s *stack) unwind() {
	for i := len(*s) - 1; i >= 0; i-- {
		(*s)[i]()
	}
}

// start takes what the run needs, in order (the lock, the environment,
// the collectors, the hooks, the result file), and pushes on taken how
// to give each back. It returns the file and each configuration's
// collectors.
func start(ctx context.Context, job Job, ui UI, taken *stack) (*results.Writer, []*evidence.Set, error) {
	f := job.File
	if job.Lock.Path != "" {
		l, err := takeLock(ctx, job.Lock, ui)
		if err != nil {
			return nil, nil, err
		}
		taken.push(l.Release)
	}
	// The run starts when it holds the lock: the result file's start
	// time says so (and shows that runs never overlapped), and the
	// environment is the one the run has.
	f.Start = time.Now()
	if job.Env != nil {
		f.Env = job.Env()
		threads := job.Threads
		if job.SideThreads != nil {
			threads = 0
		}
		f.Warnings = append(f.Warnings, env.Diagnose(f.Env, threads, job.Oversubscribe)...)
		for i, n := range job.SideThreads {
			if x := env.Oversubscribed(f.Env, n); job.Oversubscribe && x != "" && i < len(f.Configs) {
				f.Warnings = append(f.Warnings, "side "+strings.ToUpper(f.Configs[i].Name)+": "+x)
			}
		}
	}
	if x := Stale(); x != "" {
		f.Warnings = append(f.Warnings, x)
	}
	set := openEvidence(job.Evidence, evidenceRun(job))
	taken.push(func() {
		if err := set.Close(); err != nil {
			ui.Problem(fmt.Sprintf("contend: %v", err))
		}
	})
	views := addEvidence(f, set, job, ui)
	for _, h := range job.Hooks {
		if h.Open != nil {
			if err := h.Open(f); err != nil {
				return nil, nil, err
			}
		}
		if h.Close != nil {
			taken.push(func() {
				if err := h.Close(ui); err != nil {
					ui.Problem(fmt.Sprintf("contend: %v", err))
				}
			})
		}
	}
	wr, err := Open(job.Out, job.Name, f, job.Mode, nil)
	return wr, views, err
}

func takeLock(ctx context.Context, opt Lock, ui UI) (*lock.Lock, error) {
	if note := lock.Note(opt.Path); note != "" {
		ui.Notice(note)
	}
	l, err := lock.Acquire(ctx, opt.Path, opt.Argv, lock.Options{
		NoWait: opt.NoWait,
		Waiting: func(h lock.Holder) {
			ui.Notice(fmt.Sprintf("waiting: another benchmark holds %s: %s (--no-wait to refuse, --no-lock to run beside it)", opt.Path, h))
		},
	})
	if err != nil {
		return nil, &LockError{err}
	}
	return l, nil
}

// addEvidence adds the metrics and the availability of set to f (before
// the file is created), says at once when an opt-in collector asked for
// cannot work, and returns the collectors of each configuration.
func addEvidence(f *results.File, set *evidence.Set, job Job, ui UI) []*evidence.Set {
	for _, m := range set.Metrics() {
		if _, dup := f.Metric(m.Name); !dup {
			f.Metrics = append(f.Metrics, m)
		}
	}
	f.Evidence = set.Header()
	for _, n := range job.Evidence {
		// The opt-in collectors were asked for: say at once when they
		// cannot work (the others are in the file's header).
		if v := set.Avail[n]; (n == "lock" || n == "locktrace" || n == "offcpu") && strings.HasPrefix(v, "not available") {
			ui.Notice(fmt.Sprintf("warning: --evidence %s: %s", n, v))
		}
	}
	// What lock or locktrace restored of a killed run's tracefs
	// settings, and why lock is not BPF (also in the file's header).
	for _, n := range []string{"lock", "locktrace"} {
		if note, ok := strings.CutPrefix(set.Avail[n], "available; "); ok && !strings.HasPrefix(note, "BPF:") {
			ui.Notice("warning: --evidence " + n + ": " + note)
		}
	}
	views := make([]*evidence.Set, max(len(f.Configs), len(job.ConfigEvidence)))
	for i := range views {
		views[i] = set
		if i < len(job.ConfigEvidence) {
			views[i] = set.View(job.ConfigEvidence[i])
		}
	}
	return views
}

// session runs the planned repetitions and records each as soon as it
// ends, adding the profile's folded stacks of each to stacks. It returns
// harness.ErrInterrupted after ctx was cancelled, an error when a result
// could not be written or a Before step failed, and nil otherwise.
func session(ctx context.Context, job Job, wr *results.Writer, views []*evidence.Set, ui UI, stacks foldedStacks) error {
	harness.BecomeSubreaper()
	f := wr.File
	for {
		if ctx.Err() != nil {
			return harness.ErrInterrupted
		}
		slot, ok := job.Plan(f)
		if !ok {
			return nil
		}
		s := Slot{Slot: slot}
		if slot.Config < len(views) {
			s.Evidence = views[slot.Config]
		}
		for _, h := range job.Hooks {
			if h.Before == nil {
				continue
			}
			out, err := h.Before(ctx, slot)
			if ctx.Err() != nil {
				return harness.ErrInterrupted
			}
			if err != nil {
				return err
			}
			s.Prepared += out
		}
		o := job.Runner(ctx, s)
		o.Rep.Index = len(f.Reps)
		o.Rep.Config = slot.Config
		o.Rep.Warmup = slot.Warmup
		o.Rep.Round = slot.Round
		if job.Derive != nil {
			job.Derive(&o.Rep)
		}
		stacks.take(s.Evidence, slot.Config, o.Rep)
		if err := wr.Add(o.Rep); err != nil {
			return err
		}
		ui.Rep(o.Rep)
		if job.After != nil {
			job.After(o.Rep)
		}
		if o.Rep.Status == results.StatusInterrupted {
			return harness.ErrInterrupted
		}
	}
}

// Open creates the result file out, or results/NAME-DATE-TIME.jsonl when
// out is empty, and locks it; its repetitions after f.Reps are yielded by
// reps (results.OpenFrom; nil: none). An existing out is refused unless
// mode says to append to it or replace it; a file another contend is
// writing is always refused. Its errors are *OutError.
func Open(out, name string, f *results.File, mode results.Mode, reps iter.Seq[*results.Rep]) (*results.Writer, error) {
	if out == "" {
		// Two runs started in the same second get -2, -3, ...
		base := filepath.Join("results", fmt.Sprintf("%s-%s", strings.ReplaceAll(name, ":", "-"), time.Now().Format("20060102-150405")))
		for i := 1; ; i++ {
			out = base + ".jsonl" // JSON lines, as the file holds
			if i > 1 {
				out = fmt.Sprintf("%s-%d.jsonl", base, i)
			}
			wr, err := results.OpenFrom(out, f, results.ModeNew, reps)
			if errors.Is(err, results.ErrExists) || errors.Is(err, results.ErrLocked) {
				continue
			}
			if err != nil {
				return nil, &OutError{err}
			}
			return wr, nil
		}
	}
	wr, err := results.OpenFrom(out, f, mode, reps)
	if err != nil {
		return nil, &OutError{err}
	}
	return wr, nil
}

// staleWarning returns a warning about sets left by killed runs, or "".
func staleWarning() string {
	stale, err := ipcown.StaleEntries()
	n := 0
	for _, s := range stale {
		if s.Set.ID >= 0 {
			n++
		}
	}
	if err != nil || n == 0 {
		return ""
	}
	return plural.N(n, "SysV semaphore set was", "SysV semaphore sets were") + " left by contend runs that were killed with SIGKILL; 'contend cleanup' removes them"
}
