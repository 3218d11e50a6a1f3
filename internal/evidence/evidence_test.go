package evidence

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"contend/internal/results"
	"contend/internal/testutil"
)

func TestParse(t *testing.T) {
	ok := map[string][]string{
		"default":       Default,
		"none":          nil,
		"lock":          {"sched", "system", "lock"},
		"perf":          {"perf", "sched", "system"},
		"sched, perf":   {"perf", "sched"},
		"perf,lock":     {"perf", "sched", "system", "lock"},
		"default,lock":  {"sched", "system", "lock"},
		"default,hw":    {"hw", "sched", "system"},
		"system,system": {"system"},
	}
	for in, want := range ok {
		got, err := Parse(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", " ", "bogus", "perf,bogus", "none,lock", "perf,,sched"} {
		_, err := Parse(in)
		if err == nil || !strings.HasPrefix(err.Error(), "--evidence: ") || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "accepted:") {
			t.Errorf("Parse(%q) error %v: want a one-line --evidence error naming what is accepted", in, err)
		}
		if _, err := ParseFlag("--a-evidence", in); err == nil || !strings.HasPrefix(err.Error(), "--a-evidence: ") {
			t.Errorf("ParseFlag(--a-evidence, %q) error %v: want it named", in, err)
		}
	}
}

// TestDefaultAddsNothingToSwitches: no default collector puts a perf
// counter on the child's tasks. An inherited counter, whatever it
// counts, makes every context switch of those tasks switch perf
// contexts too (+7% CPU time for a pipe ping-pong here, more than 1% of
// osim); the defaults get CPU time and context switches from taskstats.
func TestDefaultAddsNothingToSwitches(t *testing.T) {
	s := Open(Default)
	defer s.Close()
	for _, c := range s.Active {
		if _, ok := c.(*perf); ok {
			t.Errorf("default collector %s opens perf counters inherited by the child", c.Name())
		}
	}
	for _, name := range []string{"k.tree_cpu", "k.csw", "k.runq_delay"} {
		found := false
		for _, m := range (&sched{}).Metrics() {
			found = found || m.Name == name
		}
		if !found {
			t.Errorf("the default sched collector lacks %s", name)
		}
	}
}

func TestLockKind(t *testing.T) {
	for flags, want := range map[string]string{
		"SPIN": "spinlock", "SPIN|READ": "rwlock", "SPIN|WRITE": "rwlock", "MUTEX": "mutex",
		"MUTEX|SPIN": "mutex", "READ": "rwsem_read", "WRITE": "rwsem_write",
		"PERCPU|READ": "percpu_rwsem", "RT": "rtmutex", "0x0": "spinlock",
	} {
		if got := lockKind(flags); got != want {
			t.Errorf("lockKind(%s) = %s, want %s", flags, got, want)
		}
	}
}

// A trace buffer as the kernel prints it (default options), with a
// nested spin inside a mutex wait, an end without its begin, and an
// mmap_lock acquisition pair per mode.
const sampleTrace = `# tracer: nop
#
# entries-in-buffer/entries-written: 12/15   #P:2
#
#                                _-----=> irqs-off/BH-disabled
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
         faultme-101     [000] .....   100.000010: contention_begin: 0xffff88800001 (flags=MUTEX)
         faultme-101     [000] d..1.   100.000012: contention_begin: 0xffff88800002 (flags=SPIN)
         faultme-101     [000] d..1.   100.000015: contention_end: 0xffff88800002 (ret=0)
 my-worker thread-102    [001] .....   100.000020: contention_begin: 0xffff88800003 (flags=READ)
         faultme-101     [000] .....   100.000030: contention_end: 0xffff88800001 (ret=0)
 my-worker thread-102    [001] .....   100.000120: contention_end: 0xffff88800003 (ret=0)
         faultme-103     [001] .....   100.000130: contention_end: 0xffff88800009 (ret=0)
         faultme-101     [000] .....   100.000200: mmap_lock_start_locking: mm=00000000aa memcg_id=1 write=false
         faultme-101     [000] .....   100.000203: mmap_lock_acquire_returned: mm=00000000aa memcg_id=1 write=false success=true
         faultme-101     [000] .....   100.000300: mmap_lock_start_locking: mm=00000000aa memcg_id=1 write=true
         faultme-101     [000] .....   100.000310: mmap_lock_acquire_returned: mm=00000000aa memcg_id=1 write=true success=true
         faultme-101     [000] .....   100.000400: mmap_lock_released: mm=00000000aa memcg_id=1 write=true
`

