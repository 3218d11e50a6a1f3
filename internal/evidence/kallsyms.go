package evidence

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// kallsyms is the kernel's symbol table (/proc/kallsyms), by address.
type kallsyms struct {
	addrs []uint64
	names []string
	kinds []byte // nm's type letter: t text, d/b/r data
	// lockText and schedText are the ranges of the locking and the
	// scheduler's functions (__lock_text_start.._end,
	// __sched_text_start.._end): a caller outside them took the lock.
	lockText, schedText [2]uint64
	stext, end          uint64 // the kernel image
	// perCPU is the per-CPU section (__per_cpu_start.._end): the
	// template of every CPU's per-CPU area, where a per-CPU symbol
	// (runqueues) is; perCPUOffset is the address of the array of the
	// CPUs' offsets (__per_cpu_offset): CPU c's copy of a per-CPU symbol
	// is at its address plus __per_cpu_offset[c].
	perCPU       [2]uint64
	perCPUOffset uint64
}

// readKallsyms reads /proc/kallsyms; it fails when the addresses are
// hidden (kernel.kptr_restrict, or not root).
func readKallsyms() (*kallsyms, error) {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type sym struct {
		a    uint64
		n    string
		kind byte
	}
	var syms []sym
	k := &kallsyms{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	nonzero := false
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 || len(fs[1]) != 1 {
			continue
		}
		a, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil {
			continue
		}
		nonzero = nonzero || a != 0
		name := fs[2]
		switch name {
		case "__lock_text_start":
			k.lockText[0] = a
		case "__lock_text_end":
			k.lockText[1] = a
		case "__sched_text_start":
			k.schedText[0] = a
		case "__sched_text_end":
			k.schedText[1] = a
		case "_stext":
			k.stext = a
		case "_end":
			k.end = a
		case "__per_cpu_start":
			k.perCPU[0] = a
		case "__per_cpu_end":
			k.perCPU[1] = a
		case "__per_cpu_offset":
			k.perCPUOffset = a
		}
		kind := fs[1][0] | 0x20 // lower case: local and global alike
		if len(fs) > 3 {
			kind = 'm' // a module's symbol
		}
		syms = append(syms, sym{a, name, kind})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !nonzero {
		return nil, fmt.Errorf("/proc/kallsyms shows no addresses (kernel.kptr_restrict)")
	}
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].a < syms[j].a })
	for _, s := range syms {
		k.addrs = append(k.addrs, s.a)
		k.names = append(k.names, s.n)
		k.kinds = append(k.kinds, s.kind)
	}
	return k, nil
}

// find returns the symbol at or below a, and a's offset in it.
func (k *kallsyms) find(a uint64) (i int, off uint64, ok bool) {
	i = sort.Search(len(k.addrs), func(i int) bool { return k.addrs[i] > a }) - 1
	if i < 0 {
		return 0, 0, false
	}
	return i, a - k.addrs[i], true
}

// text names the function at address a ("0x..." when unknown).
func (k *kallsyms) text(a uint64) string {
	if i, _, ok := k.find(a); ok {
		return k.names[i]
	}
	return fmt.Sprintf("0x%x", a)
}

// maxLockOffset is the farthest a lock is named after the data symbol
// below it: further, the symbol is likely not the object that holds it
// (the image's unnamed data; a section's start).
const maxLockOffset = 4096

// data names a static lock at address a: the data symbol it is in
// ("jiffies_lock", "name+0x40"), or "" when a is not in the kernel
// image's data (a lock allocated at run time).
func (k *kallsyms) data(a uint64) string {
	if k.stext == 0 || a < k.stext || (k.end != 0 && a >= k.end) {
		return ""
	}
	i, off, ok := k.find(a)
	if !ok || off >= maxLockOffset || (k.kinds[i] != 'd' && k.kinds[i] != 'b' && k.kinds[i] != 'r') {
		return ""
	}
	if off == 0 {
		return k.names[i]
	}
	return fmt.Sprintf("%s+0x%x", k.names[i], off)
}

// perCPUData names a lock at address a in a CPU's per-CPU area, given
// the CPUs' per-CPU offsets: the per-CPU symbol it is in ("runqueues"
// for a run queue's rq->__lock, the first field of struct rq;
// "name+0x40" further in), the same for every CPU; "" when a is in no
// CPU's area (or the section or offsets are unknown).
func (k *kallsyms) perCPUData(a uint64, offsets []uint64) string {
	if k.perCPU[1] <= k.perCPU[0] {
		return ""
	}
	for _, off := range offsets {
		r := a - off
		if r < k.perCPU[0] || r >= k.perCPU[1] {
			continue
		}
		i, o, ok := k.find(r)
		if !ok || k.addrs[i] < k.perCPU[0] || o >= maxPerCPUOffset {
			return ""
		}
		if o == 0 {
			return k.names[i]
		}
		return fmt.Sprintf("%s+0x%x", k.names[i], o)
	}
	return ""
}

// maxPerCPUOffset is the farthest into a per-CPU symbol a lock is named
// after it: per-CPU structures are large (struct rq is several KiB) and
// the section holds nothing but named per-CPU variables.
const maxPerCPUOffset = 64 << 10

// lockFunctions start the names of the functions that take and wait for
// locks, besides those in the lock and sched text sections (inlined
// wrappers, the tracepoint's own frames).
var lockFunctions = []string{
	"_raw_spin", "raw_spin_rq_", "double_rq_lock", "double_lock_balance", "_raw_read", "_raw_write", "do_raw_", "queued_", "native_queued", "__pv_queued", "pv_queued",
	"osq_", "rwsem_", "__rwsem", "down_", "__down", "up_", "mutex_", "__mutex", "ww_mutex", "rt_mutex", "__rt_mutex",
	"rt_spin", "percpu_down", "percpu_rwsem", "__percpu_down", "mmap_read_lock", "mmap_write_lock", "__mmap_lock",
	"bpf_", "__bpf", "perf_trace", "__traceiter", "trace_contention", "__trace_",
}

// isLockFunction tells whether the frame at a is in the locking code.
func (k *kallsyms) isLockFunction(a uint64) bool {
	for _, r := range [][2]uint64{k.lockText, k.schedText} {
		if r[0] != 0 && a >= r[0] && a < r[1] {
			return true
		}
	}
	name := k.text(a)
	for _, p := range lockFunctions {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// caller names the first frame of stack outside the locking functions
// (the last frame when all are in them; "unknown" for no stack).
func (k *kallsyms) caller(stack []uint64) string {
	last := ""
	for _, a := range stack {
		if a == 0 {
			break
		}
		last = k.text(a)
		if !k.isLockFunction(a) {
			return last
		}
	}
	if last == "" {
		return "unknown"
	}
	return last
}
