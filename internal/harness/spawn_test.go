package harness

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"contend/internal/evidence"
	"contend/internal/results"
	"contend/internal/testutil"
	"contend/internal/workload"
)

// The test binary is also the repetition child of RunRep's tests: with
// testChildEnv set, `TEST-BINARY __child harness-test {}` runs the
// workload harness-test, whose behaviour the variable names.
const (
	testChildEnv   = "CONTEND_HARNESS_TEST_CHILD"
	testPidFileEnv = "CONTEND_HARNESS_TEST_PIDFILE"
)

func TestMain(m *testing.M) {
	if os.Getenv(testChildEnv) != "" && len(os.Args) > 1 && os.Args[1] == ChildArg {
		os.Exit(ChildMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func init() {
	workload.Register(&workload.Workload{
		Name: "harness-test", Primary: "real",
		Metrics: []workload.Metric{{Name: "x", Unit: "count"}, {Name: "switches", Unit: "count"}},
		Run:     testWorkload,
	})
}

// testWorkload is the child's side of RunRep's tests: ok reports x=1;
// orphan starts a `sleep 100` in its process group, writes its pid to the
// file testPidFileEnv names and reports; hang does the same and never
// reports; kill SIGKILLs itself; quiet reports GOMAXPROCS as x and, as
// switches, how often the process's other threads (the Go runtime's) went
// to sleep while this one spent 50 ms in a system call, entered as a cgo
// call is (entersyscall, keeping its P).
func testWorkload(v workload.Values, rt workload.Runtime) (workload.Sample, error) {
	mode := os.Getenv(testChildEnv)
	switch mode {
	case "quiet":
		before, err := otherThreadsSleeps()
		if err != nil {
			return workload.Sample{}, err
		}
		ts := syscall.NsecToTimespec(int64(50 * time.Millisecond))
		syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		after, err := otherThreadsSleeps()
		if err != nil {
			return workload.Sample{}, err
		}
		return workload.Sample{Metrics: map[string]float64{"x": float64(runtime.GOMAXPROCS(0)), "switches": float64(after - before)}}, nil
	case "orphan", "hang":
		c := exec.Command("sleep", "100")
		if err := c.Start(); err != nil {
			return workload.Sample{}, err
		}
		os.WriteFile(os.Getenv(testPidFileEnv), []byte(strconv.Itoa(c.Process.Pid)), 0o600)
		if mode == "hang" {
			time.Sleep(100 * time.Second)
		}
	case "kill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(10 * time.Second)
	}
	return workload.Sample{Metrics: map[string]float64{"x": 1}}, nil
}

// otherThreadsSleeps sums voluntary_ctxt_switches over the threads of this
// process other than the calling one.
func otherThreadsSleeps() (int, error) {
	self := strconv.Itoa(syscall.Gettid())
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, task := range tasks {
		if task.Name() == self {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue // the thread ended
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				k, _ := strconv.Atoi(strings.TrimSpace(v))
				n += k
			}
		}
	}
	return n, nil
}

// runTestChild runs one repetition of harness-test in mode, with the test
// binary as the child; it returns the repetition and the pid the child
// wrote (0: none).
func runTestChild(t *testing.T, ctx context.Context, ev *evidence.Set, mode string, timeout time.Duration) (Outcome, int) {
	t.Helper()
	pidFile := t.TempDir() + "/pid"
	oldExe, oldEnv := Executable, ChildEnv
	t.Cleanup(func() { Executable, ChildEnv = oldExe, oldEnv })
	ChildEnv = []string{testChildEnv + "=" + mode, testPidFileEnv + "=" + pidFile}
	w, _ := workload.Lookup("harness-test")
	o := RunRep(ctx, w, workload.Values{}, timeout, ev)
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(b))
	return o, pid
}

// assertDead fails unless process pid is gone (reaped, not a zombie).
func assertDead(t *testing.T, what string, pid int) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("%s: no pid", what)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		t.Errorf("%s %d is still there: %s", what, pid, b)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestRunRepTimeoutKillsGroup: a child that hangs is killed at the
// timeout with its whole process group, the grandchild included.
func TestRunRepTimeoutKillsGroup(t *testing.T) {
	var o Outcome
	pid := 0
	timeout := 500 * time.Millisecond
	for ; pid == 0 && timeout < time.Minute; timeout *= 2 { // until the child forked in time
		o, pid = runTestChild(t, context.Background(), nil, "hang", timeout)
		if want := fmt.Sprintf("timed out after %s; the child's process group was killed (raise --timeout)", timeout); o.Rep.Status != results.StatusTimeout || o.Rep.Error != want {
			t.Errorf("status %q error %q", o.Rep.Status, o.Rep.Error)
		}
	}
	if _, ok := o.Rep.Metrics.Lookup("x"); ok || o.Rep.Metrics.Get("real") <= 0 {
		t.Errorf("metrics %v: want the process metrics only", o.Rep.Metrics)
	}
	assertDead(t, "the grandchild", pid)
}

// TestRunRepGrandchildKilled: a grandchild that outlives a child which
// reported its result is killed with the group; the repetition is ok.
func TestRunRepGrandchildKilled(t *testing.T) {
	o, pid := runTestChild(t, context.Background(), nil, "orphan", time.Minute)
	if o.Rep.Status != results.StatusOK || o.Rep.Metrics.Get("x") != 1 {
		t.Errorf("rep %+v", o.Rep)
	}
	assertDead(t, "the grandchild", pid)
}

// TestRunRepInterrupted: cancelling ctx kills the group and says so.
func TestRunRepInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	o, pid := runTestChild(t, ctx, nil, "hang", time.Minute)
	if o.Rep.Status != results.StatusInterrupted || o.Rep.Error != "interrupted; the child's process group was killed" {
		t.Errorf("status %q error %q", o.Rep.Status, o.Rep.Error)
	}
	if pid != 0 { // cancelled before the child forked: nothing to check
		assertDead(t, "the grandchild", pid)
	}
}

