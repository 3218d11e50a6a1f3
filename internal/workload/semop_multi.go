package workload

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"

	"contend/analysis"
	"contend/bind"
	"contend/internal/cpuset"
	"contend/internal/limits"
	"contend/internal/plural"
)

// semopMultiInit is the value native/semop_multi.c gives every semaphore
// with SETALL; each thread adds 1 on top of it for a moment.
const semopMultiInit = 200

// SemopMulti is the semop-multi test of the 2013 ipc/sem.c scalability
// work, reconstructed from its published output. Its hot loop is
// native/semop_multi.c, its binding bind/semop_multi.go.
var SemopMulti = &Workload{
	Name:       "semop-multi",
	Summary:    "semop +1/-1 loops on one SysV array, never sleeping (RECONSTRUCTED)",
	Provenance: "ipc/sem.c scalability work 2013 (Rik van Riel / Davidlohr Bueso circle; kernel commit 6062a8dc0517; Mike Galbraith's runs in \"Re: [PATCH 2/4] ipc/sem: seperate wait-for-zero and alter tasks into seperate queues\", June 2013). Source never found: RECONSTRUCTED from published output",
	Doc: `RECONSTRUCTED: the source of semop-multi was never found. This is built from
its published output and the kernel commit that quotes it (docs/semaphores.md,
"semop-multi: the evidence"), and fits all of it: the two output lines, even totals (2 per
loop), ops/sec = total / 30 truncated, "cpus" = online CPUs. Numbers from it
are not guaranteed comparable with the 2013 program's.

--threads threads (default: online CPUs) work on one array of --sems
semaphores (default: online CPUs / 4, at least 1), all set to 200 with one
SETALL. All threads are created first and released together (mutex and
condition variable countdown, one broadcast). Thread i then loops until a run
flag clears: semop +1, then semop -1 on semaphore (i mod sems), one
operation each, sem_flg 0, adding 2 to its own cache-line padded counter. The
+1 comes first, so no decrement ever sleeps: the test hammers the array's
locks and sem_otime, not the scheduler. Main sleeps for --duration (the
original: 30 s, fixed), clears the flag, joins the threads and removes the
array. --pin pins thread i to the i-th allowed CPU (mod their count).

ops_per_sec is what the original printed: total / nominal seconds,
truncated, although the measured interval is a sleep, not a clock difference.
ops_per_sec_real divides by the real elapsed time (CLOCK_MONOTONIC, gate
release to last join). The per-thread counts are kept as series
ops_per_thread, with Jain's fairness index and the min/max ratio as metrics.

The original took <threads> <semaphores> as positional arguments; so does
this. --format original prints its two lines; a duration that is not a whole
number of seconds is printed with a fraction (the original could not run one).

The set's id is reported to contend before anything is timed: if the
repetition dies, contend removes the set. Default --timeout: twice the
duration plus a minute plus 10 ms per thread.

The defaults follow the machine: one thread per online CPU
(sysconf(_SC_NPROCESSORS_ONLN), the "cpus" the original printed) at 2 CPUs
as at 512, a quarter as many semaphores. Under taskset or a cpuset the
threads may outnumber the CPUs they may use (the oversubscription warning
says so).`,
	Positional: []string{"threads", "sems"},
	Metrics: []Metric{
		{Name: "ops_per_sec", Unit: "ops/s", Better: Higher, Desc: "as the original printed: total / nominal seconds, truncated"},
		{Name: "ops_per_sec_real", Unit: "ops/s", Better: Higher, Desc: "total / real elapsed time (monotonic, release to last join)"},
		{Name: "ops", Unit: "count", Better: Higher, Desc: "total semops of all threads (2 per loop)"},
		{Name: "elapsed", Unit: "ns", Better: Either, Desc: "real time from the gate's release to the last join"},
		{Name: "jain", Unit: "ratio", Better: Higher, Desc: "Jain's fairness index of the per-thread counts (1 = fair, 1/threads = one thread did all)"},
		{Name: "min_max", Unit: "ratio", Better: Higher, Desc: "smallest per-thread count / largest"},
		{Name: "cpus", Unit: "count", Better: Either, Desc: "online CPUs, as the original printed"},
	},
	Primary: "ops_per_sec",
	Output: &Output{
		Preset: "semop-multi",
		Desc:   "semop-multi: \"total operations: N, ops/sec M\"",
		Metrics: []OutputMetric{
			{"ops_per_sec", `(?m)^total operations: \d+, ops/sec (\d+)\s*$`, "ops/s", Higher, "semop-multi's ops/sec (total / nominal duration, truncated)"},
			{"ops", `(?m)^total operations: (\d+), ops/sec \d+\s*$`, "count", Higher, "semop-multi's total operations (2 per +1/-1 pair)"},
		},
		Primary: "ops_per_sec",
	},
	Quick: []string{"--threads", "2", "--sems", "1", "--duration", "150ms"},
	Throughput: &Throughput{
		Unit: "ops/s",
		Desc: "semops of all threads per second of real elapsed time",
		Of: func(_ Values, m map[string]float64) (float64, bool) {
			x, ok := m["ops_per_sec_real"]
			return x, ok && x > 0
		},
	},
	// Threads beyond the CPUs are time-sliced: with semops that never
	// sleep, they add no concurrency.
	OversubscribeWarn: true,
	Funcs: Typed[bind.SemopMultiParams]{
		Check:    checkSemopMulti,
		Run:      runSemopMulti,
		Original: originalSemopMulti,
		SemSet:   func(p *bind.SemopMultiParams) int { return int(p.Sems) },
		Timeout: func(p *bind.SemopMultiParams) time.Duration {
			return 2*p.DurationNs.Duration() + time.Minute + time.Duration(p.Threads)*10*time.Millisecond
		},
		Defaults: map[string]DynamicDefault{
			"threads": {Text: "online CPUs", Func: func(Values) string { return strconv.Itoa(onlineCPUs()) }},
			"sems":    {Text: "CPUs/4, min 1", Func: func(Values) string { return strconv.Itoa(max(onlineCPUs()/4, 1)) }},
		},
	},
}

