package workload

import (
	"fmt"
	"math"
	"sort"
	"time"

	"contend/analysis"
	"contend/bind"
	"contend/internal/limits"
)

// SysbenchMutex is `sysbench mutex run` as Debian's sysbench 1.0.20 does
// it. Its hot loop is native/sysbench_mutex.c, its binding
// bind/sysbench_mutex.go.
var SysbenchMutex = &Workload{
	Name:       "sysbench-mutex",
	Summary:    "sysbench 1.0.20's mutex test, as Debian ships it",
	Provenance: "sysbench (Alexey Kopytov, MySQL AB), mutex test, as shipped in Debian's sysbench 1.0.20; the ancestor of Xiao Guangrong's test-mutex (2010)",
	Doc: `Reproduces 'sysbench mutex run' of sysbench 1.0.20 with its options and
defaults. --mutex-num mutexes (default attributes), each padded with 256
bytes, in one array. Each of --threads threads runs one event of --mutex-locks
iterations: pick a mutex at random, run an empty loop of --mutex-loops
iterations (it survives compilation in the shipped binary: about one cycle
per iteration), lock the mutex, increment one unsigned int shared by all
threads, unlock. The shared increment is a data race when two threads hold
different mutexes, as in sysbench: lost_updates counts what it lost.

"total time" runs from the moment all threads and main have reached the start
barrier to the last join, as sysbench's; each thread times its own event
(sysbench's per-thread "execution time", reported as threads fairness:
avg/stddev). Whole-process real/user/sys are recorded besides.

--rand thread (default) picks the mutex as 1.0.20 does: a per-thread
xoroshiro128+ seeded from random(), scaled through a double. --rand libc uses
glibc rand() % mutex-num, as sysbench 0.4 (2010) did: rand() takes a
process-wide lock, so all threads also serialize on libc's lock. (In 0.4 the
empty loop incremented an unused local and was most likely removed by the
compiler: add --mutex-loops 0 to model that.)

--format original prints sysbench's report for the run in its layout
("General statistics:", "total time:", "Latency (ms):", "Threads fairness:"),
so scripts that parse sysbench's output parse contend's.`,
	Metrics: []Metric{
		{Name: "total_time", Unit: "ns", Better: Lower, Desc: "sysbench's total time: all threads at the start barrier to the last join"},
		{Name: "thread_time_avg", Unit: "ns", Better: Lower, Desc: "mean of the threads' event times (fairness avg)"},
		{Name: "thread_time_stddev", Unit: "ns", Better: Lower, Desc: "population stddev of the threads' event times (fairness stddev)"},
		{Name: "thread_time_min", Unit: "ns", Better: Either, Desc: "fastest thread's event time"},
		{Name: "thread_time_max", Unit: "ns", Better: Lower, Desc: "slowest thread's event time"},
		{Name: "events", Unit: "count", Better: Either, Desc: "events run (one per thread, as sysbench)"},
		{Name: "global_var", Unit: "count", Better: Either, Desc: "the shared counter after the run"},
		{Name: "lost_updates", Unit: "count", Better: Either, Desc: "threads x mutex-locks - global_var: increments lost to the data race"},
		{Name: "stack_honoured", Unit: "count", Better: Either, Desc: "1 when --thread-stack-size was used, 0 when refused"},
	},
	Primary: "total_time",
	Output: &Output{
		Preset: "sysbench",
		Desc:   "sysbench (0.4 and 1.x) report: total time, events and the thread-fairness lines",
		Metrics: []OutputMetric{
			{"total_time", `(?m)^\s*total time:\s+(\d+(?:\.\d+)?)s\s*$`, "s", Lower, "sysbench's total time"},
			{"events", `(?m)^\s*total number of events:\s+(\d+)\s*$`, "count", Either, "sysbench's total number of events"},
			{"events_avg", `(?m)^\s*events \(avg/stddev\):\s+(\d+(?:\.\d+)?)/\d+(?:\.\d+)?\s*$`, "count", Either, "fairness: events per thread, mean"},
			{"events_stddev", `(?m)^\s*events \(avg/stddev\):\s+\d+(?:\.\d+)?/(\d+(?:\.\d+)?)\s*$`, "count", Lower, "fairness: events per thread, standard deviation"},
			{"thread_time_avg", `(?m)^\s*execution time \(avg/stddev\):\s+(\d+(?:\.\d+)?)/\d+(?:\.\d+)?\s*$`, "s", Lower, "fairness: execution time per thread, mean"},
			{"thread_time_stddev", `(?m)^\s*execution time \(avg/stddev\):\s+\d+(?:\.\d+)?/(\d+(?:\.\d+)?)\s*$`, "s", Lower, "fairness: execution time per thread, standard deviation"},
		},
		Primary: "total_time",
	},
	Quick: []string{"--threads", "4", "--mutex-locks", "20000"},
	Throughput: PerSecond("locks/s", "lock/unlock pairs of all threads per second of sysbench's total time", "total_time",
		func(p *bind.SysbenchMutexParams, _ map[string]float64) float64 {
			return float64(p.Threads) * float64(p.MutexLocks)
		}),
	Funcs: Typed[bind.SysbenchMutexParams]{
		Check:    checkSysbenchMutex,
		Run:      runSysbenchMutex,
		Original: originalSysbenchMutex,
		Timeout: func(p *bind.SysbenchMutexParams) time.Duration {
			// Generous: the empty loop takes well under 1 ns per iteration,
			// a contended libc rand() and lock a few microseconds.
			iters := float64(p.Threads) * float64(p.MutexLocks)
			per := float64(p.MutexLoops)*float64(time.Nanosecond) + 10*float64(time.Microsecond)
			return 2*time.Minute + time.Duration(iters*per) + time.Duration(p.Threads)*time.Millisecond
		},
	},
}

