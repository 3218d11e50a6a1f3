// Package harness runs repetitions: each in a fresh child process (the same
// binary in a hidden mode), timed and accounted by the parent the way
// time(1) does, with a timeout, and cleaned up after whatever way it ended:
// its process group killed and reaped, the SysV IPC objects it reported
// removed.
package harness

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"contend/bind"
	"contend/internal/evidence"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/workload"
)

// Executable is the binary run as the repetition child; tests may point it
// at a test binary.
var Executable = func() (string, error) { return os.Executable() }

// ChildEnv is added to the child's environment; tests use it to make a test
// binary act as the child.
var ChildEnv []string

var subreaper sync.Once

// BecomeSubreaper makes this process a child subreaper
// (PR_SET_CHILD_SUBREAPER), once: orphans of a repetition (osim's worker
// processes after the child died, a program's background grandchildren)
// are then reparented to contend, which reaps them. Spawn calls it before
// every repetition it starts (both runners go through Spawn), Session.Run
// before its Before steps: no package init changes the state of every
// process that links harness.
func BecomeSubreaper() {
	subreaper.Do(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// Outcome is one finished repetition as the parent saw it.
type Outcome struct {
	Rep results.Rep
	// Cleaned lists IPC objects the child did not remove and the parent
	// did (or failed to: see Rep.Error).
	Cleaned []string
}

// RunRep runs one repetition of w with values v in a child process
// (`contend __child`, through Spawn) and returns it with the child's
// process metrics. It never returns an error: a failed, timed-out or
// interrupted repetition is a Rep with that status. ctx cancellation
// interrupts the repetition. ev (nil: none) is the repetition's kernel
// evidence (Spec.Evidence).
func RunRep(ctx context.Context, w *workload.Workload, v workload.Values, timeout time.Duration, ev *evidence.Set) Outcome {
	fail := func(err error) Outcome {
		rep := NewRep()
		rep.Status, rep.Error = results.StatusFailed, err.Error()
		return Outcome{Rep: rep}
	}
	exe, err := Executable()
	if err != nil {
		return fail(fmt.Errorf("cannot find the contend binary to run a child: %v", err))
	}
	pj, err := json.Marshal(v)
	if err != nil {
		return fail(err)
	}
	argv := []string{exe, ChildArg, w.Name, string(pj)}
	var lean func(rc int, result []byte) (workload.Sample, error)
	if w.Lean != nil {
		params, sample, err := w.Lean(v)
		if err != nil {
			return fail(err)
		}
		argv, lean = []string{exe, bind.LeanArg, w.Name, hex.EncodeToString(params)}, sample
	}
	var stderr strings.Builder
	spec := Spec{
		Argv:   argv,
		Env:    append(append(os.Environ(), ChildEnv...), reportEnv+"=3"),
		Stdout: os.Stderr, // a workload prints nothing; anything it does is a diagnostic
		Stderr: &limitedWriter{w: &stderr, n: 8192},
		Report: true, IPC: true,
		Timeout: timeout, DeathSignal: syscall.SIGKILL, Who: "child",
		Evidence: ev,
	}
	if w.SemSet != nil {
		spec.SemSet = w.SemSet(v)
	}
	e := Spawn(ctx, spec)
	rep := e.Rep
	if e.StartErr != nil {
		rep.Error = fmt.Sprintf("cannot start the repetition child: %v", e.StartErr)
	}
	if rep.Status == results.StatusFailed {
		return Outcome{Rep: rep}
	}
	var resultMsg, errorMsg, leanMsg string
	for _, line := range e.Report {
		switch verb, rest, _ := strings.Cut(line, " "); verb {
		case "result":
			resultMsg = rest
		case "lean":
			leanMsg = rest
		case "error":
			errorMsg = rest
		}
	}
	var s workload.Sample
	var serr error
	switch {
	case lean != nil && leanMsg != "":
		s, serr = leanSample(lean, leanMsg)
	case resultMsg != "":
		if err := json.Unmarshal([]byte(resultMsg), &s); err != nil {
			serr = fmt.Errorf("unreadable result from the child: %v", err)
		}
	}
	switch {
	case rep.Status != "": // timed out or interrupted
	case errorMsg != "":
		rep.Status, rep.Error = results.StatusFailed, errorMsg
	case e.Wait != nil:
		rep.Status, rep.Error = results.StatusFailed, describeExit(e.Wait, stderr.String())
	case resultMsg == "" && leanMsg == "":
		rep.Status, rep.Error = results.StatusFailed, "the child exited without a result"
	case serr != nil:
		rep.Status, rep.Error = results.StatusFailed, oneLine(serr.Error())
	default:
		rep.Status = results.StatusOK
		rep.Metrics.Merge(s.Metrics)
		rep.Series = s.Series
		rep.Notes = append(s.Notes, rep.Notes...)
	}
	if rep.Status != results.StatusOK {
		// Only the process metrics of a failed repetition mean anything.
		for _, k := range rep.Metrics.Names() {
			if _, own := w.Metric(k); own && !results.IsProcessMetric(k) {
				rep.Metrics.Delete(k)
			}
		}
	}
	return Outcome{Rep: rep, Cleaned: e.Cleaned}
}

// leanSample reads a lean child's report "RC RESULT-HEX" into its Sample.
func leanSample(sample func(rc int, result []byte) (workload.Sample, error), msg string) (workload.Sample, error) {
	rcText, h, _ := strings.Cut(msg, " ")
	rc, err := strconv.Atoi(rcText)
	b, herr := hex.DecodeString(h)
	if err != nil || herr != nil {
		return workload.Sample{}, fmt.Errorf("unreadable result from the lean child: %q", msg)
	}
	return sample(rc, b)
}

func describeExit(err error, stderr string) string {
	msg := err.Error()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			msg = ExitText("the child", ws)
		} else {
			msg = fmt.Sprintf("the child exited with status %d", ee.ExitCode())
		}
	}
	if s := strings.TrimSpace(stderr); s != "" {
		msg += ": " + oneLine(textfmt.LastLine(s))
	}
	return msg
}

