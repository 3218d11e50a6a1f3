package external

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/env"
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
	rep := results.Rep{Start: time.Now(), LoadAvg: harness.LoadAvg(), BootID: env.BootID()}
	fail := func(msg string) results.Rep {
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
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail(fmt.Sprintf("cannot create the output pipe: %v", err))
	}
	cmd := &exec.Cmd{Path: path, Args: p.Argv, Stdout: pw, Stderr: pw}
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	ev := evidence.Prepare(ctx) // before the clock: see evidence.Prepare
	start := time.Now()
	if err := ev.Start(cmd); err != nil {
		pr.Close()
		pw.Close()
		return fail(fmt.Sprintf("cannot start %s: %v", p.Argv[0], errors.Unwrap(err)))
	}
	pw.Close()
	pgid := cmd.Process.Pid

	var capt capture
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		io.Copy(&capt, pr)
	}()
	status, werr := harness.WaitGroupLeader(ctx, cmd, p.Timeout)
	elapsed := time.Since(start)
	harness.KillGroup(pgid)
	select {
	case <-readDone:
	case <-time.After(2 * time.Second):
		rep.Notes = append(rep.Notes, "a process that left the program's process group still held its output open; output cut there")
	}
	pr.Close()

	rep.Metrics = harness.ProcessMetrics(cmd.ProcessState, elapsed)
	harness.AddEvidence(&rep, ev)
	out := capt.String()
	rep.Output = keep(out)
	if capt.dropped > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("output larger than %d MiB: %d bytes in the middle were not searched for metrics", 2*CaptureHalf>>20, capt.dropped))
	}
	switch {
	case status == results.StatusTimeout:
		rep.Status, rep.Error = status, fmt.Sprintf("timed out after %s; the program's process group was killed (raise --timeout)", p.Timeout)
	case status == results.StatusInterrupted:
		rep.Status, rep.Error = status, "interrupted; the program's process group was killed"
	case werr != nil:
		rep.Status, rep.Error = results.StatusFailed, describeExit(filepath.Base(p.Argv[0]), werr, out)
	default:
		m, err := Extract(p.Metrics, out)
		if err != nil {
			rep.Status, rep.Error = results.StatusFailed, err.Error()
			break
		}
		rep.Status = results.StatusOK
		for k, v := range m {
			rep.Metrics[k] = v
		}
	}
	return rep
}

func describeExit(prog string, err error, out string) string {
	msg := fmt.Sprintf("%s: %v", prog, err)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			msg = fmt.Sprintf("%s was killed by signal %s", prog, unix.SignalName(ws.Signal()))
			if ws.CoreDump() {
				msg += " (core dumped)"
			}
		} else {
			msg = fmt.Sprintf("%s exited with status %d", prog, ee.ExitCode())
		}
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