func init() { Register(SysbenchMutex) }

func checkSysbenchMutex(p *bind.SysbenchMutexParams, m limits.Machine) ([]string, error) {
	threads := int64(p.Threads)
	if err := m.CheckTasks("threads", threads); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	if err := checkStack("thread-stack-size", int64(p.Stack), threads, m); err != nil {
		return nil, err
	}
	warns, err := checkThreads("threads", threads, int64(p.Stack), m)
	if err != nil {
		return nil, err
	}
	need := int64(p.MutexNum) * 296
	if m.MemAvailable > 0 && need > m.MemAvailable {
		return nil, Usagef("--mutex-num: %d padded mutexes need %s, more than the available memory (%s)", p.MutexNum, FormatSize(need), FormatSize(m.MemAvailable))
	}
	return warns, nil
}

func runSysbenchMutex(p *bind.SysbenchMutexParams, rt Runtime) (Sample, error) {
	threads, locks := int64(p.Threads), int64(p.MutexLocks)
	p.ReportFD = int32(rt.ReportFD)
	r, err := bind.SysbenchMutex(*p)
	if err != nil {
		return Sample{}, err
	}
	// The shared counter is an unsigned int, as sysbench's: it can be
	// checked when threads x locks fits in it.
	want := uint64(threads) * uint64(locks)
	fits := want <= math.MaxUint32
	if fits && (r.GlobalVar > want || (p.MutexNum == 1 && r.GlobalVar != want)) {
		return Sample{}, fmt.Errorf("sysbench-mutex: the shared counter ended at %d, expected %d: the run did not do its work", r.GlobalVar, want)
	}
	ts := make([]float64, len(r.ThreadNs))
	for i, x := range r.ThreadNs {
		ts[i] = float64(x)
	}
	fair := analysis.FairnessOf(ts)
	avg, sd, lo, hi := fair.Mean, fair.PopStdDev, fair.Min, fair.Max
	s := Sample{
		Metrics: map[string]float64{
			"total_time":         float64(r.TotalNs),
			"thread_time_avg":    avg,
			"thread_time_stddev": sd,
			"thread_time_min":    lo,
			"thread_time_max":    hi,
			"events":             float64(len(ts)),
			"global_var":         float64(r.GlobalVar),
			"stack_honoured":     0,
		},
		Series: map[string][]float64{"thread_time": ts},
	}
	if fits {
		s.Metrics["lost_updates"] = float64(want - r.GlobalVar)
	}
	if r.StackHonoured {
		s.Metrics["stack_honoured"] = 1
	} else {
		s.Notes = append(s.Notes, stackNote(int64(p.Stack), r.StackErr, r.StackActual))
	}
	return s, nil
}

