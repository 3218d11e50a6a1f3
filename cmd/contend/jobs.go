package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"contend/internal/lock"
	"contend/internal/run"
)

// One benchmark at a time: every command that runs repetitions (run, ab,
// ab exec, sweep, exec, verify) is a run.Job handed to doJob, which holds
// the machine-wide lock (internal/lock) for the job's whole life.

func lockFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-wait", Usage: "when another benchmark holds the machine-wide lock, refuse (exit status 3) instead of waiting"},
		&cli.BoolFlag{Name: "no-lock", Usage: "run without the machine-wide lock, beside whatever else runs (for those who know)"},
	}
}

// exitBusy is the exit status of --no-wait when the lock is held.
const exitBusy = 3

// doJob runs job with what the repetition flags (opt) say of every job:
// the result file, the lock (unless --no-lock or CONTEND_LOCK=off), the
// evidence collectors (unless the job has its own), the environment; ui
// says what the terminal shows beside the quiet and verbose flags.
func doJob(c *cli.Context, opt repOptions, job run.Job, ui run.TerminalOptions) error {
	job.Out, job.Mode, job.Env = opt.out, opt.mode, captureEnv
	if path := lock.Path(); !opt.noLock && path != "" {
		job.Lock = run.Lock{Path: path, NoWait: opt.noWait, Argv: os.Args}
	}
	if job.ConfigEvidence == nil {
		job.Evidence = opt.evidence
	}
	ui.Quiet, ui.Verbose = opt.quiet, opt.verbose && !ui.Quiet
	_, err := run.Do(c.Context, job, run.NewTerminal(c.App.ErrWriter, ui))
	return jobError(err)
}

// jobError makes the errors of run.Do that start nothing the command's:
// a busy lock (exit 3), an interrupted wait for it, an --out refused.
func jobError(err error) error {
	var le *run.LockError
	var be *lock.BusyError
	var oe *run.OutError
	switch {
	case errors.As(err, &be):
		return cli.Exit(be.Error(), exitBusy)
	case errors.As(err, &le) && errors.Is(err, context.Canceled):
		return cli.Exit("interrupted while waiting for the benchmark lock; nothing ran", exitInterrupted)
	case errors.As(err, &oe):
		return usagef("--out: %v", oe.Err)
	case errors.Is(err, run.ErrNoSuccess):
		return cli.Exit(err.Error(), exitFailure)
	}
	return err
}

// summaryReport is the report of run and exec (run.Summary).
func summaryReport(c *cli.Context, opt repOptions) func(run.Outcome) error {
	return run.Summary(c.App.Writer, c.App.ErrWriter, opt.format, opt.detail, opt.quiet)
}

// endRun ends a command that ran repetitions (run.End).
func endRun(stderr io.Writer, o run.Outcome, quiet bool) error { return run.End(stderr, o, quiet) }
