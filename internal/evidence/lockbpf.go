package evidence

import (
	"fmt"
	"math"
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
	// LockLost counts the contentions of a repetition that could not
	// be recorded (a map full, trace events lost); OffcpuLost the
	// switches, wakeups and futex waits offcpu could not record.
	LockLost   = "k.lock.lost"
	OffcpuLost = "k.offcpu.lost"
)

// lockTop is the most locks, and the most callers, kept per repetition
// (the largest total wait first): every kept one is a metric of its own.
const lockTop = 10

// lockStackEvery is the sample of contentions whose kernel stack the
// lock program walks, on each CPU (stack_every in native/bpf/lock.bpf.c),
// besides the first contention of each lock: a walk costs microseconds
// an event (3-13 us measured on 2-CPU VMs, depth 16), the rest of the
// program about one. Each lock's count and waits are exact; its
// callers' are its own scaled by their share of its sampled contentions.
const lockStackEvery = 16

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
	sizes     bpfSizes
}

// lockMaps are the entries of the lock program's maps for sizes s.
func (s bpfSizes) lockMaps() map[string]int {
	return map[string]int{"tgids": s.Tasks, "starts": s.Starts, "waits": s.Locks, "callers": s.Callers, "stacks": s.Callers}
}

func openLockBPF(sizes bpfSizes) (*lockBPF, error) {
	if err := bpfAllowed(true); err != nil {
		return nil, err
	}
	syms, err := readKallsyms()
	if err != nil {
		return nil, fmt.Errorf("cannot name locks and callers: %v", err)
	}
	l := &lockBPF{syms: syms, sizes: sizes}
	spec, err := bpfobj.LoadLock()
	if err != nil {
		return nil, bpfLoadError(err)
	}
	if err := size(spec, sizes.lockMaps()); err != nil {
		return nil, err
	}
	if err := spec.Variables["stack_every"].Set(uint32(lockStackEvery)); err != nil {
		return nil, fmt.Errorf("cannot set the lock program's sample: %v", err)
	}
	if err := spec.LoadAndAssign(&l.objs, nil); err != nil {
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
	n := fmt.Sprintf("BPF: lock:contention_begin/end aggregated in the kernel per lock and caller (callers from the stacks of each lock's first contention and one in %d); %s", lockStackEvery, l.sizes)
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
		results.Metric{Name: LockCallerContended + "*", Unit: "count", Better: "lower", Desc: callerSampled("contended kernel lock acquisitions from the caller (first frame of the kernel stack outside the locking functions)")},
		results.Metric{Name: LockCallerWait + "*", Unit: "ns", Better: "lower", Desc: callerSampled("total wait on contended kernel locks taken from the caller")},
		results.Metric{Name: LockCallerMaxWait + "*", Unit: "ns", Better: "lower", Desc: callerSampled("longest wait on a contended kernel lock taken from the caller, of the sampled contentions (a lower bound)")},
		results.Metric{Name: LockCallerAvgWait + "*", Unit: "ns", Better: "lower", Desc: callerSampled("average wait on contended kernel locks taken from the caller (0 where a repetition had none)")},
	)
}

