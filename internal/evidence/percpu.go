package evidence

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"

	"contend/internal/bpfobj"
)

// maxPerCPUs is the most CPUs whose per-CPU data is located (MAX_CPUS
// in native/bpf/percpu.bpf.c).
const maxPerCPUs = 1024

// perCPU is where each CPU's per-CPU data is, as the lock collector names
// locks by it: the address of each CPU's run-queue lock
// (&cpu_rq(c)->__lock), and each CPU's per-CPU offset
// (__per_cpu_offset[c]) where /proc/kallsyms lists that array.
type perCPU struct {
	rqLocks map[uint64]bool
	offsets []uint64
}

// readPerCPU locates the per-CPU data of every possible CPU with a BPF
// program run once (native/bpf/percpu.bpf.c, BPF_PROG_TEST_RUN). The
// error says why the run-queue locks could not be located (they are then
// named by their callers); what was found is returned with it.
func readPerCPU(syms *kallsyms) (*perCPU, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return nil, err
	}
	n, err := cpuListCount(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("/sys/devices/system/cpu/possible: %v", err)
	}
	n = min(n, maxPerCPUs)
	var objs bpfobj.PercpuObjects
	if err := bpfobj.LoadPercpuObjects(&objs, nil); err != nil {
		return nil, bpfLoadError(err)
	}
	defer objs.Close()
	base := syms.perCPUOffset
	if syms.perCPU[1] <= syms.perCPU[0] {
		base = 0 // no per-CPU symbols to name with the offsets
	}
	if _, err := objs.ReadPercpu.Run(&ebpf.RunOptions{Context: []uint64{uint64(n), base}}); err != nil {
		return nil, fmt.Errorf("cannot run the per-CPU program: %v", err)
	}
	pc := &perCPU{rqLocks: map[uint64]bool{}}
	var offs []uint64
	for i := 0; i < n; i++ {
		var rq, off uint64
		if err := objs.RqLocks.Lookup(uint32(i), &rq); err != nil {
			return nil, fmt.Errorf("cannot read the run queues' locks: %v", err)
		}
		if rq != 0 {
			pc.rqLocks[rq] = true
		}
		if err := objs.Offsets.Lookup(uint32(i), &off); err == nil && base != 0 {
			offs = append(offs, off)
		}
	}
	if len(offs) == n {
		pc.offsets = offs
	}
	if len(pc.rqLocks) != n {
		return pc, fmt.Errorf("the run queues could not be located (the kernel's BTF has no task se.cfs_rq->rq: CONFIG_FAIR_GROUP_SCHED?)")
	}
	return pc, nil
}

// cpuListCount is the number of CPUs a kernel CPU list ("0-3,5") spans:
// its largest CPU plus one.
func cpuListCount(list string) (int, error) {
	largest := -1
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return 0, fmt.Errorf("not a CPU list: %q", list)
		}
		largest = max(largest, b)
	}
	return largest + 1, nil
}