// TestChildRuntimeQuietDuringCall: the child runs its workload with one P
// (GOMAXPROCS 1), so that a long cgo call has the Go runtime's threads
// asleep: sysmon hands the call's P off at its second look and then sleeps
// until the call returns. With a second, idle P sysmon kept waking every
// 20 us or so for the call's first 10 ms (about 60 sleeps on a quiet
// 2-CPU machine, each preempting a worker of a busy timed region: faultme
// at 1-4 threads 7-15% slower than the original, issue 24). The runtime's
// few steps of the hand-off are allowed: 4-7 sleeps were seen at load 12,
// 23 once under the race detector beside another test run; at most 30
// pass (the defect made about 60 every time). A loaded machine can add
// sleeps to one call (34 were seen beside a kernel build at load 4), so
// the fewest of up to three calls is judged: the defect is in every call,
// the load's sleeps are not. Not under the race detector, whose own work
// changes what the runtime's threads do.
func TestChildRuntimeQuietDuringCall(t *testing.T) {
	if raceOn {
		t.Skip("the race detector's work is in the runtime's sleeps")
	}
	fewest := math.Inf(1)
	for try := 0; try < 3 && fewest > 30; try++ {
		o, _ := runTestChild(t, context.Background(), nil, "quiet", time.Minute)
		if o.Rep.Status != results.StatusOK {
			t.Fatalf("rep %+v", o.Rep)
		}
		if got := o.Rep.Metrics.Get("x"); got != 1 {
			t.Fatalf("GOMAXPROCS in the workload: %v, want 1", got)
		}
		fewest = math.Min(fewest, o.Rep.Metrics.Get("switches"))
	}
	if fewest > 30 {
		t.Errorf("the runtime's threads slept at least %v times during a 50 ms call (the fewest of 3 calls), want at most 30", fewest)
	}
}

