package campaign

import (
	"context"
	"os/exec"
	"syscall"
	"testing"

	"contend/internal/testutil"
)

// TestKilledBy: a reboot command ended by a shutdown's signal (or a shell
// whose command was: status 128+N) is told from one that failed by itself.
func TestKilledBy(t *testing.T) {
	for _, c := range []struct {
		script string
		want   string
	}{
		{`kill -TERM $$`, "SIGTERM"},
		{`kill -HUP $$`, "SIGHUP"},
		{`kill -KILL $$`, "SIGKILL"},
		{`sh -c 'kill -INT $$'; exit $?`, "SIGINT"},
		{`exit 143`, "SIGTERM"},
		{`exit 3`, ""},
		{`exit 1`, ""},
		{`kill -USR1 $$`, ""},
	} {
		cmd := exec.Command("/bin/sh", "-c", c.script)
		testutil.DefaultSignals(t, cmd) // the signals the script sends itself are not ignored (nohup, a background job)
		err := cmd.Run()
		got := ""
		if s := killedBy(err); s != nil {
			got = SignalName(s)
		}
		if got != c.want {
			t.Errorf("sh -c %q (%v): killedBy %q, want %q", c.script, err, got, c.want)
		}
	}
	if killedBy(nil) != nil {
		t.Error("killedBy(nil) is a signal")
	}
}

// TestInterruption: a step's context cancelled by a signal names it.
func TestInterruption(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	if got := interruption(ctx); got != "" {
		t.Errorf("live context: %q", got)
	}
	cancel(Signal{syscall.SIGHUP})
	if got := interruption(ctx); got != "SIGHUP" {
		t.Errorf("cancelled by SIGHUP: %q", got)
	}
	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(Signal{})
	if got := interruption(ctx); got != "a signal (SIGINT or SIGTERM)" {
		t.Errorf("cancelled by an unknown signal: %q", got)
	}
}
