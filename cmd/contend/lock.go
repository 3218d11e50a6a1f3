package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/lock"
	"contend/internal/results"
)

// One benchmark at a time: every command that runs repetitions (run, ab,
// ab exec, sweep, exec, verify) goes through startReps just before it
// creates its result file, and holds the machine-wide lock
// (internal/lock) until it returns.

func lockFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-wait", Usage: "when another benchmark holds the machine-wide lock, refuse (exit status 3) instead of waiting"},
		&cli.BoolFlag{Name: "no-lock", Usage: "run without the machine-wide lock, beside whatever else runs (for those who know)"},
	}
}

// exitBusy is the exit status of --no-wait when the lock is held.
const exitBusy = 3

// startReps takes the machine-wide lock (unless --no-lock or
// CONTEND_LOCK=off), then opens the evidence collectors (withEvidence).
// The returned function closes both, to be deferred.
func startReps(c *cli.Context, opt repOptions, f *results.File) (context.Context, func(), error) {
	l, err := takeLock(c, opt)
	if err != nil {
		return nil, nil, err
	}
	// The run starts when it holds the lock: the result file's start
	// time says so (and shows that runs never overlapped).
	f.Start = time.Now()
	ctx, closeEvidence := withEvidence(c, opt, f)
	return ctx, func() {
		closeEvidence()
		l.Release()
	}, nil
}

func takeLock(c *cli.Context, opt repOptions) (*lock.Lock, error) {
	path := lock.Path()
	if opt.noLock || path == "" {
		return nil, nil
	}
	stderr := c.App.ErrWriter
	if note := lock.Note(path); note != "" && !opt.quiet {
		fmt.Fprintln(stderr, note)
	}
	l, err := lock.Acquire(c.Context, path, os.Args, lock.Options{
		NoWait: opt.noWait,
		Waiting: func(h lock.Holder) {
			if !opt.quiet { // -q: no progress or warnings
				fmt.Fprintf(stderr, "waiting: another benchmark holds %s: %s (--no-wait to refuse, --no-lock to run beside it)\n", path, h)
			}
		},
	})
	var be *lock.BusyError
	switch {
	case errors.As(err, &be):
		return nil, cli.Exit(be.Error(), exitBusy)
	case errors.Is(err, context.Canceled):
		return nil, cli.Exit("interrupted while waiting for the benchmark lock; nothing ran", exitInterrupted)
	}
	return l, err
}
