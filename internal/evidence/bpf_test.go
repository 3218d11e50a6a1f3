package evidence

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"

	"contend/internal/testsize"
	"contend/internal/tracejournal"
)

// mmapIters is how many pages each of mmapC's threads maps: 5,000, or
// 20,000 at the full size (internal/testsize). A rw-semaphore taken for
// writing by 8 threads is contended at either size.
var mmapIters = testsize.Pick(5000, 20000)

// mmapC has 8 threads map, touch and unmap a page ITERS times each
// (mmapIters): every mmap and munmap takes the process's mmap_lock for
// writing, so the threads contend for it (on 2 CPUs as on 200).
const mmapC = `
#include <pthread.h>
#include <sys/mman.h>
static void *run(void *a)
{
	for (int i = 0; i < ITERS; i++) {
		char *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 0;
		p[0] = 1;
		munmap(p, 4096);
	}
	return a;
}
int main(void)
{
	pthread_t t[8];
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], 0, run, 0);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], 0);
	return 0;
}
`

// futexC has a thread wait on a futex that the main thread wakes after a
// 150 ms sleep, which starts once the waiter is asleep in FUTEX_WAIT (its
// state S in /proc: the only call of the waiter that blocks). The wait
// (no time-out) is then at least the sleep, however late a loaded machine
// runs the waiter.
const futexC = `
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static int word, tid;
static void *waiter(void *a)
{
	__atomic_store_n(&tid, (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&word, __ATOMIC_SEQ_CST) == 0)
		syscall(SYS_futex, &word, FUTEX_WAIT, 0, 0, 0, 0);
	return a;
}
static int asleep(int id)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", id);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, waiter, 0);
	while (__atomic_load_n(&tid, __ATOMIC_SEQ_CST) == 0 || !asleep(tid))
		sched_yield();
	struct timespec ts = {0, 150000000};
	nanosleep(&ts, 0);
	__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &word, FUTEX_WAKE, 1, 0, 0, 0);
	pthread_join(t, 0);
	return 0;
}
`

