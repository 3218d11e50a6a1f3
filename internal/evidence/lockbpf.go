package evidence

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cilium/ebpf/link"

	"contend/internal/bpfobj"
	"contend/internal/plural"
	"contend/internal/results"
)

// Lock identity families (BPF): per lock, and per first caller outside
// the locking functions, the contended acquisitions, total, longest and
// average wait.
const (
	LockContended       = "k.lock.contended."
	LockWait            = "k.lock.wait."
	LockMaxWait         = "k.lock.max_wait."
	LockAvgWait         = "k.lock.avg_wait."
	LockCallerContended = "k.lock.caller.contended."
	LockCallerWait      = "k.lock.caller.wait."
	LockCallerMaxWait   = "k.lock.caller.max_wait."
	LockCallerAvgWait   = "k.lock.caller.avg_wait."
)

// lockTop is the most locks, and the most callers, kept per repetition
// (the largest total wait first): every kept one is a metric of its own.
const lockTop = 10

// The flags of lock:contention_begin (LCB_F_* in
// include/trace/events/lock.h).
const (
	lcbSpin   = 1 << 0
	lcbRead   = 1 << 1
	lcbWrite  = 1 << 2
	lcbRT     = 1 << 3
	lcbPercpu = 1 << 4
	lcbMutex  = 1 << 5
)

// lockKindOf is the kind of lock the flags of contention_begin tell.
func lockKindOf(flags uint32) string {
	var fs []string
	for _, f := range []struct {
		bit  uint32
		name string
	}{{lcbSpin, "SPIN"}, {lcbRead, "READ"}, {lcbWrite, "WRITE"}, {lcbRT, "RT"}, {lcbPercpu, "PERCPU"}, {lcbMutex, "MUTEX"}} {
		if flags&f.bit != 0 {
			fs = append(fs, f.name)
		}
	}
	return lockKind(strings.Join(fs, "|"))
}

// The lock program's classes (CLASS_* in native/bpf/lock.bpf.c): the
// mmap_lock of the current task's mm, the siglock of its process's
// sighand_struct, a bucket's lock of its process's private futex hash
// (mm->futex_phash, Linux 6.16 on).
const (
	classMmapLock    = 1
	classSiglock     = 2
	classFutexBucket = 3
)

// lockBPF is the lock collector with identity: a BPF program on
// lock:contention_begin/end aggregates, in the kernel, the contentions
// of the child and its descendants per lock address (or class) and
// kernel stack; Stop names each lock (a static one by its symbol in
// /proc/kallsyms, a run queue's as runqueues, one in a per-CPU area by
// its per-CPU symbol where kallsyms lists those, the mmap_lock of a
// task's own mm as mmap_lock and its process's siglock as siglock, any
// other as KIND@CALLER) and each stack by its first caller
// outside the locking functions.
type lockBPF struct {
	objs  bpfobj.LockObjects
	syms  *kallsyms
	links []link.Link
	// perCPU locates the CPUs' per-CPU data (run-queue locks,
	// offsets); perCPUWhy says what of it could not be found.
	perCPU    *perCPU
	perCPUWhy string
}

func openLockBPF() (*lockBPF, error) {
	if err := bpfAllowed(true); err != nil {
		return nil, err
	}
	syms, err := readKallsyms()
	if err != nil {
		return nil, fmt.Errorf("cannot name locks and callers: %v", err)
	}
	l := &lockBPF{syms: syms}
	if err := bpfobj.LoadLockObjects(&l.objs, nil); err != nil {
		return nil, bpfLoadError(err)
	}
	// Probe the attachment as the repetitions will make it.
	ls, err := attach(l.tracepoints())
	if err != nil {
		l.objs.Close()
		return nil, err
	}
	detach(ls)
	if l.perCPU, err = readPerCPU(syms); err != nil {
		l.perCPUWhy = err.Error()
	}
	return l, nil
}

func (l *lockBPF) tracepoints() []tracepoint {
	return []tracepoint{
		{"sched", "sched_process_fork", l.objs.OnFork},
		{"lock", "contention_begin", l.objs.OnBegin},
		{"lock", "contention_end", l.objs.OnEnd},
	}
}

func (l *lockBPF) Name() string { return "lock" }

func (l *lockBPF) note() string {
	n := "BPF: lock:contention_begin/end aggregated in the kernel per lock and caller"
	if l.perCPUWhy != "" {
		n += "; run-queue locks are named by their callers: " + l.perCPUWhy
	}
	return n
}

// NeedsStop: the child's pid must be in the set before it forks.
func (l *lockBPF) NeedsStop() bool { return true }

func (l *lockBPF) Metrics() []results.Metric {
	ms := (&lock{}).Metrics() // the kinds, as the tracefs collector names them
	for i := range ms {
		ms[i].Desc = strings.Replace(ms[i].Desc, "(contention_begin to _end, microsecond timestamps)", "(contention_begin to _end, BPF, nanoseconds)", 1)
	}
	return append(ms,
		results.Metric{Name: LockContended + "*", Unit: "count", Better: "lower", Desc: "contended acquisitions of the kernel lock by the child's tasks (BPF on lock:contention_begin; a static lock by its symbol, one in a per-CPU area by its per-CPU symbol (runqueues: a run queue's lock), mmap_lock of the task's mm, siglock of its process, futex_hash_bucket its futex hash's buckets, else KIND@CALLER)"},
		results.Metric{Name: LockWait + "*", Unit: "ns", Better: "lower", Desc: "total wait on the contended kernel lock (contention_begin to _end)"},
		results.Metric{Name: LockMaxWait + "*", Unit: "ns", Better: "lower", Desc: "longest wait on the contended kernel lock"},
		results.Metric{Name: LockAvgWait + "*", Unit: "ns", Better: "lower", Desc: "average wait on the contended kernel lock (0 where a repetition had none)"},
		results.Metric{Name: LockCallerContended + "*", Unit: "count", Better: "lower", Desc: "contended kernel lock acquisitions from the caller (first frame of the kernel stack outside the locking functions)"},
		results.Metric{Name: LockCallerWait + "*", Unit: "ns", Better: "lower", Desc: "total wait on contended kernel locks taken from the caller"},
		results.Metric{Name: LockCallerMaxWait + "*", Unit: "ns", Better: "lower", Desc: "longest wait on a contended kernel lock taken from the caller"},
		results.Metric{Name: LockCallerAvgWait + "*", Unit: "ns", Better: "lower", Desc: "average wait on contended kernel locks taken from the caller (0 where a repetition had none)"},
	)
}

