package evidence

import (
	"fmt"

	"github.com/cilium/ebpf/link"

	"contend/internal/bpfobj"
	"contend/internal/plural"
	"contend/internal/results"
)

// offcpuMetrics are the totals of the offcpu program, in the order of its
// totals array (BLOCKED, ... in native/bpf/offcpu.bpf.c).
var offcpuMetrics = []results.Metric{
	{Name: "k.offcpu.blocked", Unit: "ns", Better: "lower", Desc: "time the child's tasks spent blocked (asleep: switched out not runnable, until woken; sched_switch to sched_wakeup, BPF), summed over tasks"},
	{Name: "k.offcpu.blocked_d", Unit: "ns", Better: "lower", Desc: "the part of k.offcpu.blocked in uninterruptible sleep (D: I/O, page locks, some kernel mutexes)"},
	{Name: "k.offcpu.runnable", Unit: "ns", Better: "lower", Desc: "time the child's tasks were runnable but not running (preempted, or woken and not yet on a CPU; to the next sched_switch in), summed over tasks"},
	{Name: "k.offcpu.futex_wait", Unit: "ns", Better: "lower", Desc: "time in futex system calls that wait (FUTEX_WAIT, _WAIT_BITSET, _LOCK_PI, _LOCK_PI2, _WAIT_REQUEUE_PI; sys_enter to sys_exit_futex), summed over tasks"},
	{Name: "k.offcpu.futex_waits", Unit: "count", Better: "lower", Desc: "futex system calls that wait"},
	{Name: "k.offcpu.sleeps", Unit: "count", Better: "lower", Desc: "switches out of the child's tasks blocked (voluntary)"},
	{Name: "k.offcpu.preemptions", Unit: "count", Better: "lower", Desc: "switches out of the child's tasks still runnable (preempted, or yielded)"},
	{Name: OffcpuLost, Unit: "count", Better: "lower", Desc: "switches, new tasks and futex waits of the child's tasks not recorded (a full BPF map): while it is above 0, every k.offcpu time of the repetition is a lower bound"},
}

// offcpu records the off-CPU time of the child and its descendants with
// a BPF program on sched_switch, sched_wakeup, sched_wakeup_new and the
// futex system call's tracepoints, aggregated in the kernel.
type offcpu struct {
	objs  bpfobj.OffcpuObjects
	links []link.Link
	sizes bpfSizes
}

// offcpuMaps are the entries of the offcpu program's maps for sizes s.
func (s bpfSizes) offcpuMaps() map[string]int {
	return map[string]int{"tgids": s.Tasks, "offs": s.Offs, "futexes": s.Futexes}
}

func openOffcpu(sizes bpfSizes) (*offcpu, error) {
	if err := bpfAllowed(false); err != nil {
		return nil, err
	}
	o := &offcpu{sizes: sizes}
	spec, err := bpfobj.LoadOffcpu()
	if err != nil {
		return nil, bpfLoadError(err)
	}
	if err := size(spec, sizes.offcpuMaps()); err != nil {
		return nil, err
	}
	if err := spec.LoadAndAssign(&o.objs, nil); err != nil {
		return nil, bpfLoadError(err)
	}
	ls, err := attach(o.tracepoints())
	if err != nil {
		o.objs.Close()
		return nil, err
	}
	detach(ls)
	return o, nil
}

func (o *offcpu) tracepoints() []tracepoint {
	return []tracepoint{
		{"sched", "sched_process_fork", o.objs.OnFork},
		{"sched", "sched_switch", o.objs.OnSwitch},
		{"sched", "sched_wakeup", o.objs.OnWakeup},
		{"sched", "sched_wakeup_new", o.objs.OnWakeupNew},
		{"syscalls", "sys_enter_futex", o.objs.OnFutexEnter},
		{"syscalls", "sys_exit_futex", o.objs.OnFutexExit},
	}
}

func (o *offcpu) Name() string { return "offcpu" }

// NeedsStop: the child's pid must be in the set before it forks.
func (o *offcpu) NeedsStop() bool { return true }

func (o *offcpu) Metrics() []results.Metric { return append([]results.Metric{}, offcpuMetrics...) }

func (o *offcpu) Start(pid int) error {
	if err := seed(o.objs.Tgids, pid); err != nil {
		return err
	}
	ls, err := attach(o.tracepoints())
	if err != nil {
		return err
	}
	o.links = ls
	return nil
}

func (o *offcpu) Stop() (map[string]float64, []string, error) {
	detach(o.links)
	o.links = nil
	defer clearMaps(o.objs.Tgids, o.objs.Offs, o.objs.Futexes, o.objs.Totals, o.objs.Lost)
	m := map[string]float64{}
	for i, mt := range offcpuMetrics[:len(offcpuMetrics)-1] {
		v, err := perCPUSum(o.objs.Totals, uint32(i))
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read the BPF totals: %v", err)
		}
		m[mt.Name] = float64(v)
	}
	n, err := lostCount(o.objs.Lost)
	if err != nil {
		return nil, nil, err
	}
	m[OffcpuLost] = float64(n)
	var notes []string
	if n > 0 {
		notes = append(notes, fmt.Sprintf("offcpu evidence: %s not recorded (a BPF map was full; %s): k.offcpu times are lower bounds", plural.N(int(n), "event", "events"), o.sizes))
	}
	return m, notes, nil
}

func (o *offcpu) note() string { return o.sizes.String() }

func (o *offcpu) Close() error {
	detach(o.links)
	o.links = nil
	return o.objs.Close()
}
