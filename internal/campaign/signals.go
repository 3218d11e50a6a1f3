package campaign

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// StepSignals are the signals a step catches: SIGHUP (a login shell's
// terminal hung up, a getty stopped), SIGINT (Ctrl-C) and SIGTERM (a
// stopped unit, the shutdown). None of them kills a step: each is
// recorded in the ledger, as a stop before the point of no return, as the
// reboot under way after it.
var StepSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM}

// Signal is the cause (context.Cause) of a step's context cancelled by a
// signal; Sig is nil when the signal is not known (one that came before
// the step's handler was installed).
type Signal struct{ Sig os.Signal }

func (s Signal) Error() string {
	if s.Sig == nil {
		return "a signal (SIGINT or SIGTERM)"
	}
	return SignalName(s.Sig)
}

// SignalName returns the name of sig: SIGHUP, SIGINT, SIGTERM, SIGKILL or
// the Go text of another.
func SignalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return sig.String()
}

// WithSignals returns a context cancelled, with a Signal as its cause,
// by the first of StepSignals not ignored at start, and the function that
// stops catching them.
// parent is the command's context (cancelled by the program's own SIGINT
// and SIGTERM handler, possibly before this was installed): its end
// cancels the step too, naming the signal when it reached this handler
// as well.
func WithSignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	// A signal ignored when the step started (nohup's SIGHUP, the
	// SIGINT of a command started in the background) stays ignored:
	// whoever started the step asked for that.
	var sigs []os.Signal
	for _, s := range StepSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	signal.Notify(ch, sigs...)
	// A write to a standard output or error whose reader is gone (a
	// pipe to a closed terminal's program) fails with EPIPE instead of
	// killing the step with SIGPIPE before it records its end.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	go func() {
		for range pipe {
		}
	}()
	go func() {
		select {
		case s := <-ch:
			cancel(Signal{s})
		case <-parent.Done():
			// The same signal is sent to every handler's channel in
			// one pass: it is here, or it came before this handler.
			t := time.NewTimer(50 * time.Millisecond)
			defer t.Stop()
			select {
			case s := <-ch:
				cancel(Signal{s})
			case <-t.C:
				cancel(Signal{})
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		signal.Stop(pipe)
		close(pipe)
		cancel(context.Canceled)
	}
}

// interruption returns what stopped ctx: the signal's name, "" while ctx
// is live.
func interruption(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	var s Signal
	if errors.As(context.Cause(ctx), &s) {
		return s.Error()
	}
	return "cancellation (" + context.Cause(ctx).Error() + ")"
}

// shutdownSignals are the signals a shutdown sends a process (SIGTERM,
// SIGHUP from a stopped getty or session, SIGKILL after the stop timeout;
// SIGINT from a terminal): a reboot command ended by one of them, or a
// shell whose command was (exit status 128+N), ended in the shutdown it
// started.
var shutdownSignals = []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}

// killedBy returns the shutdown signal that ended a command whose Wait
// returned err, nil when it exited by itself (or err is not an exit).
func killedBy(err error) os.Signal {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok {
		return nil
	}
	for _, s := range shutdownSignals {
		if (ws.Signaled() && ws.Signal() == s) || (ws.Exited() && ws.ExitStatus() == 128+int(s)) {
			return s
		}
	}
	return nil
}
