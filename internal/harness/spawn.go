package harness

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"contend/internal/env"
	"contend/internal/evidence"
	"contend/internal/ipcown"
	"contend/internal/plural"
	"contend/internal/results"
)

// Spec is one repetition child for Spawn: what to run and what to account
// for. The workload runner (RunRep) and the runner of external programs
// (external.RunRep) only build a Spec and read the Ended.
type Spec struct {
	// Argv is the child's argument list; Argv[0] is the path of the
	// executable (not looked up in PATH).
	Argv []string
	// Env is the child's whole environment.
	Env []string
	// Stdout and Stderr receive the child's output; its stdin is
	// /dev/null. An *os.File is handed to the child as is; another writer
	// is fed through a pipe (one pipe when both are the same writer, as
	// 2>&1) until every process holding the pipe closed it, or for at
	// most outputGrace after the child's process group was killed. nil
	// is /dev/null.
	Stdout, Stderr io.Writer
	// Report gives the child the report pipe as fd 3: Ended.Report holds
	// the lines the child and whatever it forked wrote on it.
	Report bool
	// IPC says the child may create one SysV semaphore set of SemSet
	// semaphores (0: it declares none) under the key Spawn passes in
	// CONTEND_SEM_KEY, and reports on the report pipe what it made and
	// removed ("ipc sem ID", "ipc-removed sem ID", "ipc-key-taken"; these
	// lines are not in Ended.Report). Spawn journals the key before the
	// start (internal/ipcown) and removes the set the child left, if it
	// is provably the repetition's, after the reap.
	IPC    bool
	SemSet int
	// Timeout kills the child's process group when it expires (0: none).
	Timeout time.Duration
	// DeathSignal is the child's Pdeathsig: what it gets when contend
	// dies.
	DeathSignal syscall.Signal
	// Who names the child in the texts Spawn writes: "child",
	// "program" ("the program's process group was killed").
	Who string
	// Evidence is the set of kernel evidence collectors of the
	// repetition (nil: none): prepared before the child is forked,
	// started on it, stopped after its process group is reaped.
	Evidence *evidence.Set
}

// Ended is a child that Spawn ran, after its whole process group was
// killed and reaped.
type Ended struct {
	// Rep has the repetition's start time, load average and boot id, the
	// process metrics (wait4 rusage, real time from start to wait), the
	// evidence collectors' metrics and the runner's notes (IPC cleanup,
	// output cut, evidence). Status and Error are set when the child
	// could not be set up or started (StatusFailed: see StartErr), timed
	// out or was interrupted; otherwise they are left to the caller.
	Rep results.Rep
	// StartErr is exec's error when the child could not be started;
	// then Rep.Error is empty and the caller says what failed.
	StartErr error
	// Wait is cmd.Wait's error: an *exec.ExitError when the child did
	// not exit with status 0.
	Wait error
	// Report lists the lines of the report pipe (without the IPC lines).
	Report []string
	// Cleaned lists the IPC objects the child left and Spawn removed.
	Cleaned []string
	// OutputCut tells that a process outside the child's group still
	// held its output pipe open, and the output was cut there.
	OutputCut bool
}

// reportGrace and outputGrace are the grace periods after the group kill
// for readers of pipes that a process which left the child's group may
// still hold (outputGrace a variable for the tests, which wait less).
const reportGrace = 5 * time.Second

var outputGrace = 2 * time.Second

// NewRep returns a repetition record started now: its start time, the
// load average and the boot id.
func NewRep() results.Rep {
	return results.Rep{Start: time.Now(), LoadAvg: env.LoadAvg(), BootID: env.BootID()}
}

