package evidence

import (
	"strings"

	"contend/internal/results"
)

// Doc describes one collector for `contend help evidence`.
type Doc struct {
	Name    string
	Default bool
	Text    string
	Metrics []results.Metric
}

// Docs describes every collector, in order.
func Docs() []Doc {
	var sys []results.Metric
	for _, p := range psiMetrics {
		sys = append(sys, results.Metric{Name: p.name, Unit: "ns", Desc: p.desc})
	}
	for _, v := range vmstatKeys {
		src := " (/proc/vmstat " + v.key + ")"
		if strings.HasSuffix(v.key, "_") {
			src = " (/proc/vmstat " + v.key + "*)"
		}
		sys = append(sys, results.Metric{Name: vmstatName(v.key), Unit: "count", Better: v.better, Desc: v.desc + src})
	}
	for _, k := range irqKinds {
		sys = append(sys, results.Metric{Name: k.name, Unit: "count", Desc: k.desc + " (/proc/interrupts " + k.row + ", all CPUs)"})
	}
	for _, k := range cpuKinds {
		sys = append(sys, results.Metric{Name: k.name, Unit: "ns", Better: k.better, Desc: k.desc})
	}
	for _, k := range softirqKinds {
		sys = append(sys, results.Metric{Name: k.name, Unit: "count", Desc: k.desc + " (/proc/softirqs " + k.row + ", all CPUs)"})
	}
	var perfMs, faultMs, hwMs []results.Metric
	for _, c := range softwareCounters {
		perfMs = append(perfMs, c.metric)
	}
	for _, c := range faultCounters {
		faultMs = append(faultMs, c.metric)
	}
	faultMs = append(faultMs, pageFaultsMetric)
	for _, c := range hardwareCounters {
		hwMs = append(hwMs, c.metric)
	}
	lk := (&lock{mmap: true}).Metrics()
	lkBPF := (&lockBPF{}).Metrics()
	prof := (&profile{event: "cycles or cpu-clock"}).Metrics()
	return []Doc{
		{"perf", false, "opt-in (--evidence perf): perf_event_open software counters (task-clock, context-switches, cpu-migrations) of the child and every thread and process it creates (inherit), opened disabled on the thread that forks the child and enabled by its exec, read after its process group is reaped; includes the child's own start-up (Go runtime, argument parsing) besides the workload; for exec, the program from its first instruction. Not a default: any counter inherited by the child's tasks adds the perf context switch to every context switch of them, however few events it counts (about 0.5 µs per switch on a 2-vCPU VM: +7% CPU time for a pipe ping-pong; osim 16 64 switches about 60,000 times a second, which makes an estimated 2% of its CPU time); sched gives the CPU time of the same processes exactly (k.tree_cpu, from rusage) and their threads' context switches up to each thread's exit record (k.csw, from taskstats: not the switches while a thread exits, so not exactly what task-clock's companion context-switches counts), at no cost per switch; only the migrations need perf.", perfMs},
		{"faults", false, "opt-in (--evidence faults): perf page-fault counters (minor, major) the same way. Not a default: a counting fault event makes the kernel account every page fault to it, about 1% of faultme's time (16,384 faults in 105 ms); the process metrics minflt and majflt (wait4 rusage) count the same faults of the child and the children it waited for at no cost.", faultMs},
		{"hw", false, "opt-in (--evidence hw): hardware counters the same way, where the machine has a PMU (virtual machines often have none: then 'not available' in the file's header, and the run goes on). Not a default for the reason perf is not: inherited counters cost every context switch of the child's tasks (here more so: the PMU is reprogrammed).", hwMs},
		{"sched", true, "taskstats exit records of every thread of the child and of every process descended from it (or orphaned to contend), summed, and the CPU time of the processes contend reaped. The kernel writes a thread's exit record as the thread begins to exit (in do_exit, before its address space is let go), from its counters as they are then: what the thread does after it (the address-space teardown of a process's last thread, closing files, its last switch) is in no record. So: k.runq_delay is cpu_delay_total, the time a thread was runnable but waited on a run queue up to its record (kept by the scheduler whether or not kernel.task_delayacct is on); k.csw the thread's context switches before its record, voluntary and involuntary (cpu_count, the times it was given a CPU, is nvcsw + nivcsw + 1 at the record: one is taken off per record); k.threads the number of records; the I/O, swap-in and reclaim delays (kernel.task_delayacct=1, else absent, and said so in the header) are up to the record too. k.tree_cpu does not come from the records, whose CPU time (cpu_run_virtual_total) lacks each thread's running slice and its exit (for many short threads, most of their CPU time): it is the change of contend's RUSAGE_CHILDREN over the repetition, the whole CPU time of every process contend reaped (the child with what it waited for, and orphans contend reaped as their subreaper), exact to the microsecond; it equals cpu unless orphans were reaped (for exec it includes the launcher). The records wait in a socket while the child runs and are read after it is reaped: nothing is added to the child's context switches; the kernel builds and sends a thread's record (one netlink message) as the thread exits, before a join of it returns: inside a workload's threads phase, about 1 µs of CPU per thread (at most 2 µs, against about 50 µs for a bare thread's create, exit and join; scripts/taskstats-exit-cost.c), so at most 2 ms for mutex's 1000 threads, which ab cannot tell from none. Includes the child's own start-up (from its fork). Files of earlier versions have k.cpu_time (the records' CPU time) and k.switches (cpu_count as is) instead of k.tree_cpu and k.csw: compare lists them as one side's only, never sets them against the new ones.", append(append([]results.Metric{}, schedMetrics...), delayacctMetrics...)},
		{"system", true, "SYSTEM-WIDE: /proc/pressure, /proc/vmstat, /proc/interrupts, /proc/stat (CPU time by kind: user, system, irq, softirq, steal...) and /proc/softirqs read just before the child's first instruction and after it is reaped; the deltas cover the whole machine (other processes too) over the repetition.", sys},
		{"lock", false, "opt-in (--evidence lock): kernel lock contention of the child and everything it forks, aggregated in the kernel by a BPF program on lock:contention_begin/end (as perf lock contention -b does; native/bpf/lock.bpf.c, loaded with cilium/ebpf): the set of the child's process ids is seeded with its pid while it is held stopped at its first instruction and grown by sched_process_fork; each contention's wait (nanoseconds) is added per lock address, kernel stack and kind. After the reap each lock is named: a static lock by its data symbol in /proc/kallsyms (jiffies_lock, NAME+0xOFF), the mmap_lock of the contending task's own mm as mmap_lock (its address read from the task by CO-RE, so every process's mmap_lock is one), any other lock allocated at run time as KIND@CALLER (its address changes from one repetition to the next: the caller says which lock it is); each stack by its caller, the first frame outside the lock and scheduler text and the locking functions. Recorded: k.lock.contended.LOCK, k.lock.wait.LOCK (total), k.lock.max_wait.LOCK, k.lock.avg_wait.LOCK, and the same per caller (k.lock.caller.*.CALLER), the 10 largest total waits of each per repetition (a lock a repetition does not keep is 0 there: metric families), and the per-kind totals k.lock.KIND.{count,wait,max_wait} that locktrace records too (not its mmap_lock acquisition events). Needs root (CAP_BPF, CAP_PERFMON), tracefs mounted (the tracepoints' ids), the kernel's BTF (/sys/kernel/btf/vmlinux) and no lockdown in confidentiality mode; where any is missing lock is the tracefs collector (locktrace), and the header says why BPF was not used. The programs are attached per repetition while the child is held stopped and detached after the reap; they are file descriptors of contend: a SIGKILL of contend detaches and frees them, nothing is left in the kernel. Cost: a hash lookup on every contention event of the machine while attached, and the aggregation of the child's (no trace buffer, no text to parse).", lkBPF},
		{"offcpu", false, "opt-in (--evidence offcpu): off-CPU time of the child and everything it forks, aggregated in the kernel by a BPF program (native/bpf/offcpu.bpf.c) on sched_switch, sched_wakeup, sched_wakeup_new and the futex system call's tracepoints, with the same set of process ids as lock: k.offcpu.blocked is the time the tasks were switched out asleep until their wakeup (k.offcpu.blocked_d its uninterruptible part), k.offcpu.runnable the time they were runnable but not running (preempted, or woken and not yet on a CPU: what k.runq_delay counts from the exit records, here up to the last switch), k.offcpu.futex_wait the time in futex calls that wait (FUTEX_WAIT, _WAIT_BITSET, _LOCK_PI, _LOCK_PI2, _WAIT_REQUEUE_PI; not futex_waitv nor futex2's futex_wait), with their count, the switches out asleep (k.offcpu.sleeps) and still runnable (k.offcpu.preemptions); all summed over the tasks, in nanoseconds. The time the child is held stopped before its first instruction is not counted. Needs root and tracefs mounted; not available otherwise (the header says why). Cost: a program on every context switch and wakeup of the machine while attached (a hash lookup for another process's), and a map update on each of the child's.", offcpuMetrics},
		{"locktrace", false, "opt-in (--evidence locktrace; what lock falls back to where BPF cannot run): tracefs lock:contention_begin/end of the child and everything it forks (set_event_pid with options/event-fork), in the top-level trace buffer, aggregated per kind of lock (the events' flags) after each repetition, plus mmap_lock acquisitions where the kernel has the mmap_lock events. Timestamps are the trace's microseconds. Needs root and tracefs with no other events enabled; the trace buffer is emptied; every setting touched (the events, set_event_pid, options/event-fork, tracing_on) is restored when the run ends, however it ends; before changing them contend journals their old values, so that after a SIGKILL of contend itself 'contend cleanup', or the next run that uses tracefs, puts them back. The child is started stopped (ptrace) until the tracer is attached; the time it is held stopped is taken out of real. Tracing itself costs the traced child (every contention event is written to the buffer), so compare runs with the same evidence when that matters. Cannot be combined with ab --trace-events, nor with lock (the same k.lock.KIND metrics).", lk},
		{"profile", false, "opt-in (--evidence profile): sampled call graphs of the child and everything it starts, per repetition: perf record (cycles where the machine has a PMU, else cpu-clock; 999 samples a second; frame-pointer call chains) attached to the child stopped before its first instruction, symbolised by perf script (the kernel from /proc/kallsyms, user space from the ELF symbol tables) after the child is reaped, folded per symbol: k.profile.self.SYMBOL is the share of the samples taken in the symbol itself, k.profile.children.SYMBOL the share with the symbol anywhere on the stack, in percent. Kept per repetition: the 40 largest of each at 0.5% or more; a symbol a repetition does not keep is 0 there. Needs the perf program (Debian: linux-perf) and perf_event_open (root, or kernel.perf_event_paranoid <= 1 for the kernel's symbols). perf record runs beside the child: its interrupts and its own work (about 1% of a CPU at this rate) are a cost to the child, so compare runs with the same evidence. A repetition shorter than a few sampling periods has few samples: its shares are coarse (one sample of ten is 10%). perf record's own CPU time is not in k.tree_cpu.", prof},
	}
}
