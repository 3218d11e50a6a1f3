package evidence

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Rep is the evidence of one repetition in flight.
type Rep struct {
	set     *Set
	ready   []Collector // prepared
	started []Collector // started on the child
	gate    bool        // start the child stopped
	locked  bool        // Prepare locked the goroutine to its thread
	notes   []string
	held    time.Duration // how long the child was held stopped while collectors attached
}

// Held returns how long Start held the child stopped at its first
// instruction while the collectors that need it stopped attached (zero
// when none does). The child runs nothing in that time, so the runner
// takes it out of the repetition's wall time (the process metric real).
func (r *Rep) Held() time.Duration { return r.held }

// Start is Prepare then Rep.Start.
func Start(s *Set, cmd *exec.Cmd) (*Rep, error) {
	r := Prepare(s)
	return r, r.Start(cmd)
}

// Prepare readies the collectors of s (nil: none) for one
// repetition, before its child exists and before the parent starts its
// clock: perf counters are opened on the calling thread, disabled, to be
// inherited by the child at fork and enabled by its exec, so that they
// count the child and everything it spawns from its first instruction;
// system-wide snapshots are taken. It locks the calling goroutine to its
// thread: Rep.Start must follow on the same goroutine, with nothing
// forked in between. Until Rep.Stop, contend must start no other process
// (the counters stay on that thread: a process forked from it and exec'd
// would be counted too) and reap none but the repetition's (sched's
// k.tree_cpu is the change of RUSAGE_CHILDREN from Prepare to Stop); the
// runners do neither. Prepare and Rep.Start are the one hook point of
// both repetition runners (in place of cmd.Start).
func Prepare(s *Set) *Rep {
	r := &Rep{set: s}
	if s == nil || len(s.Active) == 0 {
		return r
	}
	// Inherited counters and ptrace both belong to the thread that forks.
	runtime.LockOSThread()
	r.locked = true
	for _, c := range s.Active {
		if p, ok := c.(preStarter); ok {
			if err := p.preStart(); err != nil {
				r.notes = append(r.notes, fmt.Sprintf("evidence %s: %v", c.Name(), err))
				continue
			}
		}
		if g, ok := c.(Gated); ok && g.NeedsStop() {
			r.gate = true
		}
		r.ready = append(r.ready, c)
	}
	return r
}

// Start starts cmd (not yet started) as the repetition's child and starts
// the prepared collectors on it. Collectors that need the pid before the
// child runs (the lock tracer's set_event_pid) get the child started
// traced, stopped at its first instruction, and let go once they are
// attached; the others need no stop.
func (r *Rep) Start(cmd *exec.Cmd) error {
	if !r.locked {
		return cmd.Start()
	}
	defer runtime.UnlockOSThread()
	r.locked = false
	gate := r.gate
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
		r.release()
		return err
	}
	pid := cmd.Process.Pid
	if gate {
		if ended, werr := awaitStop(pid); ended || werr != nil {
			// Gone before its first instruction: left unreaped, so
			// that cmd.Wait reports its end.
			why := "it ended first"
			if werr != nil {
				why = werr.Error()
			}
			r.notes = append(r.notes, fmt.Sprintf("the child did not stop at exec (%s): no evidence", why))
			r.release()
			return nil
		}
	}
	stopped := time.Now()
	r.startCollectors(r.ready, pid)
	if gate {
		if err := unix.PtraceDetach(pid); err != nil {
			unix.Kill(pid, unix.SIGKILL)
			return fmt.Errorf("cannot let the child go after attaching the evidence collectors: %v", err)
		}
		r.held = time.Since(stopped)
	}
	return nil
}

// The si_code values of a waitid record (CLD_* in <signal.h>).
const (
	cldTrapped = 4 // a traced child stopped
	cldStopped = 5
)

// awaitStop waits until the child started traced (pid) is stopped at its
// first instruction, and takes that stop. It reports ended when the child
// ended before (killed while it was being started): the child is then
// not reaped, so that cmd.Wait still gets its status and rusage (a
// wait4 here reaped it, and cmd.Wait said ECHILD).
func awaitStop(pid int) (ended bool, err error) {
	var info unix.Siginfo
	for {
		// A look only (WNOWAIT): an end is left for cmd.Wait.
		err = unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT|unix.WALL, nil)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return false, err
	}
	if info.Code != cldTrapped && info.Code != cldStopped {
		return true, nil
	}
	// Take the stop, never an end: a SIGKILL since the look leaves
	// nothing to take here, and the zombie to cmd.Wait.
	info = unix.Siginfo{}
	for {
		err = unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG|unix.WALL, nil)
		if err != unix.EINTR {
			break
		}
	}
	return err == nil && info.Signo == 0, err
}

// release stops the prepared collectors without keeping their figures.
func (r *Rep) release() {
	for _, c := range r.ready {
		c.Stop()
	}
	r.ready = nil
}

// Helpers returns the pids of the processes the started collectors run
// beside the child (perf record): the runner must not take them for the
// child's leftovers. They are reaped by Stop.
func (r *Rep) Helpers() []int {
	if r == nil {
		return nil
	}
	var pids []int
	for _, c := range r.started {
		if h, ok := c.(helper); ok {
			pids = append(pids, h.helperPIDs()...)
		}
	}
	return pids
}

// helper is a collector that runs processes of its own beside the child.
type helper interface{ helperPIDs() []int }

// preStarter is a collector that prepares before the child is started,
// on the thread that starts it.
type preStarter interface{ preStart() error }

// Gated is a collector that needs the child stopped before its first
// instruction (Rep.Start holds it there until the collector is started).
type Gated interface{ NeedsStop() bool }

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