// Spawn runs one repetition child and accounts for it: its own process
// group with Pdeathsig, the SysV key journaled and passed (Spec.IPC), the
// report pipe read as it comes, the evidence collectors of s.Evidence
// (evidence.Prepare and Rep.Start in place of cmd.Start, stopped after
// the reap), the wait with the timeout and ctx's cancellation, the group
// killed and reaped, the IPC objects it left removed, the wait4 process
// metrics. It is the one place where a repetition's child is started.
func Spawn(ctx context.Context, s Spec) Ended {
	BecomeSubreaper()
	e := Ended{Rep: NewRep()}
	setupFail := func(format string, a ...any) Ended {
		e.Rep.Status, e.Rep.Error = results.StatusFailed, fmt.Sprintf(format, a...)
		return e
	}
	var (
		closers []*os.File // the parent's copies of the child's ends
		outputs []*pipeReader
		rr      *os.File // the report pipe's read end
	)
	closeChildEnds := func() {
		for _, f := range closers {
			f.Close()
		}
		closers = nil
	}
	release := func() { // nothing was started
		closeChildEnds()
		for _, o := range outputs {
			o.r.Close()
		}
		if rr != nil {
			rr.Close()
		}
	}

	cmd := &exec.Cmd{Path: s.Argv[0], Args: s.Argv, Env: s.Env}
	out := func(w io.Writer) (io.Writer, error) {
		if w == nil {
			return nil, nil
		}
		if f, ok := w.(*os.File); ok {
			return f, nil
		}
		for _, o := range outputs {
			if o.dst == w {
				return o.child, nil
			}
		}
		r, wr, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		closers = append(closers, wr)
		outputs = append(outputs, &pipeReader{r: r, child: wr, dst: w})
		return wr, nil
	}
	var err error
	if cmd.Stdout, err = out(s.Stdout); err == nil {
		cmd.Stderr, err = out(s.Stderr)
	}
	if err != nil {
		release()
		return setupFail("cannot create the output pipe: %v", err)
	}
	if s.Report {
		var rw *os.File
		if rr, rw, err = os.Pipe(); err != nil {
			rr = nil
			release()
			return setupFail("cannot create the report pipe: %v", err)
		}
		closers = append(closers, rw)
		cmd.ExtraFiles = []*os.File{rw}
	}
	var own *ipcown.Entry
	var ownNote string
	if s.IPC {
		own, ownNote = journalSet(s.SemSet, s.Timeout)
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], semKeyEnv+"="+ownKey(own))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: s.DeathSignal}

	before := takeSnapshot()           // what is below contend already is not the repetition's
	ev := evidence.Prepare(s.Evidence) // before the clock: see evidence.Prepare
	start := time.Now()
	if err := ev.Start(cmd); err != nil {
		if cmd.Process != nil { // started, then lost (see evidence.Rep.Start)
			killGroup(cmd.Process.Pid)
		}
		ev.Stop()
		own.Done()
		release()
		e.Rep.Status, e.StartErr = results.StatusFailed, err
		return e
	}
	closeChildEnds()
	pgid := cmd.Process.Pid
	setActive(pgid, true)
	// The collectors' own processes (perf record) are not the child's
	// leftovers: they end when the child does and are reaped by ev.Stop.
	for _, h := range ev.Helpers() {
		setActive(h, true)
		defer setActive(h, false)
	}

	for _, o := range outputs {
		o.start()
	}
	rep := newReportReader(rr, s.IPC)

	status, werr := waitGroupLeader(ctx, cmd, s.Timeout)
	// The time the child sat stopped while collectors attached (the lock
	// tracer's tracefs setup) is contend's, not the child's.
	elapsed := time.Since(start) - ev.Held()
	e.Wait = werr

	// Whatever the child left in its process group (forked workers,
	// background grandchildren) is killed and reaped, then every process
	// made during the repetition that left the group (setsid, daemons:
	// see descendants.go); then the pipes' last writers are gone, unless
	// a process escaped contend's subtree.
	killGroup(pgid)
	setActive(pgid, false)
	killed, left := before.killLeftovers(5 * time.Second)
	rep.finish(reportGrace)
	for _, o := range outputs {
		if !o.finish(outputGrace) {
			e.OutputCut = true
		}
	}

	var notes []string
	e.Cleaned, notes = removeOwnSets(own, rep.ipcs, rep.removed, rep.keyTaken)
	e.Rep.Notes = append(e.Rep.Notes, notes...)
	if ownNote != "" {
		e.Rep.Notes = append(e.Rep.Notes, ownNote)
	}
	if len(e.Cleaned) > 0 && status == "" && werr == nil {
		e.Rep.Notes = append(e.Rep.Notes, "removed IPC objects the child left: "+strings.Join(e.Cleaned, ", "))
	}
	if len(killed) > 0 {
		e.Rep.Notes = append(e.Rep.Notes, fmt.Sprintf("killed %s that the %s left running outside its process group (pid %s)",
			plural.N(len(killed), "process", "processes"), s.Who, joinInts(killed)))
	}
	if len(left) > 0 {
		e.Rep.Notes = append(e.Rep.Notes, fmt.Sprintf("%s that the %s left could not be killed in 5s (pid %s)",
			plural.N(len(left), "process", "processes"), s.Who, joinInts(left)))
	}
	if e.OutputCut {
		e.Rep.Notes = append(e.Rep.Notes, fmt.Sprintf("a process that is not the %s's still held its output open; output cut there", s.Who))
	}
	e.Report = rep.lines

	e.Rep.Metrics = results.ValuesOf(ProcessMetrics(cmd.ProcessState, elapsed))
	// After every reap of the repetition's processes: sched's k.tree_cpu
	// is the change of RUSAGE_CHILDREN since evidence.Prepare.
	AddEvidence(&e.Rep, ev)

	switch status {
	case results.StatusTimeout:
		e.Rep.Status, e.Rep.Error = status, fmt.Sprintf("timed out after %s; the %s's process group was killed (raise --timeout)", s.Timeout, s.Who)
	case results.StatusInterrupted:
		e.Rep.Status, e.Rep.Error = status, fmt.Sprintf("interrupted; the %s's process group was killed", s.Who)
	}
	return e
}