func TestAggregateTrace(t *testing.T) {
	m, lost := aggregateTrace(sampleTrace, true)
	if lost != 3 {
		t.Errorf("lost %d, want 3 (15 written, 12 in the buffer)", lost)
	}
	want := map[string]float64{
		"k.lock.mutex.count": 1, "k.lock.mutex.wait": 20000, "k.lock.mutex.max_wait": 20000,
		"k.lock.spinlock.count": 1, "k.lock.spinlock.wait": 3000, "k.lock.spinlock.max_wait": 3000,
		"k.lock.rwsem_read.count": 1, "k.lock.rwsem_read.wait": 100000,
		"k.lock.mmap_read.count": 1, "k.lock.mmap_read.wait": 3000,
		"k.lock.mmap_write.count": 1, "k.lock.mmap_write.wait": 10000, "k.lock.mmap_write.max_wait": 10000,
		"k.lock.rwsem_write.count": 0, "k.lock.rtmutex.count": 0,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	// Every metric the collector declares is in every repetition.
	l := &lock{mmap: true}
	for _, md := range l.Metrics() {
		if _, ok := m[md.Name]; !ok {
			t.Errorf("declared metric %s missing from the aggregate", md.Name)
		}
	}
	if len(m) != len(l.Metrics()) {
		t.Errorf("%d metrics, %d declared", len(m), len(l.Metrics()))
	}
}

func TestSumTree(t *testing.T) {
	self := 1
	recs := []exitRec{
		{pid: 10, tgid: 10, ppid: uint32(self), cpuDelay: 1, cpuCount: 3},   // the child
		{pid: 11, tgid: 10, ppid: uint32(self), cpuDelay: 2, cpuCount: 1},   // its thread
		{pid: 30, tgid: 30, ppid: 20, cpuDelay: 4, cpuCount: 5},             // grandchild, exits before its parent's record
		{pid: 20, tgid: 20, ppid: 10, cpuDelay: 8, cpuCount: 2},             // child's child
		{pid: 40, tgid: 40, ppid: uint32(self), cpuDelay: 16, cpuCount: 11}, // orphan reparented to contend
		{pid: 50, tgid: 50, ppid: 99, cpuDelay: 32, cpuCount: 7},            // unrelated
	}
	m := sumTree(recs, 10, self, false)
	// cpu_count is nvcsw + nivcsw + 1 at the record: the switches are
	// (3-1) + (1-1) + (5-1) + (2-1) + (11-1) = 17 over 5 threads.
	if m["k.runq_delay"] != 31 || m["k.csw"] != 17 || m["k.threads"] != 5 {
		t.Errorf("got %v, want delay 31, 17 switches, 5 threads", m)
	}
	if _, ok := m["k.tree_cpu"]; ok {
		t.Error("CPU time summed from the exit records (they lack each thread's exit)")
	}
	if _, ok := m["k.blkio_delay"]; ok {
		t.Error("I/O delay reported with delay accounting off")
	}
	if m := sumTree([]exitRec{{pid: 10, tgid: 10, ppid: 1}}, 10, self, false); m["k.csw"] != 0 || m["k.threads"] != 1 {
		t.Errorf("a record without sched_info (cpu_count 0): %v, want 0 switches, 1 thread", m)
	}
}

// TestUnavailableByInjection reaches every "not available" path.
func TestUnavailableByInjection(t *testing.T) {
	t.Setenv("CONTEND_TEST_EVIDENCE", "no-perf,no-hw,no-taskstats,no-tracefs,no-bpf")
	s := Open([]string{"perf", "faults", "hw", "sched", "system", "lock", "offcpu"})
	defer s.Close()
	for name, want := range map[string]string{
		"perf":   "not available: perf_event_open: no permission",
		"faults": "not available: perf_event_open: no permission",
		"hw":     "not available: no hardware performance counters",
		"sched":  "not available: taskstats",
		"lock":   "not available: BPF: BPF not allowed (injected); tracefs: tracefs is not mounted",
		"offcpu": "not available: BPF not allowed (injected)",
	} {
		if !strings.HasPrefix(s.Avail[name], want) {
			t.Errorf("%s: %q, want prefix %q", name, s.Avail[name], want)
		}
	}
	if len(s.Active) != 1 || s.Active[0].Name() != "system" || len(s.Unavailable()) != 6 {
		t.Errorf("active %d, unavailable %v", len(s.Active), s.Unavailable())
	}
	for _, m := range s.Metrics() {
		if !IsSystemWide(m.Name) {
			t.Errorf("metric %s of an unavailable collector declared", m.Name)
		}
	}
}

func TestDelayAcctOffByInjection(t *testing.T) {
	t.Setenv("CONTEND_TEST_EVIDENCE", "no-delayacct")
	s := Open([]string{"sched"})
	defer s.Close()
	if len(s.Active) != 1 {
		t.Skipf("taskstats not available here: %s", s.Avail["sched"])
	}
	if !strings.Contains(s.Avail["sched"], "delay accounting off") {
		t.Errorf("header %q does not say delay accounting is off", s.Avail["sched"])
	}
	for _, m := range s.Metrics() {
		if m.Name == "k.blkio_delay" {
			t.Error("I/O delay declared with delay accounting off")
		}
	}
}

// runGated runs argv through Start with the collectors names and returns
// the evidence and the child's rusage.
func runGated(t *testing.T, names []string, argv ...string) (map[string]float64, []string, *syscall.Rusage) {
	t.Helper()
	s := Open(names)
	defer s.Close()
	for _, n := range names {
		if !strings.HasPrefix(s.Avail[n], "available") {
			t.Skipf("%s %s", n, s.Avail[n])
		}
	}
	return runSet(t, s, argv...)
}

// runSet runs argv under the collectors of s, as runGated does.
func runSet(t *testing.T, s *Set, argv ...string) (map[string]float64, []string, *syscall.Rusage) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ev, err := Start(s, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	m, notes := ev.Stop()
	return m, notes, cmd.ProcessState.SysUsage().(*syscall.Rusage)
}

// TestForkingChildCountedInFull: a shell that forks and execs 20
// processes is counted with all of them (inherit), and the scheduler
// records include every process.
func TestForkingChildCountedInFull(t *testing.T) {
	script := "i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i+1)); done"
	m, notes, ru := runGated(t, []string{"perf", "faults", "sched"}, "/bin/sh", "-c", script)
	if len(notes) > 0 {
		t.Errorf("notes: %v", notes)
	}
	// rusage covers the shell and the children it waited for: perf must
	// count the same faults, within the kernel's own accounting noise.
	minflt := float64(ru.Minflt)
	if got := m["k.minor_faults"]; got < 0.9*minflt || got > 1.1*minflt {
		t.Errorf("perf minor faults %v, rusage of the shell and its children %v", got, minflt)
	}
	cpu := float64(ru.Utime.Nano() + ru.Stime.Nano())
	if got := m["k.task_clock"]; got < 0.5*cpu {
		t.Errorf("task clock %v ns, rusage cpu %v ns: the children are not counted", got, cpu)
	}
	// k.tree_cpu is the change of this process's RUSAGE_CHILDREN, which
	// reaped only the shell (and the shell its 20 children): the shell's
	// rusage, but for the truncation of each timeval to the microsecond.
	if got := m["k.tree_cpu"]; got < cpu || got > cpu+2000 {
		t.Errorf("k.tree_cpu %v ns, rusage of the shell and its children %v ns: want the same to 2 µs", got, cpu)
	}
	// One exit record per process (sh and /bin/true have one thread).
	if m["k.threads"] != 21 {
		t.Errorf("k.threads %v, want 21 (the shell and its 20 children)", m["k.threads"])
	}
	// The switches before each record, never more than rusage's, which
	// counts them until the thread is released (and the last switch of
	// each process).
	if got, csw := m["k.csw"], float64(ru.Nvcsw+ru.Nivcsw); got > csw {
		t.Errorf("switches %v, more than rusage of the shell and its children %v", got, csw)
	}
	// Only the shell: far fewer faults.
	m1, _, _ := runGated(t, []string{"faults"}, "/bin/sh", "-c", ":")
	if m1["k.minor_faults"]*5 > m["k.minor_faults"] {
		t.Errorf("a lone shell takes %v faults, with 20 children %v", m1["k.minor_faults"], m["k.minor_faults"])
	}
}

// threadsSrc starts argv[1] threads that each sleep a few times, read
// their own context switches (/proc/thread-self/status) as the last thing
// before they end, and are joined; main adds its own, read after the
// joins, and prints the sum.
const threadsSrc = `#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long switches(void)
{
	char line[256];
	long n = 0, v;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		exit(3);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 || sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

static void *thread(void *arg)
{
	for (int i = 0; i < 3; i++)
		usleep(200);
	*(long *)arg = switches();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = atoi(argv[1]);
	pthread_t *t = calloc(n, sizeof(*t));
	long *sw = calloc(n, sizeof(*sw)), sum = 0;

	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread, &sw[i]))
			return 2;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		sum += sw[i];
	}
	printf("%ld\n", sum + switches());
	return 0;
}
`

// TestSwitchesAndCPUOfKnownThreads: a process of 40 threads and main has
// 41 exit records; its threads' context switches before their records are
// at least what each read of itself just before its end, and at most what
// rusage counts (until the thread is released, and the last switch of
// the process); k.tree_cpu is the rusage CPU time. On the code before, the
// switches were cpu_count summed (nvcsw + nivcsw + 1 per thread, above
// rusage by about one a thread) and the CPU time cpu_run_virtual_total
// (each thread's last slice and the address-space teardown missing).
func TestSwitchesAndCPUOfKnownThreads(t *testing.T) {
	prog := testutil.BuildC(t, threadsSrc, "-pthread")
	s := Open([]string{"sched"})
	defer s.Close()
	if !strings.HasPrefix(s.Avail["sched"], "available") {
		t.Skipf("sched %s", s.Avail["sched"])
	}
	const threads = 40
	cmd := exec.Command(prog, strconv.Itoa(threads))
	var out strings.Builder
	cmd.Stdout = &out
	ev, err := Start(s, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	m, notes := ev.Stop()
	if len(notes) > 0 {
		t.Errorf("notes: %v", notes)
	}
	seen, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64)
	if err != nil {
		t.Fatalf("the program's output %q: %v", out.String(), err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	csw := float64(ru.Nvcsw + ru.Nivcsw)
	cpu := float64(ru.Utime.Nano() + ru.Stime.Nano())
	if m["k.threads"] != threads+1 {
		t.Errorf("k.threads %v, want %d", m["k.threads"], threads+1)
	}
	if got := m["k.csw"]; got < seen || got > csw {
		t.Errorf("k.csw %v, want at least the %v the threads saw of themselves and at most rusage's %v", got, seen, csw)
	}
	if got := m["k.tree_cpu"]; got < cpu || got > cpu+2000 {
		t.Errorf("k.tree_cpu %v ns, rusage %v ns: want the same to 2 µs", got, cpu)
	}
	t.Logf("threads %v, switches: seen %v, k.csw %v, rusage %v; CPU: k.tree_cpu %v, rusage %v", m["k.threads"], seen, m["k.csw"], csw, m["k.tree_cpu"], cpu)
}

// TestStartWithoutCollectors starts the child as before.
func TestStartWithoutCollectors(t *testing.T) {
	cmd := exec.Command("/bin/true")
	ev, err := Start(nil, cmd)
	if err != nil || cmd.Wait() != nil {
		t.Fatal(err)
	}
	if m, notes := ev.Stop(); len(m) != 0 || len(notes) != 0 {
		t.Errorf("evidence without a set: %v %v", m, notes)
	}
}

// fakeTracefs makes a tracefs-like tree with the files the lock collector
// touches and returns a function reading them all.
func fakeTracefs(t *testing.T) (string, func() map[string]string) {
	root := t.TempDir()
	files := map[string]string{
		beginEvent: "0\n", endEvent: "0\n", mmapStart: "0\n", mmapDone: "0\n",
		"set_event_pid": "", "options/event-fork": "0\n", "tracing_on": "1\n", "trace": "# tracer: nop\n", "set_event": "",
	}
	for f, v := range files {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(v), 0o644)
	}
	t.Setenv("CONTEND_TRACEFS", root)
	return root, func() map[string]string {
		out := map[string]string{}
		for f := range files {
			if f == "trace" {
				continue
			}
			b, _ := os.ReadFile(filepath.Join(root, f))
			out[f] = string(b)
		}
		return out
	}
}

func TestLockRestoresTracefs(t *testing.T) {
	root, state := fakeTracefs(t)
	before := state()
	// lock without BPF is the tracefs collector, and says why.
	t.Setenv("CONTEND_TEST_EVIDENCE", "no-bpf")
	s0 := Open([]string{"lock"})
	if len(s0.Active) != 1 || !strings.Contains(s0.Avail["lock"], "tracefs, not BPF: BPF not allowed (injected)") {
		t.Fatalf("lock without BPF: %s", s0.Avail["lock"])
	}
	s0.Close()
	s := Open([]string{"locktrace"})
	if len(s.Active) != 1 {
		t.Fatalf("lock collector: %s", s.Avail["locktrace"])
	}
	// A second run cannot use tracefs at the same time.
	s2 := Open([]string{"locktrace"})
	if !strings.Contains(s2.Avail["locktrace"], "another contend run") {
		t.Errorf("second open: %q", s2.Avail["locktrace"])
	}
	l := s.Active[0]
	if err := l.Start(4242); err != nil {
		t.Fatal(err)
	}
	during := state()
	if strings.TrimSpace(during["set_event_pid"]) != "4242" || strings.TrimSpace(during[beginEvent]) != "1" || strings.TrimSpace(during["options/event-fork"]) != "1" {
		t.Errorf("during a repetition: %v", during)
	}
	os.WriteFile(filepath.Join(root, "trace"), []byte(sampleTrace), 0o644)
	m, notes, err := l.Stop()
	if err != nil || m["k.lock.mutex.count"] != 1 || len(notes) != 1 {
		t.Errorf("stop: %v %v %v", m, notes, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := state(); !reflect.DeepEqual(after, before) {
		t.Errorf("tracefs not restored:\nbefore %q\nafter  %q", before, after)
	}
	// The lock is released.
	s3 := Open([]string{"locktrace"})
	defer s3.Close()
	if len(s3.Active) != 1 {
		t.Errorf("after close: %s", s3.Avail["locktrace"])
	}
}

func TestLockRefusesBusyTracefs(t *testing.T) {
	root, _ := fakeTracefs(t)
	os.WriteFile(filepath.Join(root, "set_event"), []byte("sched:sched_switch\n"), 0o644)
	s := Open([]string{"locktrace"})
	defer s.Close()
	if !strings.Contains(s.Avail["locktrace"], "tracefs is in use") {
		t.Errorf("busy tracefs: %q", s.Avail["locktrace"])
	}
}

func TestPerfReasonPermission(t *testing.T) {
	err := perfReason("perf", unix.EACCES)
	if !strings.Contains(err.Error(), "perf_event_paranoid") {
		t.Errorf("permission reason %q does not name perf_event_paranoid", err)
	}
}

// TestDocsBalanced: every text of `contend help evidence` closes the
// parentheses it opens, and the singular descriptions are whole words.
func TestDocsBalanced(t *testing.T) {
	balanced := func(s string) bool {
		depth := 0
		for _, r := range s {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
				if depth < 0 {
					return false
				}
			}
		}
		return depth == 0
	}
	for _, d := range Docs() {
		if !balanced(d.Text) {
			t.Errorf("%s: unbalanced parentheses: %q", d.Name, d.Text)
		}
		for _, m := range d.Metrics {
			if !balanced(m.Desc) {
				t.Errorf("%s: unbalanced parentheses: %q", m.Name, m.Desc)
			}
		}
	}
	// "for writing", not "for writeing": a gerund made by appending "ing"
	// to the verb (the mmap_lock metrics were).
	for _, d := range Docs() {
		for _, m := range d.Metrics {
			for _, w := range strings.FieldsFunc(m.Desc, func(r rune) bool { return r < 'a' || r > 'z' }) {
				if strings.HasSuffix(w, "eing") && w != "being" && w != "seeing" && w != "freeing" {
					t.Errorf("%s: misspelt %q in %q", m.Name, w, m.Desc)
				}
			}
		}
	}
	if ms := (&lock{mmap: true}).Metrics(); !slices.ContainsFunc(ms, func(m results.Metric) bool {
		return m.Name == "k.lock.mmap_write.count" && strings.Contains(m.Desc, "acquisitions for writing by")
	}) {
		t.Error("k.lock.mmap_write.count does not say 'for writing'")
	}
	for _, m := range (&lock{}).Metrics() {
		if m.Name == "k.lock.mutex.max_wait" && m.Desc != "longest wait on a contended kernel mutex (including optimistic spinning)" {
			t.Errorf("%s: %q", m.Name, m.Desc)
		}
	}
}

// TestAwaitStop: a child killed while it is being started, before
// Rep.Start waits for its stop at exec, is left for cmd.Wait, which
// reports SIGKILL (the wait for the stop reaped it: Wait said ECHILD);
// a child that stops has its stop taken, and runs on once let go.
func TestAwaitStop(t *testing.T) {
	runtime.LockOSThread() // the tracer is this thread
	defer runtime.UnlockOSThread()
	start := func() *exec.Cmd {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	cmd := start()
	unix.Kill(cmd.Process.Pid, unix.SIGKILL)
	if ended, err := awaitStop(cmd.Process.Pid); !ended || err != nil {
		t.Errorf("killed child: awaitStop = %v, %v; want ended", ended, err)
	}
	werr := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		t.Fatalf("Wait = %v, want the child's end", werr)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("wait status %v, want killed by SIGKILL", ws)
	}

	cmd = start()
	if ended, err := awaitStop(cmd.Process.Pid); ended || err != nil {
		t.Fatalf("stopped child: awaitStop = %v, %v", ended, err)
	}
	if err := unix.PtraceDetach(cmd.Process.Pid); err != nil {
		t.Fatalf("detach: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("let go: Wait = %v, want exit 0", err)
	}
}

// TestSystemVmstatCounters: the system collector keeps the vmstat counters
// a fault or a change of memory shows in, among them the huge zero page's
// (faultme --thp huge maps it: thp_fault_alloc stays 0), sums pgalloc_*
// and allocstall_* over the zones, declares only what the kernel has, and
// describes every metric it declares.
func TestSystemVmstatCounters(t *testing.T) {
	root := t.TempDir()
	write := func(vmstat string) {
		if err := os.WriteFile(filepath.Join(root, "vmstat"), []byte(vmstat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("nr_free_pages 1000\npgalloc_dma 1\npgalloc_dma32 10\npgalloc_normal 100\npgfree 50\npgfault 7\n" +
		"thp_fault_alloc 0\nthp_zero_page_alloc 0\nthp_zero_page_alloc_failed 0\nallocstall_normal 2\nallocstall_movable 3\n")
	t.Setenv("CONTEND_TEST_PROC", root)
	s, err := openSystem()
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, m := range s.Metrics() {
		declared[m.Name] = true
		if len(m.Desc) < 20 || !strings.HasPrefix(m.Desc, "system-wide ") {
			t.Errorf("%s: description %q", m.Name, m.Desc)
		}
	}
	for _, want := range []string{"k.sys.pgalloc", "k.sys.pgfree", "k.sys.pgfault", "k.sys.thp_zero_page_alloc", "k.sys.thp_zero_page_alloc_failed", "k.sys.allocstall"} {
		if !declared[want] {
			t.Errorf("%s not declared: %v", want, declared)
		}
	}
	for _, absent := range []string{"k.sys.pgmajfault", "k.sys.numa_miss", "k.sys.nr_free_pages", "k.sys.pgalloc_normal"} {
		if declared[absent] {
			t.Errorf("%s declared, but the kernel has no such counter here", absent)
		}
	}
	if err := s.preStart(); err != nil {
		t.Fatal(err)
	}
	write("nr_free_pages 10\npgalloc_dma 1\npgalloc_dma32 12\npgalloc_normal 1124\npgfree 1074\npgfault 42\n" +
		"thp_fault_alloc 0\nthp_zero_page_alloc 1\nthp_zero_page_alloc_failed 0\nallocstall_normal 2\nallocstall_movable 4\n")
	m, _, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"k.sys.pgalloc": 1026, "k.sys.pgfree": 1024, "k.sys.pgfault": 35,
		"k.sys.thp_fault_alloc": 0, "k.sys.thp_zero_page_alloc": 1, "k.sys.thp_zero_page_alloc_failed": 0, "k.sys.allocstall": 1}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	// The help describes the same metrics.
	for _, d := range Docs() {
		if d.Name != "system" {
			continue
		}
		for _, dm := range d.Metrics {
			if strings.HasPrefix(dm.Name, "k.sys.thp_zero_page_alloc") && !strings.Contains(dm.Desc, "huge zero page") {
				t.Errorf("%s: %q", dm.Name, dm.Desc)
			}
		}
	}
}
