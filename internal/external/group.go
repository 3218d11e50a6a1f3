package external

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"contend/bind"
	"contend/internal/harness"
)

// ExitError is the wait status of a command RunGroup ran that did not
// exit with status 0.
type ExitError struct{ Status syscall.WaitStatus }

// Error says how the command ended: "exit status N" or "killed by
// signal SIGNAME".
func (e *ExitError) Error() string {
	if e.Status.Signaled() {
		return "killed by signal " + unix.SignalName(e.Status.Signal())
	}
	return fmt.Sprintf("exit status %d", e.Status.ExitStatus())
}

// ExitCode is the command's exit status, or -1 when a signal ended it.
func (e *ExitError) ExitCode() int {
	if e.Status.Exited() {
		return e.Status.ExitStatus()
	}
	return -1
}

// RunGroup runs cmd (an exec.Cmd not yet started, without ExtraFiles or
// SysProcAttr) under the launcher of external programs
// (native/launch.c), which leads a process group of its own: whatever
// the command starts there ends with it, and with contend, also when
// contend is SIGKILLed (the launcher's death signal kills the group).
// A cancelled ctx sends the group SIGTERM (the command may stop
// politely; the launcher waits for it) and, grace later, SIGKILL. When
// the command has ended the group is killed, so nothing it left in the
// group outlives it. The error is nil, an *ExitError (the command's
// own wait status, as the launcher saw it), or why it did not run.
// The commands a search or a campaign starts that are not repetitions
// (bisect's builds and measurements) run through it.
func RunGroup(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	if cmd.ExtraFiles != nil || cmd.SysProcAttr != nil || cmd.Process != nil {
		return errors.New("external.RunGroup: the command has extra files, process attributes, or was started")
	}
	exe, err := harness.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the contend binary to launch %s: %v", cmd.Path, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("cannot create the launcher's report pipe: %v", err)
	}
	defer r.Close()
	path := cmd.Path
	cmd.Path = exe
	cmd.Args = append([]string{exe, bind.LaunchArg, "3", path}, cmd.Args...)
	cmd.ExtraFiles = []*os.File{w}
	// SIGTERM, not SIGKILL: the launcher catches it and kills its group
	// when contend is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	// A process that left the group may hold an output pipe: Wait gives
	// up on it after grace.
	cmd.WaitDelay = grace
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("cannot start %s: %v", path, startCause(err))
	}
	pgid := cmd.Process.Pid
	report := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		report <- string(b)
	}()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			syscall.Kill(-pgid, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(grace):
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
		case <-done:
		}
	}()
	werr := cmd.Wait()
	close(done)
	// The launcher killed its group after the command's end; not when
	// it was killed itself.
	syscall.Kill(-pgid, syscall.SIGKILL)
	var rep string
	select {
	case rep = <-report:
	case <-time.After(5 * time.Second): // a process escaped with the pipe
	}
	lr := parseLaunch(rep)
	switch {
	case lr.execErr != 0:
		return fmt.Errorf("cannot start %s: %v", path, lr.execErr)
	case lr.waitErr != 0:
		return fmt.Errorf("%s ran, but the launcher could not wait for it (wait4: %v): its exit status is unknown", path, lr.waitErr)
	case lr.done && lr.status.Exited() && lr.status.ExitStatus() == 0:
		return nil
	case lr.done:
		return &ExitError{Status: lr.status}
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			return &ExitError{Status: ws} // the launcher itself was killed
		}
	}
	if werr == nil {
		werr = errors.New("the launcher ended without a report")
	}
	return werr
}