// sysbenchPercentile returns the pct percentile of latencies (ms) the way
// sysbench 1.0 reports it: from a histogram of 1024 logarithmic buckets
// between 0.001 ms and 100000 ms, as the value of the bucket where the
// cumulative count reaches round(n * pct / 100).
func sysbenchPercentile(ms []float64, pct float64) float64 {
	const size = 1024
	deduct := math.Log(0.001)
	mult := (size - 1) / (math.Log(100000) - deduct)
	var buckets [size]uint64
	for _, x := range ms {
		i := int(math.Floor((math.Log(x)-deduct)*mult + 0.5))
		i = min(max(i, 0), size-1)
		buckets[i]++
	}
	nmax := uint64(math.Floor(float64(len(ms))*pct/100 + 0.5))
	var cur uint64
	n := 0
	for n = 0; n < size; n++ {
		cur += buckets[n]
		if cur >= nmax {
			break
		}
	}
	return math.Exp(float64(n)/mult + deduct)
}

func originalSysbenchMutex(p *bind.SysbenchMutexParams, s Sample, _ map[string]float64) []string {
	ts := append([]float64(nil), s.Series["thread_time"]...)
	sort.Float64s(ts)
	nthreads := float64(p.Threads)
	events := s.Metrics["events"]
	var sumMs float64
	ms := make([]float64, len(ts))
	for i, x := range ts {
		ms[i] = x / 1e6
		sumMs += ms[i]
	}
	minMs, maxMs, avgMs := 0.0, 0.0, 0.0
	if len(ms) > 0 {
		minMs, maxMs, avgMs = ms[0], ms[len(ms)-1], sumMs/float64(len(ms))
	}
	// Each thread runs one event: the spread of events is zero, the
	// spread of execution time that of the threads' times.
	evAvg := events / nthreads
	var evSD float64
	timeAvg := sumMs / 1000 / nthreads
	var timeSD float64
	for _, x := range ms {
		d := x/1000 - timeAvg
		timeSD += d * d
		d = 1 - evAvg
		evSD += d * d
	}
	evSD = math.Sqrt(evSD / nthreads)
	timeSD = math.Sqrt(timeSD / nthreads)
	seedLine := "Initializing random number generator from current time"
	if seed := p.Seed; seed != 0 {
		seedLine = fmt.Sprintf("Initializing random number generator from seed (%d).", seed)
	}
	return []string{
		"Running the test with following options:",
		fmt.Sprintf("Number of threads: %d", p.Threads),
		seedLine,
		"",
		"",
		"Initializing worker threads...",
		"",
		"Threads started!",
		"",
		"",
		"General statistics:",
		fmt.Sprintf("    total time:                          %.4fs", s.Metrics["total_time"]/1e9),
		fmt.Sprintf("    total number of events:              %d", int64(events)),
		"",
		"Latency (ms):",
		fmt.Sprintf("         min: %39.2f", minMs),
		fmt.Sprintf("         avg: %39.2f", avgMs),
		fmt.Sprintf("         max: %39.2f", maxMs),
		fmt.Sprintf("        %3dth percentile: %27.2f", 95, sysbenchPercentile(ms, 95)),
		fmt.Sprintf("         sum: %39.2f", sumMs),
		"",
		"Threads fairness:",
		fmt.Sprintf("    events (avg/stddev):           %.4f/%3.2f", evAvg, evSD),
		fmt.Sprintf("    execution time (avg/stddev):   %.4f/%3.2f", timeAvg, timeSD),
		"",
	}
}
