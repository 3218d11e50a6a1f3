package external

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunGroupStatus: RunGroup gives the command's own exit status (the
// launcher's report), its output, and says why a command did not start.
func TestRunGroupStatus(t *testing.T) {
	var out strings.Builder
	cmd := exec.Command("/bin/sh", "-c", "echo hello; exit 3")
	cmd.Stdout = &out
	err := RunGroup(context.Background(), cmd, time.Second)
	var xe *ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != 3 || err.Error() != "exit status 3" {
		t.Errorf("exit 3: %v, want exit status 3", err)
	}
	if out.String() != "hello\n" {
		t.Errorf("output %q", out.String())
	}
	if err := RunGroup(context.Background(), exec.Command("/bin/true"), time.Second); err != nil {
		t.Errorf("true: %v", err)
	}
	err = RunGroup(context.Background(), exec.Command("/bin/sh", "-c", "kill -SEGV $$"), time.Second)
	if !errors.As(err, &xe) || xe.ExitCode() != -1 || err.Error() != "killed by signal SIGSEGV" {
		t.Errorf("killed: %v, want killed by signal SIGSEGV", err)
	}
	dir := t.TempDir()
	noexec := filepath.Join(dir, "prog")
	os.WriteFile(noexec, []byte("x"), 0o644)
	err = RunGroup(context.Background(), &exec.Cmd{Path: noexec, Args: []string{noexec}}, time.Second)
	if err == nil || err.Error() != "cannot start "+noexec+": permission denied" {
		t.Errorf("not executable: %v", err)
	}
}

// TestRunGroupCancelIsPolite: a cancelled ctx sends the command SIGTERM
// (the launcher, its group's leader, ignores it while contend lives and
// reports the command's own end): a command that traps it ends as it
// chooses.
func TestRunGroupCancelIsPolite(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(ready); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	cmd := exec.Command("/bin/sh", "-c", `trap 'exit 7' TERM; touch "$0"; while :; do sleep 0.05; done`, ready)
	err := RunGroup(ctx, cmd, 30*time.Second)
	var xe *ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != 7 {
		t.Errorf("cancelled: %v, want exit status 7 (the trap's)", err)
	}
}
