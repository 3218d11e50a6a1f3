package evidence

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// TestLockKindOf: the flags of lock:contention_begin map to the kinds the
// tracefs collector names from their text.
func TestLockKindOf(t *testing.T) {
	for flags, want := range map[uint32]string{
		0: "spinlock", lcbSpin: "spinlock", lcbSpin | lcbRead: "rwlock", lcbSpin | lcbWrite: "rwlock",
		lcbRead: "rwsem_read", lcbWrite: "rwsem_write", lcbMutex: "mutex", lcbMutex | lcbSpin: "mutex",
		lcbRT: "rtmutex", lcbPercpu | lcbRead: "percpu_rwsem",
	} {
		if got := lockKindOf(flags); got != want {
			t.Errorf("lockKindOf(%#x) = %q, want %q", flags, got, want)
		}
	}
}

// fakeSyms is a symbol table: text from 0x1000, lock text 0x2000-0x3000,
// data from 0x10000.
func fakeSyms() *kallsyms {
	return &kallsyms{
		addrs:    []uint64{0x1000, 0x1100, 0x2000, 0x2100, 0x3000, 0x10000, 0x10040, 0x20000},
		names:    []string{"_stext", "do_mmap", "__lock_text_start", "_raw_spin_lock", "rwsem_down_write_slowpath", "jiffies_lock", "big_table", "_end"},
		kinds:    []byte{'t', 't', 't', 't', 't', 'd', 'b', 'b'},
		lockText: [2]uint64{0x2000, 0x3000},
		stext:    0x1000,
		end:      0x20000,
	}
}

// TestKallsymsNames: a caller is the first frame outside the locking
// functions (lock text, or a name of one); a static lock is named by its
// data symbol, with the offset within 4 KiB, else not at all (a heap
// address, or too far from a symbol to be in it).
func TestKallsymsNames(t *testing.T) {
	k := fakeSyms()
	if got := k.caller([]uint64{0x2108, 0x3010, 0x1104, 0x1008}); got != "do_mmap" {
		t.Errorf("caller = %q, want do_mmap", got)
	}
	if got := k.caller([]uint64{0x2108, 0}); got != "_raw_spin_lock" {
		t.Errorf("caller of an all-locking stack = %q, want its last frame", got)
	}
	if got := k.caller(nil); got != "unknown" {
		t.Errorf("caller of no stack = %q", got)
	}
	for a, want := range map[uint64]string{
		0x10000: "jiffies_lock", 0x10008: "jiffies_lock+0x8", 0x10040: "big_table", 0x10040 + 4096: "",
		0x1100: "", 0xffff888000000000: "",
	} {
		if got := k.data(a); got != want {
			t.Errorf("data(%#x) = %q, want %q", a, got, want)
		}
	}
}

