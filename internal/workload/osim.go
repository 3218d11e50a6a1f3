package workload

import (
	"fmt"
	"time"

	"contend/bind"
	"contend/internal/limits"
	"contend/internal/plural"
)

// Osim is Manfred Spraul's osim (ipcscale sem-lockunlock.c): worker
// processes locking and unlocking SysV semaphores. Its hot loop is
// native/osim.c, its binding bind/osim.go.
var Osim = &Workload{
	Name:       "osim",
	Summary:    "worker processes locking/unlocking SysV semaphores: sleeps and wake-ups",
	Provenance: "Manfred Spraul 2013, run by Mike Galbraith in \"Re: [PATCH 2/4] ipc/sem: seperate wait-for-zero and alter tasks into seperate queues\" (LKML, June 2013); published as sem-lockunlock.c, github.com/manfred-colorfu/ipcscale commit 791aedb (2013-06-10)",
	Doc: `--tasks worker processes (fork, not threads) share one array of --sems + 1
SysV semaphores: 0..sems-1 are locks, the last counts the running workers.
Worker i uses lock (i mod sems). Each does ceil(loops / tasks) loops of:
semop -1 (lock; sleeps while another worker holds it), --busy-in increments
of a volatile int, semop +1 (unlock, waking a sleeper), --busy-out
increments. So --loops is the total of all tasks, rounded up per task.

The start gate is one SETALL (locks to 1, the completion counter to tasks),
the clock read just before it; workers forked earlier wait in their first
semop. Each worker ends with a -1 IPC_NOWAIT on the completion semaphore; the
parent waits for zero on it (it sits in the array's wait-for-zero queue the
whole run, which the 2013 kernel change was about) and reads the clock when
that returns. Forking and reaping are not timed. "per loop" is the time
divided by all loops of all tasks: an inverse throughput, not a latency.

Kept from the original: processes, SETALL gate, wait-for-zero completion,
i mod sems, rounding up per task, volatile busy loops, defaults of Mike
Galbraith's run (64 256 1000000 0 0), and the positional form
'contend run osim 64 256 1000000 0 0'. --format original prints the usage
line and the six lines the original printed, program name osim; its
per-loop figure is truncated from whole microseconds, as the original did.

Fixed: CLOCK_MONOTONIC in ns (the original: gettimeofday); workers run only
C, print nothing and leave with _exit, and die with the repetition
(PR_SET_PDEATHSIG); errors are checked (a failed fork or SETALL kills the
workers already forked and removes the set; a worker whose semop fails still
counts itself out, so the parent does not hang); the set is mode 0600, not
0777; the four info lines are not printed between fork and SETALL. The
original leaked its set on Ctrl-C or a crash and could leave workers hanging
forever: here the set's id is reported to contend before anything is timed,
and a dead repetition's set is removed and its workers killed.

Default --timeout: a minute plus 10 ms per task plus 100 us per loop (plus
10 ns per busy-loop increment), about ten times what a 2-vCPU virtual machine needs.

Default --tasks 256 is the original's command line (osim 64 256 ...), kept
for faithfulness: 256 processes on 64 semaphores queue on every lock at 2
CPUs as at 256. It does not follow the CPUs: above 256 CPUs give --tasks at
the CPU count or more. The processes are checked against the task limits
before the run.`,
	Positional: []string{"sems", "tasks", "loops", "busy-in", "busy-out"},
	Metrics: []Metric{
		{Name: "time", Unit: "ns", Better: Lower, Desc: "timed region: just before SETALL until the wait-for-zero returned"},
		{Name: "per_loop", Unit: "ns", Better: Lower, Desc: "time / all loops of all tasks (exact)"},
		{Name: "per_loop_orig", Unit: "ns", Better: Lower, Desc: "as the original printed: whole us * 1000 / loops, truncated"},
		{Name: "loops", Unit: "count", Better: Either, Desc: "loops of all tasks = tasks x loops per task"},
		{Name: "loops_per_task", Unit: "count", Better: Either, Desc: "ceil(loops / tasks)"},
		{Name: "worker_vcsw", Unit: "count", Better: Either, Desc: "voluntary context switches of all workers (sleeps in semop)"},
		{Name: "worker_ivcsw", Unit: "count", Better: Either, Desc: "involuntary context switches of all workers (preemptions)"},
	},
	Primary: "time",
	Output: &Output{
		Preset: "osim",
		Desc:   "osim (ipcscale sem-lockunlock): \"total execution time\" and \"per loop execution time\"",
		Metrics: []OutputMetric{
			{"time", `(?m)^total execution time: (\d+\.\d+) seconds for \d+ loops\s*$`, "s", Lower, "osim's timed region, SETALL to wait-for-zero return"},
			{"per_loop_orig", `(?m)^per loop execution time: (\d+\.\d+) usec\s*$`, "us", Lower, "osim's time / total loops as printed (truncated to ns)"},
			{"loops", `(?m)^total execution time: \d+\.\d+ seconds for (\d+) loops\s*$`, "count", Either, "lock/unlock cycles of all tasks"},
		},
		Primary: "time",
	},
	Quick: []string{"--sems", "2", "--tasks", "16", "--loops", "100000"},
	Throughput: PerSecond("loops/s", "lock/unlock loops of all tasks per second of the timed region", "time",
		func(_ *bind.OsimParams, m map[string]float64) float64 { return m["loops"] }),
	Funcs: Typed[bind.OsimParams]{
		Check:    checkOsim,
		Run:      runOsim,
		Lean:     leanOsim,
		Original: originalOsim,
		SemSet:   func(p *bind.OsimParams) int { return int(p.Sems) + 1 },
		Timeout: func(p *bind.OsimParams) time.Duration {
			tasks, loops := int64(p.Tasks), int64(p.Loops)
			total := (loops + tasks - 1) / tasks * tasks
			perLoop := 100*time.Microsecond + time.Duration(int64(p.BusyIn)+int64(p.BusyOut))*10*time.Nanosecond
			return time.Minute + time.Duration(tasks)*10*time.Millisecond + time.Duration(total)*perLoop
		},
	},
}