// TestRunRepSignalDescribed: a child killed by a signal is a failed
// repetition naming the signal.
func TestRunRepSignalDescribed(t *testing.T) {
	o, _ := runTestChild(t, context.Background(), nil, "kill", time.Minute)
	if o.Rep.Status != results.StatusFailed || o.Rep.Error != "the child was killed by signal SIGKILL" {
		t.Errorf("status %q error %q", o.Rep.Status, o.Rep.Error)
	}
}

// TestEvidenceOncePerRepetition: the collectors of the context are
// started on each workload child and stopped once per repetition, their
// metrics and notes in it, and released once when the child cannot start.
// (internal/external's TestEvidenceOncePerProgram checks programs.)
func TestEvidenceOncePerRepetition(t *testing.T) {
	c := &testutil.CountingCollector{}
	ctx, set := context.Background(), &evidence.Set{Active: []evidence.Collector{c}}
	for i := 1; i <= 2; i++ {
		o, _ := runTestChild(t, ctx, set, "ok", time.Minute)
		if o.Rep.Status != results.StatusOK || o.Rep.Metrics.Get("k.test.starts") != float64(i) || !strings.Contains(strings.Join(o.Rep.Notes, "|"), "counted") {
			t.Errorf("repetition %d: %+v", i, o.Rep)
		}
	}
	if len(c.Starts) != 2 || c.Stops != 2 || c.Starts[0] == c.Starts[1] {
		t.Errorf("starts %v, stops %d: want one start (on each child) and one stop per repetition", c.Starts, c.Stops)
	}
	old := Executable
	defer func() { Executable = old }()
	Executable = func() (string, error) { return "/nonexistent/contend", nil }
	w, _ := workload.Lookup("harness-test")
	o := RunRep(ctx, w, workload.Values{}, time.Minute, set)
	if o.Rep.Status != results.StatusFailed || !strings.HasPrefix(o.Rep.Error, "cannot start the repetition child: ") {
		t.Errorf("missing binary: %+v", o.Rep)
	}
	if len(c.Starts) != 2 || c.Stops != 3 {
		t.Errorf("after a failed start: starts %v, stops %d: want the collector released once, not started", c.Starts, c.Stops)
	}
}

// shSpec runs script with /bin/sh, the report pipe on fd 3.
func shSpec(script string, timeout time.Duration) Spec {
	return Spec{Argv: []string{"/bin/sh", "-c", script}, Env: os.Environ(), Report: true,
		Timeout: timeout, DeathSignal: syscall.SIGKILL, Who: "program"}
}

// reportedPid returns the pid of the report line "pid N".
func reportedPid(t *testing.T, e Ended) int {
	t.Helper()
	for _, l := range e.Report {
		if p, ok := strings.CutPrefix(l, "pid "); ok {
			n, _ := strconv.Atoi(p)
			return n
		}
	}
	t.Fatalf("no pid in the report %q", e.Report)
	return 0
}

// TestSpawnWaitsOutsideSyscalls: while Spawn waits for its child, no
// goroutine of contend sits in a system call: the wait is parked in the
// netpoller on a pidfd (awaitExit), not blocked in waitid, which kept a P
// and so had sysmon wake every 20 us or so for the first 10 ms of every
// repetition, on the CPUs the repetition ran on.
func TestSpawnWaitsOutsideSyscalls(t *testing.T) {
	ready := t.TempDir() + "/ready"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Ended, 1)
	go func() { done <- Spawn(ctx, shSpec(`: >`+ready+`; exec sleep 60`, time.Minute)) }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not start in 30 s")
		}
	}
	// The child runs until cancelled: Spawn is past its start and waits.
	sample := []metrics.Sample{{Name: "/sched/goroutines/not-in-go:goroutines"}}
	var seen []uint64
	for i := 0; i < 5; i++ {
		time.Sleep(50 * time.Millisecond)
		metrics.Read(sample)
		seen = append(seen, sample[0].Value.Uint64())
	}
	cancel()
	if e := <-done; e.Rep.Status != results.StatusInterrupted {
		t.Errorf("status %q, want interrupted", e.Rep.Status)
	}
	for _, n := range seen {
		if n != 0 {
			t.Errorf("goroutines in a system call or cgo call while Spawn waited: %v, want 0 each time", seen)
			break
		}
	}
}

