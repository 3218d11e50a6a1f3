package external

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"contend/bind"
	"contend/internal/evidence"
	"contend/internal/harness"
	"contend/internal/results"
)

// Output bounds: metrics are extracted from at most the first and the last
// CaptureHalf bytes of a repetition's output; the result file keeps at
// most the first and the last KeepHalf bytes.
const (
	CaptureHalf = 4 << 20
	KeepHalf    = 16 << 10
)

// Program is what exec runs for each repetition.
type Program struct {
	Argv    []string // Argv[0] is looked up in PATH unless it has a slash
	Metrics []Spec
	Timeout time.Duration // 0: none
	Env     []string      // added to contend's environment
	// Evidence is the repetition's kernel evidence (nil: none), as
	// harness.Spec.Evidence.
	Evidence *evidence.Set
}

// ShellArgv returns the argv that runs args with /bin/sh -c: a single
// argument is the script, several are joined with spaces.
func ShellArgv(args []string) []string {
	return []string{"/bin/sh", "-c", strings.Join(args, " ")}
}

// RunRep runs p once: in its own process group, with stdin from
// /dev/null, stdout and stderr captured together in one pipe (as 2>&1),
// killed with its group when the timeout expires or ctx ends, timed by
// the parent and accounted with wait4 rusage (the process metrics every
// contend repetition has). A non-zero exit status, a signal, or a metric
// with zero or several matches make a failed repetition; the output is
// kept in Rep.Output in every case. It never returns an error.
func RunRep(ctx context.Context, p Program) results.Rep {
	fail := func(msg string) results.Rep {
		rep := harness.NewRep()
		rep.Status, rep.Error = results.StatusFailed, msg
		return rep
	}
	if len(p.Argv) == 0 {
		return fail("no program to run")
	}
	path := p.Argv[0]
	if !strings.Contains(path, "/") {
		lp, err := exec.LookPath(path)
		if err != nil {
			return fail(fmt.Sprintf("cannot run %s: not found in PATH", path))
		}
		path = lp
	}
	exe, err := harness.Executable()
	if err != nil {
		return fail(fmt.Sprintf("cannot find the contend binary to launch %s: %v", p.Argv[0], err))
	}
	// The program runs under the launcher (native/launch.c): contend's
	// binary in its C-only mode, so that the program's maxrss is its own
	// and nothing it starts outlives the repetition.
	var capt capture
	e := harness.Spawn(ctx, harness.Spec{
		Argv:   append([]string{exe, bind.LaunchArg, "3", path}, p.Argv...),
		Env:    append(os.Environ(), p.Env...),
		Stdout: &capt, Stderr: &capt, // one pipe, as 2>&1
		Report:  true,
		Timeout: p.Timeout,
		// SIGTERM, not SIGKILL: the launcher catches it and kills its group.
		DeathSignal: syscall.SIGTERM,
		Who:         "program",
		Evidence:    p.Evidence,
	})
	rep := e.Rep
	if e.StartErr != nil {
		rep.Error = fmt.Sprintf("cannot start %s: %v", p.Argv[0], startCause(e.StartErr))
	}
	if rep.Status == results.StatusFailed {
		return rep
	}

	lr := parseLaunch(strings.Join(e.Report, "\n"))
	if lr.execErr != 0 && rep.Status == "" {
		// The program never ran: no metrics, and no evidence of nothing.
		rep.Metrics, rep.Notes = nil, nil
		if e.OutputCut {
			rep.Notes = []string{"a process that left the program's process group still held its output open; output cut there"}
		}
		rep.Status, rep.Error = results.StatusFailed, fmt.Sprintf("cannot start %s: %v", p.Argv[0], lr.execErr)
		return rep
	}
	werr, launcherDied := e.Wait, false
	if lr.done {
		// The program's own metrics, as the launcher measured them.
		rep.Metrics.Merge(lr.metrics)
		werr = nil
		if !lr.status.Exited() || lr.status.ExitStatus() != 0 {
			werr = waitError{lr.status}
		}
	} else if rep.Status == "" && lr.waitErr == 0 {
		// The launcher died without a report (killed from outside).
		launcherDied = true
		if werr == nil {
			werr = errors.New("the launcher ended without a report")
		}
	}
	out := capt.String()
	rep.Output = keep(out)
	if capt.dropped > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("output larger than %d MiB: %d bytes in the middle were not searched for metrics", 2*CaptureHalf>>20, capt.dropped))
	}
	switch {
	case rep.Status != "": // timed out or interrupted
	case lr.waitErr != 0:
		rep.Status, rep.Error = results.StatusFailed, fmt.Sprintf("%s: the launcher could not wait for the program (wait4: %v): its exit status and process metrics are unknown", filepath.Base(p.Argv[0]), lr.waitErr)
	case launcherDied:
		rep.Status, rep.Error = results.StatusFailed, fmt.Sprintf("%s: the launcher of the program died: %v", filepath.Base(p.Argv[0]), werr)
	case werr != nil:
		rep.Status, rep.Error = results.StatusFailed, describeExit(filepath.Base(p.Argv[0]), werr, out)
	default:
		m, err := Extract(p.Metrics, out)
		if err != nil {
			rep.Status, rep.Error = results.StatusFailed, err.Error()
			break
		}
		rep.Status = results.StatusOK
		rep.Metrics.Merge(m)
	}
	return rep
}