func init() { Register(Osim) }

func checkOsim(p *bind.OsimParams, m limits.Machine) ([]string, error) {
	sems, tasks, loops := int64(p.Sems), int64(p.Tasks), int64(p.Loops)
	if err := m.CheckSemSet("sems", sems, sems+1); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	if m.SemVMX > 0 && tasks > m.SemVMX {
		return nil, Usagef("--tasks: %d exceeds SEMVMX = %d, the kernel's largest semaphore value (a compile-time constant; the completion counter starts at --tasks); accepted: at most %d", tasks, m.SemVMX, m.SemVMX)
	}
	if err := m.CheckTasks("tasks", tasks); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	var warns []string
	if sems > tasks {
		warns = append(warns, fmt.Sprintf("--sems %d is more than --tasks %d: %s never used and no lock is contended", sems, tasks, plural.N(int(sems-tasks), "semaphore is", "semaphores are")))
	}
	if loops%tasks != 0 {
		per := (loops + tasks - 1) / tasks
		warns = append(warns, fmt.Sprintf("--loops %d is not a multiple of --tasks %d: each task loops %s, %d loops in all (as the original)", loops, tasks, plural.N(int(per), "time", "times"), per*tasks))
	}
	return warns, nil
}

func runOsim(p *bind.OsimParams, rt Runtime) (Sample, error) {
	p.ReportFD, p.SemKey, p.Inject = int32(rt.ReportFD), int32(rt.SemKey), testInject()
	r, err := bind.Osim(*p)
	if err != nil {
		return Sample{}, err
	}
	return osimSample(r), nil
}

// leanOsim runs osim in a lean child: its workers are forked from the
// child, and forked from the Go runtime's process they took 6-8% more time
// than the original's (docs/semaphores.md). The child sets the report
// pipe, the set's key and a test's injection itself (native/lean.c).
func leanOsim(p *bind.OsimParams) ([]byte, func(int, []byte) (Sample, error)) {
	params, result := bind.OsimLean(*p)
	return params, func(rc int, b []byte) (Sample, error) {
		r, err := result(rc, b)
		if err != nil {
			return Sample{}, err
		}
		return osimSample(r), nil
	}
}

// osimSample is the Sample of one repetition's result.
func osimSample(r bind.OsimResult) Sample {
	return Sample{Metrics: map[string]float64{
		"time":           float64(r.ElapsedNs),
		"per_loop":       float64(r.ElapsedNs) / float64(r.TotalLoops),
		"per_loop_orig":  float64(osimPerLoopOrig(int64(r.ElapsedNs), r.TotalLoops)),
		"loops":          float64(r.TotalLoops),
		"loops_per_task": float64(r.LoopsPerTask),
		"worker_vcsw":    float64(r.NVCSw),
		"worker_ivcsw":   float64(r.NIVCSw),
	}}
}

// osimPerLoopOrig is the original's per-loop figure in thousandths of a
// microsecond (= ns): whole microseconds * 1000 / loops, truncated.
func osimPerLoopOrig(ns, loops int64) int64 {
	if loops <= 0 {
		return 0
	}
	return ns / 1000 * 1000 / loops
}

func originalOsim(p *bind.OsimParams, s Sample, _ map[string]float64) []string {
	us := int64(s.Metrics["time"]) / 1000
	loops := int64(s.Metrics["loops"])
	per := osimPerLoopOrig(int64(s.Metrics["time"]), loops)
	return []string{
		"osim <sems> <tasks> <loops> <busy-in> <busy-out>",
		fmt.Sprintf("osim: using a semaphore array with %d semaphores.", p.Sems),
		fmt.Sprintf("osim: using %d tasks.", p.Tasks),
		fmt.Sprintf("osim: each thread loops %d times", int64(s.Metrics["loops_per_task"])),
		fmt.Sprintf("osim: each thread busyloops %d loops outside and %d loops inside.", p.BusyOut, p.BusyIn),
		fmt.Sprintf("total execution time: %d.%03d%03d seconds for %d loops", us/1000000, us/1000%1000, us%1000, loops),
		fmt.Sprintf("per loop execution time: %d.%03d usec", per/1000, per%1000),
	}
}