// callerSampled adds to a caller metric's description how it is
// estimated.
func callerSampled(desc string) string {
	return fmt.Sprintf("%s; estimated: the stacks of each lock's first contention and one in %d of the rest on each CPU are walked, and each lock's exact count and wait are shared out by its callers' shares of them", desc, lockStackEvery)
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

// lockAgg is one lock's contentions (exact, from the waits map), or one
// caller's of one lock (estimated from the callers map): its name, its
// first caller outside the locking functions and its kind.
type lockAgg struct {
	lock, caller, kind string
	count, total, max  float64
}

// lockKey is a lock of the program's maps: its address (0 when its class
// names it), flags and class.
type lockKey struct {
	addr         uint64
	flags, class uint32
}

// Stop detaches the programs and names and sums what they aggregated.
func (l *lockBPF) Stop() (map[string]float64, []string, error) {
	detach(l.links)
	l.links = nil
	defer clearMaps(l.objs.Tgids, l.objs.Starts, l.objs.Waits, l.objs.Callers, l.objs.Stacks, l.objs.Lost)
	var k bpfobj.LockAggKey
	var v bpfobj.LockAggVal
	names := map[int32]string{}
	sampled := map[lockKey][]lockAgg{}
	it := l.objs.Callers.Iterate()
	for it.Next(&k, &v) {
		caller, ok := names[k.Stack]
		if !ok {
			caller = "unknown"
			if k.Stack >= 0 {
				var st [16]uint64
				if err := l.objs.Stacks.Lookup(uint32(k.Stack), &st); err == nil {
					caller = l.syms.caller(st[:])
				}
			}
			names[k.Stack] = caller
		}
		lk := lockKey{k.Addr, k.Flags, k.Class}
		sampled[lk] = append(sampled[lk], lockAgg{caller: caller, count: float64(v.Count), total: float64(v.Total), max: float64(v.Max)})
	}
	if err := it.Err(); err != nil {
		return nil, nil, fmt.Errorf("cannot read the BPF map of callers: %v", err)
	}
	var locks, callers []lockAgg
	it = l.objs.Waits.Iterate()
	for it.Next(&k, &v) {
		lk := lockKey{k.Addr, k.Flags, k.Class}
		lock := lockAgg{kind: lockKindOf(k.Flags), count: float64(v.Count), total: float64(v.Total), max: float64(v.Max)}
		cs := shareCallers(lock, sampled[lk])
		lock.lock = l.lockName(k.Class, k.Addr)
		if lock.lock == "" {
			lock.lock = lock.kind + "@" + cs[0].caller
		}
		for i := range cs {
			cs[i].lock, cs[i].kind = lock.lock, lock.kind
		}
		locks = append(locks, lock)
		callers = append(callers, cs...)
	}
	if err := it.Err(); err != nil {
		return nil, nil, fmt.Errorf("cannot read the BPF map of waits: %v", err)
	}
	m := aggregateLocks(locks, callers)
	n, err := lostCount(l.objs.Lost)
	if err != nil {
		return nil, nil, err
	}
	m[LockLost] = float64(n)
	var notes []string
	if n > 0 {
		notes = append(notes, fmt.Sprintf("lock evidence: %s not recorded (a BPF map was full; %s): k.lock counts and waits are lower bounds", plural.N(int(n), "event", "events"), l.sizes))
	}
	return m, notes, nil
}

// shareCallers shares one lock's exact count and total wait out among
// the callers of its sampled contentions (sampled: one row a stack, its
// caller named; callers may repeat), in proportion to their sampled
// count and wait; a caller's max is its sampled one. The callers come
// out merged, the most sampled contentions first (then by name); a
// lock with no sampled contention has one caller, unknown.
func shareCallers(lock lockAgg, sampled []lockAgg) []lockAgg {
	by := map[string]*lockAgg{}
	var n, w float64
	for _, s := range sampled {
		a := by[s.caller]
		if a == nil {
			a = &lockAgg{caller: s.caller}
			by[s.caller] = a
		}
		a.count += s.count
		a.total += s.total
		a.max = math.Max(a.max, s.max)
		n += s.count
		w += s.total
	}
	if n == 0 {
		return []lockAgg{{caller: "unknown", count: lock.count, total: lock.total, max: lock.max}}
	}
	out := make([]lockAgg, 0, len(by))
	for _, a := range by {
		c := *a
		c.count = a.count * lock.count / n
		if w > 0 {
			c.total = a.total * lock.total / w
		} else {
			c.total = a.count * lock.total / n
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if by[out[i].caller].count != by[out[j].caller].count {
			return by[out[i].caller].count > by[out[j].caller].count
		}
		return out[i].caller < out[j].caller
	})
	return out
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

// aggregateLocks sums the locks per kind (the tracefs collector's
// metrics) and per lock, and the callers per caller (the lockTop largest
// total waits of each).
func aggregateLocks(locks, callers []lockAgg) map[string]float64 {
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
		a.count += r.count
		a.total += r.total
		a.max = math.Max(a.max, r.max)
	}
	for _, r := range locks {
		sum(kinds, r.kind, r)
		sum(byLock, metricSymbol(r.lock), r)
	}
	for _, r := range callers {
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
