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
// ctx carries a Set with active collectors, starts them on it, so that
// they count the child and everything it spawns from its first
// instruction after exec: collectors that can prepare without the pid do
// so before the child exists (perf counters are opened on the starting
// thread, disabled, inherited by the child and enabled by its exec;
// system-wide snapshots are taken); collectors that need the pid before
// the child runs (the lock tracer's set_event_pid) get the child started
// traced, stopped at its first instruction, and let go after they
// attached. This is the one hook point of both repetition runners.
// Rep.Stop must be called after the child's process group is reaped.
func Start(ctx context.Context, cmd *exec.Cmd) (*Rep, error) {
	s := FromContext(ctx)
	r := &Rep{set: s}
	if s == nil || len(s.Active) == 0 {
		return r, cmd.Start()
	}
	// Inherited counters and ptrace both belong to the thread that forks.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	gate := false
	var ready []Collector
	for _, c := range s.Active {
		if p, ok := c.(preStarter); ok {
			if err := p.preStart(); err != nil {
				r.notes = append(r.notes, fmt.Sprintf("evidence %s: %v", c.Name(), err))
				continue
			}
		}
		if g, ok := c.(gated); ok && g.needsStop() {
			gate = true
		}
		ready = append(ready, c)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = gate
	err := cmd.Start()
	cmd.SysProcAttr.Ptrace = false
	if gate && errors.Is(err, unix.EPERM) {
		// contend itself is traced (strace -f, a debugger): start the
		// child free and attach late.
		r.notes = append(r.notes, "the child could not be started stopped (contend is traced?): lock evidence from shortly after exec")
		gate = false
		err = cmd.Start()
	}
	if err != nil {
		r.started = ready
		r.Stop() // release what was prepared
		return &Rep{}, err
	}
	pid := cmd.Process.Pid
	if gate {
		var ws unix.WaitStatus
		for {
			_, werr := unix.Wait4(pid, &ws, unix.WALL, nil)
			if werr == unix.EINTR {
				continue
			}
			if werr != nil || !ws.Stopped() {
				// Gone before its first instruction: Wait reports it.
				r.notes = append(r.notes, fmt.Sprintf("the child did not stop at exec (%v): no evidence", werr))
				r.started = ready
				r.Stop()
				return &Rep{notes: r.notes}, nil
			}
			break
		}
	}
	r.startCollectors(ready, pid)
	if gate {
		if err := unix.PtraceDetach(pid); err != nil {
			unix.Kill(pid, unix.SIGKILL)
			return r, fmt.Errorf("cannot let the child go after attaching the evidence collectors: %v", err)
		}
	}
	return r, nil
}

// preStarter is a collector that prepares before the child is started,
// on the thread that starts it.
type preStarter interface{ preStart() error }

// gated is a collector that needs the child stopped before its first
// instruction.
type gated interface{ needsStop() bool }

func (r *Rep) startCollectors(cs []Collector, pid int) {
	for _, c := range cs {
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