// startCause is why the launcher could not be started: the cause of a
// wrapped error (exec's "fork/exec PATH: " says nothing the message does
// not), else the error itself (the evidence collectors' own errors).
func startCause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

func describeExit(prog string, err error, out string) string {
	msg := fmt.Sprintf("%s: %v", prog, err)
	var we waitError
	if errors.As(err, &we) {
		msg = harness.ExitText(prog, we.ws)
	}
	if s := strings.TrimSpace(out); s != "" {
		last := s[strings.LastIndexByte(s, '\n')+1:]
		if len(last) > 200 {
			last = last[:200] + "..."
		}
		msg += "; last line of output: " + last
	}
	return msg
}

// waitError is a program's non-zero wait status, as the launcher saw it.
type waitError struct{ ws syscall.WaitStatus }

func (e waitError) Error() string { return fmt.Sprintf("wait status %#x", uint32(e.ws)) }

// launchReport is what the launcher wrote on its report pipe.
type launchReport struct {
	execErr syscall.Errno // execve (or fork) failed
	waitErr syscall.Errno // wait4 for the program failed (it ran)
	done    bool
	status  syscall.WaitStatus
	metrics map[string]float64 // the program's process metrics
}

// parseLaunch reads the launcher's report (native/launch.c): the
// program's wait status, its real time as the launcher measured it from
// fork to wait4, and its wait4 rusage; or the errno of a failed execve
// (or fork) or of a failed wait4.
func parseLaunch(s string) launchReport {
	var lr launchReport
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "exec-error" {
			n, _ := strconv.Atoi(f[1])
			lr.execErr = syscall.Errno(n)
		}
		if len(f) == 2 && f[0] == "wait-error" {
			n, _ := strconv.Atoi(f[1])
			lr.waitErr = syscall.Errno(n)
		}
		if len(f) != 10 || f[0] != "done" {
			continue
		}
		var v [9]int64
		ok := true
		for i := range v {
			var err error
			if v[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
				ok = false
			}
		}
		if !ok {
			continue
		}
		user, sys := time.Duration(v[2])*time.Microsecond, time.Duration(v[3])*time.Microsecond
		lr.done, lr.status = true, syscall.WaitStatus(v[0])
		lr.metrics = map[string]float64{
			"real": float64(v[1]), "user": float64(user), "sys": float64(sys), "cpu": float64(user + sys),
			"maxrss": float64(v[4] * 1024), "minflt": float64(v[5]), "majflt": float64(v[6]),
			"vcsw": float64(v[7]), "ivcsw": float64(v[8]),
		}
	}
	return lr
}

// capture keeps the first and the last CaptureHalf bytes written to it.
type capture struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // ring contents, in order, at most CaptureHalf
	dropped int64
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := CaptureHalf - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	c.tail = append(c.tail, p...)
	// Trim lazily, so that a chatty program costs O(output), not more.
	if over := len(c.tail) - CaptureHalf; over > CaptureHalf {
		c.dropped += int64(over)
		c.tail = append(c.tail[:0:0], c.tail[over:]...)
	}
	return n, nil
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if over := len(c.tail) - CaptureHalf; over > 0 {
		c.dropped += int64(over)
		c.tail = append(c.tail[:0:0], c.tail[over:]...)
	}
	if c.dropped == 0 {
		return string(c.head) + string(c.tail)
	}
	return string(c.head) + fmt.Sprintf("\n[... %d bytes not kept ...]\n", c.dropped) + string(c.tail)
}

// keep bounds the output stored in a result file; invalid UTF-8 is
// replaced so that the file stays valid.
func keep(out string) string {
	out = strings.ToValidUTF8(out, "\uFFFD")
	if len(out) <= 2*KeepHalf {
		return out
	}
	head, tail := out[:KeepHalf], out[len(out)-KeepHalf:]
	head = strings.ToValidUTF8(head, "")
	tail = strings.ToValidUTF8(tail, "")
	return head + fmt.Sprintf("\n[... %d bytes not kept in the result file ...]\n", len(out)-2*KeepHalf) + tail
}