// TestSpawnTimeoutKillsGroup: at the timeout the whole group dies, a
// background process of the child included, and the output written
// before is kept.
func TestSpawnTimeoutKillsGroup(t *testing.T) {
	for timeout := 300 * time.Millisecond; timeout < time.Minute; timeout *= 2 {
		var out strings.Builder
		s := shSpec(`sleep 100 & echo "pid $!" >&3; echo before; sleep 100`, timeout)
		s.Stdout, s.Stderr = &out, &out
		e := Spawn(context.Background(), s)
		if want := fmt.Sprintf("timed out after %s; the program's process group was killed (raise --timeout)", timeout); e.Rep.Status != results.StatusTimeout || e.Rep.Error != want {
			t.Errorf("status %q error %q", e.Rep.Status, e.Rep.Error)
		}
		if len(e.Report) == 0 || out.String() == "" {
			continue // the shell did not get there in time: again, longer
		}
		if out.String() != "before\n" || e.OutputCut {
			t.Errorf("output %q, cut %v", out.String(), e.OutputCut)
		}
		assertDead(t, "the background process", reportedPid(t, e))
		return
	}
	t.Fatal("the shell never reported its background process")
}

// TestSpawnProcessHoldsOutput: a process that is not the repetition's
// (started before it, so not killed with its leftovers) and holds its
// output pipe (opened through /proc/PID/fd/1) does not hold the runner:
// the output is cut after the grace period, and said.
func TestSpawnProcessHoldsOutput(t *testing.T) {
	defer func(g time.Duration) { outputGrace = g }(outputGrace)
	outputGrace = 200 * time.Millisecond
	var out strings.Builder
	dir := t.TempDir()
	pidFile, held := dir+"/pid", dir+"/held"
	outsider := exec.Command("/bin/sh", "-c", `while [ ! -s `+pidFile+` ]; do sleep 0.01; done; exec 9>/proc/$(cat `+pidFile+`)/fd/1; echo x >`+held+`; exec sleep 100`)
	if err := outsider.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { outsider.Process.Kill(); outsider.Wait() }()
	s := shSpec(`echo $$ >`+pidFile+`; while [ ! -s `+held+` ]; do sleep 0.01; done; echo done`, time.Minute)
	s.Stdout, s.Stderr = &out, &out
	e := Spawn(context.Background(), s)
	if e.Rep.Status != "" || e.Wait != nil || !e.OutputCut || out.String() != "done\n" {
		t.Errorf("status %q wait %v cut %v output %q", e.Rep.Status, e.Wait, e.OutputCut, out.String())
	}
	if n := strings.Join(e.Rep.Notes, "|"); !strings.Contains(n, "a process that is not the program's still held its output open; output cut there") {
		t.Errorf("notes %q", n)
	}
}