// killGroup kills every process left in process group pgid and reaps the
// ones that are contend's children (direct, or orphans reparented to
// contend as child subreaper).
func killGroup(pgid int) {
	unix.Kill(-pgid, unix.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-pgid, &ws, unix.WNOHANG, nil)
		if err != nil { // ECHILD: none left
			return
		}
		if pid == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

type limitedWriter struct {
	w interface{ WriteString(string) (int, error) }
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		q := p
		if len(q) > l.n {
			q = q[:l.n]
		}
		l.w.WriteString(string(q))
		l.n -= len(q)
	}
	return len(p), nil
}

// ProcessMetrics returns the process metrics of a finished child (see
// workload.ProcessMetrics): real is the wall time the parent measured from
// start to wait, the others come from the wait4 rusage of the child and
// the descendants it waited for.
func ProcessMetrics(ps *os.ProcessState, elapsed time.Duration) map[string]float64 {
	m := map[string]float64{"real": float64(elapsed)}
	if ps == nil {
		return m
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		user := time.Duration(ru.Utime.Nano())
		sys := time.Duration(ru.Stime.Nano())
		m["user"] = float64(user)
		m["sys"] = float64(sys)
		m["cpu"] = float64(user + sys)
		m["maxrss"] = float64(ru.Maxrss * 1024)
		m["minflt"] = float64(ru.Minflt)
		m["majflt"] = float64(ru.Majflt)
		m["vcsw"] = float64(ru.Nvcsw)
		m["ivcsw"] = float64(ru.Nivcsw)
	}
	return m
}

// awaitExit returns when child pid has exited (not reaped: cmd.Wait does
// that, with its rusage), waiting in the netpoller on a pidfd, or at once
// when the kernel has no pollable pidfds (before Linux 5.10). Why not
// cmd.Wait alone: a goroutine blocked in waitid keeps its P, and while
// another P is idle sysmon wakes every 20 us or so for the first 10 ms of
// the wait, on the CPUs the repetition runs on (both sides of verify; at
// load 20, 7.0 switch-ins of contend's threads per repetition between 2 ms
// after its exec and 1 ms before its exit, 2.3 parked). Parked in the
// netpoller, every P is idle and sysmon sleeps
// (TestSpawnWaitsOutsideSyscalls).
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd polls readable once the process has exited.
	rc.Read(func(fd uintptr) bool {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(p, 0)
		return n > 0 || (err != nil && err != unix.EINTR)
	})
}

// waitGroupLeader waits for cmd, started as the leader of its own process
// group, to exit. On timeout (when positive) or cancellation of ctx it
// kills the whole group first. It returns "", StatusTimeout or
// StatusInterrupted, and cmd.Wait's error.
func waitGroupLeader(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) (string, error) {
	pgid := cmd.Process.Pid
	waitDone := make(chan error, 1)
	go func() {
		awaitExit(pgid)
		waitDone <- cmd.Wait()
	}()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case werr := <-waitDone:
		return "", werr
	case <-timer:
		unix.Kill(-pgid, unix.SIGKILL)
		return results.StatusTimeout, <-waitDone
	case <-ctx.Done():
		unix.Kill(-pgid, unix.SIGKILL)
		return results.StatusInterrupted, <-waitDone
	}
}