// reportReader reads the report pipe line by line until every process
// holding it closed it, and keeps the IPC accounting apart.
type reportReader struct {
	r        *os.File
	ipc      bool
	done     chan struct{}
	mu       sync.Mutex
	lines    []string
	ipcs     map[string]bool // reported and not removed
	removed  map[string]bool
	keyTaken bool
	closed   bool // finished: the fields are the caller's
}

func newReportReader(r *os.File, ipc bool) *reportReader {
	rr := &reportReader{r: r, ipc: ipc, done: make(chan struct{}), ipcs: map[string]bool{}, removed: map[string]bool{}}
	if r == nil {
		close(rr.done)
		return rr
	}
	go func() {
		defer close(rr.done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			rr.add(sc.Text())
		}
	}()
	return rr
}

func (rr *reportReader) add(line string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	verb, rest, _ := strings.Cut(line, " ")
	switch {
	case rr.closed:
	case !rr.ipc:
		rr.lines = append(rr.lines, line)
	case verb == "ipc":
		rr.ipcs[rest] = true
	case verb == "ipc-removed":
		delete(rr.ipcs, rest)
		rr.removed[rest] = true
	case verb == "ipc-key-taken":
		rr.keyTaken = true
	default:
		rr.lines = append(rr.lines, line)
	}
}

// finish waits for the end of the pipe, at most grace (a grandchild that
// left the process group may hold it), then stops reading; afterwards the
// reader's fields are the caller's.
func (rr *reportReader) finish(grace time.Duration) {
	if rr.r == nil {
		return
	}
	select {
	case <-rr.done:
	case <-time.After(grace):
	}
	rr.r.Close()
	rr.mu.Lock() // the reader goroutine adds nothing after this
	rr.closed = true
	rr.mu.Unlock()
}

// pipeReader copies an output pipe of the child into dst.
type pipeReader struct {
	r, child *os.File
	dst      io.Writer
	done     chan struct{}
	mu       sync.Mutex
	cut      bool // dst is the caller's again: write nothing more
}

func (p *pipeReader) start() {
	p.done = make(chan struct{})
	go func() {
		defer close(p.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := p.r.Read(buf)
			if n > 0 {
				p.mu.Lock()
				if !p.cut {
					p.dst.Write(buf[:n])
				}
				p.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
}

// finish waits for the end of the pipe, at most grace; it reports false
// when the output was cut.
func (p *pipeReader) finish(grace time.Duration) bool {
	ended := true
	select {
	case <-p.done:
	case <-time.After(grace):
		ended = false
	}
	p.mu.Lock()
	p.cut = true
	p.mu.Unlock()
	p.r.Close()
	return ended
}