// leftBelow lists the processes below this test process that were not
// there before (pid -> "pid (state, comm)"), from the parent field of
// every /proc/*/stat: independent of the harness's own walk.
func leftBelow(before map[int]bool) map[int]string {
	type st struct {
		ppid        int
		state, comm string
	}
	all := map[int]st{}
	ents, _ := os.ReadDir("/proc")
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + de.Name() + "/stat")
		if err != nil {
			continue
		}
		x := string(b)
		i, j := strings.IndexByte(x, '('), strings.LastIndexByte(x, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(x[j+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		all[pid] = st{ppid, f[0], x[i+1 : j]}
	}
	out := map[int]string{}
	self := os.Getpid()
	for pid, p := range all {
		for q, n := p.ppid, 0; q > 1 && n < 64; q, n = all[q].ppid, n+1 {
			if q == self {
				if !before[pid] {
					out[pid] = fmt.Sprintf("%d (%s, %s)", pid, p.state, p.comm)
				}
				break
			}
		}
	}
	return out
}

func below() map[int]bool {
	m := map[int]bool{}
	for pid := range leftBelow(nil) {
		m[pid] = true
	}
	return m
}

// TestSpawnKillsWhatLeftTheGroup: processes a program moved out of its
// process group (setsid), directly or through a parent that exited (a
// daemon's double fork), are killed and reaped after the repetition, on a
// normal end and on a timeout: no process made by the repetition is left
// below contend, and the note says how many were killed. A process below
// contend from before the repetition is left alone.
func TestSpawnKillsWhatLeftTheGroup(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	BecomeSubreaper()
	old := exec.Command("sleep", "100") // below contend before the repetition
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { old.Process.Kill(); old.Wait() }()
	for _, end := range []string{"normal", "timeout"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			// Two processes leave the group: a setsid sleep, and one whose
			// setsid parent exits (reparented to contend). The script
			// waits until both have.
			script := `setsid sh -c 'echo x >` + dir + `/a; exec sleep 100' 3>&- &
sh -c 'setsid sh -c "echo x >` + dir + `/b; exec sleep 100" 3>&- &' 3>&-
while [ ! -s ` + dir + `/a ] || [ ! -s ` + dir + `/b ]; do sleep 0.01; done
echo ready >&3`
			timeout := time.Minute
			if end == "timeout" {
				script += "\nexec sleep 100"
				timeout = 500 * time.Millisecond // doubled until the script is ready in time
			}
			for ; ; timeout *= 2 {
				before := below()
				e := Spawn(context.Background(), shSpec(script, timeout))
				if end == "timeout" && (len(e.Report) == 0 || e.Rep.Status != results.StatusTimeout) {
					if timeout > time.Minute {
						t.Fatalf("the program never got ready before its timeout: %q %v", e.Rep.Status, e.Report)
					}
					continue // not ready in time: again, longer
				}
				if end == "normal" && (e.Rep.Status != "" || e.Wait != nil || len(e.Report) == 0) {
					t.Fatalf("status %q wait %v report %q", e.Rep.Status, e.Wait, e.Report)
				}
				left := leftBelow(before)
				if len(left) > 0 {
					var l []string
					for _, s := range left {
						l = append(l, s)
					}
					t.Errorf("processes of the repetition left below contend: %s; notes %q", strings.Join(l, ", "), e.Rep.Notes)
					for pid := range left {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
				if n := strings.Join(e.Rep.Notes, "|"); !strings.Contains(n, "killed 2 processes that the program left running outside its process group (pid ") {
					t.Errorf("notes %q, want 2 processes killed", n)
				}
				if e.OutputCut {
					t.Errorf("output cut: the processes holding it were killed")
				}
				break
			}
			if err := syscall.Kill(old.Process.Pid, 0); err != nil {
				t.Errorf("the process from before the repetition was killed: %v", err)
			}
		})
	}
}

// TestSpawnSignalAndMetrics: a child killed by a signal is described by
// its wait status; the process metrics are there.
func TestSpawnSignalAndMetrics(t *testing.T) {
	var errOut strings.Builder
	s := shSpec(`echo last words >&2; kill -SEGV $$`, 0)
	s.Stderr = &errOut
	e := Spawn(context.Background(), s)
	if got := describeExit(e.Wait, errOut.String()); got != "the child was killed by signal SIGSEGV: last words" {
		t.Errorf("describeExit = %q", got)
	}
	for _, m := range workload.ProcessMetrics {
		if _, ok := e.Rep.Metrics.Lookup(m.Name); !ok {
			t.Errorf("process metric %s missing: %v", m.Name, e.Rep.Metrics)
		}
	}
	e = Spawn(context.Background(), Spec{Argv: []string{"/nonexistent/prog"}, Who: "program"})
	if e.StartErr == nil || e.Rep.Status != results.StatusFailed || e.Rep.Metrics != nil {
		t.Errorf("missing program: %+v", e)
	}
}

// holdingCollector needs the child stopped at its first instruction and
// takes hold to start, as the lock tracer's tracefs setup does.
type holdingCollector struct {
	testutil.CountingCollector
	hold time.Duration
}

func (h *holdingCollector) NeedsStop() bool { return true }

func (h *holdingCollector) Start(pid int) error {
	time.Sleep(h.hold)
	return h.CountingCollector.Start(pid)
}

// TestHeldChildIsNotTimed: the time a child sits stopped while a collector
// attaches is contend's, so it is not in the repetition's real time.
func TestHeldChildIsNotTimed(t *testing.T) {
	const hold = 300 * time.Millisecond
	c := &holdingCollector{hold: hold}
	spec := shSpec("exit 0", time.Minute)
	spec.Evidence = &evidence.Set{Active: []evidence.Collector{c}}
	begin := time.Now()
	e := Spawn(context.Background(), spec)
	wall := time.Since(begin)
	if e.Rep.Status != "" || e.Wait != nil || len(c.Starts) != 1 {
		t.Fatalf("status %q error %q wait %v, starts %v", e.Rep.Status, e.Rep.Error, e.Wait, c.Starts)
	}
	if real := time.Duration(e.Rep.Metrics.Get("real")); real <= 0 || real > wall-hold {
		t.Errorf("real %v with the child held %v of a %v spawn: want the hold left out", real, hold, wall)
	}
}

// BenchmarkLeftoverWalk is what every repetition now pays outside its
// timed region when it left nothing: the list of contend's descendants
// before the start and the sweep after the group kill.
func BenchmarkLeftoverWalk(b *testing.B) {
	for b.Loop() {
		before := takeSnapshot()
		if killed, left := before.killLeftovers(time.Second); len(killed)+len(left) > 0 {
			b.Fatalf("killed %v, left %v", killed, left)
		}
	}
}

// orphanBurnerSrc forks a child that burns 30 ms of its own CPU time,
// tells the parent over a pipe and waits forever; the parent exits as soon
// as it hears, without waiting for the child, which is left in the process
// group for Spawn to kill and reap as subreaper.
const orphanBurnerSrc = `#include <signal.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	int p[2];
	char c = 'x';

	if (pipe(p))
		return 2;
	if (fork() == 0) {
		struct timespec t;

		do
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		while (t.tv_sec == 0 && t.tv_nsec < 30000000);
		write(p[1], &c, 1);
		for (;;)
			pause();
	}
	if (read(p[0], &c, 1) != 1)
		return 3;
	return 0;
}
`

// TestTreeCPUHasTheReapedOrphan: k.tree_cpu is the CPU time of every
// process Spawn reaped, the orphan its group kill reaps included, which
// the child's own rusage (cpu) lacks: at least 30 ms more here, by the
// orphan's own CPU clock.
func TestTreeCPUHasTheReapedOrphan(t *testing.T) {
	prog := testutil.BuildC(t, orphanBurnerSrc)
	set := evidence.Open([]string{"sched"})
	defer set.Close()
	if !strings.HasPrefix(set.Avail["sched"], "available") {
		t.Skipf("sched %s", set.Avail["sched"])
	}
	e := Spawn(context.Background(), Spec{Argv: []string{prog}, Env: os.Environ(), Timeout: time.Minute, DeathSignal: syscall.SIGKILL, Who: "program", Evidence: set})
	if e.Rep.Status != "" || e.Wait != nil {
		t.Fatalf("status %q error %q wait %v", e.Rep.Status, e.Rep.Error, e.Wait)
	}
	m := e.Rep.Metrics.Map()
	if m["k.tree_cpu"] < m["cpu"]+30e6 {
		t.Errorf("k.tree_cpu %v ns, the child's cpu %v ns: want the orphan's 30 ms of CPU besides", m["k.tree_cpu"], m["cpu"])
	}
	if m["k.threads"] != 2 {
		t.Errorf("k.threads %v, want 2 (the child and its orphan)", m["k.threads"])
	}
}