func buildC(t *testing.T, name, src string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("gcc", "-O1", "-pthread", "-o", bin, c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

func needBPF(t *testing.T) {
	t.Helper()
	if err := bpfAllowed(true); err != nil {
		t.Skip(err)
	}
}

// TestLockBPFNamesTheMmapLock: threads that map and unmap pages contend
// for their process's mmap_lock: the BPF lock collector says so, by
// name, as the lock of the largest wait, with its callers named outside
// the locking functions, and its per-kind totals are the sums of the
// per-lock ones.
func TestLockBPFNamesTheMmapLock(t *testing.T) {
	needBPF(t)
	bin := buildC(t, "mmapc", fmt.Sprintf("#define ITERS %d\n", mmapIters)+mmapC)
	m, notes, _ := runGated(t, []string{"lock"}, bin)
	if len(notes) > 0 {
		t.Errorf("notes: %v", notes)
	}
	if m[LockContended+"mmap_lock"] <= 0 {
		t.Fatalf("no contention on mmap_lock recorded: %v", lockMetrics(m))
	}
	top, topWait := "", -1.0
	sumWait, sumCount := 0.0, 0.0
	for k, v := range m {
		if strings.HasPrefix(k, LockWait) && v > topWait {
			top, topWait = strings.TrimPrefix(k, LockWait), v
		}
	}
	if top != "mmap_lock" {
		t.Errorf("top lock by wait %q, want mmap_lock: %v", top, lockMetrics(m))
	}
	for _, k := range lockKinds {
		sumWait += m["k.lock."+k.name+".wait"]
		sumCount += m["k.lock."+k.name+".count"]
	}
	if m["k.lock.rwsem_write.count"] <= 0 {
		t.Errorf("no rw-semaphore write contention (munmap takes mmap_lock for writing): %v", lockMetrics(m))
	}
	if c := m[LockContended+"mmap_lock"]; c > sumCount {
		t.Errorf("mmap_lock contended %v times, more than all kinds together (%v)", c, sumCount)
	}
	if w := m[LockMaxWait+"mmap_lock"]; w <= 0 || w > m[LockWait+"mmap_lock"] {
		t.Errorf("mmap_lock max wait %v outside (0, total %v]", w, m[LockWait+"mmap_lock"])
	}
	if a := m[LockAvgWait+"mmap_lock"]; a <= 0 || a > m[LockMaxWait+"mmap_lock"] {
		t.Errorf("mmap_lock average wait %v outside (0, max %v]", a, m[LockMaxWait+"mmap_lock"])
	}
	// The callers, estimated from the sampled stacks, share out the
	// locks' exact counts and waits: where no more than lockTop callers
	// and locks were kept, they add up to the same totals.
	callers, locks := 0, 0
	var locksN, locksW, callersN, callersW float64
	for k, v := range m {
		if _, ok := strings.CutPrefix(k, LockContended); ok {
			locks++
			locksN += v
			locksW += m[LockWait+strings.TrimPrefix(k, LockContended)]
		}
		if c, ok := strings.CutPrefix(k, LockCallerContended); ok {
			callersN += v
			callersW += m[LockCallerWait+c]
			callers++
			for _, p := range []string{"rwsem_", "down_", "_raw_", "queued_"} {
				if strings.HasPrefix(c, p) {
					t.Errorf("caller %q is a locking function", c)
				}
			}
		}
	}
	if callers == 0 {
		t.Errorf("no callers: %v", lockMetrics(m))
	}
	kept := callers < lockTop && locks < lockTop
	if kept && (math.Abs(callersN-locksN) > 1e-6*locksN || math.Abs(callersW-locksW) > 1e-6*locksW) {
		t.Errorf("callers share out %v contentions and %v ns, the locks have %v and %v: %v", callersN, callersW, locksN, locksW, lockMetrics(m))
	}
	t.Logf("BPF: %v", lockMetrics(m))
	// The tracefs collector on the same workload: counts of the same
	// order (logged, not asserted: contention counts move with the load),
	// at the full size only.
	if !testsize.Full() {
		return
	}
	if s := Open([]string{"locktrace"}); strings.HasPrefix(s.Avail["locktrace"], "available") {
		s.Close()
		tm, _, _ := runGated(t, []string{"locktrace"}, bin)
		t.Logf("tracefs: rwsem_write %v contentions, %v ns; BPF: %v, %v ns", tm["k.lock.rwsem_write.count"], tm["k.lock.rwsem_write.wait"], m["k.lock.rwsem_write.count"], m["k.lock.rwsem_write.wait"])
	} else {
		s.Close()
	}
}

func lockMetrics(m map[string]float64) string {
	var b strings.Builder
	for k, v := range m {
		if strings.HasPrefix(k, "k.lock.") && v != 0 {
			fmt.Fprintf(&b, "%s=%g ", k, v)
		}
	}
	return b.String()
}

// TestOffcpuSleep: a child that sleeps 200 ms is blocked at least 190 ms
// (the timer's slack is late, never early), and runnable for less than
// the sleep.
func TestOffcpuSleep(t *testing.T) {
	needBPF(t)
	m, notes, _ := runGated(t, []string{"offcpu"}, "/bin/sleep", "0.2")
	if len(notes) > 0 {
		t.Errorf("notes: %v", notes)
	}
	if b := m["k.offcpu.blocked"]; b < 190e6 {
		t.Errorf("k.offcpu.blocked %v ns, want >= 190 ms for a 200 ms sleep", b)
	}
	if m["k.offcpu.sleeps"] < 1 {
		t.Errorf("k.offcpu.sleeps %v, want >= 1", m["k.offcpu.sleeps"])
	}
	if d := m["k.offcpu.blocked_d"]; d > m["k.offcpu.blocked"] {
		t.Errorf("uninterruptible part %v above all of blocked %v", d, m["k.offcpu.blocked"])
	}
	t.Logf("%v", m)
}

// TestOffcpuFutex: a thread that waits on a futex for the main thread's
// 150 ms sleep shows at least 140 ms of futex wait, in at least one wait;
// both threads' sleeps are blocked time (at least 280 ms together). The
// sleep starts once the waiter is blocked: at load 22 a waiter that
// started its wait 12 ms late failed the bound (138.5 ms).
func TestOffcpuFutex(t *testing.T) {
	needBPF(t)
	bin := buildC(t, "futexc", futexC)
	m, notes, _ := runGated(t, []string{"offcpu"}, bin)
	if len(notes) > 0 {
		t.Errorf("notes: %v", notes)
	}
	if w := m["k.offcpu.futex_wait"]; w < 140e6 {
		t.Errorf("k.offcpu.futex_wait %v ns, want >= 140 ms", w)
	}
	if n := m["k.offcpu.futex_waits"]; n < 1 {
		t.Errorf("k.offcpu.futex_waits %v, want >= 1", n)
	}
	if b := m["k.offcpu.blocked"]; b < 280e6 {
		t.Errorf("k.offcpu.blocked %v ns, want >= 280 ms (two threads asleep 150 ms each)", b)
	}
	t.Logf("%v", m)
}

// TestBPFRefusedFallsBack: where BPF is not allowed, lock is the tracefs
// collector and says why in its header line; offcpu is not available,
// with the reason in one line.
func TestBPFRefusedFallsBack(t *testing.T) {
	t.Setenv("CONTEND_TEST_EVIDENCE", "no-bpf")
	s := Open([]string{"lock", "offcpu"})
	defer s.Close()
	if got := s.Avail["offcpu"]; got != "not available: BPF not allowed (injected)" {
		t.Errorf("offcpu: %q", got)
	}
	got := s.Avail["lock"]
	if strings.HasPrefix(got, "available") {
		if !strings.Contains(got, "tracefs, not BPF: BPF not allowed (injected)") {
			t.Errorf("lock fell back without saying why: %q", got)
		}
		if _, ok := s.Active[0].(*lock); !ok {
			t.Errorf("lock is %T, want the tracefs collector", s.Active[0])
		}
	} else if !strings.Contains(got, "BPF: BPF not allowed (injected); tracefs: ") || strings.Contains(got, "\n") {
		t.Errorf("lock refused without both reasons in one line: %q", got)
	}
}

// TestLockAndLocktraceRefused: the two lock collectors record the same
// metrics, so --evidence refuses them together.
func TestLockAndLocktraceRefused(t *testing.T) {
	_, err := Parse("lock,locktrace")
	if err == nil || !strings.Contains(err.Error(), "lock and locktrace cannot be combined") {
		t.Errorf("Parse(lock,locktrace) = %v", err)
	}
}

// TestBPFHelperKilled: a process that has attached the lock and offcpu
// programs and is killed with SIGKILL leaves none of them loaded (the
// links and programs are its file descriptors).
func TestBPFHelperKilled(t *testing.T) {
	if os.Getenv("CONTEND_TEST_BPF_HELPER") == "1" {
		bpfHelper()
		return
	}
	needBPF(t)
	// The programs attach to tracepoints, whose ids are read from
	// tracefs: without it neither collector loads any (they are "not
	// available", which other tests check).
	if _, err := tracejournal.FindRoot(); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBPFHelperKilled$")
	cmd.Env = append(os.Environ(), "CONTEND_TEST_BPF_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var ids []ebpf.ProgramID
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if line == "attached" {
			break
		}
		if id, ok := strings.CutPrefix(line, "prog "); ok {
			n, _ := strconv.Atoi(id)
			ids = append(ids, ebpf.ProgramID(n))
		}
	}
	if len(ids) < 9 {
		t.Fatalf("the helper reported %d programs (%v), want the 3 of lock and 6 of offcpu", len(ids), ids)
	}
	for _, id := range ids {
		if !progLoaded(id) {
			t.Fatalf("program %d not loaded while the helper runs", id)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// Programs are freed after an RCU grace period: wait up to 10 s.
	deadline := time.Now().Add(10 * time.Second)
	for _, id := range ids {
		for progLoaded(id) {
			if time.Now().After(deadline) {
				t.Fatalf("program %d still loaded 10 s after the helper's SIGKILL", id)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// progLoaded tells whether a program of id is in the kernel's
// enumeration (bpf(BPF_PROG_GET_NEXT_ID)).
func progLoaded(id ebpf.ProgramID) bool {
	cur := ebpf.ProgramID(0)
	for {
		next, err := ebpf.ProgramGetNextID(cur)
		if err != nil {
			return false
		}
		if next == id {
			return true
		}
		cur = next
	}
}

// bpfHelper opens lock and offcpu, starts them on a sleeping child,
// prints the programs' ids and "attached", and waits to be killed.
func bpfHelper() {
	s := Open([]string{"lock", "offcpu"})
	child := exec.Command("/bin/sleep", "60")
	if _, err := Start(s, child); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for _, c := range s.Active {
		switch c := c.(type) {
		case *lockBPF:
			printIDs(c.objs.OnFork, c.objs.OnBegin, c.objs.OnEnd)
		case *offcpu:
			printIDs(c.objs.OnFork, c.objs.OnSwitch, c.objs.OnWakeup, c.objs.OnWakeupNew, c.objs.OnFutexEnter, c.objs.OnFutexExit)
		}
	}
	fmt.Println("attached")
	time.Sleep(time.Minute)
	child.Process.Kill()
	os.Exit(0)
}

func printIDs(ps ...*ebpf.Program) {
	for _, p := range ps {
		info, err := p.Info()
		if err != nil {
			continue
		}
		if id, ok := info.ID(); ok {
			fmt.Println("prog", id)
		}
	}
}

// TestOffcpuRepetitionsApart: the maps are emptied between repetitions
// of one set: a /bin/true after a 200 ms sleep carries none of the
// sleep's blocked time.
func TestOffcpuRepetitionsApart(t *testing.T) {
	needBPF(t)
	s := Open([]string{"offcpu"})
	defer s.Close()
	if !strings.HasPrefix(s.Avail["offcpu"], "available") {
		t.Skip(s.Avail["offcpu"])
	}
	var got []float64
	for _, argv := range [][]string{{"/bin/sleep", "0.2"}, {"/bin/true"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		ev, err := Start(s, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		m, _ := ev.Stop()
		got = append(got, m["k.offcpu.blocked"])
	}
	if got[0] < 190e6 || got[1] >= 150e6 {
		t.Errorf("blocked %v ns then %v ns: want >= 190 ms for the sleep, < 150 ms for /bin/true after it", got[0], got[1])
	}
}