func init() { Register(SemopMulti) }

func checkSemopMulti(p *bind.SemopMultiParams, m limits.Machine) ([]string, error) {
	threads, sems := int64(p.Threads), int64(p.Sems)
	warns, err := checkThreads("threads", threads, m.ThreadStack, m)
	if err != nil {
		return nil, err
	}
	if err := m.CheckSemSet("sems", sems, sems); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	// Every thread sharing a semaphore may have added its 1 at once.
	perSem := (threads + sems - 1) / sems
	if m.SemVMX > 0 && semopMultiInit+perSem > m.SemVMX {
		return nil, Usagef("--threads: %d threads on %d semaphores put up to %d on one semaphore, above SEMVMX = %d (the kernel's largest semaphore value, a compile-time constant); accepted: at most %d threads per semaphore",
			threads, sems, semopMultiInit+perSem, m.SemVMX, m.SemVMX-semopMultiInit)
	}
	if sems > threads {
		warns = append(warns, fmt.Sprintf("--sems %d is more than --threads %d: %s never used", sems, threads, plural.N(int(sems-threads), "semaphore is", "semaphores are")))
	}
	if p.Pin.True() && m.CPUs > 0 && threads > int64(m.CPUs) {
		warns = append(warns, fmt.Sprintf("--pin with %d threads on %s: several threads share each CPU", threads, plural.N(m.CPUs, "CPU", "CPUs")))
	}
	return warns, nil
}

func runSemopMulti(p *bind.SemopMultiParams, rt Runtime) (Sample, error) {
	p.ReportFD, p.SemKey, p.Inject = int32(rt.ReportFD), int32(rt.SemKey), testInject()
	r, err := bind.SemopMulti(*p)
	if err != nil {
		return Sample{}, err
	}
	counts := make([]float64, len(r.PerThread))
	for i, c := range r.PerThread {
		counts[i] = float64(c)
	}
	fair := analysis.FairnessOf(counts)
	jain, minMax := fair.Jain, fair.MinMax
	s := Sample{
		Metrics: map[string]float64{
			"ops":              float64(r.TotalOps),
			"ops_per_sec":      float64(nominalRate(r.TotalOps, r.NominalNs)),
			"ops_per_sec_real": float64(r.TotalOps) / (float64(r.ElapsedNs) / 1e9),
			"elapsed":          float64(r.ElapsedNs),
			"jain":             jain,
			"min_max":          minMax,
			"cpus":             float64(r.CPUs),
		},
		Series: map[string][]float64{"ops_per_thread": counts},
	}
	if p.Pin.True() {
		s.Notes = append(s.Notes, "threads pinned to CPUs")
	}
	return s, nil
}

// nominalRate is the original's ops/sec: total / nominal seconds, truncated.
func nominalRate(total, nominalNs uint64) uint64 {
	if nominalNs == 0 {
		return 0
	}
	if nominalNs%uint64(time.Second) == 0 {
		return total / (nominalNs / uint64(time.Second))
	}
	return uint64(math.Floor(float64(total) / (float64(nominalNs) / 1e9)))
}

func originalSemopMulti(p *bind.SemopMultiParams, s Sample, _ map[string]float64) []string {
	d := p.DurationNs.Duration()
	secs := strconv.FormatInt(int64(d/time.Second), 10)
	if d%time.Second != 0 {
		secs = strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	}
	return []string{
		fmt.Sprintf("cpus %d, threads: %d, semaphores: %d, test duration: %s secs", int64(s.Metrics["cpus"]), p.Threads, p.Sems, secs),
		fmt.Sprintf("total operations: %d, ops/sec %d", int64(s.Metrics["ops"]), int64(s.Metrics["ops_per_sec"])),
	}
}

// onlineCPUs is sysconf(_SC_NPROCESSORS_ONLN), as the original used:
// the CPUs in /sys/devices/system/cpu/online, else Go's count.
func onlineCPUs() int {
	if l, err := cpuset.Online("/"); err == nil {
		return len(l)
	}
	return runtime.NumCPU()
}
