package testutil

import (
	"errors"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
)

// TestDefaultSignals: with SIGHUP ignored in the test process (as under
// nohup), a shell that sends itself SIGHUP survives it; started through
// DefaultSignals it is killed by it, and its arguments arrive unchanged.
func TestDefaultSignals(t *testing.T) {
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	script := `test "$1" = "a b" || exit 3; kill -HUP $$; exit 0`
	if err := exec.Command("/bin/sh", "-c", script, "sh", "a b").Run(); err != nil {
		t.Fatalf("with SIGHUP ignored: %v, want exit 0 (the shell inherits the ignored signal)", err)
	}
	cmd := exec.Command("/bin/sh", "-c", script, "sh", "a b")
	DefaultSignals(t, cmd)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGHUP {
		t.Errorf("through DefaultSignals: %v, want killed by SIGHUP", err)
	}
}