// Start empties the maps, puts the stopped child in the set and attaches
// the programs.
func (l *lockBPF) Start(pid int) error {
	if err := seed(l.objs.Tgids, pid); err != nil {
		return err
	}
	ls, err := attach(l.tracepoints())
	if err != nil {
		return err
	}
	l.links = ls
	return nil
}

// lockAgg is one row of the lock program's waits map, named.
type lockAgg struct {
	lock, caller, kind string
	count, total, max  uint64
}

// Stop detaches the programs and names and sums what they aggregated.
func (l *lockBPF) Stop() (map[string]float64, []string, error) {
	detach(l.links)
	l.links = nil
	defer clearMaps(l.objs.Tgids, l.objs.Starts, l.objs.Waits, l.objs.Stacks, l.objs.Lost)
	var rows []lockAgg
	var k bpfobj.LockAggKey
	var v bpfobj.LockAggVal
	it := l.objs.Waits.Iterate()
	callers := map[int32]string{}
	for it.Next(&k, &v) {
		kind := lockKindOf(k.Flags)
		caller, ok := callers[k.Stack]
		if !ok {
			caller = "unknown"
			if k.Stack >= 0 {
				var st [16]uint64
				if err := l.objs.Stacks.Lookup(uint32(k.Stack), &st); err == nil {
					caller = l.syms.caller(st[:])
				}
			}
			callers[k.Stack] = caller
		}
		name := l.lockName(k.Class, k.Addr)
		if name == "" {
			name = kind + "@" + caller
		}
		rows = append(rows, lockAgg{name, caller, kind, v.Count, v.Total, v.Max})
	}
	if err := it.Err(); err != nil {
		return nil, nil, fmt.Errorf("cannot read the BPF map of waits: %v", err)
	}
	m := aggregateLocks(rows)
	var notes []string
	if n := lostCount(l.objs.Lost); n > 0 {
		notes = append(notes, fmt.Sprintf("lock evidence: %s not recorded (a BPF map was full): counts are lower bounds", plural.N(int(n), "event", "events")))
	}
	return m, notes, nil
}

// lockName names the lock of a waits entry by its class or address: ""
// when it can only be told by its caller.
func (l *lockBPF) lockName(class uint32, addr uint64) string {
	switch class {
	case classMmapLock:
		return "mmap_lock"
	case classSiglock:
		return "siglock"
	case classFutexBucket:
		return "futex_hash_bucket"
	}
	if l.perCPU != nil && l.perCPU.rqLocks[addr] {
		return "runqueues"
	}
	if name := l.syms.data(addr); name != "" {
		return name
	}
	if l.perCPU == nil {
		return ""
	}
	return l.syms.perCPUData(addr, l.perCPU.offsets)
}

// aggregateLocks sums rows per kind (the tracefs collector's metrics),
// per lock and per caller (the lockTop largest total waits of each).
func aggregateLocks(rows []lockAgg) map[string]float64 {
	m := map[string]float64{}
	kinds := map[string]*waitAgg{}
	for _, k := range lockKinds {
		kinds[k.name] = &waitAgg{}
	}
	byLock := map[string]*waitAgg{}
	byCaller := map[string]*waitAgg{}
	sum := func(to map[string]*waitAgg, key string, r lockAgg) {
		a := to[key]
		if a == nil {
			a = &waitAgg{}
			to[key] = a
		}
		a.count += float64(r.count)
		a.total += float64(r.total)
		if float64(r.max) > a.max {
			a.max = float64(r.max)
		}
	}
	for _, r := range rows {
		sum(kinds, r.kind, r)
		sum(byLock, metricSymbol(r.lock), r)
		sum(byCaller, metricSymbol(r.caller), r)
	}
	for k, a := range kinds {
		m["k.lock."+k+".count"] = a.count
		m["k.lock."+k+".wait"] = a.total
		m["k.lock."+k+".max_wait"] = a.max
	}
	top := func(from map[string]*waitAgg, contended, wait, maxw, avg string) {
		names := make([]string, 0, len(from))
		for n := range from {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			a, b := from[names[i]], from[names[j]]
			if a.total != b.total {
				return a.total > b.total
			}
			return names[i] < names[j]
		})
		if len(names) > lockTop {
			names = names[:lockTop]
		}
		for _, n := range names {
			a := from[n]
			m[contended+n] = a.count
			m[wait+n] = a.total
			m[maxw+n] = a.max
			if a.count > 0 {
				m[avg+n] = a.total / a.count
			}
		}
	}
	top(byLock, LockContended, LockWait, LockMaxWait, LockAvgWait)
	top(byCaller, LockCallerContended, LockCallerWait, LockCallerMaxWait, LockCallerAvgWait)
	return m
}

func (l *lockBPF) Close() error {
	detach(l.links)
	l.links = nil
	return l.objs.Close()
}
