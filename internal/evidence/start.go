package evidence

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Rep is the evidence of one repetition in flight.
type Rep struct {
	set     *Set
	started []Collector
	notes   []string
}

// Start starts cmd (not yet started) as a repetition's child and, when
// ctx carries a Set with active collectors, starts them on it: the child
// is started traced, so that it stops at its first instruction after
// exec; the collectors attach to it there (perf counters then count the
// child and everything it spawns from the start) and the child is let go.
// This is the one hook point of both repetition runners. Rep.Stop must
// be called after the child's process group is reaped.
func Start(ctx context.Context, cmd *exec.Cmd) (*Rep, error) {
	s := FromContext(ctx)
	r := &Rep{set: s}
	if s == nil || len(s.Active) == 0 {
		return r, cmd.Start()
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// ptrace requests must come from the thread that started the child.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr.Ptrace = true
	err := cmd.Start()
	cmd.SysProcAttr.Ptrace = false
	if errors.Is(err, unix.EPERM) {
		// contend itself is traced (strace -f, a debugger): start the
		// child free and attach late.
		r.notes = append(r.notes, "the child could not be started stopped (contend is traced?): evidence counted from shortly after exec")
		if err = cmd.Start(); err != nil {
			return r, err
		}
		r.startCollectors(cmd.Process.Pid)
		return r, nil
	}
	if err != nil {
		return r, err
	}
	pid := cmd.Process.Pid
	var ws unix.WaitStatus
	for {
		_, werr := unix.Wait4(pid, &ws, unix.WALL, nil)
		if werr == unix.EINTR {
			continue
		}
		if werr != nil || !ws.Stopped() {
			// Gone before its first instruction: Wait reports it.
			r.notes = append(r.notes, fmt.Sprintf("the child did not stop at exec (%v): no evidence", werr))
			return r, nil
		}
		break
	}
	r.startCollectors(pid)
	if err := unix.PtraceDetach(pid); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return r, fmt.Errorf("cannot let the child go after attaching the evidence collectors: %v", err)
	}
	return r, nil
}

func (r *Rep) startCollectors(pid int) {
	for _, c := range r.set.Active {
		if err := c.Start(pid); err != nil {
			r.notes = append(r.notes, fmt.Sprintf("evidence %s: %v", c.Name(), err))
			continue
		}
		r.started = append(r.started, c)
	}
}

// Stop stops the collectors started for the repetition and returns their
// metrics and notes. It is called after the child's process group is
// reaped; a nil Rep returns nothing.
func (r *Rep) Stop() (map[string]float64, []string) {
	if r == nil {
		return nil, nil
	}
	m := map[string]float64{}
	notes := r.notes
	for _, c := range r.started {
		cm, cn, err := c.Stop()
		notes = append(notes, cn...)
		if err != nil {
			notes = append(notes, fmt.Sprintf("evidence %s: %v", c.Name(), err))
			continue
		}
		for k, v := range cm {
			m[k] = v
		}
	}
	r.started = nil
	return m, notes
}