// TestAggregateLocks: locks sum per kind and per lock, callers per
// caller; only the lockTop largest total waits of each are kept, with
// their average.
func TestAggregateLocks(t *testing.T) {
	locks := []lockAgg{
		{"mmap_lock", "", "rwsem_write", 15, 1500, 400},
		{"mmap_lock", "", "rwsem_read", 2, 20, 15},
	}
	callers := []lockAgg{
		{"mmap_lock", "__vm_munmap", "rwsem_write", 10, 1000, 300},
		{"mmap_lock", "vm_mmap_pgoff", "rwsem_write", 5, 500, 400},
		{"mmap_lock", "lock_mm_and_find_vma", "rwsem_read", 2, 20, 15},
	}
	for i := 0; i < 2*lockTop; i++ {
		r := lockAgg{fmt.Sprintf("spinlock@f%02d", i), fmt.Sprintf("f%02d", i), "spinlock", 1, float64(i + 1), float64(i + 1)}
		locks, callers = append(locks, r), append(callers, r)
	}
	m := aggregateLocks(locks, callers)
	want := map[string]float64{
		"k.lock.rwsem_write.count": 15, "k.lock.rwsem_write.wait": 1500, "k.lock.rwsem_write.max_wait": 400,
		"k.lock.rwsem_read.count": 2, "k.lock.spinlock.count": 2 * lockTop, "k.lock.mutex.count": 0,
		LockContended + "mmap_lock": 17, LockWait + "mmap_lock": 1520, LockMaxWait + "mmap_lock": 400, LockAvgWait + "mmap_lock": 1520.0 / 17,
		LockCallerContended + "__vm_munmap": 10, LockCallerWait + "vm_mmap_pgoff": 500, LockCallerAvgWait + "__vm_munmap": 100,
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	nLocks, nCallers := 0, 0
	for k := range m {
		if len(k) > len(LockContended) && k[:len(LockContended)] == LockContended {
			nLocks++
		}
		if len(k) > len(LockCallerContended) && k[:len(LockCallerContended)] == LockCallerContended {
			nCallers++
		}
	}
	if nLocks != lockTop || nCallers != lockTop {
		t.Errorf("%d locks and %d callers kept, want %d of each", nLocks, nCallers, lockTop)
	}
	// The smallest waits are the ones left out.
	if _, ok := m[LockContended+"spinlock@f00"]; ok {
		t.Error("the smallest wait was kept")
	}
	if _, ok := m[LockContended+fmt.Sprintf("spinlock@f%02d", 2*lockTop-1)]; !ok {
		t.Error("the largest spinlock wait was left out")
	}
}

// TestShareCallers: a lock's exact count and wait are shared out by its
// callers' shares of its sampled contentions, merged per caller (two
// stacks, one caller), the most sampled first; a caller's max is its
// sampled one; with no sample, one caller, unknown, has it all.
func TestShareCallers(t *testing.T) {
	lock := lockAgg{lock: "mmap_lock", kind: "rwsem_write", count: 160, total: 16000, max: 900}
	sampled := []lockAgg{
		{caller: "vm_mmap_pgoff", count: 2, total: 100, max: 60},
		{caller: "__vm_munmap", count: 5, total: 250, max: 80},
		{caller: "vm_mmap_pgoff", count: 1, total: 50, max: 70},
	}
	got := shareCallers(lock, sampled)
	want := []lockAgg{
		{caller: "__vm_munmap", count: 100, total: 10000, max: 80},
		{caller: "vm_mmap_pgoff", count: 60, total: 6000, max: 70},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shareCallers = %+v, want %+v", got, want)
	}
	// Waits of 0 (a clock too coarse): the wait goes by the counts.
	got = shareCallers(lockAgg{count: 4, total: 40}, []lockAgg{{caller: "a", count: 3}, {caller: "b", count: 1}})
	if got[0].caller != "a" || got[0].count != 3 || got[0].total != 30 || got[1].total != 10 {
		t.Errorf("shareCallers with no sampled wait = %+v", got)
	}
	got = shareCallers(lock, nil)
	if len(got) != 1 || got[0].caller != "unknown" || got[0].count != 160 || got[0].total != 16000 || got[0].max != 900 {
		t.Errorf("shareCallers with no sample = %+v", got)
	}
}

// perCPUSyms is fakeSyms with a per-CPU section at 0x40000-0x50000
// holding runqueues (0x40000) and hrtimer_bases (0x41000), as a kernel
// whose per-CPU symbols are linked at kernel addresses has it.
func perCPUSyms() *kallsyms {
	k := fakeSyms()
	k.addrs = append(k.addrs, 0x40000, 0x40000, 0x41000, 0x50000)
	k.names = append(k.names, "__per_cpu_start", "runqueues", "hrtimer_bases", "__per_cpu_end")
	k.kinds = append(k.kinds, 'd', 'd', 'd', 'd')
	k.perCPU = [2]uint64{0x40000, 0x50000}
	k.perCPUOffset = 0x10080
	return k
}

// TestPerCPULockNames: a lock in CPU c's per-CPU area (the template
// address plus c's offset) is named by the per-CPU symbol it is in, the
// same for every CPU; an address in no CPU's area, or with no offsets,
// is not named.
func TestPerCPULockNames(t *testing.T) {
	k := perCPUSyms()
	offs := []uint64{0xffff888000000000, 0xffff888000100000}
	for a, want := range map[uint64]string{
		0xffff888000040000:           "runqueues",         // CPU 0's rq->__lock
		0xffff888000140000:           "runqueues",         // CPU 1's
		0xffff888000140040:           "runqueues+0x40",    // further in CPU 1's rq
		0xffff888000041008:           "hrtimer_bases+0x8", // another per-CPU symbol
		0xffff888000060000:           "",                  // past the section
		0xffff888000200000 + 0x40000: "",                  // a CPU that is not there
		0xffff8880dead0000:           "",                  // the heap
	} {
		if got := k.perCPUData(a, offs); got != want {
			t.Errorf("perCPUData(%#x) = %q, want %q", a, got, want)
		}
	}
	if got := k.perCPUData(0xffff888000040000, nil); got != "" {
		t.Errorf("with no offsets: %q, want none", got)
	}
	// A zero-based per-CPU section (x86-64 before 6.15: the symbols are
	// offsets from 0) names the same way.
	z := &kallsyms{
		addrs:  []uint64{0, 0x2a000, 0x30000, 0xffffffff81000000},
		names:  []string{"__per_cpu_start", "runqueues", "__per_cpu_end", "_stext"},
		kinds:  []byte{'a', 'd', 'a', 't'},
		perCPU: [2]uint64{0, 0x30000},
		stext:  0xffffffff81000000,
	}
	if got := z.perCPUData(0xffff88803fc2a000, []uint64{0xffff88803fa00000, 0xffff88803fc00000}); got != "runqueues" {
		t.Errorf("zero-based per-CPU: %q, want runqueues", got)
	}
}

// TestLockNameByClass: the program's classes name mmap_lock and siglock
// whatever the address; a static lock is named by its symbol before a
// per-CPU one; an unknown address is left to its caller ("").
func TestLockNameByClass(t *testing.T) {
	l := &lockBPF{syms: perCPUSyms(), perCPU: &perCPU{rqLocks: map[uint64]bool{0xffff888077c2a000: true}, offsets: []uint64{0xffff888000000000}}}
	for _, c := range []struct {
		class uint32
		addr  uint64
		want  string
	}{
		{classMmapLock, 0, "mmap_lock"},
		{classSiglock, 0, "siglock"},
		{classFutexBucket, 0, "futex_hash_bucket"},
		{0, 0x10008, "jiffies_lock+0x8"},
		{0, 0xffff888000040000, "runqueues"},     // by the per-CPU symbol
		{0, 0xffff888077c2a000, "runqueues"},     // by the run queue's lock
		{0, 0xffff888000041000, "hrtimer_bases"}, // another per-CPU symbol
		{0, 0xffff8880dead0000, ""},
	} {
		if got := l.lockName(c.class, c.addr); got != c.want {
			t.Errorf("lockName(%d, %#x) = %q, want %q", c.class, c.addr, got, c.want)
		}
	}
}

// TestCPUListCount: a kernel CPU list spans its largest CPU plus one;
// what is not a list is an error.
func TestCPUListCount(t *testing.T) {
	for list, want := range map[string]int{"0": 1, "0-1": 2, "0-3,5": 6, "0,2-7": 8} {
		if got, err := cpuListCount(list); err != nil || got != want {
			t.Errorf("cpuListCount(%q) = %d, %v; want %d", list, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "0-"} {
		if _, err := cpuListCount(bad); err == nil {
			t.Errorf("cpuListCount(%q) took it", bad)
		}
	}
}

// sigC has 8 threads change their signal mask 200,000 times each: every
// rt_sigprocmask takes the process's sighand->siglock, shared by its
// threads, so they contend for it (on 2 CPUs as on 200).
const sigC = `
#include <pthread.h>
#include <signal.h>
static void *run(void *a)
{
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	for (int i = 0; i < 200000; i++) {
		pthread_sigmask(SIG_BLOCK, &s, &old);
		pthread_sigmask(SIG_SETMASK, &old, 0);
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

// runLockUntil runs bin with the lock collector up to 3 times, until
// lock is contended: whether two threads meet on a spinlock depends on
// their running at once, which a loaded machine of 2 CPUs allows less
// often (once in a few runs at load 13, one contention in all). Every
// run's locks taken from within are checked by check. Once a test has
// found that the kernel reports no spinlock contention (noSpinContention),
// the next ones skip without running their workload 4 times again (the
// cheapest workload, the run queues', comes first).
func runLockUntil(t *testing.T, bin, lock string, check func(m map[string]float64)) map[string]float64 {
	t.Helper()
	if noSpinContention != "" {
		t.Skip(noSpinContention + " (found by an earlier test)")
	}
	var m map[string]float64
	spins := 0.0
	for try := 0; try < 3; try++ {
		var notes []string
		m, notes, _ = runGated(t, []string{"lock"}, bin)
		if len(notes) > 0 {
			t.Errorf("notes: %v", notes)
		}
		check(m)
		if m[LockContended+lock] > 0 {
			return m
		}
		t.Logf("run %d: no contention on %s: %v", try+1, lock, lockMetrics(m))
		spins += m["k.lock.spinlock.count"]
	}
	// A kernel in a VM without paravirt spinlocks spins in
	// virt_spin_lock, before lock:contention_begin: no spinlock
	// contention is ever reported. Skip only where the tracefs collector,
	// reading the same tracepoint, sees none either.
	if spins == 0 {
		if s := Open([]string{"locktrace"}); strings.HasPrefix(s.Avail["locktrace"], "available") {
			s.Close()
			tm, _, _ := runGated(t, []string{"locktrace"}, bin)
			if tm["k.lock.spinlock.count"] == 0 {
				noSpinContention = "this kernel reports no spinlock contention to lock:contention_begin (tracefs saw none either: a VM whose spinlocks spin in virt_spin_lock, without paravirt spinlocks, never reaches the tracepoint)"
				t.Skip(noSpinContention)
			}
			t.Logf("tracefs: %v", lockMetrics(tm))
		} else {
			s.Close()
		}
	}
	t.Fatalf("no contention on %s recorded in 3 runs", lock)
	return nil
}

// noSpinContention is why the spinlock tests skip, once one of them has
// found that the kernel reports no spinlock contention ("" until then).
var noSpinContention string

// TestPerCPURunQueuesLocated: the per-CPU program locates one run-queue
// lock per possible CPU, each its own (each CPU has its area), where the
// kernel groups CFS tasks (CONFIG_FAIR_GROUP_SCHED); the collector's
// header then says nothing is missing.
func TestPerCPURunQueuesLocated(t *testing.T) {
	needBPF(t)
	syms, err := readKallsyms()
	if err != nil {
		t.Skip(err)
	}
	pc, err := readPerCPU(syms)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("/sys/devices/system/cpu/possible")
	n, _ := cpuListCount(strings.TrimSpace(string(b)))
	if len(pc.rqLocks) != n {
		t.Fatalf("%d run-queue locks for %d possible CPUs: %v", len(pc.rqLocks), n, pc.rqLocks)
	}
	s := Open([]string{"lock"})
	defer s.Close()
	if a := s.Avail["lock"]; strings.Contains(a, "run-queue") {
		t.Errorf("lock collector: %q", a)
	}
}

// wakeC has 4 pairs of threads wake each other through futexes 50,000
// times a pair: with the machine's CPUs busy, a wakeup takes the run
// queue lock of the wakee's CPU, which that CPU takes to switch: the
// threads contend for the run queues' locks.
const wakeC = `
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
struct pair { int turn; };
static struct pair pairs[4];
static void *run(void *a)
{
	long id = (long)a;
	struct pair *p = &pairs[id / 2];
	int me = id % 2;
	for (int i = 0; i < 50000; i++) {
		while (__atomic_load_n(&p->turn, __ATOMIC_ACQUIRE) != me)
			syscall(SYS_futex, &p->turn, FUTEX_WAIT_PRIVATE, !me, 0, 0, 0);
		__atomic_store_n(&p->turn, !me, __ATOMIC_RELEASE);
		syscall(SYS_futex, &p->turn, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
	}
	return 0;
}
int main(void)
{
	pthread_t t[8];
	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], 0, run, (void *)i);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], 0);
	return 0;
}
`

// TestLockBPFNamesTheRunQueues: threads that wake each other contend for
// the run queues' locks, which the collector names runqueues (the
// per-CPU symbol they are in) whichever CPU's they are, never by a
// caller.
func TestLockBPFNamesTheRunQueues(t *testing.T) {
	needBPF(t)
	bin := buildC(t, "wakec", wakeC)
	m := runLockUntil(t, bin, "runqueues", func(m map[string]float64) {
		for k := range m {
			// __task_rq_lock takes a run queue's lock and no other.
			if c, ok := strings.CutPrefix(k, LockContended); ok && c == "spinlock@__task_rq_lock" {
				t.Errorf("a run-queue lock is named by its caller (%s), not runqueues", c)
			}
		}
	})
	t.Logf("BPF: %v", lockMetrics(m))
}

// TestLockBPFNamesTheSiglock: threads that change their signal masks
// contend for their process's siglock: the BPF collector names it
// siglock (through the task's sighand_struct, by BTF), as the lock of
// the largest wait, a spinlock; never by its caller.
func TestLockBPFNamesTheSiglock(t *testing.T) {
	needBPF(t)
	bin := buildC(t, "sigc", sigC)
	m := runLockUntil(t, bin, "siglock", func(m map[string]float64) {
		for k := range m {
			if c, ok := strings.CutPrefix(k, LockContended); ok && strings.HasPrefix(c, "spinlock@") && strings.Contains(c, "sigprocmask") {
				t.Errorf("a lock taken from sigprocmask is named by its caller (%s), not siglock", c)
			}
		}
	})
	top, topWait := "", -1.0
	for k, v := range m {
		if strings.HasPrefix(k, LockWait) && v > topWait {
			top, topWait = strings.TrimPrefix(k, LockWait), v
		}
	}
	if top != "siglock" {
		t.Errorf("top lock by wait %q, want siglock: %v", top, lockMetrics(m))
	}
	if m["k.lock.spinlock.count"] < m[LockContended+"siglock"] {
		t.Errorf("siglock contended %v times, more than the spinlocks (%v)", m[LockContended+"siglock"], m["k.lock.spinlock.count"])
	}
	t.Logf("BPF: %v", lockMetrics(m))
}

// futexWaitC has 8 threads call FUTEX_WAIT 200,000 times each on one
// futex word with a value it never has: every call takes the lock of
// the word's hash bucket to read the word, and returns at once, so the
// threads contend for that lock whenever two run at once (as a pthread
// mutex's waiters and wakers do, without needing the mutex contended).
const futexWaitC = `
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
static int word;
static void *run(void *a)
{
	for (int i = 0; i < 200000; i++)
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, 0, 0, 0);
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

