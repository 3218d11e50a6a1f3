package evidence

import (
	"fmt"

	"github.com/cilium/ebpf"

	"contend/internal/cpuset"
)

// Run is what a run will create, for the collectors to size themselves
// by: the most tasks (threads or processes) one repetition's child
// creates (0: unknown, defaultTasks per CPU are assumed) and the CPUs
// whose events the collectors see (0: the possible CPUs of this
// machine).
type Run struct {
	Tasks int64
	CPUs  int
}

// defaultTasks is the tasks per CPU assumed when a run does not say how
// many it creates (an external program, a sweep over threads): mmtests'
// futexbench goes to 64 threads a CPU; at least minTasks.
const (
	defaultTasks = 64
	minTasks     = 1024
)

// maxMapEntries bounds every sized map (a run of millions of tasks
// fails long before: pid_max is at most 4,194,304).
const maxMapEntries = 1 << 22

// bpfSizes are the entries of the BPF programs' maps of one run.
type bpfSizes struct {
	Tasks   int // tgids: every process and thread id of the child's tree
	Starts  int // lock's starts: contentions under way, one per task (and per CPU for interrupts)
	Locks   int // lock's waits: distinct contended locks
	Callers int // lock's callers and stacks: distinct (lock, stack) pairs sampled
	Offs    int // offcpu's offs: tasks switched out
	Futexes int // offcpu's futexes: tasks in a futex wait
	CPUs    int
}

// headroom is n with a quarter and a constant more: the child's own
// runtime threads, the launcher, tasks that exit and are replaced.
func headroom(n int64) int {
	return int(min(n+n/4+256, maxMapEntries))
}

// sizesFor sizes the maps for r: every task of the child's tree may be
// in tgids, in a contention (starts), switched out (offs) or in a futex
// wait at once; the locks contended are the tasks' own (one each, such
// as pi_lock or a futex bucket), the CPUs' (a run queue's, a few more
// per-CPU ones) and the machine's static ones; each lock is seen from a
// few callers, and each caller is one kernel stack.
func sizesFor(r Run) bpfSizes {
	cpus := r.CPUs
	if cpus <= 0 {
		cpus = possibleCPUs()
	}
	tasks := r.Tasks
	if tasks <= 0 {
		tasks = max(int64(defaultTasks)*int64(cpus), minTasks)
	}
	c := int64(cpus)
	locks := headroom(tasks + 4*c + 1024)
	return bpfSizes{
		Tasks:   headroom(tasks),
		Starts:  headroom(tasks + c),
		Locks:   locks,
		Callers: int(min(2*int64(locks), maxMapEntries)),
		Offs:    headroom(tasks + c),
		Futexes: headroom(tasks),
		CPUs:    cpus,
	}
}

// possibleCPUs is the number of CPUs the kernel may bring online (at
// least 1).
func possibleCPUs() int {
	cpus, err := cpuset.Possible("/")
	if err != nil || len(cpus) == 0 {
		return 1
	}
	return cpus[len(cpus)-1] + 1
}

// bytes estimates the kernel memory of the maps of both programs (a
// preallocated hash entry is its key and value, 8-byte aligned, and
// about 48 bytes of the kernel's; a stack is 16 frames of 8 bytes and a
// 16-byte header; the per-CPU counters 8 bytes a CPU).
func (s bpfSizes) bytes() int64 {
	const elem = 48
	hash := func(n, key, val int) int64 { return int64(n) * int64(elem+(key+7)/8*8+(val+7)/8*8) }
	return 2*hash(s.Tasks, 4, 1) + // lock's and offcpu's sets
		hash(s.Starts, 16, 24) + hash(s.Locks, 24, 24) + hash(s.Callers, 24, 24) +
		int64(s.Callers)*(16+16*8) +
		hash(s.Offs, 4, 16) + hash(s.Futexes, 4, 8) +
		int64(s.CPUs)*8*(2+1+7) // lost (2), tick, offcpu's totals
}

// String says the sizes in one line (the header's note).
func (s bpfSizes) String() string {
	return fmt.Sprintf("BPF maps for %d CPUs: %d task ids, %d contentions at once, %d locks, %d callers (about %d KiB)",
		s.CPUs, s.Tasks, s.Starts, s.Locks, s.Callers, (s.bytes()+1023)/1024)
}

// size sets the entries of the maps of spec named in entries (an
// unknown name is an error: the program and this list disagree).
func size(spec *ebpf.CollectionSpec, entries map[string]int) error {
	for name, n := range entries {
		m := spec.Maps[name]
		if m == nil {
			return fmt.Errorf("the BPF program has no map %s", name)
		}
		if n < 1 {
			n = 1
		}
		m.MaxEntries = uint32(n)
	}
	return nil
}