// TestLockBPFNamesTheFutexBuckets: threads that wait on one futex
// contend for its hash bucket's lock, which the collector names
// futex_hash_bucket where the process has a hash of its own (Linux 6.16
// on: its BTF has mm_struct.futex_phash), never by the futex functions
// that take it.
func TestLockBPFNamesTheFutexBuckets(t *testing.T) {
	needBPF(t)
	if !kernelHasField("mm_struct", "futex_phash") {
		t.Skip("no private futex hash in this kernel (mm_struct.futex_phash)")
	}
	bin := buildC(t, "futexwait", futexWaitC)
	m := runLockUntil(t, bin, "futex_hash_bucket", func(m map[string]float64) {
		for k := range m {
			if c, ok := strings.CutPrefix(k, LockContended); ok && strings.HasPrefix(c, "spinlock@futex_") {
				t.Errorf("a futex bucket's lock is named by its caller (%s), not futex_hash_bucket", c)
			}
		}
	})
	t.Logf("BPF: %v", lockMetrics(m))
}

// kernelHasField tells whether the kernel's BTF has struct s with a
// member named field (in it or in an anonymous member of it).
func kernelHasField(s, field string) bool {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return false
	}
	var st *btf.Struct
	if spec.TypeByName(s, &st) != nil {
		return false
	}
	var has func(ms []btf.Member) bool
	has = func(ms []btf.Member) bool {
		for _, m := range ms {
			if m.Name == field {
				return true
			}
			if m.Name == "" {
				switch a := m.Type.(type) {
				case *btf.Struct:
					if has(a.Members) {
						return true
					}
				case *btf.Union:
					if has(a.Members) {
						return true
					}
				}
			}
		}
		return false
	}
	return has(st.Members)
}
